"""DEFAULT literals as v3 field defaults, and write-defaults back as SQL constants."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
import sqlglot

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestamptzType,
    VariantType,
)
from icesql.spec.values import date_to_days, from_python
from icesql.sql.defaults import (
    check_defaults_supported,
    default_expression,
    default_value,
    fill_values_defaults,
    is_default_keyword,
)
from icesql.sql.dialect import DIALECT


def _expr(sql: str):
    return sqlglot.parse_one(f"SELECT {sql}", read=DIALECT).expressions[0]


@pytest.mark.parametrize(
    ("literal", "t", "expected"),
    [
        ("5", IntegerType(), 5),
        ("-7", LongType(), -7),
        ("'5'", IntegerType(), 5),  # cast as Spark casts a string
        ("-1.5", DecimalType(9, 2), Decimal("-1.50")),
        ("true", BooleanType(), True),
        ("'hi'", StringType(), "hi"),
        ("DATE'2024-01-02'", DateType(), date_to_days(dt.date(2024, 1, 2))),
        ("X'0AFF'", BinaryType(), b"\x0a\xff"),
        (
            "TIMESTAMP'2024-01-01 10:00:00'",
            TimestamptzType(),
            from_python(TimestamptzType(), dt.datetime(2024, 1, 1, 10, tzinfo=dt.UTC)),
        ),
        ("'2024-01-01 10:00:00.123456789'", TimestampNanoType(), 1704103200123456789),
        ("NULL", IntegerType(), None),
    ],
)
def test_literals_become_convention_values(literal, t, expected):
    assert default_value(_expr(literal), NestedField(1, "c", t), "db.t") == expected


@pytest.mark.parametrize(
    ("literal", "t", "error", "message"),
    [
        (
            "'x'",
            IntegerType(),
            ProgrammingError,
            r"DEFAULT 'x' for column 'c' \(int\) of db\.t: the value 'x'",
        ),
        ("3000000000", IntegerType(), ProgrammingError, "3000000000.*cannot be cast to INT"),
        ("id + 1", IntegerType(), NotSupportedError, "literal default"),
        ("'{}'", VariantType(), ProgrammingError, "can only default to null"),
        ("X'00'", IntegerType(), ProgrammingError, "binary literal"),
    ],
)
def test_bad_defaults_name_the_column_and_table(literal, t, error, message):
    with pytest.raises(error, match=message):
        default_value(_expr(literal), NestedField(1, "c", t), "db.t")


@pytest.mark.parametrize("version", [1, 2])
def test_defaults_need_v3(version):
    with pytest.raises(ProgrammingError, match=f"need format version 3.*v{version}"):
        check_defaults_supported(version, "db.t")
    check_defaults_supported(3, "db.t")


@pytest.mark.parametrize(
    ("t", "value", "sql"),
    [
        (IntegerType(), 5, "CAST('5' AS INT)"),
        (DecimalType(9, 2), Decimal("-1.50"), "CAST('-1.50' AS DECIMAL(9, 2))"),
        (BooleanType(), False, "FALSE"),
        (BinaryType(), b"\x0a\xff", "X'0aff'"),
        (DateType(), 19724, "CAST('2024-01-02' AS DATE)"),
        (StringType(), None, "NULL"),
    ],
)
def test_write_defaults_as_sql_constants(t, value, sql):
    assert default_expression(t, value).sql(dialect="spark") == sql


def _evaluate(node):
    """The engine's part: run ``SELECT <node>`` (DuckDB through icesql's translation)."""
    import duckdb

    from icesql.sql.translate import to_duckdb_sql

    sql, _ = to_duckdb_sql(sqlglot.exp.select(node.copy()), [])
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        return con.sql(sql).to_arrow_table()
    finally:
        con.close()


@pytest.mark.parametrize(
    ("expression", "t", "expected"),
    [
        ("1 + 2", LongType(), 3),
        ("upper('x') || 'y'", StringType(), "Xy"),
        ("1.5 * 2", DecimalType(9, 2), Decimal("3.00")),
        ("date_add(DATE'2024-01-01', 1)", DateType(), date_to_days(dt.date(2024, 1, 2))),
        (
            "TIMESTAMP'2024-01-01 00:00:00' + INTERVAL 1 DAY",
            TimestamptzType(),
            from_python(TimestamptzType(), dt.datetime(2024, 1, 2, tzinfo=dt.UTC)),
        ),
        (
            "CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS)",
            TimestampNanoType(),
            1_704_067_200_000_000_001,
        ),
        ("CAST(NULL AS INT) + 1", IntegerType(), None),
    ],
)
def test_constant_expressions_are_evaluated_once(expression, t, expected):
    """Spark 4 takes any constant expression as a DEFAULT; the spec keeps one JSON value."""
    assert default_value(_expr(expression), NestedField(1, "c", t), "db.t", _evaluate) == expected


@pytest.mark.parametrize(
    ("expression", "t", "error", "message"),
    [
        ("current_date()", DateType(), NotSupportedError, "CURRENT_DATE is not a constant"),
        ("now()", TimestamptzType(), NotSupportedError, "is not a constant"),
        ("rand() * 10", DoubleType(), NotSupportedError, "is not a constant"),
        ("uuid()", StringType(), NotSupportedError, "is not a constant"),
        ("id + 1", IntegerType(), NotSupportedError, "id is not a constant"),
        ("(SELECT 1)", IntegerType(), NotSupportedError, "is not a constant"),
        (
            "'a' || 'b'",
            IntegerType(),
            ProgrammingError,
            r"DEFAULT 'a' \|\| 'b' for column 'c' \(int\) of db.t: cannot safely cast `c` STRING to INT",
        ),
        ("1 + 1", VariantType(), ProgrammingError, "can only default to null"),
        (
            "named_struct('x', 1)",
            StructType((NestedField(2, "x", IntegerType()),)),
            NotSupportedError,
            "a struct's default holds no field values",
        ),
        # Iceberg 1.10 cannot load such a table (tests/interop/test_nanos_unknown_spark.py)
        (
            "array(1, 2)",
            ListType(2, IntegerType(), False),
            NotSupportedError,
            "Iceberg 1.10 .* cannot load a table whose list or map column has one",
        ),
        (
            "map('k', 7)",
            MapType(2, StringType(), 3, LongType(), False),
            NotSupportedError,
            "list or map column",
        ),
    ],
)
def test_expressions_that_are_no_one_value_are_refused(expression, t, error, message):
    with pytest.raises(error, match=message):
        default_value(_expr(expression), NestedField(1, "c", t), "db.t", _evaluate)


@pytest.mark.parametrize(
    ("t", "value", "sql"),
    [
        (
            ListType(2, IntegerType(), False),
            [1, 2],
            "CAST(ARRAY(CAST('1' AS INT), CAST('2' AS INT)) AS ARRAY<INT>)",
        ),
        (
            MapType(2, StringType(), 3, LongType(), False),
            {"k": 7},
            "CAST(MAP(CAST('k' AS STRING), CAST('7' AS BIGINT)) AS MAP<STRING, BIGINT>)",
        ),
        (TimestampNanoType(), 5, "CAST('1970-01-01T00:00:00.000000005' AS TIMESTAMP_NS)"),
    ],
)
def test_nested_and_nanosecond_write_defaults_as_sql_constants(t, value, sql):
    assert default_expression(t, value).sql(dialect="spark") == sql


def test_the_default_keyword_fills_values_rows():
    fields = [
        NestedField(1, "a", IntegerType()),
        NestedField(2, "b", IntegerType(), write_default=5),
    ]
    values = sqlglot.parse_one(
        "INSERT INTO t VALUES (DEFAULT, DEFAULT), (1, 2, DEFAULT)", read=DIALECT
    ).expression
    assert fill_values_defaults(values, fields).sql(dialect="spark") == (
        "VALUES (NULL, CAST('5' AS INT)), (1, 2, DEFAULT)"
    )
    assert is_default_keyword(_expr("DEFAULT")) and not is_default_keyword(_expr("`DEFAULT`"))
