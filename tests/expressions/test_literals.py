"""convert_literal: a Python literal in a column type's value convention, and how exact it
is; expectations come from Python's own date/time arithmetic and IEEE 754 packing."""

from __future__ import annotations

import datetime as dt
import struct
import uuid
from decimal import Decimal

import pytest

from icesql.errors import ProgrammingError
from icesql.expressions.literals import (
    BELOW,
    EXACT,
    NEAREST,
    TimestampNanos,
    UnrepresentableLiteral,
    convert_literal,
    parse_timestamp_micros,
    parse_timestamp_nanos,
)
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    GeometryType,
    IntegerType,
    LongType,
    StringType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UnknownType,
    UUIDType,
    VariantType,
)

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def days(d: dt.date) -> int:
    return (d - dt.date(1970, 1, 1)).days


def micros(t: dt.datetime) -> int:
    delta = t - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def float32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


UUID = "f79c3e09-677c-4bbd-a479-3f349cb785e7"


@pytest.mark.parametrize(
    ("value", "t", "expected"),
    [
        (5, IntegerType(), (5, EXACT)),
        (" -42 ", IntegerType(), (-42, EXACT)),
        (2**31 - 1, IntegerType(), (2**31 - 1, EXACT)),
        (-(2**63), LongType(), (-(2**63), EXACT)),
        (5.75, IntegerType(), (5, BELOW)),
        (Decimal("5.5"), IntegerType(), (5, BELOW)),  # x < 5.5 is x <= 5
        (Decimal("-5.5"), LongType(), (-6, BELOW)),  # the greatest int below, not towards 0
        (Decimal("7.000"), LongType(), (7, EXACT)),
        (float(2**53 - 1), LongType(), (2**53 - 1, EXACT)),
        (Decimal("10.5"), DecimalType(9, 2), (Decimal("10.50"), EXACT)),
        (Decimal("1.555"), DecimalType(9, 2), (Decimal("1.55"), BELOW)),
        (Decimal("-1.555"), DecimalType(9, 2), (Decimal("-1.56"), BELOW)),
        (5, DecimalType(3, 2), (Decimal("5.00"), EXACT)),
        ("9999999.99", DecimalType(9, 2), (Decimal("9999999.99"), EXACT)),
        (0.1, DoubleType(), (0.1, EXACT)),
        (Decimal("0.5"), DoubleType(), (0.5, EXACT)),
        (Decimal("0.1"), DoubleType(), (0.1, NEAREST)),  # the double nearest 1/10
        (2**53, DoubleType(), (float(2**53), EXACT)),
        (0.5, FloatType(), (0.5, EXACT)),
        (float32(0.1), FloatType(), (float32(0.1), EXACT)),
        (2**24, FloatType(), (float(2**24), EXACT)),
        (True, BooleanType(), (True, EXACT)),
        (" FALSE ", BooleanType(), (False, EXACT)),
        ("x", StringType(), ("x", EXACT)),
        (19724, DateType(), (19724, EXACT)),  # already days: as projections hand it back
        (dt.date(2024, 1, 2), DateType(), (days(dt.date(2024, 1, 2)), EXACT)),
        ("1969-12-31", DateType(), (-1, EXACT)),
        (dt.datetime(2024, 1, 2, tzinfo=dt.UTC), DateType(), (days(dt.date(2024, 1, 2)), EXACT)),
        (dt.datetime(2024, 1, 2, 10), DateType(), (days(dt.date(2024, 1, 2)), BELOW)),
        # 01:00 at +02:00 is still the day before in UTC
        (
            dt.datetime(2024, 1, 2, 1, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            DateType(),
            (days(dt.date(2024, 1, 1)), BELOW),
        ),
        ("10:30", TimeType(), (37_800_000_000, EXACT)),
        ("23:59:59.999999", TimeType(), (86_400_000_000 - 1, EXACT)),
        ("00:00:01.5", TimeType(), (1_500_000, EXACT)),
        (dt.time(1, 2, 3, 4), TimeType(), (3_723_000_004, EXACT)),
        ("2024-01-01", TimestampType(), (micros(dt.datetime(2024, 1, 1, tzinfo=dt.UTC)), EXACT)),
        (
            "2024-01-01 02:00:00+02:00",
            TimestamptzType(),
            (micros(dt.datetime(2024, 1, 1, tzinfo=dt.UTC)), EXACT),
        ),
        (
            "2024-01-01T10:00:00.5",
            TimestampType(),
            (micros(dt.datetime(2024, 1, 1, 10, 0, 0, 500_000, tzinfo=dt.UTC)), EXACT),
        ),
        ("1969-12-31 23:59:59.999999Z", TimestamptzType(), (-1, EXACT)),
        (
            dt.datetime(2024, 1, 1),
            TimestamptzType(),  # naive: the session zone, UTC
            (micros(dt.datetime(2024, 1, 1, tzinfo=dt.UTC)), EXACT),
        ),
        (dt.date(1969, 12, 31), TimestampType(), (-86_400_000_000, EXACT)),
        (123, TimestampNanoType(), (123, EXACT)),
        # nanosecond columns compare at nanoseconds: a micro literal is exact there
        ("2024-01-01T00:00:00", TimestampNanoType(), (1_704_067_200 * 10**9, EXACT)),
        ("2024-01-01 00:00:00.000000001", TimestampNanoType(), (1_704_067_200 * 10**9 + 1, EXACT)),
        ("1969-12-31 23:59:59.999999999", TimestampNanoType(), (-1, EXACT)),
        ("2024-01-01 02:00:00.5+02:00", TimestamptzNanoType(), (1_704_067_200_500_000_000, EXACT)),
        (dt.datetime(2024, 1, 1), TimestamptzNanoType(), (1_704_067_200 * 10**9, EXACT)),
        (
            dt.datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=dt.UTC),
            TimestampNanoType(),
            (-1000, EXACT),
        ),
        (dt.date(1969, 12, 31), TimestampNanoType(), (-86_400 * 10**9, EXACT)),
        (TimestampNanos(-1), TimestamptzNanoType(), (-1, EXACT)),
        # a nanosecond literal on a micro column: the engine compares at nanoseconds
        (
            TimestampNanos(1_704_067_200_000_001_000),
            TimestampType(),
            (1_704_067_200_000_001, EXACT),
        ),
        (
            TimestampNanos(1_704_067_200_000_000_001),
            TimestamptzType(),
            (1_704_067_200_000_000, BELOW),
        ),
        (TimestampNanos(-1), TimestampType(), (-1, BELOW)),
        (UUID, UUIDType(), (uuid.UUID(UUID), EXACT)),
        (bytearray(b"abc"), FixedType(3), (b"abc", EXACT)),
        pytest.param(memoryview(b""), BinaryType(), (b"", EXACT), id="memoryview-binary"),
    ],
    ids=repr,
)
def test_convert_literal(value, t, expected) -> None:
    assert convert_literal(value, t) == expected


