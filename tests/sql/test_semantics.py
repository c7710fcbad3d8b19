"""Spark's answers for functions whose plain DuckDB translation answers differently."""

import datetime
import decimal

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
        # Spark's answers, checked against Spark 3.5 (tests/interop/test_sql_compat.py)
        ("pmod(-7, 3)", 2),
        ("pmod(7, -3)", 1),
        ("pmod(-7, -3)", -1),
        ("pmod(-2.5D, 2)", 1.5),
        ("pmod(7, 0)", None),
        ("7 % 0", None),
        ("7 div 0", None),
        ("-7 div 2", -3),
        ("CAST(-2.345 AS DECIMAL(10, 3)) div 1", -2),
        ("CAST(10.000 AS DECIMAL(10, 3)) div 0.001", 10000),
        ("round(1.005D, 2)", 1.01),
        ("round(-2.675D, 2)", -2.68),
        ("round(2.5D)", 3.0),
        ("round(1234.5D, -2)", 1200.0),
        ("bround(2.5D, 0)", 2.0),
        ("bround(2.675D, 2)", 2.68),
        ("bround(CAST(2.345 AS DECIMAL(10, 3)), 2)", decimal.Decimal("2.34")),
        ("ln(0D)", None),
        ("log(2, -8D)", None),
        ("log10(100)", 2.0),
        ("isnan(CAST(NULL AS DOUBLE))", False),
        ("nanvl(CAST('NaN' AS DOUBLE), 1.5D)", 1.5),
        ("negative(-3)", 3),
        ("format_number(1234567.891D, 2)", "1,234,567.89"),
        ("format_number(0.125D, 2)", "0.12"),
        ("format_number(CAST(2.675 AS DECIMAL(5, 3)), 2)", "2.68"),
        ("format_number(9007199254740993L, 1)", "9,007,199,254,740,993.0"),
        ("format_number(CAST('NaN' AS DOUBLE), 2)", "NaN"),
        ("format_number(1.5D, -1)", None),
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


@pytest.mark.parametrize(
    "query, construct",
    [
        ("SELECT hash(1)", "hash"),
        ("SELECT format_number(1.5D, '#.##')", "format_number"),
        ("SELECT format_number(CAST(1 AS DECIMAL(20, 2)), 1)", "format_number"),
        ("SELECT to_char(1.5D, '999.99')", "ToChar"),  # sqlglot cannot translate it
    ],
)
def test_functions_without_a_faithful_translation_are_refused(con, query, construct):
    with pytest.raises(icesql.NotSupportedError, match=construct):
        con.execute(query)


@pytest.mark.parametrize(
    "query, names, rows",
    [
        ("SELECT * FROM range(3)", ["id"], [(0,), (1,), (2,)]),
        ("SELECT id FROM range(1, 3)", ["id"], [(1,), (2,)]),
        ("SELECT * FROM range(1, 10, 4, 2)", ["id"], [(1,), (5,), (9,)]),
        ("SELECT x FROM range(2) AS t(x)", ["x"], [(0,), (1,)]),
        ("SELECT t.id FROM range(2) t", ["id"], [(0,), (1,)]),
        ("SELECT * FROM range(2.5)", ["id"], [(0,), (1,)]),
        ("SELECT * FROM range(-1.5, 1)", ["id"], [(-1,), (0,)]),
    ],
)
def test_range_table_has_sparks_id_column(con, query, names, rows):
    cur = con.execute(query)
    assert [d[0] for d in cur.description] == names
    assert sorted(cur.fetchall()) == rows


@pytest.mark.parametrize(
    "query, message",
    [
        ("SELECT * FROM range(1, 5, 1, 0)", "positive number of partitions"),
        ("SELECT * FROM range(NULL)", "NULL"),
    ],
)
def test_range_table_refuses_what_spark_refuses(con, query, message):
    with pytest.raises(icesql.ProgrammingError, match=message):
        con.execute(query)


def test_rules_reach_arguments_of_rewritten_nodes(con):
    # size() is rewritten into a wrapper; the substring inside still gets Spark's start 0
    assert con.execute("SELECT size(split(substring('a,b,c', 0, 3), ','))").fetchone() == (2,)
    assert con.execute("SELECT weekday(date_add(DATE '2024-01-06', 1))").fetchone() == (6,)
