"""Iceberg single values: the Python value convention and the spec's serializations.

Every Iceberg value inside icesql (partition values, bounds, literals, defaults) uses one
convention, so that comparison, hashing and serialization never need to guess:

=========================  ============================================================
boolean                    ``bool``
int, long                  ``int``
float, double              ``float``
decimal(P, S)              ``decimal.Decimal`` (exponent ``-S`` when produced here)
date                       ``int`` days since 1970-01-01
time                       ``int`` microseconds since midnight
timestamp, timestamptz     ``int`` microseconds since 1970-01-01 00:00 (UTC for tz)
timestamp_ns, _tz_ns       ``int`` nanoseconds since the epoch
string                     ``str``
uuid                       ``uuid.UUID``
fixed(L), binary           ``bytes``
geometry, geography        ``bytes`` (WKB)
struct                     ``dict`` field id -> value
list / map                 ``list`` / ``dict``
=========================  ============================================================

``to_bytes``/``from_bytes`` follow Appendix D's binary single-value serialization (used for
manifest bounds); ``to_json_value``/``from_json_value`` the JSON single-value serialization
(used for defaults). ``to_python``/``from_python`` convert to and from ordinary Python
objects (``datetime.date``, ``datetime.datetime`` ...)::

    >>> to_bytes(DecimalType(4, 2), Decimal("14.20")).hex()
    '058c'
    >>> to_json_value(TimestamptzType(), 0)
    '1970-01-01T00:00:00.000000+00:00'
    >>> to_python(DateType(), -1)
    datetime.date(1969, 12, 31)
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import re
import struct
import uuid
from decimal import Decimal, InvalidOperation
from typing import Any

from icesql.errors import NotSupportedError
from icesql.spec.dispatch import PerPrimitiveType
from icesql.spec.types import (
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
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
    ListType,
    LongType,
    MapType,
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

__all__ = [
    "EPOCH_DATE",
    "EPOCH_DATETIME",
    "EPOCH_DATETIME_UTC",
    "MICROS_PER_DAY",
    "NANOS_PER_DAY",
    "date_to_days",
    "days_to_date",
    "datetime_to_micros",
    "micros_to_datetime",
    "time_to_micros",
    "micros_to_time",
    "decimal_from_unscaled",
    "unscaled_decimal",
    "int_to_min_bytes",
    "binary_width",
    "to_bytes",
    "from_bytes",
    "to_json_value",
    "from_json_value",
    "to_python",
    "from_python",
    "human_string",
    "iso_date",
    "iso_timestamp",
    "java_double_string",
]

EPOCH_DATE = dt.date(1970, 1, 1)
EPOCH_DATETIME = dt.datetime(1970, 1, 1)
EPOCH_DATETIME_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MICROS_PER_SECOND = 1_000_000
MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND
NANOS_PER_DAY = MICROS_PER_DAY * 1000
_ONE_MICRO = dt.timedelta(microseconds=1)

_TIMESTAMP_MICRO = (TimestampType, TimestamptzType)
_TIMESTAMP_NANO = (TimestampNanoType, TimestamptzNanoType)
_TIMESTAMPS = _TIMESTAMP_MICRO + _TIMESTAMP_NANO
_WITH_ZONE = (TimestamptzType, TimestamptzNanoType)
_BYTES = (FixedType, BinaryType, GeometryType, GeographyType)
_OPAQUE = (VariantType, GeometryType, GeographyType)  # no value model beyond WKB bytes
_NESTED = (StructType, ListType, MapType)


# ---------------------------------------------------------------------------------------------
# Calendar helpers (floor semantics everywhere, so pre-1970 values are right)


def days_to_date(days: int) -> dt.date:
    """Days since 1970-01-01 to a date."""
    return EPOCH_DATE + dt.timedelta(days=days)


def date_to_days(value: dt.date) -> int:
    """A date to days since 1970-01-01."""
    return (value - EPOCH_DATE).days


def micros_to_datetime(micros: int, with_zone: bool = False) -> dt.datetime:
    """Micros since the epoch to a datetime: naive, or aware in UTC when ``with_zone``."""
    return (EPOCH_DATETIME_UTC if with_zone else EPOCH_DATETIME) + dt.timedelta(microseconds=micros)


def datetime_to_micros(value: dt.datetime) -> int:
    """A datetime to micros since the epoch; an aware datetime is converted to UTC first."""
    epoch = EPOCH_DATETIME if value.tzinfo is None else EPOCH_DATETIME_UTC
    return (value - epoch) // _ONE_MICRO


def micros_to_time(micros: int) -> dt.time:
    """Micros since midnight to a time of day."""
    seconds, us = divmod(micros, MICROS_PER_SECOND)
    minutes, s = divmod(seconds, 60)
    h, m = divmod(minutes, 60)
    return dt.time(h, m, s, us)


def time_to_micros(value: dt.time) -> int:
    """A time of day to micros since midnight."""
    return ((value.hour * 60 + value.minute) * 60 + value.second) * MICROS_PER_SECOND + (
        value.microsecond
    )


# ---------------------------------------------------------------------------------------------
# Decimal helpers


def unscaled_decimal(value: Decimal, scale: int) -> int:
    """The unscaled integer of ``value`` at ``scale``; ValueError if that would lose digits."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"cannot store {value} in a decimal")
    n = int("".join(map(str, digits)) or "0")
    shift = exponent + scale
    if shift >= 0:
        n *= 10**shift
    else:
        n, rem = divmod(n, 10**-shift)
        if rem:
            raise ValueError(f"{value} has more than {scale} digits after the decimal point")
    return -n if sign else n


