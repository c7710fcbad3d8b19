"""PARTITION clause values as Spark 3.5 reads them (``icesql.sql.partition_values``): the
literal printed as Spark's string, then that string ANSI-cast to the column type. Expected
values are computed here with ``datetime`` / ``Decimal`` / ``struct``, not by the module."""

from __future__ import annotations

import datetime as dt
import math
import struct
import uuid
from decimal import Decimal

import pytest
from sqlglot import exp

from icesql.errors import DataError, ProgrammingError
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    TimestampNanoType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)
from icesql.sql.dialect import number_parameters, parse_one
from icesql.sql.partition_values import cast_partition_value, partition_text

WHERE = "PARTITION clause"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _value_node(literal: str) -> exp.Expr:
    statement = parse_one(f"INSERT INTO t PARTITION (p = {literal}) SELECT 1")
    number_parameters(statement)
    return statement.find(exp.Partition).expressions[0].expression


def _days(y, m, d):
    return (dt.date(y, m, d) - dt.date(1970, 1, 1)).days


def _micros(*args, tz=dt.UTC):
    return (dt.datetime(*args, tzinfo=tz) - EPOCH) // dt.timedelta(microseconds=1)


@pytest.mark.parametrize(
    ("literal", "text"),
    [
        ("NULL", None),
        ("true", "true"),
        ("FALSE", "false"),
        ("'x y'", "x y"),
        ("'a' 'b'", "ab"),  # adjacent strings join
        ("7", "7"),
        ("007", "7"),  # integers print without leading zeros
        ("-5", "-5"),
        ("1.50", "1.50"),  # a decimal prints as written (BigDecimal)
        ("-1.5", "-1.5"),
        ("1e3", "1000.0"),  # an exponent makes a double, printed as Java prints it
        ("1.5E-7", "1.5E-7"),
        ("10L", "10"),
        ("3Y", "3"),
        ("X'0aff'", b"\x0a\xff"),
        ("DATE '2020-1-2'", "2020-01-02"),
        ("TIMESTAMP '2020-01-02 03:04:05'", "2020-01-02 03:04:05"),
        ("TIMESTAMP '2020-01-02 03:04:05.500+02:00'", "2020-01-02 01:04:05.5"),  # in UTC
        ("TIMESTAMP_NTZ '2020-01-02 03:04:05+02:00'", "2020-01-02 03:04:05"),  # zone ignored
    ],
)
def test_partition_text_is_sparks_string_of_the_literal(literal, text):
    assert partition_text(_value_node(literal), [], WHERE) == text


@pytest.mark.parametrize(
    ("param", "text"),
    [
        (None, None),
        (True, "true"),
        (3, "3"),
        (1e20, "1.0E20"),  # Java's Double.toString
        (0.1, "0.1"),
        (b"\x01", b"\x01"),
        (bytearray(b"\x02"), b"\x02"),
        (Decimal("1.50"), "1.50"),
        (dt.date(2020, 1, 2), "2020-01-02"),
        (dt.datetime(2020, 1, 2, 3, 4, 5), "2020-01-02 03:04:05"),
        (
            dt.datetime(2020, 1, 2, 3, 4, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            "2020-01-02 01:04:00",
        ),
    ],
)
def test_a_parameter_prints_as_its_literal_would(param, text):
    assert partition_text(_value_node("?"), [param], WHERE) == text


@pytest.mark.parametrize("literal", ["a + 1", "c", "current_date()"])
def test_only_literals_are_allowed(literal):
    with pytest.raises(ProgrammingError, match=f"only literals are allowed in {WHERE}, but got"):
        partition_text(_value_node(literal), [], WHERE)


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("DATE '2020-13-01'", "'2020-13-01' is not a valid DATE literal"),
        ("TIMESTAMP '2020-01-02 25:00'", "'2020-01-02 25:00' is not a valid TIMESTAMP literal"),
    ],
)
def test_a_malformed_typed_literal_is_a_data_error(literal, message):
    with pytest.raises(DataError, match=message):
        partition_text(_value_node(literal), [], WHERE)


