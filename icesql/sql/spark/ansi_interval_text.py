"""Spark's reading of year-month and day-time interval text (``IntervalUtils``'s
``castStringToYMInterval`` and ``castStringToDTInterval``), in Python.

Both ``CAST(s AS INTERVAL DAY TO SECOND)`` and the literal ``INTERVAL '1 02:03:04' DAY TO
SECOND`` read the text this way: the form is fixed by the type's start and end fields
(``d h:m:s.n`` for DAY TO SECOND, ``y-m`` for YEAR TO MONTH, a single signed number for one
field), the literal's own ``INTERVAL '...' <fields>`` spelling is accepted too, and each field
below the first is bounded (hours 0-23, minutes and seconds 0-59). Text Spark cannot read raises
``ValueError``, as Spark raises (with or without ANSI mode)::

    >>> year_month_months("-3-1", 0, 1)
    -37
    >>> day_time_micros("1 02:03:04.5", 0, 3)
    93784500000
    >>> day_time_micros("13.123456789", 3, 3)
    13123456
"""

from __future__ import annotations

import re
from decimal import Decimal

from icesql.sql.spark.interval_text import trim_all

__all__ = ["day_time_micros", "day_time_text", "year_month_months", "year_month_text"]

_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1
_MICROS_PER_SECOND = 1_000_000
_MAX_SECOND = _LONG_MAX // _MICROS_PER_SECOND
_MAX = {0: _LONG_MAX // 86_400_000_000, 1: _LONG_MAX // 3_600_000_000, 2: _LONG_MAX // 60_000_000}
_UNIT_MICROS = (86_400_000_000, 3_600_000_000, 60_000_000, 1_000_000)
_DT_NAMES = ("DAY", "HOUR", "MINUTE", "SECOND")
_YM_NAMES = ("YEAR", "MONTH")
_SIGN = r"([+|-])?"  # Spark's character class, '|' included


def _literal(body: str, fields: str) -> re.Pattern[str]:
    return re.compile(rf"(?i)^INTERVAL\s+{_SIGN}'{body}'\s+{fields}$")


_YM = rf"{_SIGN}(\d+)-(\d+)"
_YM_ONE = rf"{_SIGN}(\d+)"
_N, _MICRO = r"(\d{1,2})", r"(\.\d{1,9})"
_DT_SPANS = {  # (start, end) -> the text's form, each field after the first bounded
    (0, 1): rf"{_SIGN}(\d{{1,9}}) {_N}",
    (0, 2): rf"{_SIGN}(\d{{1,9}}) {_N}:{_N}",
    (0, 3): rf"{_SIGN}(\d{{1,9}}) {_N}:{_N}:{_N}{_MICRO}?",
    (1, 2): rf"{_SIGN}(\d{{1,10}}):{_N}",
    (1, 3): rf"{_SIGN}(\d{{1,10}}):{_N}:{_N}{_MICRO}?",
    (2, 3): rf"{_SIGN}(\d{{1,12}}):{_N}{_MICRO}?",
}
_DT_ONE = rf"{_SIGN}(\d{{1,13}})(\.\d{{1,9}})?"
_ONE_LENGTH = (9, 10, 12, 13)


def _sign(first: str | None, second: str | None = None) -> int:
    negative = (first == "-") != (second == "-")
    return -1 if negative else 1


def _bounded(text: str, low: int, high: int) -> int:
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"{text} outside range [{low}, {high}]")
    return value


def _int(value: int) -> int:
    if not -(2**31) <= value <= _INT_MAX:
        raise ValueError("integer overflow")
    return value


def _long(value: int) -> int:
    if not -(2**63) <= value <= _LONG_MAX:
        raise ValueError("long overflow")
    return value


def _span(names: tuple[str, ...], start: int, end: int) -> str:
    first, last = names[start], names[end]
    return first if first == last else rf"{first}\s+TO\s+{last}"


