"""The values of a ``PARTITION (col = value, ...)`` clause, as Spark 3.5 reads them.

Spark's parser erases a partition value's type: the literal is evaluated and cast to a
string (``1.50`` gives ``"1.50"``, ``1e3`` gives ``"1000.0"``, ``DATE '2020-01-02'`` gives
``"2020-01-02"``, ``NULL`` stays null), and that string is cast to the column's type with
the ANSI cast rules when the row is stored. So ``PARTITION (q = '7')`` fills an INT column
with 7, while ``PARTITION (q = 1.5)`` fails (``'1.5'`` is not an integer), as does a number
out of the column's range. ``partition_text`` is the first step, ``cast_partition_value`` the
second; both raise errors naming the table and the column. Values come back in icesql's
value convention (``icesql.spec.values``).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
import uuid
import zoneinfo
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from sqlglot import exp

from icesql.errors import DataError, ProgrammingError
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
    IcebergType,
    IntegerType,
    LongType,
    StringType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UUIDType,
)
from icesql.spec.values import EPOCH_DATE, java_double_string
from icesql.sql.spark_type_names import spark_type

__all__ = ["cast_partition_value", "partition_text"]

_TRUE = frozenset({"t", "true", "y", "yes", "1"})
_FALSE = frozenset({"f", "false", "n", "no", "0"})
_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_FLOATING = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?")
_INFINITY = {
    "inf": math.inf,
    "+inf": math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-inf": -math.inf,
    "-infinity": -math.inf,
    "nan": math.nan,
}
_DATE = re.compile(r"([+-]?\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T].*)?)?)?", re.DOTALL)
_TIMESTAMP = re.compile(
    r"([+-]?\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2})"
    r"(?:[ T](\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,9}))?)?)?)?)?)?\s*(.*)"
)
_TIME = re.compile(r"(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,9}))?)?")
_OFFSET = re.compile(r"(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?")
_INT_RANGES = {IntegerType: (INT32_MIN, INT32_MAX), LongType: (INT64_MIN, INT64_MAX)}


# ---------------------------------------------------------------------------------------------
# The literal as Spark's string


def partition_text(node: exp.Expr, params: Sequence[object], where: str) -> str | bytes | None:
    """The string Spark makes of a PARTITION clause value (bytes for a binary literal,
    None for NULL); ``where`` names the clause in errors."""
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else _number_text(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        text = _number_text(node.this.this)
        return text[1:] if text.startswith("-") else "-" + text
    if isinstance(node, exp.HexString):
        return bytes.fromhex(node.this)
    if isinstance(node, exp.Concat) and all(
        isinstance(e, exp.Literal) and e.is_string for e in node.expressions
    ):
        return "".join(e.this for e in node.expressions)  # 'a' 'b': adjacent strings join
    if isinstance(node, exp.Cast | exp.TryCast) and isinstance(node.this, exp.Literal):
        return _typed_literal_text(node, where)
    if isinstance(node, exp.Placeholder) and "icesql_param" in node.meta:
        return _parameter_text(params[node.meta["icesql_param"]])
    raise ProgrammingError(
        f"only literals are allowed in {where}, but got {node.sql(dialect='spark')}"
    )


def _number_text(text: str) -> str:
    """A numeric literal printed back as Spark prints its value: integers without leading
    zeros, decimals as written (``BigDecimal``), exponent forms as a double."""
    if _INTEGER.fullmatch(text):
        return str(int(text))
    if "e" in text.lower():
        return java_double_string(float(text))
    return str(Decimal(text))


def _typed_literal_text(node: exp.Cast | exp.TryCast, where: str) -> str:
    inner = node.this
    to = node.to
    if not inner.is_string:  # 10L, 10Y: a number with a type suffix
        return _number_text(inner.this)
    text = inner.this
    if to.is_type(exp.DataType.Type.DATE):
        days = _parse_date(text)
        if days is None:
            raise DataError(f"{where}: {text!r} is not a valid DATE literal")
        return (EPOCH_DATE + dt.timedelta(days=days)).isoformat()
    if to.is_type(exp.DataType.Type.TIMESTAMP_NS):
        return text  # nanoseconds: read as the column's type reads text, digits kept
    if to.is_type(*exp.DataType.TEMPORAL_TYPES):
        micros = _parse_timestamp(text, 6, zoned=not to.is_type(exp.DataType.Type.TIMESTAMPNTZ))
        if micros is None:
            raise DataError(f"{where}: {text!r} is not a valid {to.sql('spark')} literal")
        moment = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=micros)
        out = moment.strftime("%Y-%m-%d %H:%M:%S")
        return out + (f".{moment.microsecond:06d}".rstrip("0") if moment.microsecond else "")
    return text


def _parameter_text(value: object) -> str | bytes | None:
    """A ``?`` parameter as the literal it stands for would print."""
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_string(value)
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return value.isoformat(sep=" ")
    return str(value)


# ---------------------------------------------------------------------------------------------
# Spark's ANSI cast of that string to the column type


def cast_partition_value(text: str | bytes | None, t: IcebergType, table: str, column: str) -> Any:
    """The convention value of ``text`` cast to ``t``, or a ``DataError`` naming the table
    and column (Spark's ``CAST_INVALID_INPUT`` / ``NUMERIC_VALUE_OUT_OF_RANGE``)."""
    if text is None:
        return None
    if isinstance(text, bytes):
        if isinstance(t, BinaryType | FixedType):
            return _fixed(text, t, table, column)
        text = text.decode("utf-8", "replace")
    value = _cast(text, t)
    if value is _MALFORMED:
        raise DataError(
            f"[CAST_INVALID_INPUT] cannot write to {table}: the PARTITION value {text!r} of"
            f" column `{column}` cannot be cast to {spark_type(t).upper()} because it is malformed"
        )
    if value is _OUT_OF_RANGE:
        raise DataError(
            f"[NUMERIC_VALUE_OUT_OF_RANGE] cannot write to {table}: the PARTITION value {text!r}"
            f" of column `{column}` cannot be represented as {spark_type(t).upper()}"
        )
    if isinstance(t, FixedType):
        return _fixed(value, t, table, column)
    return value


_MALFORMED = object()
_OUT_OF_RANGE = object()


def _cast(text: str, t: IcebergType) -> Any:
    trimmed = text.strip()
    if isinstance(t, StringType):
        return text
    if isinstance(t, BinaryType | FixedType):
        return text.encode("utf-8")
    if isinstance(t, BooleanType):
        low = trimmed.lower()
        return True if low in _TRUE else False if low in _FALSE else _MALFORMED
    if isinstance(t, IntegerType | LongType):
        if not _INTEGER.fullmatch(trimmed):
            return _MALFORMED
        lo, hi = _INT_RANGES[type(t)]
        value = int(trimmed)
        return value if lo <= value <= hi else _MALFORMED  # Spark: malformed, not overflow
    if isinstance(t, FloatType | DoubleType):
        special = _INFINITY.get(trimmed.lower())
        if special is not None:
            return special
        if not _FLOATING.fullmatch(trimmed):
            return _MALFORMED
        number = float(trimmed.rstrip("dDfF"))
        if isinstance(t, FloatType) and math.isfinite(number):
            try:
                number = struct.unpack("<f", struct.pack("<f", number))[0]
            except OverflowError:
                number = math.copysign(math.inf, number)
        return number
    if isinstance(t, DecimalType):
        if not _DECIMAL.fullmatch(trimmed):
            return _MALFORMED
        try:
            exact = Decimal(trimmed).quantize(Decimal(1).scaleb(-t.scale), rounding=ROUND_HALF_UP)
        except InvalidOperation:
            return _OUT_OF_RANGE
        digits = len(exact.as_tuple().digits)
        return _OUT_OF_RANGE if exact != 0 and digits > t.precision else exact
    if isinstance(t, DateType):
        days = _parse_date(trimmed)
        return _MALFORMED if days is None else days
    if isinstance(t, TimestampType | TimestamptzType | TimestampNanoType | TimestamptzNanoType):
        digits = 9 if isinstance(t, TimestampNanoType | TimestamptzNanoType) else 6
        zoned = isinstance(t, TimestamptzType | TimestamptzNanoType)
        stamp = _parse_timestamp(trimmed, digits, zoned)
        return _MALFORMED if stamp is None else stamp
    if isinstance(t, TimeType):
        m = _TIME.fullmatch(trimmed)
        if m is None or int(m.group(1)) > 23 or int(m.group(2)) > 59 or int(m.group(3) or 0) > 59:
            return _MALFORMED
        seconds = (int(m.group(1)) * 60 + int(m.group(2))) * 60 + int(m.group(3) or 0)
        return seconds * 10**6 + int((m.group(4) or "")[:6].ljust(6, "0"))
    if isinstance(t, UUIDType):
        try:
            return uuid.UUID(trimmed)
        except ValueError:
            return _MALFORMED
    return _MALFORMED  # nested or exotic types cannot be partition sources


def _fixed(value: bytes, t: IcebergType, table: str, column: str) -> bytes:
    if isinstance(t, FixedType) and len(value) != t.length:
        raise DataError(
            f"cannot write to {table}: the PARTITION value of {len(value)} bytes does not fit"
            f" fixed({t.length}) column `{column}`"
        )
    return value


def _days(year: str, month: str | None, day: str | None) -> int | None:
    try:
        date = dt.date(int(year), int(month or 1), int(day or 1))
    except ValueError:
        return None
    return (date - EPOCH_DATE).days


def _parse_date(text: str) -> int | None:
    """Spark's ``stringToDate``: ``yyyy``, ``yyyy-[m]m``, ``yyyy-[m]m-[d]d`` and anything
    after a space or ``T`` following the day."""
    m = _DATE.fullmatch(text.strip())
    return None if m is None else _days(*m.groups())


def _parse_timestamp(text: str, digits: int, zoned: bool) -> int | None:
    """Spark's ``stringToTimestamp``: a date, an optional ``[h]h[:[m]m[:[s]s[.fraction]]]``
    after a space or ``T``, an optional zone (``Z``, ``+hh[:mm]``, ``UTC+h``, a region).
    Without a zone the session's (UTC) applies; a zoneless column ignores a given zone.
    Returns micros (or nanos when ``digits`` is 9) since the epoch."""
    m = _TIMESTAMP.fullmatch(text.strip())
    if m is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = m.groups()
    days = _days(year, month, day)
    if days is None or int(hour or 0) > 23 or int(minute or 0) > 59 or int(second or 0) > 59:
        return None
    seconds = days * 86_400 + (int(hour or 0) * 60 + int(minute or 0)) * 60 + int(second or 0)
    units = seconds * 10**digits + int((fraction or "")[:digits].ljust(digits, "0"))
    zone = zone.strip()
    if not zone:
        return units
    offset = _zone_offset(zone, seconds)
    if offset is None:
        return None
    return units - offset * 10**digits if zoned else units


def _zone_offset(zone: str, local_seconds: int) -> int | None:
    """Seconds east of UTC for a zone text at the given local time, None if unknown."""
    if zone.upper() in ("Z", "UTC", "GMT", "UT"):
        return 0
    m = _OFFSET.fullmatch(zone.upper())
    if m is not None:
        sign, h, mi, s = m.groups()
        if int(h) > 18 or int(mi or 0) > 59 or int(s or 0) > 59:
            return None
        total = int(h) * 3600 + int(mi or 0) * 60 + int(s or 0)
        return -total if sign == "-" else total
    try:
        tz = zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
    local = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=local_seconds)
    delta = local.replace(tzinfo=tz).utcoffset()
    return int(delta.total_seconds()) if delta is not None else 0
