"""Partition transforms: identity, bucket[N], truncate[W], year, month, day, hour, void.

A transform is a small frozen value parsed from the spec string and applied to values in
icesql's value convention (``icesql.spec.values``), one at a time (``apply``) or to a whole
Arrow array (``apply_arrow``), with identical results::

    >>> parse_transform("bucket[16]").apply(IntegerType(), 34)
    3
    >>> Truncate(10).apply(IntegerType(), -1), Day().apply(DateType(), -1)
    (-10, -1)
    >>> Hour().to_human_string(TimestampType(), 420010)
    '2017-11-30-10'

Time transforms use floor division, so values before 1970 land in negative ordinals
(1969-12-31 is day -1, month -1, year -1). Transforms the reader does not know parse as
``UnknownTransform``: they round-trip through metadata but cannot be applied. Projecting a
predicate through a transform is the expressions' job
(``icesql.expressions.transform_projections``), so the spec imports no expressions.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import mmh3
import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.errors import NotSupportedError
from icesql.spec.arrays import int_scalar, int_values
from icesql.spec.arrow import type_to_arrow
from icesql.spec.dispatch import PerPrimitiveType
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    GeographyType,
    GeometryType,
    IcebergType,
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
from icesql.spec.values import (
    MICROS_PER_DAY,
    days_to_date,
    decimal_from_unscaled,
    human_string,
    int_to_min_bytes,
    iso_date,
    to_bytes,
    unscaled_decimal,
)

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # Arrow kernels run when a column is transformed, not when a spec is read
    pc = lazy_module("pyarrow.compute")

__all__ = [
    "Bucket",
    "Day",
    "Hour",
    "Identity",
    "Month",
    "Transform",
    "Truncate",
    "UnknownTransform",
    "Void",
    "Year",
    "murmur3_hash",
    "parse_transform",
]

MICROS_PER_HOUR = 3_600_000_000
_INT_LIKE = (IntegerType, LongType, DateType, TimeType, TimestampType, TimestamptzType)
_TIMESTAMPS = (TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType)
_NANOS = (TimestampNanoType, TimestamptzNanoType)
_BUCKETABLE = _INT_LIKE + _NANOS + (DecimalType, StringType, UUIDType, FixedType, BinaryType)
_UNORDERABLE = (VariantType, GeometryType, GeographyType)


# ---------------------------------------------------------------------------------------------
# Appendix B: 32-bit hash


def _float_hash_bytes(t: IcebergType, value: Any) -> bytes:
    v = float(value)
    if v != v:
        return struct.pack("<q", 0x7FF8000000000000)  # every NaN hashes alike
    return struct.pack("<d", 0.0 if v == 0 else v)  # -0.0 hashes as 0.0


def _no_hash(t: IcebergType, value: Any) -> bytes:
    raise NotSupportedError(f"the Iceberg spec defines no hash for type {t}")


_HASH_BYTES: PerPrimitiveType[Any] = PerPrimitiveType(
    "Murmur3 hash",
    {
        _INT_LIKE: lambda t, value: struct.pack("<q", value),
        _NANOS: lambda t, value: struct.pack("<q", value // 1000),
        BooleanType: lambda t, value: struct.pack("<q", 1 if value else 0),
        (FloatType, DoubleType): _float_hash_bytes,
        DecimalType: lambda t, value: int_to_min_bytes(unscaled_decimal(value, t.scale)),
        (StringType, UUIDType, FixedType, BinaryType): to_bytes,
        _UNORDERABLE: _no_hash,
        UnknownType: lambda t, value: None,
    },
)


def murmur3_hash(t: IcebergType, value: Any) -> int | None:
    """The spec's 32-bit Murmur3 (x86, seed 0) hash of a convention value (Appendix B).

    ints, longs, dates, times and timestamps hash as an 8-byte little-endian long (nanosecond
    timestamps first floored to micros); decimals as their minimal big-endian unscaled bytes;
    booleans, floats and doubles follow the spec's table for types not valid for bucketing.
    """
    if value is None:
        return None
    data = _HASH_BYTES(t, value)
    return None if data is None else mmh3.hash(data, 0, signed=True)


# ---------------------------------------------------------------------------------------------
# Base


def _floor_div(a: pa.Array, b: int) -> pa.Array:
    """Integer floor division for Arrow int arrays (Arrow's divide truncates toward zero)."""
    q = pc.divide(a, int_scalar(b, a.type))
    r = pc.subtract(a, pc.multiply(q, int_scalar(b, a.type)))
    return pc.subtract(q, pc.cast(pc.less(r, int_scalar(0, a.type)), a.type))


class Transform:
    """A partition/sort transform. Subclasses are frozen dataclasses; ``str`` is spec text."""

    __slots__ = ()

    def can_transform(self, source_type: IcebergType) -> bool:
        raise NotImplementedError

    def result_type(self, source_type: IcebergType) -> IcebergType:
        raise NotImplementedError

    def apply(self, source_type: IcebergType, value: Any) -> Any:
        """Transform one convention value; None gives None."""
        raise NotImplementedError

    def apply_arrow(
        self, source_type: IcebergType, array: pa.Array | pa.ChunkedArray
    ) -> pa.Array | pa.ChunkedArray:
        """Transform an Arrow array; the result has ``type_to_arrow(result_type(...))``."""
        self._check(source_type)
        if not isinstance(array, pa.ChunkedArray):
            return self._apply_arrow(source_type, array)
        chunks = [self._apply_arrow(source_type, c) for c in array.chunks]
        out_type = chunks[0].type if chunks else type_to_arrow(self.result_type(source_type))
        return pa.chunked_array(chunks, type=out_type)

    def _apply_arrow(self, source_type: IcebergType, array: pa.Array) -> pa.Array:
        values = _to_convention(source_type, array)
        out = [self.apply(source_type, v) for v in values]
        return _from_convention(self.result_type(source_type), out)

    def to_human_string(self, source_type: IcebergType, value: Any) -> str:
        """The partition path text of a transformed value, as Java Iceberg prints it."""
        return human_string(self.result_type(source_type), value)

    @property
    def preserves_order(self) -> bool:
        return False

    def satisfies_order_of(self, other: Transform, source_type: IcebergType | None = None) -> bool:
        """True when data ordered by this transform is also ordered by ``other`` (same
        source column)."""
        return self == other

    @property
    def is_void(self) -> bool:
        return False

    def _check(self, source_type: IcebergType) -> None:
        if not self.can_transform(source_type):
            raise NotSupportedError(f"transform {self} cannot be applied to type {source_type}")


@dataclass(frozen=True)
class Identity(Transform):
    """The source value unchanged."""

    def __str__(self) -> str:
        return "identity"

    def can_transform(self, source_type: IcebergType) -> bool:
        return not isinstance(source_type, _UNORDERABLE)

    def result_type(self, source_type: IcebergType) -> IcebergType:
        return source_type

    def apply(self, source_type: IcebergType, value: Any) -> Any:
        return value

    def _apply_arrow(self, source_type: IcebergType, array: pa.Array) -> pa.Array:
        return array

    @property
    def preserves_order(self) -> bool:
        return True

    def satisfies_order_of(self, other: Transform, source_type: IcebergType | None = None) -> bool:
        return other.preserves_order


@dataclass(frozen=True)
class Void(Transform):
    """Always null; replaces a dropped partition field in v1 tables."""

    def __str__(self) -> str:
        return "void"

    def can_transform(self, source_type: IcebergType) -> bool:
        return True

    def result_type(self, source_type: IcebergType) -> IcebergType:
        return source_type

    def apply(self, source_type: IcebergType, value: Any) -> Any:
        return None

    def _apply_arrow(self, source_type: IcebergType, array: pa.Array) -> pa.Array:
        return pa.nulls(len(array), type_to_arrow(source_type))

    def to_human_string(self, source_type: IcebergType, value: Any) -> str:
        return "null"

    @property
    def is_void(self) -> bool:
        return True


@dataclass(frozen=True)
class Bucket(Transform):
    """``(murmur3(v) & INT_MAX) % N``: spreads values over N buckets."""

    num_buckets: int

    def __post_init__(self) -> None:
        if self.num_buckets <= 0:
            raise ValueError(f"bucket count must be positive, got {self.num_buckets}")

    def __str__(self) -> str:
        return f"bucket[{self.num_buckets}]"

    def can_transform(self, source_type: IcebergType) -> bool:
        return isinstance(source_type, _BUCKETABLE)

    def result_type(self, source_type: IcebergType) -> IcebergType:
        return IntegerType()

    def apply(self, source_type: IcebergType, value: Any) -> Any:
        if value is None:
            return None
        self._check(source_type)
        hashed = murmur3_hash(source_type, value)
        if hashed is None:  # _check admits only the types the spec hashes
            raise NotSupportedError(f"transform {self} cannot hash type {source_type}")
        return (hashed & 0x7FFFFFFF) % self.num_buckets

    def to_human_string(self, source_type: IcebergType, value: Any) -> str:
        return "null" if value is None else str(value)


@dataclass(frozen=True)
class Truncate(Transform):
    """Numbers floored to a multiple of W; strings cut to W code points, binary to W bytes."""

    width: int

    def __post_init__(self) -> None:
        if self.width <= 0:
            raise ValueError(f"truncate width must be positive, got {self.width}")

    def __str__(self) -> str:
        return f"truncate[{self.width}]"

    def can_transform(self, source_type: IcebergType) -> bool:
        return isinstance(
            source_type, IntegerType | LongType | DecimalType | StringType | BinaryType
        )

    def result_type(self, source_type: IcebergType) -> IcebergType:
        return source_type

    def apply(self, source_type: IcebergType, value: Any) -> Any:
        if value is None:
            return None
        self._check(source_type)
        w = self.width
        if isinstance(source_type, IntegerType | LongType):
            return value - (((value % w) + w) % w)
        if isinstance(source_type, DecimalType):
            unscaled = unscaled_decimal(value, source_type.scale)
            return decimal_from_unscaled(unscaled - unscaled % w, source_type.scale)
        # str slicing counts code points, bytes slicing counts bytes: what the spec asks.
        return value[:w]

    def _apply_arrow(self, source_type: IcebergType, array: pa.Array) -> pa.Array:
        if isinstance(source_type, IntegerType | LongType):
            wide = pc.cast(array, pa.int64())
            out = pc.multiply(_floor_div(wide, self.width), int_scalar(self.width, pa.int64()))
            return pc.cast(out, type_to_arrow(source_type))
        if isinstance(source_type, StringType):
            return pc.utf8_slice_codeunits(array, 0, self.width)
        if isinstance(source_type, BinaryType):
            return pc.binary_slice(array, 0, self.width)
        return super()._apply_arrow(source_type, array)

    @property
    def preserves_order(self) -> bool:
        return True

    def satisfies_order_of(self, other: Transform, source_type: IcebergType | None = None) -> bool:
        """A longer string/binary prefix satisfies a shorter one; a numeric width W satisfies
        any multiple of W. Without ``source_type`` only an equal transform is claimed (Java's
        rule ``other.width <= width`` is only right for prefixes)."""
        if self == other:
            return True
        if not isinstance(other, Truncate) or source_type is None:
            return False
        if isinstance(source_type, StringType | BinaryType):
            return other.width <= self.width
        return other.width % self.width == 0


# --- time transforms ---------------------------------------------------------------------------

_GRANULARITY = {"hour": 0, "day": 1, "month": 2, "year": 3}


def _micros(source_type: IcebergType, value: int) -> int:
    return value // 1000 if isinstance(source_type, _NANOS) else value


def _days(source_type: IcebergType, value: int) -> int:
    if isinstance(source_type, DateType):
        return value
    return _micros(source_type, value) // MICROS_PER_DAY


class _TimeTransform(Transform):
    """Shared parts of year/month/day/hour: ordinals since 1970, floor semantics."""

    __slots__ = ()
    name: str = ""

    def __str__(self) -> str:
        return self.name

    def can_transform(self, source_type: IcebergType) -> bool:
        return isinstance(source_type, (DateType,) + _TIMESTAMPS)

    def result_type(self, source_type: IcebergType) -> IcebergType:
        return IntegerType()

    def apply(self, source_type: IcebergType, value: Any) -> Any:
        if value is None:
            return None
        self._check(source_type)
        return self._ordinal(source_type, value)

    def _ordinal(self, source_type: IcebergType, value: int) -> int:
        raise NotImplementedError

    @property
    def preserves_order(self) -> bool:
        return True

    def satisfies_order_of(self, other: Transform, source_type: IcebergType | None = None) -> bool:
        """A finer granularity satisfies a coarser one: hour satisfies day, month and year."""
        if isinstance(other, _TimeTransform):
            return _GRANULARITY[self.name] <= _GRANULARITY[other.name]
        return False

    def _apply_arrow(self, source_type: IcebergType, array: pa.Array) -> pa.Array:
        days = _arrow_days(source_type, array)
        if isinstance(self, Day):
            return pc.cast(days, pa.date32())
        dates = pc.cast(days, pa.date32())
        years = pc.subtract(pc.cast(pc.year(dates), pa.int32()), int_scalar(1970, pa.int32()))
        if isinstance(self, Year):
            return years
        months = pc.cast(pc.month(dates), pa.int32())
        return pc.add(
            pc.multiply(years, int_scalar(12, pa.int32())),
            pc.subtract(months, int_scalar(1, pa.int32())),
        )


def _arrow_micros(source_type: IcebergType, array: pa.Array) -> pa.Array:
    """Micros since the epoch (int64) from a timestamp array of any unit, or from an int
    array already in the source type's unit."""
    if pa.types.is_integer(array.type):
        unit = "ns" if isinstance(source_type, _NANOS) else "us"
    elif pa.types.is_timestamp(array.type):
        unit = array.type.unit
    else:
        raise NotSupportedError(f"cannot read an Arrow {array.type} array as {source_type}")
    raw = pc.cast(array, pa.int64())
    if unit == "us":
        return raw
    if unit == "ns":
        return _floor_div(raw, 1000)
    factor = {"s": 1_000_000, "ms": 1000}[unit]
    return pc.multiply(raw, int_scalar(factor, pa.int64()))


def _arrow_days(source_type: IcebergType, array: pa.Array) -> pa.Array:
    """Days since the epoch (int32) from a date or timestamp array (or ints in the source
    type's unit)."""
    if pa.types.is_date(array.type):
        return pc.cast(pc.cast(array, pa.date32()), pa.int32())
    if isinstance(source_type, DateType) and pa.types.is_integer(array.type):
        return pc.cast(array, pa.int32())
    return pc.cast(_floor_div(_arrow_micros(source_type, array), MICROS_PER_DAY), pa.int32())


@dataclass(frozen=True)
class Year(_TimeTransform):
    """Years since 1970."""

    name = "year"

    def _ordinal(self, source_type: IcebergType, value: int) -> int:
        return days_to_date(_days(source_type, value)).year - 1970

    def to_human_string(self, source_type: IcebergType, value: Any) -> str:
        return "null" if value is None else f"{1970 + value:04d}"


@dataclass(frozen=True)
class Month(_TimeTransform):
    """Months since 1970-01."""

    name = "month"

    def _ordinal(self, source_type: IcebergType, value: int) -> int:
        d = days_to_date(_days(source_type, value))
        return (d.year - 1970) * 12 + d.month - 1

    def to_human_string(self, source_type: IcebergType, value: Any) -> str:
        if value is None:
            return "null"
        year, month = divmod(value, 12)
        return f"{1970 + year:04d}-{month + 1:02d}"


@dataclass(frozen=True)
class Day(_TimeTransform):
    """Days since 1970-01-01; the result type is ``date``, as the reference implementation
    has it (the value is the same int)."""

    name = "day"

    def result_type(self, source_type: IcebergType) -> IcebergType:
        return DateType()

    def _ordinal(self, source_type: IcebergType, value: int) -> int:
        return _days(source_type, value)

    def to_human_string(self, source_type: IcebergType, value: Any) -> str:
        return "null" if value is None else iso_date(value)


@dataclass(frozen=True)
class Hour(_TimeTransform):
    """Hours since 1970-01-01 00:00 (timestamps only)."""

    name = "hour"

    def can_transform(self, source_type: IcebergType) -> bool:
        return isinstance(source_type, _TIMESTAMPS)

    def _ordinal(self, source_type: IcebergType, value: int) -> int:
        return _micros(source_type, value) // MICROS_PER_HOUR

    def _apply_arrow(self, source_type: IcebergType, array: pa.Array) -> pa.Array:
        micros = _arrow_micros(source_type, array)
        return pc.cast(_floor_div(micros, MICROS_PER_HOUR), pa.int32())

    def to_human_string(self, source_type: IcebergType, value: Any) -> str:
        if value is None:
            return "null"
        days, hour = divmod(value, 24)
        return f"{iso_date(days)}-{hour:02d}"


@dataclass(frozen=True)
class UnknownTransform(Transform):
    """A transform this reader does not know: kept for round trips, never applied."""

    text: str

    def __str__(self) -> str:
        return self.text

    def can_transform(self, source_type: IcebergType) -> bool:
        return False

    def result_type(self, source_type: IcebergType) -> IcebergType:
        return StringType()

    def apply(self, source_type: IcebergType, value: Any) -> Any:
        raise NotSupportedError(f"cannot apply unknown transform {self.text!r}")

    def apply_arrow(self, source_type: IcebergType, array: Any) -> Any:
        raise NotSupportedError(f"cannot apply unknown transform {self.text!r}")

    def to_human_string(self, source_type: IcebergType, value: Any) -> str:
        return "null" if value is None else str(value)


# ---------------------------------------------------------------------------------------------
# Parsing

_PARAMETERISED = re.compile(r"(bucket|truncate)\[\s*(\d+)\s*\]")
_SIMPLE: dict[str, Transform] = {
    "identity": Identity(),
    "void": Void(),
    "year": Year(),
    "month": Month(),
    "day": Day(),
    "hour": Hour(),
}
# Spark DDL and old metadata use the plural names.
_ALIASES = {"years": "year", "months": "month", "days": "day", "hours": "hour"}


def parse_transform(text: str) -> Transform:
    """The transform for a spec string; unknown strings give ``UnknownTransform(text)``."""
    key = text.strip().lower()
    key = _ALIASES.get(key, key)
    if key in _SIMPLE:
        return _SIMPLE[key]
    if m := _PARAMETERISED.fullmatch(key):
        n = int(m.group(2))
        return Bucket(n) if m.group(1) == "bucket" else Truncate(n)
    return UnknownTransform(text)


# ---------------------------------------------------------------------------------------------
# Arrow <-> convention for the per-value fallback


def _to_convention(source_type: IcebergType, array: pa.Array) -> list[Any]:
    """Python values in the value convention for an Arrow array of ``source_type``."""
    at = array.type
    if pa.types.is_timestamp(at):
        raw = pc.cast(array, pa.int64())
        factor = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1000, "ns": 1}[at.unit]
        target = 1 if isinstance(source_type, _NANOS) else 1000
        return [None if v is None else v * factor // target for v in raw.to_pylist()]
    if pa.types.is_date(at):
        return pc.cast(pc.cast(array, pa.date32()), pa.int32()).to_pylist()
    if pa.types.is_time(at):
        raw = pc.cast(array, pa.int64() if at.bit_width == 64 else pa.int32()).to_pylist()
        if at.unit == "ns":
            return [None if v is None else v // 1000 for v in raw]
        factor = {"s": 1_000_000, "ms": 1000, "us": 1}[at.unit]
        return [None if v is None else v * factor for v in raw]
    values = array.to_pylist()
    if isinstance(source_type, UUIDType):
        import uuid

        return [
            None if v is None else (v if isinstance(v, uuid.UUID) else uuid.UUID(bytes=v))
            for v in values
        ]
    if isinstance(source_type, DecimalType):
        return [None if v is None else Decimal(v) for v in values]
    return values


def _from_convention(result_type: IcebergType, values: list[Any]) -> pa.Array:
    arrow_type = type_to_arrow(result_type)
    if isinstance(result_type, DateType):
        return pc.cast(int_values(values, pa.int32()), pa.date32())
    if pa.types.is_integer(arrow_type):  # bucket numbers, truncated integers
        return int_values(values, arrow_type)
    if isinstance(result_type, UUIDType):
        return pa.array([None if v is None else v.bytes for v in values], arrow_type)
    if isinstance(result_type, DecimalType):
        # Truncating a value near the negative limit can need one more digit than the
        # precision (as in Java, whose partition values are unbounded BigDecimals): keep it.
        wide = pa.array(values, pa.decimal256(76, result_type.scale))
        return pc.cast(wide, arrow_type, safe=False)
    return pa.array(values, arrow_type)
