"""A bare ``current_date`` (``current_timestamp``, ``current_user``) names a column of that
name when a source has one, and the function otherwise.

Every expected row is Spark 3.5.8's answer to the same query.
"""

from __future__ import annotations

import pytest

import icesql


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    with icesql.connect(str(tmp_path_factory.mktemp("wh"))) as connection:
        yield connection


@pytest.mark.parametrize(
    "query, rows",
    [
        (
            "SELECT typeof(current_date), typeof(current_timestamp), current_user,"
            " typeof(current_date()) FROM VALUES (1, 2, 'u')"
            " AS t(current_date, current_timestamp, current_user)",
            [("int", "int", "u", "date")],
        ),
        ("SELECT typeof(current_date) FROM (SELECT 1 AS current_date)", [("int",)]),
        (
            "SELECT typeof(current_date), typeof(current_timestamp()) FROM VALUES (1) AS t(a)",
            [("date", "timestamp")],
        ),
    ],
)
def test_spark_answer(con, query, rows):
    assert [tuple(r) for r in con.execute(query).fetchall()] == rows


def test_a_table_column_wins(con):
    con.execute("CREATE TABLE default.dates (current_date INT) USING iceberg")
    con.execute("INSERT INTO default.dates VALUES (7)")
    rows = con.execute("SELECT current_date, typeof(current_date) FROM default.dates").fetchall()
    assert [tuple(r) for r in rows] == [(7, "int")]
