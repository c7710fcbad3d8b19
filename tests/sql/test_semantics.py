"""Spark's answers for functions whose plain DuckDB translation answers differently."""

import datetime

import pytest

import icesql


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    with icesql.connect(str(tmp_path_factory.mktemp("wh"))) as connection:
        yield connection


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("dayofweek(DATE '2024-01-07')", 1),  # a Sunday
        ("dayofweek(DATE '2024-01-13')", 7),
        ("weekday(DATE '2024-01-07')", 6),
        ("weekday(DATE '2024-01-08')", 0),
        ("size(CAST(NULL AS ARRAY<INT>))", -1),
        ("size(array(1, 2, 3))", 3),
        ("size(map('a', 1, 'b', 2))", 2),
        ("substring('hello', 0, 2)", "he"),
        ("substring('hello', 1, 2)", "he"),
        ("substr('hello', -3, 2)", "ll"),
        ("CAST(1.9 AS INT)", 1),
        ("CAST(-1.9 AS INT)", -1),
        ("CAST(CAST(2.75 AS DOUBLE) AS BIGINT)", 2),
        ("CAST('1.9' AS INT)", 1),
        ("CAST('abc' AS INT)", None),
        ("date_add(DATE '2024-02-28', 2)", datetime.date(2024, 3, 1)),
        ("add_months(DATE '2024-01-31', 1)", datetime.date(2024, 2, 29)),
        ("trunc(DATE '2024-05-17', 'YY')", datetime.date(2024, 1, 1)),
    ],
)
def test_spark_answer(con, expr, spark_answer):
    assert con.execute(f"SELECT {expr}").fetchone() == (spark_answer,)


def test_substring_with_computed_start_zero(con):
    cur = con.execute("SELECT substring('hello', p, 2) FROM range(0, 2) t(p) ORDER BY p")
    assert cur.fetchall() == [("he",), ("he",)]


def test_cast_of_double_column_truncates(con):
    cur = con.execute("SELECT CAST(x AS INT) FROM VALUES (1.5D), (-2.5D), (2.9D) AS t(x)")
    assert sorted(cur.fetchall()) == [(-2,), (1,), (2,)]


def test_functions_without_a_faithful_translation_are_refused(con):
    with pytest.raises(icesql.NotSupportedError, match="hash"):
        con.execute("SELECT hash(1)")
