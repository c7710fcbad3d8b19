"""Single values: Appendix D binary and JSON forms, Python conversions, human strings."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal

import pytest

from icesql.errors import NotSupportedError
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UnknownType,
    UUIDType,
    VariantType,
)
from icesql.spec.values import (
    decimal_from_unscaled,
    from_bytes,
    from_json_value,
    from_python,
    human_string,
    int_to_min_bytes,
    to_bytes,
    to_json_value,
    to_python,
    unscaled_decimal,
)

SPEC_UUID = uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
DAY_2017_11_16 = 17486
MICROS_2017_11_16_223108 = 1510871468000000


@pytest.mark.parametrize(
    "t, value, hex_bytes",
    [
        (BooleanType(), True, "01"),
        (BooleanType(), False, "00"),
        (IntegerType(), 34, "22000000"),
        (IntegerType(), -1, "ffffffff"),
        (LongType(), 34, "2200000000000000"),
        (FloatType(), 1.0, "0000803f"),
        (DoubleType(), 1.0, "000000000000f03f"),
        (DoubleType(), -2.5, "00000000000004c0"),
        (DateType(), DAY_2017_11_16, "4e440000"),
        (DateType(), -1, "ffffffff"),
        (TimeType(), 81068000000, "008307e012000000"),
        (TimestampType(), MICROS_2017_11_16_223108, "00c3262d215e0500"),
        (TimestamptzType(), MICROS_2017_11_16_223108, "00c3262d215e0500"),
        (TimestampNanoType(), 1, "0100000000000000"),
        (TimestamptzNanoType(), -1, "ffffffffffffffff"),
        (StringType(), "iceberg", "69636562657267"),
        (StringType(), "é", "c3a9"),
        (UUIDType(), SPEC_UUID, "f79c3e09677c4bbda4793f349cb785e7"),
        (FixedType(4), b"\x00\x01\x02\x03", "00010203"),
        (BinaryType(), b"\x00\x01\x02\x03", "00010203"),
        (BinaryType(), b"", ""),
        (DecimalType(4, 2), Decimal("14.20"), "058c"),
        (DecimalType(9, 2), Decimal("1.28"), "0080"),
        (DecimalType(9, 2), Decimal("1.27"), "7f"),
        (DecimalType(9, 2), Decimal("-1.28"), "80"),
        (DecimalType(9, 2), Decimal("-1.29"), "ff7f"),
        (DecimalType(9, 2), Decimal("0.00"), "00"),
        (DecimalType(38, 0), Decimal(10**37), "0785ee10d5da46d900f436a000000000"),
    ],
)
def test_binary_single_value(t, value, hex_bytes):
    assert to_bytes(t, value).hex() == hex_bytes
    assert from_bytes(t, bytes.fromhex(hex_bytes)) == value


def test_decimal_from_bytes_has_the_type_scale():
    value = from_bytes(DecimalType(9, 2), bytes.fromhex("058c"))
    assert str(value) == "14.20"
    # a value with fewer fractional digits serializes the same unscaled number
    assert to_bytes(DecimalType(9, 2), Decimal("14.2")).hex() == "058c"


def test_decimal_with_too_many_digits_is_refused():
    with pytest.raises(ValueError):
        to_bytes(DecimalType(9, 2), Decimal("1.234"))


def test_bounds_written_before_type_promotion_stay_readable():
    assert from_bytes(LongType(), bytes.fromhex("feffffff")) == -2
    assert from_bytes(DoubleType(), bytes.fromhex("0000803f")) == 1.0
    # v3 date -> timestamp / timestamp_ns: a 4-byte bound is a date, read as its midnight
    day = to_bytes(DateType(), 19724)  # 2024-01-02
    assert from_bytes(TimestampType(), day) == 19724 * 86_400 * 10**6
    assert from_bytes(TimestampNanoType(), day) == 19724 * 86_400 * 10**9
    assert from_bytes(DateType(), day) == 19724


def test_boolean_any_non_zero_byte_is_true():
    assert from_bytes(BooleanType(), b"\x02") is True


@pytest.mark.parametrize(
    "t", [UnknownType(), VariantType(), StructType(()), ListType(1, IntegerType(), True)]
)
def test_types_without_binary_form(t):
    with pytest.raises(NotSupportedError):
        to_bytes(t, 1)
    with pytest.raises(NotSupportedError):
        from_bytes(t, b"\x01")


def test_min_bytes_and_unscaled_helpers():
    assert int_to_min_bytes(0) == b"\x00"
    assert int_to_min_bytes(255) == b"\x00\xff"
    assert int_to_min_bytes(-256) == b"\xff\x00"
    assert unscaled_decimal(Decimal("-0.05"), 2) == -5
    assert unscaled_decimal(Decimal("2E+1"), 0) == 20
    d = decimal_from_unscaled(12345678901234567890123456789012345678, 10)
    assert str(d) == "1234567890123456789012345678.9012345678"


@pytest.mark.parametrize(
    "t, value, encoded",
    [
        (BooleanType(), True, True),
        (IntegerType(), 34, 34),
        (LongType(), 34, 34),
        (FloatType(), 1.0, 1.0),
        (DoubleType(), 1.0, 1.0),
        (DecimalType(4, 2), Decimal("14.20"), "14.20"),
        (DecimalType(4, -20), Decimal("2E+20"), "2E+20"),
        (DecimalType(9, 2), Decimal("-0.05"), "-0.05"),
        (DateType(), DAY_2017_11_16, "2017-11-16"),
        (DateType(), -1, "1969-12-31"),
        (TimeType(), 81068123456, "22:31:08.123456"),
        (TimestampType(), 1510871468123456, "2017-11-16T22:31:08.123456"),
        (TimestamptzType(), 1510871468123456, "2017-11-16T22:31:08.123456+00:00"),
        (TimestampType(), -1, "1969-12-31T23:59:59.999999"),
        (TimestampNanoType(), 1510871468123456789, "2017-11-16T22:31:08.123456789"),
        (TimestamptzNanoType(), 1510871468123456789, "2017-11-16T22:31:08.123456789+00:00"),
        (StringType(), "iceberg", "iceberg"),
        (UUIDType(), SPEC_UUID, "f79c3e09-677c-4bbd-a479-3f349cb785e7"),
        (FixedType(4), b"\x00\x01\x02\xff", "000102ff"),
        (BinaryType(), b"\x00\x01\x02\xff", "000102ff"),
        (
            StructType((NestedField(1, "a", IntegerType()), NestedField(2, "b", StringType()))),
            {1: 1, 2: "bar"},
            {"1": 1, "2": "bar"},
        ),
        (ListType(3, IntegerType(), True), [1, 2, 3], [1, 2, 3]),
        (
            MapType(4, StringType(), 5, IntegerType(), True),
            {"a": 1, "b": 2},
            {"keys": ["a", "b"], "values": [1, 2]},
        ),
    ],
)
def test_json_single_value(t, value, encoded):
    assert to_json_value(t, value) == encoded
    assert from_json_value(t, encoded) == value


@pytest.mark.parametrize(
    "t, text, value",
    [
        (TimeType(), "22:31", 81060000000),
        (TimeType(), "22:31:08", 81068000000),
        (TimestampType(), "2017-11-16T22:31:08", MICROS_2017_11_16_223108),
        (TimestamptzType(), "2017-11-16T14:31:08-08:00", MICROS_2017_11_16_223108),
        (TimestamptzType(), "2017-11-16T22:31:08Z", MICROS_2017_11_16_223108),
        (TimestampNanoType(), "2017-11-16T22:31:08.000001001", 1510871468000001001),
        (BinaryType(), "000102FF", b"\x00\x01\x02\xff"),  # Java writes upper case
    ],
)
def test_json_single_value_lenient_reading(t, text, value):
    assert from_json_value(t, text) == value


@pytest.mark.parametrize(
    "t, obj",
    [
        (DecimalType(9, 2), "14.2"),  # scale must match the type
        (DecimalType(9, 2), 14.2),
        (IntegerType(), 2**31),
        (IntegerType(), True),
        (BooleanType(), 1),
        (TimestampType(), "2017-11-16T22:31:08+00:00"),  # no zone for timestamp
        (TimestamptzType(), "2017-11-16T22:31:08"),  # zone required for timestamptz
        (TimestampType(), "2017-11-16T22:31:08.1234567"),  # micro precision only
        (FixedType(2), "000102"),
        (UnknownType(), 1),
        (MapType(1, StringType(), 2, IntegerType(), True), {"keys": ["a"], "values": []}),
    ],
)
def test_json_single_value_rejects(t, obj):
    with pytest.raises(ValueError):
        from_json_value(t, obj)


def test_json_null_is_none_for_every_type():
    assert from_json_value(VariantType(), None) is None
    assert to_json_value(UnknownType(), None) is None


def test_to_python():
    assert to_python(DateType(), -1) == dt.date(1969, 12, 31)
    assert to_python(TimeType(), 81068000001) == dt.time(22, 31, 8, 1)
    assert to_python(TimestampType(), -1) == dt.datetime(1969, 12, 31, 23, 59, 59, 999999)
    tz = to_python(TimestamptzType(), MICROS_2017_11_16_223108)
    assert tz == dt.datetime(2017, 11, 16, 22, 31, 8, tzinfo=dt.UTC)
    assert tz.tzinfo is not None
    assert to_python(TimestampType(), 0).tzinfo is None
    assert to_python(TimestampNanoType(), -1) == dt.datetime(1969, 12, 31, 23, 59, 59, 999999)
    struct_t = StructType((NestedField(1, "d", DateType()),))
    assert to_python(struct_t, {1: 0}) == {"d": dt.date(1970, 1, 1)}
    assert to_python(StringType(), "x") == "x"


@pytest.mark.parametrize(
    "t, pyvalue, value",
    [
        (BooleanType(), False, False),
        (IntegerType(), -5, -5),
        (DoubleType(), 3, 3.0),
        (DecimalType(5, 2), Decimal("1.5"), Decimal("1.50")),
        (DecimalType(5, 2), "-1.25", Decimal("-1.25")),
        (DecimalType(5, 2), 7, Decimal("7.00")),
        (DateType(), dt.date(1969, 12, 31), -1),
        (DateType(), "2017-11-16", DAY_2017_11_16),
        (TimeType(), dt.time(22, 31, 8), 81068000000),
        (TimestampType(), dt.datetime(2017, 11, 16, 22, 31, 8), MICROS_2017_11_16_223108),
        (TimestampType(), "2017-11-16 22:31:08", MICROS_2017_11_16_223108),
        (
            TimestamptzType(),
            dt.datetime(2017, 11, 16, 14, 31, 8, tzinfo=dt.timezone(dt.timedelta(hours=-8))),
            MICROS_2017_11_16_223108,
        ),
        (TimestamptzType(), dt.datetime(2017, 11, 16, 22, 31, 8), MICROS_2017_11_16_223108),
        (TimestamptzType(), "2017-11-16 22:31:08", MICROS_2017_11_16_223108),
        (TimestampNanoType(), dt.datetime(1970, 1, 1, 0, 0, 0, 1), 1000),
        (TimestampType(), dt.date(1970, 1, 2), 86_400_000_000),
        (UUIDType(), str(SPEC_UUID), SPEC_UUID),
        (UUIDType(), SPEC_UUID.bytes, SPEC_UUID),
        (FixedType(2), bytearray(b"ab"), b"ab"),
        (StringType(), "s", "s"),
        (ListType(1, DateType(), False), [dt.date(1970, 1, 1), None], [0, None]),
        (StructType((NestedField(1, "a", IntegerType()),)), {"a": 1}, {1: 1}),
    ],
)
def test_from_python(t, pyvalue, value):
    assert from_python(t, pyvalue) == value


@pytest.mark.parametrize(
    "t, pyvalue",
    [
        (BooleanType(), 1),
        (IntegerType(), True),
        (IntegerType(), 2**31),
        (LongType(), 1.5),
        (DecimalType(5, 2), Decimal("1.234")),  # would need rounding
        (DecimalType(3, 2), Decimal("10.00")),  # too many digits for the precision
        (DateType(), dt.datetime(2020, 1, 1)),
        (TimestampType(), dt.datetime(2020, 1, 1, tzinfo=dt.UTC)),
        (StringType(), b"bytes"),
        (FixedType(3), b"ab"),
        (UUIDType(), "not-a-uuid"),
        (DateType(), "2020-13-01"),
    ],
)
def test_from_python_rejects(t, pyvalue):
    with pytest.raises(ValueError):
        from_python(t, pyvalue)


@pytest.mark.parametrize(
    "t, value, text",
    [
        (DateType(), DAY_2017_11_16, "2017-11-16"),
        (TimeType(), 36775038194, "10:12:55.038194"),
        (TimeType(), 36720000000, "10:12"),  # java.time drops zero seconds
        (TimestampType(), 1512123175038194, "2017-12-01T10:12:55.038194"),
        (TimestampType(), 1512123175038000, "2017-12-01T10:12:55.038"),
        (TimestamptzType(), 1512151975038194, "2017-12-01T18:12:55.038194Z"),
        (TimestampNanoType(), 1512123175038194001, "2017-12-01T10:12:55.038194001"),
        (BinaryType(), b"\x01\x02\x03", "AQID"),
        (FixedType(3), b"\x01\x02\x03", "AQID"),
        (DecimalType(9, 2), Decimal("-1.50"), "-1.50"),
        (StringType(), "a/b", "a/b"),
        (BooleanType(), True, "true"),
        (IntegerType(), -3, "-3"),
        (DoubleType(), 1.0, "1.0"),
        (DoubleType(), 1e10, "1.0E10"),
        (DoubleType(), 2.5e-5, "2.5E-5"),
        (FloatType(), 0.1, "0.1"),
        (UUIDType(), SPEC_UUID, "f79c3e09-677c-4bbd-a479-3f349cb785e7"),
        (StringType(), None, "null"),
    ],
)
def test_human_string(t, value, text):
    assert human_string(t, value) == text


def test_human_string_float_is_shortest_float32_text():
    # 0.1 as a float32 widened to double is 0.10000000149011612; Java prints "0.1"
    widened = from_bytes(FloatType(), to_bytes(FloatType(), 0.1))
    assert widened != 0.1
    assert human_string(FloatType(), widened) == "0.1"
    assert human_string(DoubleType(), math.nan) == "NaN"
