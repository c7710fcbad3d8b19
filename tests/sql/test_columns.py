import pytest

from icesql.sql.columns import used_columns
from icesql.sql.dialect import DIALECT, parse_one

SCHEMAS = {"v1": ["a", "b", "c", "s", "arr"], "v2": ["a", "z", "w"]}


@pytest.mark.parametrize(
    "sql, v1, v2",
    [
        ("select a from v1 t where b > 1", {"a", "b"}, set()),
        ("select count(*) from v1", set(), set()),
        ("select * from v1 x join v2 y on x.a = y.a", set(SCHEMAS["v1"]), set(SCHEMAS["v2"])),
        ("select s.f, arr[0] from v1", {"s", "arr"}, set()),
        ("with c as (select a, b from v1) select a from c", {"a", "b"}, set()),
        ("select a, (select max(z) from v2 where v2.a = v1.a) from v1", {"a"}, {"a", "z"}),
        ("select t.* from v1 t", set(SCHEMAS["v1"]), set()),
        ("select sum(a) over (partition by b order by c) from v1", {"a", "b", "c"}, set()),
    ],
)
def test_used_columns(sql, v1, v2):
    assert used_columns(parse_one(sql), SCHEMAS, DIALECT) == {"v1": v1, "v2": v2}


def test_unresolvable_column_means_read_everything():
    assert used_columns(parse_one("select nope from v1"), SCHEMAS, DIALECT) is None