def year_month_months(text: str, start: int, end: int) -> int:
    """The months of ``text`` read as Spark's year-month interval from field ``start`` to
    ``end`` (0 YEAR, 1 MONTH)."""
    s = trim_all(text)
    if (start, end) == (0, 1):
        for pattern, signs in (
            (re.compile(f"^{_YM}$"), 1),
            (_literal(_YM, r"YEAR\s+TO\s+MONTH"), 2),
        ):
            m = pattern.match(s)
            if m:
                sign = _sign(*m.groups()[:signs])
                years = _bounded(m.group(signs + 1), 0, _INT_MAX // 12)
                return _int(sign * (years * 12 + _bounded(m.group(signs + 2), 0, 11)))
    m = re.match(f"^{_YM_ONE}$", s)
    if m:
        value = int(m.group(2))
        if end == 0:
            return _sign(m.group(1)) * _int(value * 12)
        if start == 1:
            return _int(_sign(m.group(1)) * value)
        raise ValueError(f"interval text {text!r} does not match the form of its type")
    m = re.match(rf"(?i)^INTERVAL\s+{_SIGN}'{_YM_ONE}'\s+(YEAR|MONTH)$", s)
    if m:
        unit = _YM_NAMES.index(m.group(4).upper())
        if (start, end) == (unit, unit):
            value = int(m.group(3))
            sign = _sign(m.group(1), m.group(2))
            return sign * _int(value * 12) if unit == 0 else _int(sign * value)
    raise ValueError(f"interval text {text!r} does not match the form of its type")


def _seconds(text: str, low: int, high: int) -> int:
    """``parseSecondNano``: seconds with up to nine fraction digits, truncated to micros."""
    whole, _, nanos = text.partition(".")
    seconds = _bounded(whole, low, high) * _MICROS_PER_SECOND if whole else 0
    if not nanos:
        return seconds
    micros = int(nanos.ljust(9, "0")) // 1000
    return _long(seconds + (-micros if seconds < 0 else micros))  # Spark's sign rule


def _fields(values: list[str], sign: int, start: int) -> int:
    """Micros of ``values`` (the first unbounded but for its type's range, the rest bounded;
    the last the seconds with their fraction, when the span ends in seconds)."""
    micros = 0
    for i, value in enumerate(values):
        field = start + i
        if field == 3:
            micros += sign * _seconds(value, 0, 59)
            continue
        high = _MAX[field] if i == 0 else (23 if field == 1 else 59)
        micros += sign * _bounded(value, 0, high) * _UNIT_MICROS[field]
        micros = _long(micros)
    return _long(micros)


def day_time_micros(text: str, start: int, end: int) -> int:
    """The microseconds of ``text`` read as Spark's day-time interval from field ``start`` to
    ``end`` (0 DAY, 1 HOUR, 2 MINUTE, 3 SECOND)."""
    s = trim_all(text)
    body = _DT_SPANS.get((start, end))
    if body is not None:
        for pattern, signs in (
            (re.compile(f"^{body}$"), 1),
            (_literal(body, _span(_DT_NAMES, start, end)), 2),
        ):
            m = pattern.match(s)
            if m:
                groups = list(m.groups())
                sign = _sign(*groups[:signs])
                values = [g for g in groups[signs:] if g is not None]
                if end == 3 and groups[-1] is not None:  # the fraction joins the seconds
                    values = values[:-2] + [values[-2] + values[-1]]
                return _fields(values, sign, start)
    m = re.match(f"^{_DT_ONE}$", s)
    signs = 1
    if m is None:
        m = re.match(rf"(?i)^INTERVAL\s+{_SIGN}'{_DT_ONE}'\s+(DAY|HOUR|MINUTE|SECOND)$", s)
        signs = 2
        if m is None or (start, end) != (_DT_NAMES.index(m.group(5).upper()),) * 2:
            raise ValueError(f"interval text {text!r} does not match the form of its type")
    sign = _sign(*m.groups()[:signs])
    value, suffix = m.group(signs + 1), m.group(signs + 2)
    if start != end or len(value) > _ONE_LENGTH[start] or (suffix is not None and start != 3):
        raise ValueError(f"interval text {text!r} does not match the form of its type")
    if start == 3:
        return _seconds(
            ("-" if sign < 0 else "") + value + (suffix or ""), -_MAX_SECOND, _MAX_SECOND
        )
    return _long(sign * int(value) * _UNIT_MICROS[start])


def year_month_text(months: int, start: int, end: int) -> str:
    """Spark's ``CAST`` of a year-month interval to STRING (``toYearMonthIntervalString``,
    ANSI style): ``INTERVAL '3-1' YEAR TO MONTH``."""
    sign = "-" if months < 0 else ""
    year = f"{sign}{abs(months) // 12}"
    if start == end:
        return f"INTERVAL '{year}' YEAR" if start == 0 else f"INTERVAL '{months}' MONTH"
    return f"INTERVAL '{year}-{abs(months) % 12}' YEAR TO MONTH"


def _plain_seconds(micros: int) -> str:
    """``BigDecimal.valueOf(micros, 6).stripTrailingZeros.toPlainString`` with Spark's lead
    zero below ten seconds."""
    text = f"{Decimal(micros).scaleb(-6).normalize():f}"
    return ("0" if micros < 10 * _MICROS_PER_SECOND else "") + text


def day_time_text(micros: int, start: int, end: int) -> str:
    """Spark's ``CAST`` of a day-time interval to STRING (``toDayTimeIntervalString``, ANSI
    style): ``INTERVAL '3 00:00:01' DAY TO SECOND``."""
    postfix = _DT_NAMES[start] if start == end else f"{_DT_NAMES[start]} TO {_DT_NAMES[end]}"
    if micros == -(2**63):
        first = ("-106751991", "-2562047788", "-153722867280", "-9223372036854.775808")[start]
        base = "-106751991 04:00:54.775808000"
        rest_text = "" if start == end else base[(10, 13, 16)[start] : (0, 13, 16, 26)[end]]
        return f"INTERVAL '{first}{rest_text}' {postfix}"
    sign, rest = ("-", -micros) if micros < 0 else ("", micros)
    out = sign
    if start == 3:
        out += _plain_seconds(rest)
    else:
        out += f"{rest // _UNIT_MICROS[start]:02d}" if start else f"{rest // _UNIT_MICROS[0]}"
        rest %= _UNIT_MICROS[start]
    if start < 1 <= end:
        out += f" {rest // _UNIT_MICROS[1]:02d}"
        rest %= _UNIT_MICROS[1]
    if start < 2 <= end:
        out += f":{rest // _UNIT_MICROS[2]:02d}"
        rest %= _UNIT_MICROS[2]
    if start < 3 <= end:
        out += f":{_plain_seconds(rest)}"
    return f"INTERVAL '{out}' {postfix}"
