"""Spark's arithmetic in DuckDB: casts to integers, modulo and div by zero, rounding through
the decimal text, logarithms of non-positive numbers, format_number.

Spark's answers are those of the Spark 3.5 SQL function reference (its examples) and of the
queries checked against Spark in ``tests/interop/test_sql_compat.py``.
"""

from __future__ import annotations

import datetime as dt
import decimal

import duckdb
import pytest

import icesql
from tests.sql.spark.conftest import rewrite as spark_rewrite

D = decimal.Decimal


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        # casts to integers truncate toward zero (DuckDB rounds)
        ("CAST(1.9 AS INT)", 1),
        ("CAST(-1.9 AS INT)", -1),
        ("CAST(CAST(2.75 AS DOUBLE) AS BIGINT)", 2),
        ("CAST(CAST(-2.5 AS FLOAT) AS SMALLINT)", -2),
        ("CAST('1.9' AS INT)", 1),
        ("CAST('-1.9' AS TINYINT)", -1),
        ("CAST('abc' AS INT)", None),
        ("CAST('99999999999' AS INT)", None),
        ("CAST(CAST(NULL AS DOUBLE) AS INT)", None),
        # found while fuzzing, checked against Spark 3.5 (ANSI off): a double out of range
        # is the type's bound, NaN is 0 (the JVM's d2i / d2l), not NULL
        ("CAST(1e20D AS INT)", 2**31 - 1),
        ("CAST(-1e20D AS BIGINT)", -(2**63)),
        ("CAST(CAST('Infinity' AS DOUBLE) AS BIGINT)", 2**63 - 1),
        ("CAST(CAST('NaN' AS DOUBLE) AS INT)", 0),
        ("CAST(2147483647.5D AS INT)", 2**31 - 1),
        ("CAST(-2147483648.9D AS INT)", -(2**31)),
        # modulo, div and pmod: NULL for a zero divisor, pmod's sign is the divisor's
        ("pmod(10, 3)", 1),
        ("pmod(-10, 3)", 2),
        ("pmod(-7, 3)", 2),
        ("pmod(7, -3)", 1),
        ("pmod(-7, -3)", -1),
        ("pmod(-2.5D, 2)", 1.5),
        ("pmod(7, 0)", None),
        ("pmod(NULL, 3)", None),
        ("7 % 0", None),
        ("2 % 1.8", D("0.2")),
        ("7 % NULL", None),
        ("3 div 2", 1),
        ("7 div 0", None),
        ("-7 div 2", -3),
        ("CAST(-2.345 AS DECIMAL(10, 3)) div 1", -2),
        ("CAST(-7.5 AS DECIMAL(3, 1)) div 2", -3),
        ("CAST(10.000 AS DECIMAL(10, 3)) div 0.001", 10000),
        ("CAST(1 AS DECIMAL(3, 1)) div 0", None),
        # round HALF_UP, bround HALF_EVEN, doubles through their shortest decimal text
        ("round(1.005D, 2)", 1.01),
        ("round(-2.675D, 2)", -2.68),
        ("round(2.5D)", 3.0),
        ("round(-2.5D)", -3.0),
        ("round(1234.5D, -2)", 1200.0),
        ("round(CAST(NULL AS DOUBLE), 2)", None),
        ("bround(2.5, 0)", D("2")),
        ("bround(25, -1)", 20),
        ("bround(2.5D, 0)", 2.0),
        ("bround(3.5D)", 4.0),
        ("bround(2.675D, 2)", 2.68),
        ("bround(CAST(2.345 AS DECIMAL(10, 3)), 2)", D("2.34")),
        # logarithms: NULL for arguments <= 0 (DuckDB: -inf or NaN)
        ("ln(1)", 0.0),
        ("ln(0D)", None),
        ("ln(-1D)", None),
        ("log(10, 100)", 2.0),
        ("log(2, -8D)", None),
        ("log(-2D, 8)", None),
        ("log(0D)", None),
        ("log10(100)", 2.0),
        ("log10(0D)", None),
        # NaN
        ("isnan(CAST('NaN' AS DOUBLE))", True),
        ("isnan(1D)", False),
        ("isnan(CAST(NULL AS DOUBLE))", False),
        ("nanvl(CAST('NaN' AS DOUBLE), 123D)", 123.0),
        ("nanvl(CAST('NaN' AS DOUBLE), 1.5D)", 1.5),
        ("nanvl(1.5D, 2D)", 1.5),
        ("nanvl(CAST(NULL AS DOUBLE), 1D)", None),
        ("positive(1)", 1),
        ("positive(-3)", -3),
        ("negative(1)", -1),
        ("negative(-3)", 3),
        ("negative(CAST(NULL AS INT))", None),
        ("e()", 2.718281828459045),
        # format_number: grouped, HALF_EVEN (Java's DecimalFormat), NaN and infinity as Java
        ("format_number(12332.123456, 4)", "12,332.1235"),
        ("format_number(1234567.891D, 2)", "1,234,567.89"),
        ("format_number(0.125D, 2)", "0.12"),
        ("format_number(-1234.5D, 0)", "-1,234"),
        ("format_number(CAST(2.675 AS DECIMAL(5, 3)), 2)", "2.68"),
        ("format_number(1234567, 2)", "1,234,567.00"),
        ("format_number(-5L, 0)", "-5"),
        ("format_number(9007199254740993L, 1)", "9,007,199,254,740,993.0"),
        ("format_number(CAST('NaN' AS DOUBLE), 2)", "NaN"),
        ("format_number(CAST('Infinity' AS DOUBLE), 2)", "∞"),
        ("format_number(CAST('-Infinity' AS DOUBLE), 0)", "-∞"),
        ("format_number(CAST(NULL AS DOUBLE), 2)", None),
        ("format_number(1.5D, -1)", None),
        # a string operand of unary + / - is cast to DOUBLE
        ("positive('25.5')", 25.5),
        ("negative('25.5')", -25.5),
        ("-('25.5')", -25.5),
        # text to an integer: digits with an optional fraction, truncated; TRY_CAST reads
        # it as ANSI mode does, whole numbers only
        ("CAST('1e2' AS INT)", None),
        ("CAST(' 12 ' AS INT)", 12),
        ("CAST('.5' AS INT)", 0),
        ("CAST('5.' AS INT)", 5),
        ("TRY_CAST('1e2' AS INT)", None),
        ("TRY_CAST('1.23' AS INT)", None),
        ("TRY_CAST('-4.56' AS BIGINT)", None),
        ("TRY_CAST(' 12 ' AS INT)", 12),
        ("TRY_CAST('+12' AS TINYINT)", 12),
        ("TRY_CAST('1000' AS TINYINT)", None),
        ("TRY_CAST('5.' AS INT)", None),
    ],
)
def test_spark_answer(duck_answer, expr, spark_answer):
    assert duck_answer(f"SELECT {expr}") == [(spark_answer,)]


