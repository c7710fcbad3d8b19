"""Spark's reading of interval text (``IntervalUtils.stringToInterval``), in Python.

``CAST(s AS INTERVAL)`` reads text such as ``'interval 3 month 1 hour'`` or ``'+  1 second'``
into months, days and microseconds: whitespace (and control characters) trimmed, case
ignored, an optional ``interval`` prefix, then signed values each followed by a unit (plural
or not); only seconds take a fraction, truncated to microseconds. Any other text, or a value
past the field's range, is NULL (Spark without ANSI mode). DuckDB's own cast reads a different
language (no sign before a space, no ``interval`` prefix), hence this port::

    >>> string_to_interval("interval 3 month 1 hour")
    (3, 0, 3600000000)
    >>> string_to_interval("-     1 second")
    (0, 0, -1000000)
    >>> string_to_interval("1 day -") is None
    True
"""

from __future__ import annotations

__all__ = ["interval_and_units", "string_to_interval", "trim_all"]

_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1
_MICROS = {"hour": 3_600_000_000, "minute": 60_000_000, "second": 1_000_000, "millisecond": 1000}
_UNITS = ("year", "month", "week", "day", "hour", "minute", "second", "millisecond", "microsecond")


def _java_whitespace(ch: str) -> bool:
    """Java's ``Character.isWhitespace`` of an ASCII character."""
    return ch in " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"


def trim_all(text: str) -> str:
    """``UTF8String.trimAll``: strips whitespace and ISO control characters at both ends."""
    return text.strip("".join(chr(c) for c in range(0x21)) + "\x7f")


def _int(value: int) -> int:
    if not -(2**31) <= value <= _INT_MAX:
        raise OverflowError
    return value


def _long(value: int) -> int:
    if not -(2**63) <= value <= _LONG_MAX:
        raise OverflowError
    return value


def _unit_at(s: str, i: int) -> str | None:
    """The unit spelled at ``s[i:]`` (the longest match: ``microsecond`` before ``month``)."""
    for unit in sorted(_UNITS, key=len, reverse=True):
        if s.startswith(unit, i):
            return unit
    return None


def string_to_interval(text: str) -> tuple[int, int, int] | None:
    """Months, days and microseconds of ``text`` as Spark reads it, None where Spark's cast
    gives NULL."""
    read = interval_and_units(text)
    return read[0] if read is not None else None


def interval_and_units(text: str) -> tuple[tuple[int, int, int], frozenset[str]] | None:
    """``string_to_interval`` and the units the text names (``day``, ``second``...): an
    interval literal's Spark type follows from them."""
    units: set[str] = set()
    try:
        parts = _parse(trim_all(text).lower(), units)
    except (OverflowError, ValueError):
        return None
    return (parts, frozenset(units)) if parts is not None else None


def _parse(s: str, units: set[str]) -> tuple[int, int, int] | None:
    if not s:
        return None
    if s.startswith("interval"):
        if len(s) == len("interval") or not _java_whitespace(s[len("interval")]):
            return None
        s = s[len("interval") + 1 :]
    months = days = micros = 0
    i, n = 0, len(s)
    state = "sign"
    while True:
        while i < n and _java_whitespace(s[i]):
            i += 1
        if i == n:
            return (months, days, micros) if state == "sign" else None
        # a signed number
        negative = False
        if s[i] in "+-":
            negative = s[i] == "-"
            i += 1
            while i < n and _java_whitespace(s[i]):
                i += 1
        start = i
        while i < n and s[i].isascii() and s[i].isdigit():
            i += 1
        whole = s[start:i]
        fraction: str | None = None
        if i < n and s[i] == ".":
            i += 1
            begin = i
            while i < n and s[i].isascii() and s[i].isdigit():
                i += 1
            fraction = s[begin:i]
            if len(fraction) > 9 or (not whole and not fraction):
                return None
        elif not whole:
            return None
        if i == n or not _java_whitespace(s[i]):
            return None  # a unit must follow after whitespace
        while i < n and _java_whitespace(s[i]):
            i += 1
        if i == n:
            return None
        value = _long(int(whole or "0"))
        nanos = int((fraction or "").ljust(9, "0")) if fraction is not None else 0
        unit = _unit_at(s, i)
        if unit is None or (fraction is not None and unit != "second"):
            return None
        units.add(unit)
        i += len(unit)
        if i < n and s[i] == "s":
            i += 1
        if i < n and not _java_whitespace(s[i]):
            return None
        sign = -1 if negative else 1
        value *= sign
        if unit == "year":
            months = _int(months + _int(12 * value))
        elif unit == "month":
            months = _int(months + _int(value))
        elif unit == "week":
            days = _int(days + _int(7 * value))
        elif unit == "day":
            days = _int(days + _int(value))
        elif unit == "microsecond":
            micros = _long(micros + value)
        else:
            micros = _long(micros + _long(value * _MICROS[unit]))
            if unit == "second":
                micros = _long(micros + sign * (nanos // 1000))
        state = "sign"