def decimal_from_unscaled(unscaled: int, scale: int) -> Decimal:
    """An exact Decimal with exponent ``-scale`` (no context rounding, 38 digits are safe)."""
    return Decimal(f"{unscaled}E{-scale}")


def int_to_min_bytes(n: int) -> bytes:
    """Minimal two's-complement big-endian bytes of ``n`` (like Java BigInteger.toByteArray)."""
    length = (n + (n < 0)).bit_length() // 8 + 1
    return n.to_bytes(length, "big", signed=True)


def _check_decimal(t: DecimalType, value: Any) -> Decimal:
    if not isinstance(value, Decimal):
        raise ValueError(f"expected a Decimal for {t}, got {value!r}")
    return decimal_from_unscaled(unscaled_decimal(value, t.scale), t.scale)


# ---------------------------------------------------------------------------------------------
# Binary single-value serialization (Appendix D)


def _packer(fmt: str) -> Any:
    pack = struct.Struct(fmt).pack
    return lambda t, value: pack(value)


def _no_binary(t: IcebergType, _: Any) -> Any:
    raise NotSupportedError(f"type {t} has no binary single-value serialization")


_TO_BYTES: PerPrimitiveType[Any] = PerPrimitiveType(
    "binary single-value serialization",
    {
        BooleanType: lambda t, value: b"\x01" if value else b"\x00",
        (IntegerType, DateType): _packer("<i"),
        (LongType, TimeType) + _TIMESTAMPS: _packer("<q"),
        FloatType: _packer("<f"),
        DoubleType: _packer("<d"),
        DecimalType: lambda t, value: int_to_min_bytes(unscaled_decimal(value, t.scale)),
        StringType: lambda t, value: value.encode("utf-8"),
        UUIDType: lambda t, value: _as_uuid(value).bytes,
        _BYTES: lambda t, value: bytes(value),
        (UnknownType, VariantType): _no_binary,
    },
)


def to_bytes(t: IcebergType, value: Any) -> bytes:
    """Serialize one value per Appendix D (little-endian numbers, minimal big-endian decimals,
    big-endian uuid, raw UTF-8/bytes). Types without a binary form raise NotSupportedError.
    """
    try:
        return _TO_BYTES(t, value)
    except struct.error as e:
        raise ValueError(f"cannot serialize {value!r} as {t}: {e}") from None


