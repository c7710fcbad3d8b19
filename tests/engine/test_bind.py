"""Binding puts each table's scan or view in its place (``icesql.engine.bind``): the clauses
sqlglot hangs on the table node go with it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import icesql

ROWS = "('dotNET', 2012, 10000), ('Java', 2012, 20000), ('dotNET', 2012, 5000), ('dotNET', 2013, 48000), ('Java', 2013, 30000)"


@pytest.fixture(scope="module")
def con(tmp_path_factory) -> Iterator[icesql.Connection]:
    connection = icesql.connect(str(tmp_path_factory.mktemp("warehouse")))
    connection.execute("CREATE TABLE db.cs (course STRING, year INT, earnings INT)")
    connection.execute(f"INSERT INTO db.cs VALUES {ROWS}")
    connection.execute(
        f"CREATE TEMPORARY VIEW v AS SELECT * FROM VALUES {ROWS} AS v(course, year, earnings)"
    )
    yield connection
    connection.close()


def answer(con: icesql.Connection, sql: str) -> tuple[list[str], list[tuple]]:
    cursor = con.execute(sql)
    return [d[0] for d in cursor.description], sorted(cursor.fetchall())


# Spark 3.5.8's answers
PIVOTED = (["course", "2012", "2013"], [("Java", 20000, 30000), ("dotNET", 15000, 48000)])


@pytest.mark.parametrize(
    "source", ["db.cs", "v", "(SELECT * FROM db.cs)", "db.cs c", "v AS c"], ids=str
)
def test_a_pivot_on_a_table_or_view_pivots_its_rows(con, source):
    sql = f"SELECT * FROM {source} PIVOT (sum(earnings) FOR year IN (2012, 2013))"
    assert answer(con, sql) == PIVOTED


def test_a_pivot_on_a_cte_name(con):
    sql = "WITH c AS (SELECT * FROM db.cs) SELECT * FROM c PIVOT (sum(earnings) FOR year IN (2012, 2013))"
    assert answer(con, sql) == PIVOTED


def test_a_pivot_with_aliased_aggregates_and_values(con):
    sql = "SELECT * FROM db.cs PIVOT (sum(earnings) AS s, avg(earnings) FOR year IN (2012 AS x, 2013))"
    assert answer(con, sql) == (  # Spark 3.5.8's answer
        ["course", "x_s", "x_avg(earnings)", "2013_s", "2013_avg(earnings)"],
        [("Java", 20000, 20000.0, 30000, 30000.0), ("dotNET", 15000, 7500.0, 48000, 48000.0)],
    )


@pytest.mark.parametrize("source", ["db.cs", "v"])
def test_an_unpivot_on_a_table_or_view(con, source):
    sql = f"SELECT * FROM {source} UNPIVOT (v FOR k IN (year AS y, earnings)) WHERE k = 'y'"
    assert answer(con, sql) == (  # Spark 3.5.8's answer
        ["course", "k", "v"],
        [("Java", "y", 2012), ("Java", "y", 2013), ("dotNET", "y", 2012), ("dotNET", "y", 2012),
         ("dotNET", "y", 2013)],
    )  # fmt: skip


def test_a_sample_of_rows_on_a_table(con):
    assert answer(con, "SELECT count(*) FROM db.cs TABLESAMPLE (2 ROWS)")[1] == [(2,)]
