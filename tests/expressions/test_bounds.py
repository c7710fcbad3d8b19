"""One bound decoder for every evaluator: promotion by length, truncation, unusable bounds."""

from __future__ import annotations

import struct
import uuid
from decimal import Decimal

import pytest

from icesql.expressions.bounds import decode_bound, decode_bounds
from icesql.spec.types import (
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    StringType,
    TimestampNanoType,
    TimestampType,
    UUIDType,
)
from icesql.spec.values import to_bytes

DAY_MICROS = 86_400_000_000


@pytest.mark.parametrize(
    ("t", "value"),
    [
        (IntegerType(), -5),
        (LongType(), 2**40),
        (DoubleType(), 1.5),
        (DateType(), 19000),
        (TimestampType(), 19000 * DAY_MICROS + 1),
        (StringType(), "abc"),
        (DecimalType(9, 2), Decimal("-1.25")),
    ],
)
def test_a_bound_written_with_its_own_type_decodes_either_way(t, value):
    data = to_bytes(t, value)
    assert decode_bound(t, data) == value
    assert decode_bound(t, data, promoted=False) == value


@pytest.mark.parametrize(
    ("t", "data", "value"),
    [
        (LongType(), to_bytes(IntegerType(), 7), 7),  # int -> long
        (DoubleType(), struct.pack("<f", 0.5), 0.5),  # float -> double
        (TimestampType(), to_bytes(DateType(), 2), 2 * DAY_MICROS),  # v3 date -> timestamp
        (TimestampNanoType(), to_bytes(DateType(), 1), 86_400_000_000_000),
    ],
)
def test_a_promoted_column_reads_its_older_bounds_by_their_length(t, data, value):
    assert decode_bound(t, data) == value
    if not isinstance(t, DoubleType):
        assert decode_bound(t, data, promoted=False) is None  # not comparable as written


def test_truncated_string_bounds_decode_as_written():
    # a truncated upper bound ("ab" + 1 = "ac") is still at least every value
    assert decode_bounds(StringType(), b"ab", b"ac") == ("ab", "ac")


@pytest.mark.parametrize(
    ("t", "data"),
    [
        (IntegerType(), None),  # absent
        (IntegerType(), b"\x01\x02\x03"),  # undecodable
        (UUIDType(), uuid.UUID(int=1).bytes),  # writers disagree on UUID order
        (DoubleType(), struct.pack("<d", float("nan"))),  # NaN bound of an old writer
        (FloatType(), struct.pack("<f", float("nan"))),
        (ListType(2, IntegerType(), False), b"\x00"),  # not primitive
    ],
)
def test_unusable_bounds_read_as_unknown(t, data):
    assert decode_bound(t, data) is None


def test_decode_bounds_needs_both():
    t = IntegerType()
    assert decode_bounds(t, to_bytes(t, 1), to_bytes(t, 9)) == (1, 9)
    assert decode_bounds(t, to_bytes(t, 1), None) is None
    assert decode_bounds(t, None, to_bytes(t, 9)) is None
    assert decode_bounds(t, to_bytes(t, 1), b"\x00") is None


def test_geospatial_and_variant_bounds_are_never_ordered_values():
    """Bounding-box points are no values in an order: every reader sees them as unknown."""
    import struct

    from icesql.spec.types import GeographyType, GeometryType, VariantType

    point = struct.pack("<2d", 1.0, 2.0)
    for t in (GeometryType(), GeographyType("srid:4326"), VariantType()):
        assert decode_bound(t, point) is None
        assert decode_bounds(t, point, point) is None