_INT, _FLOAT = struct.Struct("<i").unpack, struct.Struct("<f").unpack
_LONG, _DOUBLE = struct.Struct("<q").unpack, struct.Struct("<d").unpack


def _boolean_from_bytes(t: IcebergType, data: bytes) -> bool:
    if len(data) != 1:
        raise ValueError(f"cannot decode {data.hex()} as boolean")
    return data[0] != 0


# Bounds are not rewritten when a type is promoted: a 4-byte long (double) bound was written
# as an int (float), a 4-byte timestamp bound as a date (v3), read as midnight of that day.
_FROM_BYTES: PerPrimitiveType[Any] = PerPrimitiveType(
    "binary single-value serialization",
    {
        BooleanType: _boolean_from_bytes,
        (IntegerType, DateType): lambda t, data: _INT(data)[0],
        LongType: lambda t, data: (_INT if len(data) == 4 else _LONG)(data)[0],
        FloatType: lambda t, data: _FLOAT(data)[0],
        DoubleType: lambda t, data: (_FLOAT if len(data) == 4 else _DOUBLE)(data)[0],
        TimestampType: lambda t, data: (
            _INT(data)[0] * MICROS_PER_DAY if len(data) == 4 else _LONG(data)[0]
        ),
        TimestampNanoType: lambda t, data: (
            _INT(data)[0] * NANOS_PER_DAY if len(data) == 4 else _LONG(data)[0]
        ),
        (TimeType, TimestamptzType, TimestamptzNanoType): lambda t, data: _LONG(data)[0],
        DecimalType: lambda t, data: decimal_from_unscaled(
            int.from_bytes(data, "big", signed=True), t.scale
        ),
        StringType: lambda t, data: data.decode("utf-8"),
        UUIDType: lambda t, data: uuid.UUID(bytes=data),
        _BYTES: lambda t, data: data,
        (UnknownType, VariantType): _no_binary,
    },
)


_WIDTHS: PerPrimitiveType[Any] = PerPrimitiveType(
    "binary single-value width",
    {
        BooleanType: 1,
        (IntegerType, DateType, FloatType): 4,
        (LongType, DoubleType, TimeType) + _TIMESTAMPS: 8,
        UUIDType: 16,
        (
            DecimalType,
            StringType,
            FixedType,
            BinaryType,
            UnknownType,
            VariantType,
            GeometryType,
            GeographyType,
        ): None,
    },
)


def binary_width(t: IcebergType) -> int | None:
    """The length of ``to_bytes(t, v)`` when it is the same for every value of ``t`` (a bound
    of another length was written under another type, before a promotion), else None."""
    return _WIDTHS[t]


def from_bytes(t: IcebergType, data: bytes) -> Any:
    """Decode one value per Appendix D.

    Bounds are not rewritten when a type is promoted, so their length tells the type they were
    written with (spec: Schema Evolution): a long (double) read from 4 bytes is an int
    (float), a timestamp or timestamp_ns from 4 bytes a date (v3's date promotion), turned
    into micro- or nanoseconds at midnight.
    """
    data = bytes(data)
    try:
        return _FROM_BYTES(t, data)
    except struct.error as e:
        raise ValueError(f"cannot decode {data.hex()} as {t}: {e}") from None


# ---------------------------------------------------------------------------------------------
# ISO text for temporal values


def iso_date(days: int) -> str:
    """Days since epoch as an ISO date, e.g. ``2017-11-16``."""
    return days_to_date(days).isoformat()


def _iso_time_of_day(units: int, digits: int) -> str:
    per_second = 10**digits
    seconds, frac = divmod(units, per_second)
    minutes, s = divmod(seconds, 60)
    h, m = divmod(minutes, 60)
    return f"{h:02d}:{m:02d}:{s:02d}.{frac:0{digits}d}"


