"""Converting a Python literal to a field type's value convention, saying how exact it is.

A SQL comparison of a column with a literal of another type is only pruned correctly if the
converted literal keeps the comparison's meaning. ``convert_literal`` returns the converted
value and its relation to the original:

* ``EXACT``: the same value;
* ``BELOW``: the greatest value of the type below the original (``5`` for an int column and
  ``5.5``), with no value of the type in between, so ``x < 5.5`` is exactly ``x <= 5``;
* ``NEAREST``: for double columns, the double nearest to a decimal literal, as the SQL
  engine rounds it; only comparisons widened by one ulp stay safe.

Anything else raises ``UnrepresentableLiteral``, and the predicate is not pushed down::

    >>> convert_literal(Decimal("10.5"), DecimalType(9, 2))
    (Decimal('10.50'), 'exact')
    >>> convert_literal(Decimal("5.5"), IntegerType())
    (5, 'below')
    >>> convert_literal("2024-01-02", DateType())
    (19724, 'exact')

Strings are cast to the column type the strict way (a date column accepts ``YYYY-MM-DD``
only, timestamps at most microseconds, nanosecond timestamps at most nanoseconds): an engine
that casts more leniently (truncating a time of day, rounding digits) keeps its own answer,
we just do not prune. A nanosecond literal (``CAST('...' AS TIMESTAMP_NS)``, which no
``datetime`` holds) is a ``TimestampNanos``::

    >>> convert_literal("2024-01-01 00:00:00.000000001", TimestampNanoType())
    (1704067200000000001, 'exact')
    >>> convert_literal(TimestampNanos(1704067200000000001), TimestampType())
    (1704067200000000, 'below')
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
import uuid
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from icesql.errors import ProgrammingError
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
from icesql.spec.values import MICROS_PER_DAY, date_to_days

__all__ = [
    "BELOW",
    "EXACT",
    "NEAREST",
    "TimestampNanos",
    "UnrepresentableLiteral",
    "convert_literal",
    "parse_timestamp_micros",
    "parse_timestamp_nanos",
]

EXACT = "exact"
BELOW = "below"
NEAREST = "nearest"

_EXACT_DOUBLE_INTS = 2**53
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_DATE = re.compile(r"\s*(\d{4}-\d{2}-\d{2})\s*")
_TIMESTAMP = re.compile(
    r"\s*(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?"
    r"\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?\s*",
    re.I,
)
_TIME = re.compile(r"\s*(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?\s*")
_INTEGER = re.compile(r"\s*[+-]?\d+\s*")
_DECIMAL = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)\s*")


@dataclass(frozen=True)
class TimestampNanos:
    """A timestamp literal at nanosecond precision, which a ``datetime`` cannot hold:
    nanoseconds since the epoch (of UTC for a literal with a zone, the session's)."""

    nanos: int


class UnrepresentableLiteral(ProgrammingError):
    """The literal has no safe counterpart in the column's type (the predicate is not
    pushed down; the SQL engine still evaluates it)."""


def convert_literal(value: Any, t: IcebergType) -> tuple[Any, str]:
    """The convention value of ``value`` for type ``t`` and its relation (module docstring).

    Integers already in a temporal type's unit (days, micros) are taken as they are: this is
    how projections hand partition values back for binding.
    """
    if value is None:
        raise UnrepresentableLiteral("a null literal never matches")
    try:
        return _CONVERTERS(t, value)
    except (ValueError, InvalidOperation, OverflowError, struct.error) as e:
        raise UnrepresentableLiteral(f"cannot use {value!r} as a {t} literal: {e}") from None


def _fail(value: Any, t: IcebergType) -> UnrepresentableLiteral:
    return UnrepresentableLiteral(f"cannot use {value!r} as a {t} literal")


def _as_number(value: Any) -> int | Decimal | float:
    """Numbers stay; strings that spell a plain number become int or Decimal."""
    if isinstance(value, bool):
        raise ValueError("booleans are not numbers here")
    if isinstance(value, int | Decimal | float):
        return value
    if isinstance(value, str):
        if _INTEGER.fullmatch(value):
            return int(value)
        if _DECIMAL.fullmatch(value):
            return Decimal(value.strip())
    raise ValueError(f"{value!r} is not a number")


def _integral(value: Any, t: IcebergType) -> tuple[int, str]:
    lo, hi = (INT32_MIN, INT32_MAX) if isinstance(t, IntegerType) else (INT64_MIN, INT64_MAX)
    n = _as_number(value)
    if isinstance(n, float):
        if not math.isfinite(n) or abs(n) >= _EXACT_DOUBLE_INTS:
            raise _fail(value, t)  # the engine compares in doubles: only exact ints are safe
        n = Decimal(n)
    if isinstance(n, Decimal):
        if not n.is_finite():
            raise _fail(value, t)
        floor = int(n.to_integral_value(rounding="ROUND_FLOOR"))
        relation = EXACT if floor == n else BELOW
    else:
        floor, relation = n, EXACT
    if not lo <= floor <= hi:
        raise _fail(value, t)
    return floor, relation


def _decimal(value: Any, t: DecimalType) -> tuple[Decimal, str]:
    n = _as_number(value)
    if isinstance(n, float):
        raise _fail(value, t)  # a double literal makes the engine compare in doubles
    d = Decimal(n)
    if not d.is_finite():
        raise _fail(value, t)
    quantum = Decimal(1).scaleb(-t.scale)
    floor = d.quantize(quantum, rounding="ROUND_FLOOR")
    unscaled = abs(int(floor.scaleb(t.scale)))
    if len(str(unscaled)) > t.precision:
        raise _fail(value, t)
    return floor, EXACT if floor == d else BELOW


def _double(value: Any, t: IcebergType) -> tuple[float, str]:
    n = _as_number(value)
    if isinstance(n, float):
        exact = n
    elif isinstance(n, int):
        if abs(n) > _EXACT_DOUBLE_INTS:
            raise _fail(value, t)
        exact = float(n)
    else:
        if not n.is_finite():
            raise _fail(value, t)
        exact = float(n)
        if Decimal(exact) != n:
            if isinstance(t, FloatType):
                raise _fail(value, t)  # the engine may round to float32 or compare in doubles
            return exact, NEAREST
    if isinstance(t, FloatType) and not math.isnan(exact):
        if struct.unpack("<f", struct.pack("<f", exact))[0] != exact:
            raise _fail(value, t)
    return exact, EXACT


def _boolean(value: Any, t: IcebergType) -> tuple[bool, str]:
    if isinstance(value, bool):
        return value, EXACT
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true", EXACT
    raise _fail(value, t)


def _string(value: Any, t: IcebergType) -> tuple[str, str]:
    if isinstance(value, str):
        return value, EXACT
    raise _fail(value, t)


def _date(value: Any, t: IcebergType) -> tuple[int, str]:
    if isinstance(value, int) and not isinstance(value, bool):
        return value, EXACT
    if isinstance(value, dt.datetime):
        micros = _datetime_micros(value)
        days = micros // MICROS_PER_DAY
        return days, EXACT if days * MICROS_PER_DAY == micros else BELOW
    if isinstance(value, dt.date):
        return date_to_days(value), EXACT
    if isinstance(value, str) and (m := _DATE.fullmatch(value)):
        return date_to_days(dt.date.fromisoformat(m.group(1))), EXACT
    raise _fail(value, t)


def _timestamp(value: Any, t: IcebergType) -> tuple[int, str]:
    if isinstance(value, int) and not isinstance(value, bool):
        return value, EXACT
    if isinstance(value, TimestampNanos):  # the engine compares at nanoseconds
        micros = value.nanos // 1000
        return micros, EXACT if micros * 1000 == value.nanos else BELOW
    if isinstance(value, dt.datetime):
        return _datetime_micros(value), EXACT
    if isinstance(value, dt.date):
        return date_to_days(value) * MICROS_PER_DAY, EXACT
    if isinstance(value, str):
        micros, zoned = parse_timestamp_micros(value)
        if zoned and not isinstance(t, TimestamptzType):
            raise _fail(value, t)  # engines differ on a zone given for a zoneless column
        return micros, EXACT
    raise _fail(value, t)


def _nanos(value: Any, t: IcebergType) -> tuple[int, str]:
    """Nanosecond columns compare at their precision (``icesql.sql.spark.datetimes``), so a
    microsecond literal (a ``datetime``) is exact in nanoseconds."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value, EXACT
    if isinstance(value, TimestampNanos):
        return value.nanos, EXACT
    if isinstance(value, dt.datetime):
        return _datetime_micros(value) * 1000, EXACT
    if isinstance(value, dt.date):
        return date_to_days(value) * MICROS_PER_DAY * 1000, EXACT
    if isinstance(value, str):
        nanos, zoned = parse_timestamp_nanos(value)
        if zoned and not isinstance(t, TimestamptzNanoType):
            raise _fail(value, t)  # engines differ on a zone given for a zoneless column
        return nanos, EXACT
    raise _fail(value, t)


def _time(value: Any, t: IcebergType) -> tuple[int, str]:
    if isinstance(value, int) and not isinstance(value, bool):
        return value, EXACT
    if isinstance(value, dt.time) and value.tzinfo is None:
        return (
            (value.hour * 60 + value.minute) * 60 + value.second
        ) * 10**6 + value.microsecond, EXACT
    if isinstance(value, str) and (m := _TIME.fullmatch(value)):
        h, mi, s, frac = m.groups()
        if int(h) > 23 or int(mi) > 59 or int(s or 0) > 59:
            raise _fail(value, t)
        return ((int(h) * 60 + int(mi)) * 60 + int(s or 0)) * 10**6 + int(
            (frac or "").ljust(6, "0")
        ), EXACT
    raise _fail(value, t)


def _uuid(value: Any, t: IcebergType) -> tuple[uuid.UUID, str]:
    if isinstance(value, uuid.UUID):
        return value, EXACT
    if isinstance(value, str):
        return uuid.UUID(value.strip()), EXACT
    raise _fail(value, t)


def _binary(value: Any, t: IcebergType) -> tuple[bytes, str]:
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        if isinstance(t, FixedType) and len(data) != t.length:
            raise _fail(value, t)
        return data, EXACT
    raise _fail(value, t)


def _datetime_micros(value: dt.datetime) -> int:
    """Micros since the epoch; a naive datetime is in the session time zone, UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    delta = value - _EPOCH_UTC
    return (delta.days * 86_400 + delta.seconds) * 10**6 + delta.microseconds


def parse_timestamp_micros(text: str) -> tuple[int, bool]:
    """Micros since the epoch of ``YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]][zone]``, and whether
    a zone was given; without one the text is in the session time zone, UTC. Anything else
    (more digits included) raises ValueError."""
    return _parse_timestamp(text, 6)


def parse_timestamp_nanos(text: str) -> tuple[int, bool]:
    """Nanos since the epoch of ``YYYY-MM-DD[( |T)HH:MM[:SS[.fffffffff]]][zone]``, and
    whether a zone was given, as ``parse_timestamp_micros``."""
    return _parse_timestamp(text, 9)


def _parse_timestamp(text: str, digits: int) -> tuple[int, bool]:
    m = _TIMESTAMP.fullmatch(text)
    if not m or len(m.group(5) or "") > digits:
        raise ValueError(f"not a timestamp the planner parses: {text!r}")
    day, h, mi, s, frac, zone = m.groups()
    if int(h or 0) > 23 or int(mi or 0) > 59 or int(s or 0) > 59:
        raise ValueError(f"not a valid time of day: {text!r}")
    unit = 10**digits  # per second
    value = date_to_days(dt.date.fromisoformat(day)) * 86_400 * unit
    value += ((int(h or 0) * 60 + int(mi or 0)) * 60 + int(s or 0)) * unit
    value += int((frac or "").ljust(digits, "0"))
    if zone and zone.upper() not in ("Z", "UTC"):
        sign = -1 if zone[0] == "-" else 1
        offset = zone[1:].replace(":", "")
        minutes = int(offset[:2]) * 60 + int(offset[2:4] or 0)
        value -= sign * minutes * 60 * unit
    return value, zone is not None


def _not_pushed(value: Any, t: IcebergType) -> tuple[Any, str]:
    raise UnrepresentableLiteral(f"literals of type {t} are not pushed down")


def _converter(convert: Any) -> Any:
    return lambda t, value: convert(value, t)


# converters take (value, type); _converter flips them to the (type, value) of the dispatch
_CONVERTER_CASES: dict[type | tuple[type, ...], Any] = {
    BooleanType: _boolean,
    (IntegerType, LongType): _integral,
    (FloatType, DoubleType): _double,
    DecimalType: _decimal,
    DateType: _date,
    TimeType: _time,
    (TimestampType, TimestamptzType): _timestamp,
    (TimestampNanoType, TimestamptzNanoType): _nanos,
    StringType: _string,
    UUIDType: _uuid,
    (FixedType, BinaryType): _binary,
    (UnknownType, VariantType, GeometryType, GeographyType): _not_pushed,
}

_CONVERTERS: PerPrimitiveType[Any] = PerPrimitiveType(
    "literal conversion",
    {cls: _converter(convert) for cls, convert in _CONVERTER_CASES.items()},
)
