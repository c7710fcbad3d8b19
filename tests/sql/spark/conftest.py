"""Run Spark SQL through the rewrite rules of ``icesql.sql.spark`` and let DuckDB answer.

``spark_rules(sql)`` is the DuckDB text of a Spark statement after the binding pass recorded
its argument types and the Spark-semantics rules ran; ``duck_answer(sql)`` runs that text in a
fresh DuckDB connection (time zone UTC, as the engine's) and returns the rows
(``duck_named_answer``: the column names and the rows). ``tables`` are
``name -> (Spark column types, rows)``, created in DuckDB and shown to the binder with their
Spark types, so rules that read a column's type see it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import duckdb
import pytest
from sqlglot import exp

from icesql.spec.schema import Schema
from icesql.spec.types import NestedField
from icesql.sql.bound_query import TableSource, bind_query
from icesql.sql.dialect import parse_one
from icesql.sql.spark_types import iceberg_type
from icesql.sql.translate import to_duckdb_sql

Tables = Mapping[str, tuple[Mapping[str, str], Sequence[tuple]]]


def _source(columns: Mapping[str, str]) -> TableSource:
    fields = tuple(
        NestedField(i + 1, name, iceberg_type(exp.DataType.build(t, dialect="spark")))
        for i, (name, t) in enumerate(columns.items())
    )
    return TableSource(Schema(fields), dict(columns))


def rewrite(sql: str, tables: Tables | None = None) -> str:
    statement = parse_one(sql)
    bind_query(statement, {name: _source(cols) for name, (cols, _) in (tables or {}).items()})
    return to_duckdb_sql(statement, [])[0]


def answer(sql: str, tables: Tables | None = None) -> list[tuple]:
    return named_answer(sql, tables)[1]


def named_answer(sql: str, tables: Tables | None = None) -> tuple[list[str], list[tuple]]:
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        for name, (columns, rows) in (tables or {}).items():
            duck_types = {
                c: exp.DataType.build(t, dialect="spark").sql("duckdb") for c, t in columns.items()
            }
            con.execute(
                f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in duck_types.items())})"
            )
            for row in rows:
                con.execute(f"INSERT INTO {name} VALUES ({', '.join('?' for _ in row)})", list(row))
        cursor = con.execute(rewrite(sql, tables))
        rows = cursor.fetchall()
        return [d[0] for d in cursor.description], rows
    finally:
        con.close()


@pytest.fixture
def spark_rules() -> Callable[..., str]:
    return rewrite


@pytest.fixture
def duck_answer() -> Callable[..., list[tuple]]:
    return answer


@pytest.fixture
def duck_named_answer() -> Callable[..., tuple[list[str], list[tuple]]]:
    return named_answer