def iso_timestamp(t: IcebergType, value: int) -> str:
    """A timestamp value as the spec's JSON text: 6 (or 9 for *_ns) fractional digits, and
    ``+00:00`` for types with zone."""
    nanos = isinstance(t, _TIMESTAMP_NANO)
    per_day = NANOS_PER_DAY if nanos else MICROS_PER_DAY
    days, rem = divmod(value, per_day)
    text = f"{iso_date(days)}T{_iso_time_of_day(rem, 9 if nanos else 6)}"
    return text + "+00:00" if isinstance(t, _WITH_ZONE) else text


_TIME_RE = r"(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
_TIME = re.compile(_TIME_RE)
_TIMESTAMP = re.compile(r"(\d{4}-\d{2}-\d{2})[T ]" + _TIME_RE + r"(Z|[+-]\d{2}:?\d{2})?")


def _units_of_day(h: str, m: str, s: str | None, frac: str | None, digits: int) -> int:
    units = ((int(h) * 60 + int(m)) * 60 + int(s or 0)) * 10**digits
    if frac:
        if len(frac) > digits:
            raise ValueError(f"more than {digits} fractional digits in {frac!r}")
        units += int(frac.ljust(digits, "0"))
    return units


def _parse_time(text: str) -> int:
    m = _TIME.fullmatch(text.strip())
    if not m:
        raise ValueError(f"cannot parse {text!r} as an ISO time")
    h, mi, s, frac = m.groups()
    if int(h) > 23 or int(mi) > 59 or int(s or 0) > 59:
        raise ValueError(f"cannot parse {text!r} as an ISO time")
    return _units_of_day(h, mi, s, frac, 6)


def _parse_timestamp(t: IcebergType, text: str, assume_utc: bool = False) -> int:
    m = _TIMESTAMP.fullmatch(text.strip())
    if not m:
        raise ValueError(f"cannot parse {text!r} as an ISO {t}")
    day, h, mi, s, frac, zone = m.groups()
    if int(h) > 23 or int(mi) > 59 or int(s or 0) > 59:
        raise ValueError(f"cannot parse {text!r} as an ISO {t}")
    nanos = isinstance(t, _TIMESTAMP_NANO)
    digits = 9 if nanos else 6
    per_day = NANOS_PER_DAY if nanos else MICROS_PER_DAY
    value = date_to_days(dt.date.fromisoformat(day)) * per_day
    value += _units_of_day(h, mi, s, frac, digits)
    if zone is not None:
        if not isinstance(t, _WITH_ZONE):
            raise ValueError(f"{t} value must not have a zone offset: {text!r}")
        if zone != "Z":
            sign = -1 if zone[0] == "-" else 1
            hh, mm = int(zone[1:3]), int(zone[-2:])
            value -= sign * (hh * 60 + mm) * 60 * 10**digits
    elif isinstance(t, _WITH_ZONE) and not assume_utc:
        raise ValueError(f"{t} value must have a zone offset: {text!r}")
    return value


# ---------------------------------------------------------------------------------------------
# JSON single-value serialization (Appendix D)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _decimal_to_json(t: DecimalType, value: Any) -> str:
    d = _check_decimal(t, value)
    d = d.copy_abs() if d.is_zero() else d
    return format(d, "f") if t.scale >= 0 else str(d)


def _no_json(t: IcebergType, _: Any) -> Any:
    raise NotSupportedError(f"type {t} has no JSON single-value serialization in icesql")


_TO_JSON: PerPrimitiveType[Any] = PerPrimitiveType(
    "JSON single-value serialization",
    {
        BooleanType: lambda t, value: bool(value),
        (IntegerType, LongType): lambda t, value: int(value),
        (FloatType, DoubleType): lambda t, value: float(value),
        DecimalType: _decimal_to_json,
        DateType: lambda t, value: iso_date(value),
        TimeType: lambda t, value: _iso_time_of_day(value, 6),
        _TIMESTAMPS: iso_timestamp,
        StringType: lambda t, value: str(value),
        UUIDType: lambda t, value: str(_as_uuid(value)),
        (FixedType, BinaryType): lambda t, value: bytes(value).hex(),
        StructType: lambda t, value: {
            str(f.field_id): to_json_value(f.type, value[f.field_id])
            for f in t.fields
            if value.get(f.field_id) is not None
        },
        ListType: lambda t, value: [to_json_value(t.element_type, v) for v in value],
        MapType: lambda t, value: {
            "keys": [to_json_value(t.key_type, k) for k in value],
            "values": [to_json_value(t.value_type, v) for v in value.values()],
        },
        (UnknownType,) + _OPAQUE: _no_json,
    },
)


