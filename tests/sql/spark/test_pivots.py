"""Spark's PIVOT and UNPIVOT through icesql: Spark's column names, a count of no rows NULL
in a numeric pivot, an UNPIVOT of several values dropping only all-NULL rows.

Each answer is Spark 3.5.8's, checked against a real session.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import icesql
from icesql.errors import NotSupportedError

ROWS = "('dotNET', 2012, 10000), ('Java', 2012, 20000), ('dotNET', 2012, 5000), ('dotNET', 2013, 48000), ('Java', 2013, 30000)"


@pytest.fixture(scope="module")
def con(tmp_path_factory) -> Iterator[icesql.Connection]:
    connection = icesql.connect(str(tmp_path_factory.mktemp("warehouse")))
    connection.execute("CREATE TABLE db.cs (course STRING, year INT, earnings INT)")
    connection.execute(f"INSERT INTO db.cs VALUES {ROWS}")
    yield connection
    connection.close()


def answer(con: icesql.Connection, sql: str) -> tuple[list[str], list[tuple]]:
    cursor = con.execute(sql)
    return [d[0] for d in cursor.description], sorted(cursor.fetchall(), key=repr)


@pytest.mark.parametrize(
    "pivot, names",
    [
        ("sum(earnings) s FOR year IN (2012 y1, 2013)", ["course", "y1", "2013"]),
        (
            "sum(earnings), avg(earnings) FOR year IN (2012, 2013)",
            ["course", "2012_sum(earnings)", "2012_avg(earnings)", "2013_sum(earnings)",
             "2013_avg(earnings)"],
        ),
        ("sum(earnings) AS s FOR course IN ('dotNET' AS d, 'Java')", ["year", "d", "Java"]),
        ("sum(earnings) FOR (course, year) IN (('dotNET', 2012), ('Java', 2013) AS j)",
         ["{dotNET, 2012}", "j"]),
    ],
)  # fmt: skip
def test_the_columns_have_sparks_names(con, pivot, names):
    assert answer(con, f"SELECT * FROM db.cs PIVOT ({pivot})")[0] == names


def test_a_count_of_no_rows_is_null_in_a_numeric_pivot(con):
    sql = "SELECT * FROM db.cs PIVOT (count(*) FOR course IN ('dotNET', 'Java', NULL))"
    assert answer(con, sql) == (
        ["year", "earnings", "dotNET", "Java", "null"],
        [(2012, 10000, 1, None, None), (2012, 20000, None, 1, None), (2012, 5000, 1, None, None),
         (2013, 30000, None, 1, None), (2013, 48000, 1, None, None)],
    )  # fmt: skip
    sql = "SELECT * FROM db.cs PIVOT (count(DISTINCT earnings) FOR course IN ('dotNET', 'Scala'))"
    assert answer(con, sql)[1] == [(2012, 2, None), (2013, 1, None)]


def test_a_count_beside_a_string_aggregate_counts_no_rows_as_zero(con):
    sql = "SELECT * FROM db.cs PIVOT (count(earnings), max(course) FOR course IN ('Java', 'Scala'))"
    assert answer(con, sql) == (
        ["year", "Java_count(earnings)", "Java_max(course)", "Scala_count(earnings)",
         "Scala_max(course)"],
        [(2012, 1, "Java", 0, None), (2013, 1, "Java", 0, None)],
    )  # fmt: skip


def test_a_distinct_count_of_two_columns_in_a_pivot_is_refused(con):
    with pytest.raises(NotSupportedError, match="PIVOT"):
        con.execute(
            "SELECT * FROM db.cs PIVOT (count(DISTINCT year, earnings) FOR course IN ('x'))"
        )


VALUES = "VALUES ('a', 1, NULL, 2, 3), ('b', NULL, NULL, 4, NULL) AS t(k, x1, y1, x2, y2)"


@pytest.mark.parametrize(
    "nulls, rows",
    [
        ("", [("a", "one", 1, None), ("a", "two", 2, 3), ("b", "two", 4, None)]),
        ("INCLUDE NULLS", [("a", "one", 1, None), ("a", "two", 2, 3), ("b", "one", None, None),
                           ("b", "two", 4, None)]),
    ],
)  # fmt: skip
def test_an_unpivot_of_two_values_drops_only_rows_of_nulls(con, nulls, rows):
    sql = f"SELECT * FROM {VALUES} UNPIVOT {nulls} ((x, y) FOR n IN ((x1, y1) AS one, (x2, y2) AS two))"
    assert answer(con, sql) == (["k", "n", "x", "y"], sorted(rows, key=repr))