def test_cast_of_double_column_truncates(duck_answer):
    # the rule reads the column's type from the binding pass
    tables = {"t": ({"x": "DOUBLE"}, [(1.5,), (-2.5,), (2.9,), (None,)])}
    rows = duck_answer("SELECT CAST(x AS INT) FROM t", tables)
    assert sorted(rows, key=lambda r: (r[0] is None, r[0])) == [(-2,), (1,), (2,), (None,)]


def test_a_cast_of_an_operand_of_unknown_type_is_left_as_written(spark_rules):
    # no binding types the column: the cast stays DuckDB's (no guessing)
    assert spark_rules("SELECT CAST(x AS INT) FROM t") == "SELECT TRY_CAST(x AS INT) FROM t"


def test_decimal_div_keeps_exact_digits(duck_answer):
    # DuckDB's // of decimals does not truncate; the rewrite goes through the exact remainder
    tables = {"t": ({"a": "DECIMAL(20, 2)"}, [(D("123456789012345678.99"),), (D("-0.01"),)])}
    rows = duck_answer("SELECT a div 0.5 FROM t", tables)
    assert sorted(rows) == [(0,), (246913578024691357,)]


@pytest.mark.parametrize(
    "expr, message",
    [
        ("format_number(1.5D, '#.##')", "format_number"),
        ("format_number(1.5D, 1 + 1)", "literal number of decimal places"),
        ("format_number(CAST(1 AS DECIMAL(20, 2)), 1)", "wider than 15 digits"),
        ("format_number('1.5', 1)", "non-numeric type"),
    ],
)
def test_format_number_refuses_what_it_cannot_print_as_java(duck_answer, expr, message):
    with pytest.raises(icesql.NotSupportedError, match=message):
        duck_answer(f"SELECT {expr}")