def test_nan_stays_nan() -> None:
    for t in (DoubleType(), FloatType()):
        value, relation = convert_literal(float("nan"), t)
        assert value != value and relation == EXACT


@pytest.mark.parametrize(
    ("value", "t", "reason"),
    [
        (None, IntegerType(), "a null literal never matches"),
        (True, IntegerType(), "booleans are not numbers"),
        ("1e5", IntegerType(), "is not a number"),
        (2**31, IntegerType(), None),
        (2**63, LongType(), None),
        (float(2**53), LongType(), None),  # compared in doubles: only exact ints are safe
        (float("inf"), IntegerType(), None),
        (float("nan"), LongType(), None),
        (Decimal("12345678.9"), DecimalType(9, 2), None),  # 10 digits unscaled
        (1.5, DecimalType(9, 2), None),  # a double literal makes the engine compare in doubles
        (Decimal("NaN"), DecimalType(9, 2), None),
        (2**53 + 1, DoubleType(), None),
        (Decimal("Infinity"), DoubleType(), None),
        (0.1, FloatType(), None),
        (2**24 + 1, FloatType(), None),
        (Decimal("0.1"), FloatType(), None),
        (1, BooleanType(), None),
        ("yes", BooleanType(), None),
        (5, StringType(), None),
        ("2024-01-02 10:00:00", DateType(), None),
        ("yesterday", DateType(), None),
        (True, DateType(), None),
        ("24:00", TimeType(), None),
        ("10:60", TimeType(), None),
        (dt.time(1, tzinfo=dt.UTC), TimeType(), None),
        ("2024-01-01 10:00+02:00", TimestampType(), None),  # a zone on a zoneless column
        ("2024-01-01 10:00:00.1234567", TimestamptzType(), None),
        ("2024-01-01T25:00", TimestampType(), "not a valid time of day"),
        ("2024-02-30", TimestampType(), None),
        ("2024-01-01 10:00+02:00", TimestampNanoType(), None),  # a zone on a zoneless column
        ("2024-01-01 10:00:00.1234567890", TimestampNanoType(), None),
        ("2024-01-01 10:00:00.1234567", TimestampType(), None),
        ("not-a-uuid", UUIDType(), "badly formed"),
        (b"ab", FixedType(3), None),
        ("ab", BinaryType(), None),
        (1, UnknownType(), "not pushed down"),
        ("{}", VariantType(), "not pushed down"),
        ("POINT (1 2)", GeometryType(), "not pushed down"),
    ],
    ids=repr,
)
def test_unrepresentable_literals(value, t, reason) -> None:
    with pytest.raises(UnrepresentableLiteral) as info:
        convert_literal(value, t)
    message = str(info.value)
    assert (reason or str(t)) in message
    if value is not None and "pushed down" not in message:
        assert repr(value) in message  # the message names the literal


