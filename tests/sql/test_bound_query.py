"""The binding pass: one qualified (and, where read, typed) tree per query, and what the
readers take from it."""

from __future__ import annotations

import sys
from collections import Counter

import pytest
import sqlglot.optimizer.annotate_types
import sqlglot.optimizer.qualify

import icesql
from icesql.spec.schema import Schema
from icesql.spec.types import DoubleType, LongType, NestedField, StringType
from icesql.sql.bound_query import TableSource, bind_query
from icesql.sql.dialect import parse_one
from icesql.sql.spark.base import TYPES_KEY

S = Schema(
    (
        NestedField(1, "id", LongType()),
        NestedField(2, "name", StringType()),
        NestedField(3, "x", DoubleType()),
    )
)
TYPES = {"id": "bigint", "name": "string", "x": "double"}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """Counts sqlglot's ``qualify`` and ``annotate_types`` calls, wherever icesql imported them."""
    counter: Counter = Counter()
    for module, name in (
        (sqlglot.optimizer.qualify, "qualify"),
        (sqlglot.optimizer.annotate_types, "annotate_types"),
    ):
        original = getattr(module, name)

        def counting(*args, _original=original, _name=name, **kwargs):
            counter[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, counting)
        for loaded in list(sys.modules.values()):
            if (
                getattr(loaded, "__name__", "").startswith("icesql")
                and getattr(loaded, name, None) is original
            ):
                monkeypatch.setattr(loaded, name, counting)
    return counter


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    with icesql.connect(str(tmp_path_factory.mktemp("wh"))) as connection:
        connection.execute("CREATE TABLE db.t (id BIGINT, name STRING, x DOUBLE) USING iceberg")
        connection.execute("INSERT INTO db.t VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'a', 3.5)")
        yield connection


@pytest.mark.parametrize(
    "sql, rows",
    [
        (
            "SELECT name, count(*), sum(x) FROM db.t WHERE id > 1 GROUP BY name ORDER BY name",
            [("a", 1, 3.5), ("b", 1, 2.5)],
        ),
        (
            "WITH c AS (SELECT id, name FROM db.t WHERE x > 2) "
            "SELECT c.name, t.x FROM c JOIN db.t t ON c.id = t.id ORDER BY 1",
            [("a", 3.5), ("b", 2.5)],
        ),
        (
            "SELECT id, row_number() OVER (PARTITION BY name ORDER BY id DESC) FROM db.t ORDER BY id",
            [(1, 2), (2, 1), (3, 1)],
        ),
        ("SELECT id FROM db.t WHERE id IN (SELECT max(id) FROM db.t) ", [(3,)]),
        ("SELECT CAST(x AS INT), _pos FROM db.t ORDER BY 1", [(1, 0), (2, 1), (3, 2)]),
        ("SELECT id FROM db.t WHERE nope = 1 OR id = 1", None),  # unresolved: still one
    ],
)
def test_a_query_is_qualified_once(con, calls, sql, rows) -> None:
    if rows is None:
        with pytest.raises(icesql.ProgrammingError):
            con.execute(sql).fetchall()
    else:
        assert con.execute(sql).fetchall() == rows
    assert calls["qualify"] == 1, sql
    assert calls["annotate_types"] == (1 if "CAST" in sql else 0), sql


@pytest.mark.parametrize(
    "sql, annotated",
    [
        ("SELECT sum(x), avg(x) FROM db.t", 0),  # no DECIMAL can occur: no types needed
        ("SELECT sum(d), avg(d) FROM db.dec", 1),  # a DECIMAL column: Spark's result types
        ("SELECT sum(x * 1.5) FROM db.t", 1),  # 1.5 is a DECIMAL literal in Spark
        ("SELECT avg(CAST(x AS DECIMAL(9, 2))) FROM db.t", 1),
    ],
)
def test_types_are_inferred_for_sums_only_where_decimals_occur(con, calls, sql, annotated) -> None:
    con.execute("CREATE TABLE IF NOT EXISTS db.dec (d DECIMAL(9, 2)) USING iceberg")
    calls.clear()
    con.execute(sql).fetchall()
    assert calls["annotate_types"] == annotated, sql


def test_explain_is_qualified_once(con, calls) -> None:
    (plan,) = con.execute("EXPLAIN SELECT name FROM db.t WHERE id = 2").fetchone()
    assert "db.t" in plan
    assert calls["qualify"] == 1


