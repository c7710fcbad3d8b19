"""Spark's interval literals, read as Spark's parser reads them and handed to DuckDB exactly.

DuckDB reads ``INTERVAL '13.123456789' SECOND`` rounded to microseconds where Spark truncates,
accepts text Spark refuses (``INTERVAL '1'``, ``INTERVAL '1.5' DAY``, a literal mixing
year-month and day-time units), cannot read ``YEAR TO MONTH`` or ``DAY TO SECOND`` literals,
and hands day-time values past about 106751 days to Arrow as wrapped nanoseconds. So each
literal is read here by Spark's rules (``icesql.sql.spark.interval_text`` for unit lists and
unit-less text, ``icesql.sql.spark.ansi_interval_text`` for ``<field> TO <field>`` text) and
written back as DuckDB text of the same value: months for a year-month interval, days and
microseconds for a day-time one (whole days apart, so Arrow's nanoseconds hold the rest). Text
Spark refuses raises ``ProgrammingError`` with Spark's reason, as Spark's parser does::

    >>> from icesql.sql.dialect import parse_one
    >>> from icesql.sql.semantics import apply_spark_semantics
    >>> apply_spark_semantics(parse_one("SELECT INTERVAL '3-1' YEAR TO MONTH")).sql("duckdb")
    "SELECT INTERVAL '37 months'"
    >>> apply_spark_semantics(parse_one("SELECT INTERVAL 13.123456789 SECONDS")).sql("duckdb")
    "SELECT INTERVAL '13.123456' SECONDS"
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.spark.ansi_interval_text import day_time_micros, year_month_months
from icesql.sql.spark.interval_text import interval_and_units
from icesql.sql.spark.interval_types import (
    INTERVAL_TYPE_KEY,
    IntervalType,
    spark_interval_type,
    units_type,
)

_MICROS_PER_DAY = 86_400_000_000
_ARROW_SAFE_MICROS = (2**63 - 1) // 1000  # Arrow's month_day_nano holds this many micros


def _text(value: exp.Expr) -> str | None:
    """The literal text of an interval's value, a minus before a string flipping its sign
    (Spark's ``INTERVAL -'1' DAY``); None for a value computed at run time."""
    if isinstance(value, exp.Neg):
        inner = _text(value.this)
        if inner is None:
            return None
        return inner[1:] if inner.startswith("-") else f"-{inner}"
    return value.name if isinstance(value, exp.Literal) else None


def _invalid(text: str, why: str) -> ProgrammingError:
    return ProgrammingError(f"[INVALID_TYPED_LITERAL] interval '{text}' is invalid: {why}")


def _day_time(micros: int, kind: IntervalType) -> exp.Expr:
    days = abs(micros) // _MICROS_PER_DAY * (-1 if micros < 0 else 1)  # both parts keep its sign
    rest = micros - days * _MICROS_PER_DAY
    made = exp.Interval(this=exp.Literal.string(f"{days} days {rest} microseconds"))
    made.meta[INTERVAL_TYPE_KEY] = kind
    return made


def _year_month(months: int, kind: IntervalType) -> exp.Expr:
    made = exp.Interval(this=exp.Literal.string(f"{months} months"))
    made.meta[INTERVAL_TYPE_KEY] = kind
    return made


def _unit_less(node: exp.Interval, text: str) -> exp.Expr:
    read = interval_and_units(text)
    if read is None:
        raise _invalid(text, "Spark cannot read it as an interval")
    (months, days, micros), units = read
    kind = units_type(units)
    if kind is None:
        raise ProgrammingError(f"Cannot mix year-month and day-time fields: interval '{text}'")
    if kind.kind == "ym":
        return _year_month(months, kind)
    return _day_time(days * _MICROS_PER_DAY + micros, kind)


def _span(node: exp.Interval, text: str, kind: IntervalType) -> exp.Expr:
    try:
        if kind.kind == "ym":
            return _year_month(year_month_months(text, kind.start, kind.end), kind)
        return _day_time(day_time_micros(text, kind.start, kind.end), kind)
    except ValueError as e:
        raise _invalid(text, str(e)) from None


def _one_unit(node: exp.Interval, text: str, unit: str, kind: IntervalType) -> exp.Expr:
    if any(ch.isalpha() for ch in text):
        raise ProgrammingError(
            "Can only use numbers in the interval value part for multiple unit value pairs"
            f" interval form, but got invalid value: {text}"
        )
    read = interval_and_units(f"{text} {unit}")
    if read is None:
        raise _invalid(f"{text} {unit}", "Spark cannot read it as an interval")
    months, days, micros = read[0]
    node.set("this", exp.Literal.string(text))  # INTERVAL -'1' YEAR: the sign in the text
    if kind.kind == "ym":
        return node
    total = days * _MICROS_PER_DAY + micros
    if abs(total) > _ARROW_SAFE_MICROS:
        return _day_time(total, kind)
    if kind.end == 3 and "." in text:  # seconds: Spark's truncated microseconds
        node.set("this", exp.Literal.string(f"{Decimal(total).scaleb(-6):f}"))
    return node


def _interval(node: exp.Interval) -> exp.Expr:
    text = _text(node.this)
    if text is None:
        return node
    unit = node.args.get("unit")
    if unit is None:
        return _unit_less(node, text)
    kind = spark_interval_type(node)
    if kind is None:
        return node
    if isinstance(unit, exp.IntervalSpan):
        return _span(node, text, kind)
    return _one_unit(node, text, unit.name, kind)


def _sum(node: exp.Add | exp.Sub) -> exp.Expr:
    """A sum of a year-month and a day-time interval (``INTERVAL 3 MONTH 1 HOUR``, which
    sqlglot reads as one): Spark refuses both the literal and the sum."""
    left, right = spark_interval_type(node.this), spark_interval_type(node.expression)
    if left is not None and right is not None and {left.kind, right.kind} == {"ym", "dt"}:
        raise ProgrammingError(
            f"Cannot mix year-month and day-time fields: {node.sql(dialect='spark')}"
        )
    if left is not None and right is not None and left.widened(right) is not None:
        node.meta[INTERVAL_TYPE_KEY] = left.widened(right)
    return node


def _negation(node: exp.Neg) -> exp.Expr:
    """``-INTERVAL -1 YEAR 1 MONTH`` negates the whole literal: sqlglot's sum of its units
    needs parentheses there."""
    if isinstance(node.this, (exp.Add, exp.Sub)):
        kind = spark_interval_type(node.this)
        node.set("this", exp.Paren(this=node.this))
        if kind is not None:
            node.meta[INTERVAL_TYPE_KEY] = kind
    return node


RULES: dict[type[exp.Expr], Callable[[Any], exp.Expr]] = {
    exp.Interval: _interval,
    exp.Add: _sum,
    exp.Sub: _sum,
    exp.Neg: _negation,
}
FUNCTIONS: dict[str, Callable[[exp.Anonymous], exp.Expr]] = {}
TYPED: set[type[exp.Expr]] = set()
TYPED_FUNCTIONS: set[str] = set()
