"""From the Spark AST to DuckDB SQL: table names read from the sources given in their place."""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.dialect import number_parameters, parse
from icesql.sql.translate import to_duckdb_sql


def _source(sql: str) -> exp.Expr:
    return exp.Var(this=sql)  # DuckDB text as the engine hands it: written out as it is


def test_sources_replace_their_tables_under_the_tables_alias():
    (statement,) = parse("SELECT a.x, b.y FROM v1 AS a JOIN v2 AS b ON a.x = b.y WHERE a.x = ?")
    number_parameters(statement)
    sql, values = to_duckdb_sql(statement, [7], {"v1": _source("SELECT 1 AS x")})
    assert sql == (
        "SELECT a.x, b.y FROM (SELECT 1 AS x) AS a JOIN v2 AS b ON a.x = b.y WHERE a.x = $1"
    )
    assert values == [7]


def test_a_source_keeps_column_aliases_and_serves_every_reference():
    (statement,) = parse("SELECT * FROM v AS t(c) UNION ALL SELECT * FROM v AS u")
    sql, _ = to_duckdb_sql(statement, [], {"v": _source("SELECT 1")})
    assert sql == "SELECT * FROM (SELECT 1) AS t(c) UNION ALL SELECT * FROM (SELECT 1) AS u"


def test_qualified_names_and_the_statement_are_left_alone():
    (statement,) = parse("SELECT * FROM db.v AS t")
    before = statement.sql()
    sql, _ = to_duckdb_sql(statement, [], {"v": _source("SELECT 1")})
    assert sql == "SELECT * FROM db.v AS t"
    assert statement.sql() == before