def to_json_value(t: IcebergType, value: Any) -> Any:
    """Serialize one value to its JSON single-value form (None -> None)."""
    return None if value is None else _TO_JSON(t, value)


def from_json_value(t: IcebergType, obj: Any) -> Any:
    """Decode one JSON single value into the value convention (None -> None).

    Raises ValueError when the JSON does not fit the type (wrong kind, decimal scale mismatch,
    zone offset on a timestamp without zone ...).
    """
    if obj is None:
        return None
    try:
        return _FROM_JSON(t, obj)
    except (TypeError, InvalidOperation, KeyError, AttributeError) as e:
        raise ValueError(f"cannot read {obj!r} as a {t} value: {e}") from None


def _text(t: IcebergType, obj: Any) -> str:
    if not isinstance(obj, str):
        raise ValueError(f"cannot read {obj!r} as a {t} value: expected a JSON string")
    return obj


def _not_json(t: IcebergType, obj: Any) -> ValueError:
    return ValueError(f"cannot read {obj!r} as a {t} value")


def _boolean_from_json(t: IcebergType, obj: Any) -> bool:
    if not isinstance(obj, bool):
        raise ValueError(f"cannot read {obj!r} as a boolean value")
    return obj


def _integer_from_json(t: IcebergType, obj: Any) -> int:
    lo, hi = (INT32_MIN, INT32_MAX) if isinstance(t, IntegerType) else (INT64_MIN, INT64_MAX)
    if not _is_int(obj) or not lo <= obj <= hi:
        raise _not_json(t, obj)
    return obj


def _floating_from_json(t: IcebergType, obj: Any) -> float:
    if not (_is_int(obj) or isinstance(obj, float)):
        raise _not_json(t, obj)
    return float(obj)


def _decimal_from_json(t: DecimalType, obj: Any) -> Decimal:
    d = Decimal(_text(t, obj))
    if d.as_tuple().exponent != -t.scale:
        raise ValueError(f"cannot read {obj!r} as a {t} value: the scale does not match")
    return d


def _bytes_from_json(t: IcebergType, obj: Any) -> bytes:
    data = bytes.fromhex(_text(t, obj))
    if isinstance(t, FixedType) and len(data) != t.length:
        raise ValueError(f"cannot read {obj!r} as a {t} value: wrong length")
    return data


def _struct_from_json(t: StructType, obj: Any) -> dict[int, Any]:
    if not isinstance(obj, dict):
        raise ValueError(f"cannot read {obj!r} as a struct value")
    return {
        f.field_id: from_json_value(f.type, obj[str(f.field_id)])
        for f in t.fields
        if str(f.field_id) in obj
    }


def _list_from_json(t: ListType, obj: Any) -> list[Any]:
    if not isinstance(obj, list):
        raise ValueError(f"cannot read {obj!r} as a list value")
    return [from_json_value(t.element_type, v) for v in obj]


def _map_from_json(t: MapType, obj: Any) -> dict[Any, Any]:
    keys, values = obj["keys"], obj["values"]
    if not isinstance(keys, list) or not isinstance(values, list) or len(keys) != len(values):
        raise ValueError(f"cannot read {obj!r} as a map value")
    return {
        from_json_value(t.key_type, k): from_json_value(t.value_type, v)
        for k, v in zip(keys, values)
    }


def _unknown_from_json(t: IcebergType, obj: Any) -> Any:
    raise ValueError(f"unknown-typed values must be null, got {obj!r}")