def test_unrepresentable_is_a_programming_error() -> None:
    assert issubclass(UnrepresentableLiteral, ProgrammingError)


@pytest.mark.parametrize(
    ("text", "expected", "zoned"),
    [
        ("2024-03-05", dt.datetime(2024, 3, 5), False),
        ("2024-03-05 07:08", dt.datetime(2024, 3, 5, 7, 8), False),
        (" 2024-03-05T07:08:09.123 ", dt.datetime(2024, 3, 5, 7, 8, 9, 123_000), False),
        ("2024-03-05 07:08:09Z", dt.datetime(2024, 3, 5, 7, 8, 9), True),
        ("2024-03-05 07:08:09 utc", dt.datetime(2024, 3, 5, 7, 8, 9), True),
        ("2024-03-05 07:08-0130", dt.datetime(2024, 3, 5, 8, 38), True),
        ("2024-03-05 07:08+05", dt.datetime(2024, 3, 5, 2, 8), True),
        ("1900-01-01 00:00:00.000001", dt.datetime(1900, 1, 1, 0, 0, 0, 1), False),
    ],
)
def test_parse_timestamp_micros(text, expected, zoned) -> None:
    assert parse_timestamp_micros(text) == (micros(expected.replace(tzinfo=dt.UTC)), zoned)
    assert parse_timestamp_nanos(text) == (micros(expected.replace(tzinfo=dt.UTC)) * 1000, zoned)


def test_parse_timestamp_nanos_keeps_nine_digits() -> None:
    assert parse_timestamp_nanos("1970-01-01 00:00:00.123456789-00:01") == (60_123_456_789, True)
    assert parse_timestamp_nanos("1969-12-31T23:59:59.9") == (-100_000_000, False)
    with pytest.raises(ValueError, match="not a timestamp"):
        parse_timestamp_micros("1970-01-01 00:00:00.1234567")


@pytest.mark.parametrize("text", ["2024-03-05 24:00", "2024-3-5", "2024-03-05 07", "now", ""])
def test_parse_timestamp_micros_refuses(text) -> None:
    with pytest.raises(ValueError, match="2024|now|''"):
        parse_timestamp_micros(text)
