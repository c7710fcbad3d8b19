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
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestampNanoType,
    TimestamptzType,
    VariantType,
)
from icesql.spec.values import date_to_days, from_python
from icesql.sql.defaults import check_defaults_supported, default_expression, default_value
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
        ("TIMESTAMP'2024-01-01 10:00:00'", TimestamptzType(),
         from_python(TimestamptzType(), dt.datetime(2024, 1, 1, 10, tzinfo=dt.UTC))),
        ("'2024-01-01 10:00:00.123456789'", TimestampNanoType(), 1704103200123456789),
        ("NULL", IntegerType(), None),
    ],
)
def test_literals_become_convention_values(literal, t, expected):
    assert default_value(_expr(literal), NestedField(1, "c", t), "db.t") == expected


@pytest.mark.parametrize(
    ("literal", "t", "error", "message"),
    [
        ("'x'", IntegerType(), ProgrammingError, r"DEFAULT 'x' for column 'c' \(int\) of db\.t: the value 'x'"),
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