_FROM_JSON: PerPrimitiveType[Any] = PerPrimitiveType(
    "JSON single-value serialization",
    {
        BooleanType: _boolean_from_json,
        (IntegerType, LongType): _integer_from_json,
        (FloatType, DoubleType): _floating_from_json,
        DecimalType: _decimal_from_json,
        DateType: lambda t, obj: date_to_days(dt.date.fromisoformat(_text(t, obj))),
        TimeType: lambda t, obj: _parse_time(_text(t, obj)),
        _TIMESTAMPS: lambda t, obj: _parse_timestamp(t, _text(t, obj)),
        StringType: _text,
        UUIDType: lambda t, obj: uuid.UUID(_text(t, obj)),
        (FixedType, BinaryType): _bytes_from_json,
        StructType: _struct_from_json,
        ListType: _list_from_json,
        MapType: _map_from_json,
        UnknownType: _unknown_from_json,
        _OPAQUE: _no_json,
    },
)


# ---------------------------------------------------------------------------------------------
# Python-native conversions


def _same(t: IcebergType, value: Any) -> Any:
    return value


_TO_PYTHON: PerPrimitiveType[Any] = PerPrimitiveType(
    "conversion to Python",
    {
        DateType: lambda t, value: days_to_date(value),
        TimeType: lambda t, value: micros_to_time(value),
        _TIMESTAMP_MICRO: lambda t, value: micros_to_datetime(value, isinstance(t, _WITH_ZONE)),
        _TIMESTAMP_NANO: lambda t, value: micros_to_datetime(
            value // 1000, isinstance(t, _WITH_ZONE)
        ),
        StructType: lambda t, value: {
            f.name: to_python(f.type, value.get(f.field_id)) for f in t.fields
        },
        ListType: lambda t, value: [to_python(t.element_type, v) for v in value],
        MapType: lambda t, value: {
            to_python(t.key_type, k): to_python(t.value_type, v) for k, v in value.items()
        },
        (
            BooleanType,
            IntegerType,
            LongType,
            FloatType,
            DoubleType,
            DecimalType,
            StringType,
            UUIDType,
            UnknownType,
            VariantType,
        )
        + _BYTES: _same,
    },
)


def to_python(t: IcebergType, value: Any) -> Any:
    """Convert a convention value to the natural Python object for its type.

    date -> ``datetime.date``; time -> ``datetime.time``; timestamp -> naive
    ``datetime.datetime``; timestamptz -> UTC-aware datetime. Nanosecond timestamps become
    datetimes floored to the microsecond (Python datetimes have no nanoseconds).
    """
    return None if value is None else _TO_PYTHON(t, value)


def from_python(t: IcebergType, value: Any) -> Any:
    """Convert a Python object to the value convention for ``t``; ValueError on a mismatch.

    Accepts the convention value itself, the natural Python object (date, datetime, time,
    Decimal, UUID ...) and, for temporal, decimal and uuid types, ISO/decimal text. Naive
    datetimes for timestamptz are taken as UTC; aware datetimes are refused for timestamp.
    Decimals must fit the scale and precision exactly (no silent rounding).
    """
    if value is None:
        return None
    try:
        return _FROM_PYTHON(t, value)
    except (TypeError, InvalidOperation, OverflowError, struct.error) as e:
        raise ValueError(f"cannot convert {value!r} to {t}: {e}") from None


def _mismatch(t: IcebergType, value: Any) -> ValueError:
    return ValueError(f"cannot convert {value!r} ({type(value).__name__}) to {t}")