# Spark 3.5's answers (tests/interop/test_sql_compat.py checks them against Spark itself)
DECIMALS = {
    "t": (
        {"a": "DECIMAL(10, 3)", "l": "BIGINT", "i": "INT", "d": "DOUBLE"},
        [(D("2.675"), 9007199254740993, 7, 2.5), (D("-2.345"), 3, -7, -2.5)],
    )
}


@pytest.mark.parametrize(
    "expr, duck_type, values",
    [
        ("a / 3", "DECIMAL(13,6)", [D("0.891667"), D("-0.781667")]),
        ("a / a", "DECIMAL(24,14)", [D("1.00000000000000")] * 2),
        ("i / a", "DECIMAL(24,11)", [D("2.61682242991"), D("2.98507462687")]),
        ("a / l", "DECIMAL(31,24)", [D("2.96984659E-16"), D("-0.781666666666666666666667")]),
        ("l / 2.25", "DECIMAL(28,6)", [D("4003199668773774.666667"), D("1.333333")]),
        ("1.0 / 3", "DECIMAL(7,6)", [D("0.333333")] * 2),
        ("a / 0", "DECIMAL(13,6)", [None, None]),
        ("-a / 7", "DECIMAL(13,6)", [D("-0.382143"), D("0.335000")]),
        ("i / 2", "DOUBLE", [3.5, -3.5]),
        ("floor(a)", "DECIMAL(8,0)", [D("2"), D("-3")]),
        ("ceil(a)", "DECIMAL(8,0)", [D("3"), D("-2")]),
        ("floor(d)", "BIGINT", [2, -3]),
        ("ceil(l)", "BIGINT", [9007199254740993, 3]),
        ("floor(i)", "BIGINT", [7, -7]),
        ("round(a)", "DECIMAL(8,0)", [D("3"), D("-2")]),
        ("round(a, 2)", "DECIMAL(10,2)", [D("2.68"), D("-2.35")]),
        ("round(a, 5)", "DECIMAL(11,3)", [D("2.675"), D("-2.345")]),
        ("round(a, -1)", "DECIMAL(8,0)", [D("0"), D("0")]),
        ("bround(a, 2)", "DECIMAL(10,2)", [D("2.68"), D("-2.34")]),
        ("coalesce(l, a)", "DECIMAL(23,3)", [D("9007199254740993.000"), D("3.000")]),
        (
            "CASE WHEN i > 0 THEN l ELSE a END",
            "DECIMAL(23,3)",
            [D("9007199254740993.000"), D("-2.345")],
        ),
        ("if(i > 0, a, l)", "DECIMAL(23,3)", [D("2.675"), D("3.000")]),
        ("greatest(l, a)", "DECIMAL(23,3)", [D("9007199254740993.000"), D("3.000")]),
        ("coalesce(i, a)", "DECIMAL(13,3)", [D("7.000"), D("-7.000")]),
        ("coalesce(l, d)", "DOUBLE", [9007199254740992.0, 3.0]),
        ("i * 1.5", "DECIMAL(13,1)", [D("10.5"), D("-10.5")]),
        ("l + 1.5", "DECIMAL(22,1)", [D("9007199254740994.5"), D("4.5")]),
        ("1.5 * 1.5", "DECIMAL(5,2)", [D("2.25")] * 2),
        ("a % 3", "DECIMAL(4,3)", [D("2.675"), D("-2.345")]),
        ("l % 2.5", "DECIMAL(2,1)", [D("0.5"), D("0.5")]),
        ("a % 0", "DECIMAL(4,3)", [None, None]),
    ],
)
def test_decimal_results_have_sparks_type_and_value(duck_answer, expr, duck_type, values):
    rows = duck_answer(
        f"SELECT {expr}, k FROM (SELECT *, row_number() OVER () AS k FROM t) ORDER BY k", DECIMALS
    )
    assert [r[0] for r in rows] == values
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a DECIMAL(10, 3), l BIGINT, i INTEGER, d DOUBLE)")
    rewritten = spark_rewrite(f"SELECT {expr} FROM t", DECIMALS)
    assert con.execute(f"DESCRIBE {rewritten}").fetchall()[0][1] == duck_type


