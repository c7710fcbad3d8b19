"""Transforms: the spec's hash table (Appendix B), truncate table, pre-1970 time ordinals,
human strings, and apply_arrow agreeing with apply element-wise."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icesql.errors import NotSupportedError
from icesql.spec.arrow import type_to_arrow
from icesql.spec.transforms import (
    Bucket,
    Day,
    Hour,
    Identity,
    Month,
    Truncate,
    UnknownTransform,
    Void,
    Year,
    murmur3_hash,
    parse_transform,
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
    UUIDType,
    VariantType,
)
from icesql.spec.values import from_python

# Appendix B: (type, value given as the spec writes it, expected 32-bit hash)
SPEC_HASHES = [
    (IntegerType(), 34, 2017239379),
    (LongType(), 34, 2017239379),
    (DecimalType(4, 2), "14.20", -500754589),
    (DateType(), "2017-11-16", -653330422),
    (TimeType(), "22:31:08", -662762989),
    (TimestampType(), "2017-11-16T22:31:08", -2047944441),
    (TimestampType(), "2017-11-16T22:31:08.000001", -1207196810),
    (TimestamptzType(), "2017-11-16T14:31:08-08:00", -2047944441),
    (TimestamptzType(), "2017-11-16T14:31:08.000001-08:00", -1207196810),
    (TimestampNanoType(), "2017-11-16T22:31:08", -2047944441),
    (TimestampNanoType(), "2017-11-16T22:31:08.000001001", -1207196810),
    (TimestamptzNanoType(), "2017-11-16T14:31:08-08:00", -2047944441),
    (TimestamptzNanoType(), "2017-11-16T14:31:08.000001001-08:00", -1207196810),
    (StringType(), "iceberg", 1210000089),
    (UUIDType(), "f79c3e09-677c-4bbd-a479-3f349cb785e7", 1488055340),
    (FixedType(4), b"\x00\x01\x02\x03", -188683207),
    (BinaryType(), b"\x00\x01\x02\x03", -188683207),
    # types not valid for bucketing, whose hashes the spec still defines
    (BooleanType(), True, 1392991556),
    (FloatType(), 1.0, -142385009),
    (FloatType(), 0.0, 1669671676),
    (FloatType(), -0.0, 1669671676),
    (DoubleType(), 1.0, -142385009),
    (DoubleType(), 0.0, 1669671676),
    (DoubleType(), -0.0, 1669671676),
]


@pytest.mark.parametrize("t, given_value, expected", SPEC_HASHES)
def test_spec_hash_values(t, given_value, expected):
    assert murmur3_hash(t, from_python(t, given_value)) == expected


def test_bucket_uses_the_hash_without_sign_bit():
    # -653330422 & INT_MAX = 1494153226
    assert Bucket(100).apply(DateType(), 17486) == 1494153226 % 100
    assert Bucket(16).apply(IntegerType(), 34) == 2017239379 % 16
    assert Bucket(16).apply(StringType(), None) is None


def test_int_and_long_buckets_agree_so_promotion_keeps_partitions():
    for v in (-(2**31), -1, 0, 7, 2**31 - 1):
        assert Bucket(1000).apply(IntegerType(), v) == Bucket(1000).apply(LongType(), v)


@pytest.mark.parametrize(
    "t", [BooleanType(), FloatType(), DoubleType(), VariantType(), GeometryType()]
)
def test_types_not_valid_for_bucketing(t):
    assert not Bucket(4).can_transform(t)
    with pytest.raises(NotSupportedError):
        Bucket(4).apply(t, True if isinstance(t, BooleanType) else 1.0)


@pytest.mark.parametrize(
    "t, width, value, expected",
    [
        (IntegerType(), 10, 1, 0),
        (IntegerType(), 10, -1, -10),
        (IntegerType(), 10, 0, 0),
        (IntegerType(), 10, -10, -10),
        (IntegerType(), 10, 5, 0),
        (IntegerType(), 10, -5, -10),
        (LongType(), 10, 1, 0),
        (LongType(), 10, -1, -10),
        (DecimalType(9, 2), 50, "10.65", "10.50"),
        (DecimalType(9, 2), 10, "10.65", "10.60"),
        (DecimalType(9, 2), 10, "12.34", "12.30"),
        (DecimalType(9, 2), 10, "12.30", "12.30"),
        (DecimalType(9, 2), 10, "12.29", "12.20"),
        (DecimalType(9, 2), 10, "0.05", "0.00"),
        (DecimalType(9, 2), 10, "-0.05", "-0.10"),
        (StringType(), 3, "iceberg", "ice"),
        (StringType(), 3, "ab", "ab"),
        (StringType(), 2, "日本語", "日本"),  # code points, not bytes
        (StringType(), 1, "😀x", "😀"),
        (BinaryType(), 3, b"\x01\x02\x03\x04\x05", b"\x01\x02\x03"),
    ],
)
def test_spec_truncate_examples(t, width, value, expected):
    if isinstance(t, DecimalType):
        value, expected = Decimal(value), Decimal(expected)
    result = Truncate(width).apply(t, value)
    assert result == expected
    if isinstance(t, DecimalType):
        assert str(result) == str(expected)  # the type's scale is kept


def test_truncate_rejects_other_types():
    assert not Truncate(3).can_transform(FixedType(4))
    assert not Truncate(3).can_transform(DateType())
    with pytest.raises(NotSupportedError):
        Truncate(3).apply(DoubleType(), 1.5)


@pytest.mark.parametrize(
    "t, text, year, month, day, hour",
    [
        (DateType(), "1970-01-01", 0, 0, 0, None),
        (DateType(), "1969-12-31", -1, -1, -1, None),
        (DateType(), "1969-01-01", -1, -12, -365, None),
        (DateType(), "1968-12-31", -2, -13, -366, None),
        (DateType(), "2017-11-16", 47, 574, 17486, None),
        (TimestampType(), "1969-12-31T23:59:59.999999", -1, -1, -1, -1),
        (TimestampType(), "1970-01-01T00:00:00", 0, 0, 0, 0),
        (TimestampType(), "1969-12-31T23:00:00", -1, -1, -1, -1),
        (TimestampType(), "1969-12-31T22:59:59.999999", -1, -1, -1, -2),
        (TimestamptzType(), "2017-11-16T14:31:08-08:00", 47, 574, 17486, 419686),
        (TimestampNanoType(), "1969-12-31T23:59:59.999999999", -1, -1, -1, -1),
        (TimestamptzNanoType(), "2017-11-16T22:31:08.000000001+00:00", 47, 574, 17486, 419686),
    ],
)
def test_time_transforms_floor_before_1970(t, text, year, month, day, hour):
    v = from_python(t, text)
    assert Year().apply(t, v) == year
    assert Month().apply(t, v) == month
    assert Day().apply(t, v) == day
    if hour is None:
        assert not Hour().can_transform(t)
    else:
        assert Hour().apply(t, v) == hour


def test_result_types():
    assert Day().result_type(TimestampType()) == DateType()
    assert Year().result_type(DateType()) == IntegerType()
    assert Hour().result_type(TimestamptzType()) == IntegerType()
    assert Bucket(4).result_type(StringType()) == IntegerType()
    assert Truncate(4).result_type(DecimalType(9, 2)) == DecimalType(9, 2)
    assert Identity().result_type(UUIDType()) == UUIDType()
    assert Void().result_type(LongType()) == LongType()


@pytest.mark.parametrize(
    "transform, t, value, text",
    [
        (Year(), DateType(), 47, "2017"),
        (Year(), DateType(), -1, "1969"),
        (Month(), DateType(), 574, "2017-11"),
        (Month(), DateType(), -1, "1969-12"),
        (Month(), DateType(), -13, "1968-12"),
        (Day(), TimestampType(), 17486, "2017-11-16"),
        (Day(), TimestampType(), -1, "1969-12-31"),
        (Hour(), TimestampType(), 419686, "2017-11-16-22"),
        (Hour(), TimestampType(), -1, "1969-12-31-23"),
        (Identity(), DateType(), 17536, "2018-01-05"),
        (Identity(), StringType(), "a b", "a b"),
        (Bucket(16), StringType(), 3, "3"),
        (Truncate(3), StringType(), "ice", "ice"),
        (Truncate(3), BinaryType(), b"\x01\x02\x03", "AQID"),
        (Truncate(10), DecimalType(9, 2), Decimal("10.60"), "10.60"),
        (Void(), IntegerType(), None, "null"),
        (Year(), DateType(), None, "null"),
        (Hour(), TimestampType(), None, "null"),
        (Identity(), IntegerType(), None, "null"),
    ],
)
def test_human_strings(transform, t, value, text):
    assert transform.to_human_string(t, value) == text


@pytest.mark.parametrize(
    "text, transform",
    [
        ("identity", Identity()),
        ("void", Void()),
        ("year", Year()),
        ("month", Month()),
        ("day", Day()),
        ("hour", Hour()),
        ("bucket[16]", Bucket(16)),
        ("truncate[20]", Truncate(20)),
    ],
)
def test_parse_and_print(text, transform):
    assert parse_transform(text) == transform
    assert str(transform) == text


def test_parse_tolerates_spacing_case_and_plurals():
    assert parse_transform(" Bucket[ 8 ] ") == Bucket(8)
    assert parse_transform("days") == Day()


def test_unknown_transform_round_trips_but_cannot_apply():
    t = parse_transform("zorder[a,b]")
    assert t == UnknownTransform("zorder[a,b]")
    assert str(t) == "zorder[a,b]"
    assert not t.can_transform(IntegerType())
    with pytest.raises(NotSupportedError, match="zorder"):
        t.apply(IntegerType(), 1)
    with pytest.raises(NotSupportedError):
        t.apply_arrow(IntegerType(), pa.array([1]))


def test_order_properties():
    assert Identity().preserves_order and Truncate(2).preserves_order
    assert Day().preserves_order and not Bucket(2).preserves_order
    assert not Void().preserves_order
    assert Hour().satisfies_order_of(Day())
    assert Day().satisfies_order_of(Month()) and Month().satisfies_order_of(Year())
    assert not Year().satisfies_order_of(Month())
    assert Identity().satisfies_order_of(Day())
    assert not Identity().satisfies_order_of(Bucket(4))
    assert Bucket(4).satisfies_order_of(Bucket(4)) and not Bucket(4).satisfies_order_of(Bucket(8))
    # a longer prefix orders a shorter one; a numeric width orders its multiples only
    assert Truncate(5).satisfies_order_of(Truncate(3), StringType())
    assert not Truncate(3).satisfies_order_of(Truncate(5), StringType())
    assert Truncate(5).satisfies_order_of(Truncate(10), IntegerType())
    assert not Truncate(10).satisfies_order_of(Truncate(5), IntegerType())
    assert not Truncate(5).satisfies_order_of(Truncate(3))


def test_invalid_parameters():
    with pytest.raises(ValueError):
        Bucket(0)
    with pytest.raises(ValueError):
        Truncate(-1)


# --- apply_arrow == apply ----------------------------------------------------------------------

INT32 = st.integers(-(2**31) + 10**6, 2**31 - 1)
INT64 = st.integers(-(2**62), 2**62)
DAYS = st.integers(-719162, 2932896)  # 0001-01-01 .. 9999-12-31
MICROS = st.integers(-62135596800000000, 253402300799999999)
NANOS = st.integers(-(2**63) + 10**9, 2**63 - 1)
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)

SOURCES = [
    (IntegerType(), INT32),
    (LongType(), INT64),
    (DateType(), DAYS),
    (TimeType(), st.integers(0, 86_400_000_000 - 1)),
    (TimestampType(), MICROS),
    (TimestamptzType(), MICROS),
    (TimestampNanoType(), NANOS),
    (TimestamptzNanoType(), NANOS),
    (DecimalType(9, 2), st.integers(-(10**9) + 1, 10**9 - 1).map(lambda u: Decimal(u).scaleb(-2))),
    (DecimalType(38, 0), st.integers(-(10**38) + 1, 10**38 - 1).map(Decimal)),
    (StringType(), TEXT),
    (BinaryType(), st.binary(max_size=12)),
    (FixedType(3), st.binary(min_size=3, max_size=3)),
    (UUIDType(), st.uuids()),
]
TRANSFORMS = [
    Identity(),
    Void(),
    Bucket(7),
    Bucket(1024),
    Truncate(1),
    Truncate(3),
    Truncate(1000),
    Year(),
    Month(),
    Day(),
    Hour(),
]


def _to_arrow(t, values):
    """Convention values to the Arrow array icesql would hold for type ``t``."""
    arrow_type = type_to_arrow(t)
    if isinstance(t, DateType):
        return pa.array(values, pa.int32()).cast(arrow_type)
    if isinstance(
        t, TimeType | TimestampType | TimestamptzType | TimestampNanoType | TimestamptzNanoType
    ):
        return pa.array(values, pa.int64()).cast(arrow_type)
    if isinstance(t, UUIDType):
        return pa.array([None if v is None else v.bytes for v in values], arrow_type)
    return pa.array(values, arrow_type)


def _from_arrow(t, array):
    if isinstance(t, DateType):
        return array.cast(pa.int32()).to_pylist()
    if pa.types.is_fixed_size_binary(array.type) and isinstance(t, UUIDType):
        return [None if v is None else uuid.UUID(bytes=v) for v in array.to_pylist()]
    if pa.types.is_timestamp(array.type) or pa.types.is_time(array.type):
        return array.cast(pa.int64()).to_pylist()
    return array.to_pylist()


@pytest.mark.parametrize("source_type, strategy", SOURCES, ids=[str(s[0]) for s in SOURCES])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_apply_arrow_matches_apply(source_type, strategy, data):
    values = data.draw(st.lists(st.one_of(st.none(), strategy), max_size=20))
    array = _to_arrow(source_type, values)
    for transform in TRANSFORMS:
        if not transform.can_transform(source_type):
            continue
        result_type = transform.result_type(source_type)
        out = transform.apply_arrow(source_type, array)
        if not isinstance(transform, Identity):
            assert out.type == type_to_arrow(result_type), transform
        expected = [transform.apply(source_type, v) for v in values]
        assert _from_arrow(result_type, out) == expected, transform
        chunked = transform.apply_arrow(source_type, pa.chunked_array([array, array]))
        assert _from_arrow(result_type, chunked.combine_chunks()) == expected * 2


def test_apply_arrow_accepts_other_timestamp_units_and_plain_ints():
    ns = pa.array([-1, 3_600_000_000_000], pa.timestamp("ns"))
    assert Hour().apply_arrow(TimestampType(), ns).to_pylist() == [-1, 1]
    ints = pa.array([-1, 0], pa.int64())
    assert Day().apply_arrow(TimestampType(), ints).cast(pa.int32()).to_pylist() == [-1, 0]
    assert Year().apply_arrow(DateType(), pa.array([-1], pa.int32())).to_pylist() == [-1]


def test_apply_arrow_rejects_unsupported_source():
    with pytest.raises(NotSupportedError):
        Hour().apply_arrow(DateType(), pa.array([1], pa.date32()))