def _boolean_from_python(t: IcebergType, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise _mismatch(t, value)


def _integer_from_python(t: IcebergType, value: Any) -> int:
    lo, hi = (INT32_MIN, INT32_MAX) if isinstance(t, IntegerType) else (INT64_MIN, INT64_MAX)
    if _is_int(value) and lo <= value <= hi:
        return int(value)
    raise _mismatch(t, value)


def _floating_from_python(t: IcebergType, value: Any) -> float:
    if _is_int(value) or isinstance(value, float | Decimal):
        return float(value)
    raise _mismatch(t, value)


def _date_from_python(t: IcebergType, value: Any) -> int:
    if isinstance(value, dt.datetime):
        raise _mismatch(t, value)
    if isinstance(value, dt.date):
        return date_to_days(value)
    if isinstance(value, str):
        return date_to_days(dt.date.fromisoformat(value.strip()))
    if _is_int(value):
        return value
    raise _mismatch(t, value)


def _time_from_python(t: IcebergType, value: Any) -> int:
    if isinstance(value, dt.time):
        return time_to_micros(value)
    if isinstance(value, str):
        return _parse_time(value)
    if _is_int(value) and 0 <= value < MICROS_PER_DAY:
        return value
    raise _mismatch(t, value)


def _string_from_python(t: IcebergType, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise _mismatch(t, value)


def _bytes_from_python(t: IcebergType, value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        if isinstance(t, FixedType) and len(data) != t.length:
            raise ValueError(f"{t} needs exactly {t.length} bytes, got {len(data)}")
        return data
    raise _mismatch(t, value)


def _struct_from_python(t: StructType, value: Any) -> dict[int, Any]:
    if not isinstance(value, dict):
        raise _mismatch(t, value)
    return {
        f.field_id: from_python(f.type, value.get(f.field_id, value.get(f.name))) for f in t.fields
    }


def _no_python(t: IcebergType, value: Any) -> Any:
    raise NotSupportedError(f"icesql has no value conversion for type {t}")


def _decimal_from_python(t: DecimalType, value: Any) -> Decimal:
    if isinstance(value, bool):
        raise _mismatch(t, value)
    if isinstance(value, float):
        value = Decimal(repr(value))
    elif isinstance(value, int | str):
        value = Decimal(value.strip() if isinstance(value, str) else value)
    if not isinstance(value, Decimal) or not value.is_finite():
        raise _mismatch(t, value)
    unscaled = unscaled_decimal(value, t.scale)
    if len(str(abs(unscaled))) > t.precision:
        raise ValueError(f"{value} does not fit {t}")
    return decimal_from_unscaled(unscaled, t.scale)


def _timestamp_from_python(t: IcebergType, value: Any) -> int:
    nanos = isinstance(t, _TIMESTAMP_NANO)
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None and not isinstance(t, _WITH_ZONE):
            raise ValueError(f"{t} takes a datetime without time zone, got {value!r}")
        if value.tzinfo is None and isinstance(t, _WITH_ZONE):
            value = value.replace(tzinfo=dt.UTC)
        micros = datetime_to_micros(value)
        result = micros * 1000 if nanos else micros
    elif isinstance(value, dt.date):
        result = date_to_days(value) * (NANOS_PER_DAY if nanos else MICROS_PER_DAY)
    elif isinstance(value, str):
        result = _parse_timestamp(t, value, assume_utc=True)
    elif _is_int(value):
        result = value
    else:
        raise _mismatch(t, value)
    if not INT64_MIN <= result <= INT64_MAX:
        raise ValueError(f"{value!r} is out of range for {t}")
    return result


def _as_uuid(value: Any) -> uuid.UUID:
    if isinstance(value, uuid.UUID):
        return value
    if isinstance(value, str):
        return uuid.UUID(value.strip())
    if isinstance(value, bytes | bytearray) and len(value) == 16:
        return uuid.UUID(bytes=bytes(value))
    raise ValueError(f"cannot convert {value!r} to uuid")


_FROM_PYTHON: PerPrimitiveType[Any] = PerPrimitiveType(
    "conversion from Python",
    {
        BooleanType: _boolean_from_python,
        (IntegerType, LongType): _integer_from_python,
        (FloatType, DoubleType): _floating_from_python,
        DecimalType: _decimal_from_python,
        DateType: _date_from_python,
        TimeType: _time_from_python,
        _TIMESTAMPS: _timestamp_from_python,
        StringType: _string_from_python,
        UUIDType: lambda t, value: _as_uuid(value),
        _BYTES: _bytes_from_python,
        StructType: _struct_from_python,
        ListType: lambda t, value: [from_python(t.element_type, v) for v in value],
        MapType: lambda t, value: {
            from_python(t.key_type, k): from_python(t.value_type, v) for k, v in value.items()
        },
        (UnknownType, VariantType): _no_python,
    },
)


# ---------------------------------------------------------------------------------------------
# Human strings (partition paths), as Java Iceberg prints them


def _java_fraction(nanos: int) -> str:
    """Java's LocalTime.toString fraction: omitted, or 3, 6 or 9 digits."""
    if nanos == 0:
        return ""
    if nanos % 1_000_000 == 0:
        return f".{nanos // 1_000_000:03d}"
    if nanos % 1000 == 0:
        return f".{nanos // 1000:06d}"
    return f".{nanos:09d}"


def _java_time(nanos_of_day: int) -> str:
    """Java's LocalTime.toString: ``HH:mm`` then ``:ss`` and a fraction only when non-zero."""
    seconds, nanos = divmod(nanos_of_day, 1_000_000_000)
    minutes, s = divmod(seconds, 60)
    h, m = divmod(minutes, 60)
    text = f"{h:02d}:{m:02d}"
    if s or nanos:
        text += f":{s:02d}{_java_fraction(nanos)}"
    return text


def _java_double(value: float) -> str:
    """Java's Double.toString: plain in [1e-3, 1e7), otherwise ``d.dddE±n``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        text = repr(value)
        return text if "." in text or "e" in text else text + ".0"
    sign, ds, exp = Decimal(repr(value)).normalize().as_tuple()
    first, rest = str(ds[0]), "".join(map(str, ds[1:])) or "0"
    power = len(ds) - 1 + int(exp)
    return f"{'-' if sign else ''}{first}.{rest}E{power}"


def java_double_string(value: float) -> str:
    """A double as Java's ``Double.toString`` prints it (what Spark shows for a double)."""
    return _java_double(value)


def java_float_string(value: float) -> str:
    """A float as Java's ``Float.toString`` prints it (what Spark shows for a float)."""
    return _java_double(_shortest_float32(value))


def _shortest_float32(value: float) -> float:
    """The shortest decimal that round-trips through float32 (what Java's Float.toString
    prints), as a Python float."""
    target = struct.pack("<f", value)
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        if struct.pack("<f", candidate) == target:
            return candidate
    return value


def _timestamp_human(t: IcebergType, value: int) -> str:
    nanos = isinstance(t, _TIMESTAMP_NANO)
    days, rem = divmod(value, NANOS_PER_DAY if nanos else MICROS_PER_DAY)
    text = f"{iso_date(days)}T{_java_time(rem if nanos else rem * 1000)}"
    return text + "Z" if isinstance(t, _WITH_ZONE) else text


_HUMAN: PerPrimitiveType[Any] = PerPrimitiveType(
    "human string",
    {
        BooleanType: lambda t, value: "true" if value else "false",
        DateType: lambda t, value: iso_date(value),
        TimeType: lambda t, value: _java_time(value * 1000),
        _TIMESTAMPS: _timestamp_human,
        (FixedType, BinaryType): lambda t, value: base64.b64encode(bytes(value)).decode("ascii"),
        FloatType: lambda t, value: _java_double(_shortest_float32(value)),
        DoubleType: lambda t, value: _java_double(value),
        (IntegerType, LongType, DecimalType, StringType, UUIDType, UnknownType)
        + _OPAQUE
        + _NESTED: lambda t, value: str(value),
    },
)


def human_string(t: IcebergType, value: Any) -> str:
    """The identity transform's human string for a convention value, as Java prints it
    (``null`` for None; dates ISO; timestamps as java.time prints them; binary as base64).
    """
    return "null" if value is None else _HUMAN(t, value)
