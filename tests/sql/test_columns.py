"""The columns each scan reads, as the binding pass reads them from the qualified tree
(``icesql.sql.columns.used_columns``)."""

from __future__ import annotations

import pytest

from icesql.spec.schema import Schema
from icesql.spec.types import IntegerType, NestedField
from icesql.sql.bound_query import TableSource, bind_query
from icesql.sql.dialect import parse_one

SCHEMAS = {"v1": ["a", "b", "c", "s", "arr"], "v2": ["a", "z", "w"]}
SOURCES = {
    view: TableSource(Schema(tuple(NestedField(i, c, IntegerType()) for i, c in enumerate(cols))))
    for view, cols in SCHEMAS.items()
}


def used_columns(sql: str) -> dict[str, set[str]] | None:
    tables = bind_query(parse_one(sql), SOURCES).tables
    if any(t.columns is None for t in tables.values()):
        return None
    return {view: set(t.columns) for view, t in tables.items()}


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
        # a PIVOT groups by the columns it does not name, an UNPIVOT keeps them
        ("select a from v1 pivot (sum(b) for c in (1, 2))", set(SCHEMAS["v1"]), set()),
        ("select * from v1 unpivot (v for k in (a, b))", set(SCHEMAS["v1"]), set()),
    ],
)
def test_used_columns(sql, v1, v2):
    assert used_columns(sql) == {"v1": v1, "v2": v2}


def test_unresolvable_column_means_read_everything():
    assert used_columns("select nope from v1") is None