def test_the_statement_itself_is_left_as_written() -> None:
    statement = parse_one("SELECT * FROM V WHERE Id > 1")
    before = statement.sql()
    bound = bind_query(statement, {"v": TableSource(S, TYPES)})
    assert statement.sql() == before  # DuckDB runs it: its names and stars stay as written
    assert bound.tree.sql() == (
        "SELECT v.id AS id, v.name AS name, v.x AS x FROM v AS v WHERE v.id > 1"
    )
    assert bound.resolved and bound.tables["v"].columns == {"id", "name", "x"}


def test_operand_types_are_recorded_on_the_statement_even_when_columns_do_not_resolve() -> None:
    statement = parse_one("SELECT CAST(x AS INT), nope FROM v WHERE id = 1")
    bound = bind_query(statement, {"v": TableSource(S, TYPES)})
    assert not bound.resolved
    assert bound.tables["v"].columns is None and bound.tables["v"].pushable == ()
    (cast,) = statement.find_all(sqlglot.exp.Cast)
    assert cast.meta[TYPES_KEY]["this"].this == sqlglot.exp.DataType.Type.DOUBLE


def test_conditions_keep_their_select() -> None:
    statement = parse_one("SELECT * FROM v WHERE id < 9 AND id IN (SELECT id FROM v WHERE x > 1)")
    pushable = bind_query(statement, {"v": TableSource(S)}).tables["v"].pushable
    assert [(p.scope, p.alias) for p in pushable] == [(0, "v"), (1, "v")]
    assert {p.condition.sql() for p in pushable} == {
        "v.x > 1",
        "v.id < 9 AND v.id IN (SELECT v.id AS id FROM v AS v WHERE v.x > 1)",
    }


def test_nothing_to_read_is_not_qualified(calls) -> None:
    bound = bind_query(parse_one("SELECT 1 + 1"), {})
    assert bound.tree is None and bound.tables == {}
    assert calls["qualify"] == 0


@pytest.mark.parametrize(
    "sql, types, annotated",
    [
        # Spark's sum of an integral operand is a BIGINT (DuckDB's a HUGEINT, a DECIMAL(38,0)
        # in Arrow), found without sqlglot's type inference when no DECIMAL can occur
        (
            "SELECT sum(id), sum(x), sum(id * 2 + id % 3), sum(DISTINCT id) FROM db.t",
            ["BIGINT", "DOUBLE", "BIGINT", "BIGINT"],
            0,
        ),
        ("SELECT sum(id) FILTER (WHERE x > 2), sum(x) FROM db.t", ["BIGINT", "DOUBLE"], 0),
        ("SELECT sum(id) OVER (ORDER BY id) FROM db.t", ["BIGINT"], 0),
        (
            "SELECT (SELECT sum(a.id) FROM db.t a), sum(CAST(x AS INT)) FROM db.t",
            ["BIGINT", "BIGINT"],
            1,
        ),  # the CAST's rule reads types
        # a subquery's or CTE's column of the same name is not the table's: left as it is
        ("SELECT sum(id) FROM (SELECT x AS id FROM db.t)", ["DOUBLE"], 0),
        ("WITH c AS (SELECT x AS id FROM db.t) SELECT sum(id) FROM c", ["DOUBLE"], 0),
        ("SELECT sum(id), sum(d) FROM db.t, db.dec", ["BIGINT", "DECIMAL(19,2)"], 1),
        ("SELECT id div 2, length(name) FROM db.t", ["BIGINT", "INT"], 1),  # div reads types
    ],
)
def test_result_types_are_sparks(con, calls, sql, types, annotated) -> None:
    con.execute("CREATE TABLE IF NOT EXISTS db.dec (d DECIMAL(9, 2)) USING iceberg")
    calls.clear()
    cur = con.execute(sql)
    cur.fetchall()
    assert [d[1] for d in cur.description] == types, sql
    assert calls["annotate_types"] == annotated, sql


def test_a_ctas_of_sums_has_sparks_column_types(con) -> None:
    con.execute("CREATE TABLE IF NOT EXISTS db.dec (d DECIMAL(9, 2)) USING iceberg")
    con.execute(
        "CREATE OR REPLACE TABLE db.totals AS SELECT sum(t.id) AS total,"
        " sum(d.d) AS amt_total, avg(d.d) AS amt_avg, max(t.id) div 2 AS half"
        " FROM db.t t, db.dec d"
    )
    assert [r[:2] for r in con.execute("DESCRIBE db.totals").fetchall()] == [
        ("total", "bigint"),
        ("amt_total", "decimal(19,2)"),
        ("amt_avg", "decimal(13,6)"),
        ("half", "bigint"),
    ]
