"""``SET spark.sql.groupByAliases=false``: a GROUP BY name only an alias gives is Spark's
unresolved column (Spark 3.5.8 raises UNRESOLVED_COLUMN for it); input columns still group."""

from __future__ import annotations

import pytest

import icesql
from icesql.sql.group_by_aliases import alias_references


@pytest.fixture
def con(tmp_path):
    with icesql.connect(str(tmp_path)) as connection:
        connection.execute(
            "CREATE TEMPORARY VIEW td AS SELECT * FROM VALUES (1, 2), (1, 3), (2, 4) AS td(a, b)"
        )
        yield connection


def test_an_alias_in_group_by_is_unresolved_when_the_setting_is_false(con):
    query = "SELECT a AS k, count(b) FROM td GROUP BY k ORDER BY k"
    assert con.execute(query).fetchall() == [(1, 2), (2, 1)]
    con.execute("SET spark.sql.groupByAliases=false")
    with pytest.raises(icesql.ProgrammingError, match=r"UNRESOLVED_COLUMN.*`k`.*\[`a`, `b`\]"):
        con.execute(query)
    assert con.execute("SELECT a, count(b) FROM td GROUP BY a ORDER BY a").fetchall() == [
        (1, 2),
        (2, 1),
    ]
    # HAVING may still name an alias
    assert con.execute("SELECT a, count(b) c FROM td GROUP BY a HAVING c > 1").fetchall() == [
        (1, 2)
    ]
    con.execute("SET spark.sql.groupByAliases=true")
    assert con.execute(query).fetchall() == [(1, 2), (2, 1)]


def test_an_input_column_of_the_same_name_is_no_alias_reference():
    import sqlglot

    q = sqlglot.parse_one("SELECT a AS b, count(*) FROM t GROUP BY b", read="spark")
    assert alias_references(q, {"t": ["a", "b"]}) == []
    sub = sqlglot.parse_one(
        "SELECT * FROM (SELECT a + 1 AS k FROM t GROUP BY k) s GROUP BY k", read="spark"
    )
    assert alias_references(sub, {"t": ["a"]}) == ["k"]