@pytest.mark.parametrize(
    ("text", "t", "value"),
    [
        (None, IntegerType(), None),
        (" x ", StringType(), " x "),  # strings keep their spaces
        ("7", IntegerType(), 7),
        (" -7 ", LongType(), -7),  # numbers are trimmed
        ("2147483647", IntegerType(), 2**31 - 1),
        ("9223372036854775807", LongType(), 2**63 - 1),
        ("TRUE", BooleanType(), True),
        ("y", BooleanType(), True),
        ("0", BooleanType(), False),
        ("1.5", DoubleType(), 1.5),
        ("1.5d", DoubleType(), 1.5),
        ("-Infinity", DoubleType(), -math.inf),
        ("0.1", FloatType(), struct.unpack("<f", struct.pack("<f", 0.1))[0]),  # float precision
        ("1e39", FloatType(), math.inf),  # beyond float: infinity, as Java's (float) cast
        ("1.255", DecimalType(5, 2), Decimal("1.26")),  # HALF_UP to the scale
        ("-1.255", DecimalType(5, 2), Decimal("-1.26")),
        ("2020-01-02", DateType(), _days(2020, 1, 2)),
        ("2020-1-2", DateType(), _days(2020, 1, 2)),
        ("2020", DateType(), _days(2020, 1, 1)),
        ("2020-03", DateType(), _days(2020, 3, 1)),
        ("2020-01-02T10:00", DateType(), _days(2020, 1, 2)),  # the time part is ignored
        ("1969-12-31", DateType(), -1),
        ("2020-01-02 03:04:05.123456", TimestampType(), _micros(2020, 1, 2, 3, 4, 5, 123456)),
        ("2020-01-02T03:04", TimestampType(), _micros(2020, 1, 2, 3, 4)),
        ("2020-01-02 03:04:05+02:00", TimestamptzType(), _micros(2020, 1, 2, 1, 4, 5)),
        ("2020-01-02 03:04:05Z", TimestamptzType(), _micros(2020, 1, 2, 3, 4, 5)),
        ("2020-01-02 03:04:05 UTC-3", TimestamptzType(), _micros(2020, 1, 2, 6, 4, 5)),
        (
            "2020-07-01 12:00 Europe/Paris",
            TimestamptzType(),  # summer time: UTC+2
            _micros(2020, 7, 1, 10, 0),
        ),
        ("2020-01-02 03:04:05+02:00", TimestampType(), _micros(2020, 1, 2, 3, 4, 5)),  # no zone
        (
            "2020-01-02 00:00:00.123456789",
            TimestampNanoType(),
            _micros(2020, 1, 2) * 1000 + 123456789,
        ),
        ("10:11:12.5", TimeType(), ((10 * 60 + 11) * 60 + 12) * 10**6 + 500_000),
        (
            "f79c3e09-677c-4bbd-a479-3f349cb785e7",
            UUIDType(),
            uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7"),
        ),
        ("ab", BinaryType(), b"ab"),
        (b"\x00\x01", FixedType(2), b"\x00\x01"),
        (b"\xff", StringType(), "\ufffd"),  # binary into a string column: decoded leniently
    ],
)
def test_cast_partition_value(text, t, value):
    assert cast_partition_value(text, t, "db.t", "p") == value


@pytest.mark.parametrize(
    ("text", "t", "spark_type"),
    [
        ("1.5", IntegerType(), "INT"),  # Spark: '1.5' is not an integer
        ("2147483648", IntegerType(), "INT"),  # out of range is malformed for integers
        ("x", LongType(), "BIGINT"),
        ("maybe", BooleanType(), "BOOLEAN"),
        ("1,5", DoubleType(), "DOUBLE"),
        ("1.5x", DecimalType(5, 2), "DECIMAL(5,2)"),
        ("2020-02-30", DateType(), "DATE"),
        ("2020-01-02 03:04:05 Mars/Base", TimestamptzType(), "TIMESTAMP"),
        ("2020-01-02 03:04:05+19:00", TimestamptzType(), "TIMESTAMP"),
        ("24:00", TimeType(), "TIME"),
        ("not-a-uuid", UUIDType(), "STRING"),
    ],
)
def test_malformed_values_are_sparks_cast_invalid_input(text, t, spark_type):
    with pytest.raises(DataError) as e:
        cast_partition_value(text, t, "db.t", "p")
    message = str(e.value)
    assert message.startswith("[CAST_INVALID_INPUT] cannot write to db.t")
    assert f"value {text!r} of column `p`" in message
    assert message.endswith(f"cannot be cast to {spark_type} because it is malformed")


def test_a_decimal_with_too_many_digits_is_out_of_range():
    with pytest.raises(DataError) as e:
        cast_partition_value("1234.5", DecimalType(5, 2), "db.t", "p")
    assert str(e.value).startswith("[NUMERIC_VALUE_OUT_OF_RANGE] cannot write to db.t")
    assert "cannot be represented as DECIMAL(5,2)" in str(e.value)


@pytest.mark.parametrize("text", [b"\x00", "abc"])
def test_a_fixed_value_of_the_wrong_length_is_refused(text):
    with pytest.raises(DataError, match=r"does not fit fixed\(2\) column `p`"):
        cast_partition_value(text, FixedType(2), "db.t", "p")