def test_an_average_of_decimals_divides_as_a_decimal(duck_answer):
    # sqlglot types avg(a) DOUBLE; the aggregate rule's cast to Spark's DECIMAL(14, 7) says more
    tables = {"t": ({"a": "DECIMAL(10, 3)"}, [(D("2.675"),), (D("-1"),)])}
    assert duck_answer("SELECT avg(a) / 2, avg(a) * 2 FROM t", tables) == [
        (D("0.418750000"), D("1.6750000"))
    ]


def test_decimal_quotient_rounds_half_up_exactly(duck_answer):
    # 38-digit scaled dividends: a DOUBLE would lose the last digits and the rounding
    tables = {
        "t": (
            {"a": "DECIMAL(20, 2)", "b": "DECIMAL(20, 2)"},
            [(D("123456789012345678.99"), D("3.00"))],
        )
    }
    assert duck_answer("SELECT a / b, -a / b FROM t", tables) == [
        (D("41152263004115226.330000000000000000"), D("-41152263004115226.330000000000000000"))
    ]


def test_a_cast_of_an_interval_to_an_integer_counts_its_end_field(duck_answer):
    # Spark 3.5.8: cast(interval '10' day as bigint) is 10 (DuckDB's TRY_CAST would be NULL)
    assert duck_answer("SELECT cast(interval '10' day as bigint)") == [(10,)]


def test_a_negated_interval_string_is_the_negated_text(duck_answer):
    # Spark 3.5.8: interval -'1' year is -1-0 (minus one year)
    assert duck_answer("SELECT interval -'1' year = interval '-1' year") == [(True,)]


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        # Spark 3.5.8's answers: the operator, NULL where it overflows or divides by zero
        ("try_add(1, 1)", 2),
        ("try_add(2147483647, 1)", None),
        ("try_add(2147483647, '1')", 2147483648.0),
        ("try_add(-9223372036854775808L, -1)", None),
        ("try_add(DATE '2021-01-01', 1)", dt.date(2021, 1, 2)),
        ("try_subtract(2147483647, '-1')", 2147483648.0),
        ("try_subtract(-2147483648, 1)", None),
        ("try_multiply(2147483647, -2)", None),
        ("try_multiply(2147483647, '-2')", -4294967294.0),
        ("try_divide(1, 0.5)", decimal.Decimal("2.000000")),
        ("try_divide(1, 0)", None),
        ("try_divide(1, '0')", None),
    ],
)
def test_try_arithmetic(duck_answer, expr, spark_answer):
    assert duck_answer(f"SELECT {expr}") == [(spark_answer,)]


@pytest.mark.parametrize(
    "expr",
    [
        "try_add(1, 2147483647 + 1)",  # Spark wraps the inner sum: -2147483647
        "try_add(INTERVAL 106751991 DAY, INTERVAL 3 DAY)",  # Spark: NULL (Long micros)
        "try_multiply(INTERVAL 2 YEAR, 2)",
    ],
)
def test_try_arithmetic_refuses_what_try_would_hide(spark_rules, expr):
    with pytest.raises(icesql.NotSupportedError, match="try_"):
        spark_rules(f"SELECT {expr}")
