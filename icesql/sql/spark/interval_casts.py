"""Spark's casts to and from intervals (``Cast`` with ``IntervalUtils``), over DuckDB's one
INTERVAL type.

Spark's interval types (``icesql.sql.spark.interval_types``) decide what a cast means:

* a year-month interval is a count of months, a day-time interval one of microseconds; cast to
  a number it counts its end field, truncated (``CAST(INTERVAL '1' YEAR AS TINYINT)`` is 1,
  ``CAST(INTERVAL '10.123' SECOND AS DECIMAL(4, 2))`` is 10.12, rounded half up), and Spark
  raises past the target's range even without ANSI mode;
* a number cast to an interval type is a count of its end field (``CAST(10 AS INTERVAL DAY)``),
  a decimal rounded half up to whole months or microseconds;
* an interval cast to another interval type of its kind keeps whole end fields;
* text cast to the calendar ``INTERVAL`` is read by Spark's parser
  (``icesql.sql.spark.interval_text``, a Python function DuckDB calls), to a year-month or
  day-time type by Spark's fixed forms (``icesql.sql.spark.ansi_interval_text``), which also
  print those intervals as Spark's text (``INTERVAL '3-1' YEAR TO MONTH``).

DuckDB casts none of these (NULL under TRY_CAST). Casts these rules cannot give Spark's answer
(a calendar interval to text, intervals of unknown type) are refused.
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.spark.base import (
    INTEGRAL,
    TEXTUAL,
    T,
    arg_data_type,
    arg_type,
    call,
    decimal_digits,
    refuse,
    refuse_when,
)
from icesql.sql.spark.functions import (
    DAY_TIME_TEXT,
    STRING_TO_INTERVAL,
    TEXT_DAY_TIME,
    TEXT_YEAR_MONTH,
    YEAR_MONTH_TEXT,
)
from icesql.sql.spark.interval_types import (
    CALENDAR,
    DAY_TIME_FIELDS,
    INTERVAL_TYPE_KEY,
    MICROS_PER_FIELD,
    YEAR_MONTH_FIELDS,
    IntervalType,
    interval_type_of_data_type,
    spark_interval_type,
)

__all__ = ["arrow_safe", "cast", "day_time_interval", "months_of", "micros_of"]

_INT_RANGE = (-(2**31), 2**31 - 1)
_LONG_RANGE = (-(2**63), 2**63 - 1)


def months_of(value: exp.Expr) -> exp.Expr:
    """The months of a DuckDB interval holding a year-month interval."""
    years = call("datepart", exp.Literal.string("year"), value.copy())
    months = call("datepart", exp.Literal.string("month"), value)
    return exp.paren(
        exp.Add(this=exp.Mul(this=years, expression=exp.Literal.number(12)), expression=months)
    )


def micros_of(value: exp.Expr) -> exp.Expr:
    """The microseconds of a DuckDB interval holding a day-time interval."""
    return call("epoch_us", value)


def _count(value: exp.Expr, kind: IntervalType) -> exp.Expr:
    """The interval as a whole number of its end field, truncated toward zero."""
    if kind.kind == "ym":
        months = months_of(value)
        return (
            exp.IntDiv(this=months, expression=exp.Literal.number(12)) if kind.end == 0 else months
        )
    return exp.IntDiv(
        this=micros_of(value), expression=exp.Literal.number(MICROS_PER_FIELD[kind.end])
    )


def _name(kind: IntervalType) -> str:
    fields = YEAR_MONTH_FIELDS if kind.kind == "ym" else DAY_TIME_FIELDS
    first, last = fields[kind.start], fields[kind.end]
    return f"INTERVAL {first}" if first == last else f"INTERVAL {first} TO {last}"


def _checked(value: exp.Expr, bounds: tuple[int, int], what: str) -> exp.Expr:
    """``value`` (a HUGEINT), or Spark's overflow error past ``bounds``."""
    low, high = bounds
    outside = exp.or_(
        exp.LT(this=value.copy(), expression=exp.Literal.number(low)),
        exp.GT(this=value.copy(), expression=exp.Literal.number(high)),
    )
    message = exp.Literal.string(f"[CAST_OVERFLOW] the value is out of the range of {what}")
    return exp.Case(ifs=[exp.If(this=outside, true=call("error", message))], default=value)


def _from_interval(node: exp.Cast, source: IntervalType, target: exp.DataType) -> exp.Expr:
    value = node.this
    if target.this in INTEGRAL:
        return exp.Cast(this=_count(value, source), to=target)  # DuckDB raises past the range
    if source.kind == "dt" and source.end == 3:  # seconds with their microseconds
        micros = exp.cast(micros_of(value), "DECIMAL(19, 0)")
        seconds = exp.Mul(
            this=micros, expression=exp.cast(exp.Literal.number("0.000001"), "DECIMAL(7, 6)")
        )
        return exp.Cast(this=seconds, to=target)
    return exp.Cast(this=exp.cast(_count(value, source), "DECIMAL(38, 0)"), to=target)


def _to_interval(value: exp.Expr, target: IntervalType) -> exp.Expr:
    """A DuckDB interval of ``value`` whole months or microseconds (a HUGEINT)."""
    if target.kind == "ym":
        months = _checked(value, _INT_RANGE, _name(target))
        return call("to_months", exp.cast(months, "INT"))
    micros = _checked(value, _LONG_RANGE, _name(target))
    return day_time_interval(exp.cast(micros, "BIGINT"))


def day_time_interval(micros: exp.Expr) -> exp.Expr:
    """A DuckDB interval of ``micros`` (a BIGINT), whole days apart: Arrow's nanoseconds
    would wrap past about 106751 days of microseconds."""
    day = exp.Literal.number(MICROS_PER_FIELD[0])
    days = call("to_days", exp.cast(exp.IntDiv(this=micros.copy(), expression=day), "INT"))
    rest = call("to_microseconds", exp.Mod(this=micros, expression=day.copy()))
    return exp.paren(exp.Add(this=days, expression=rest))


def _unit(target: IntervalType) -> int:
    if target.kind == "ym":
        return 12 if target.end == 0 else 1
    return MICROS_PER_FIELD[target.end]


def _number_to_interval(node: exp.Cast, target: IntervalType, operand: T) -> exp.Expr:
    unit = exp.Literal.number(_unit(target))
    if operand in INTEGRAL:
        count = exp.Mul(this=exp.cast(node.this, "HUGEINT"), expression=unit)
        return _to_interval(count, target)
    found = arg_data_type(node)
    precision, scale = decimal_digits(found) if found is not None else (38, 18)
    digits = min(38, precision + len(str(_unit(target))))
    scaled = exp.Mul(this=exp.cast(node.this, f"DECIMAL({digits}, {scale})"), expression=unit)
    whole = exp.cast(scaled, "DECIMAL(38, 0)")  # DuckDB rounds half away from zero: HALF_UP
    return _to_interval(exp.cast(whole, "HUGEINT"), target)


def _between_intervals(node: exp.Cast, source: IntervalType, target: IntervalType) -> exp.Expr:
    if source.kind != target.kind or source.kind == "calendar":
        return (
            node
            if source == target
            else refuse(f"CAST of an {source.kind} interval to {_name(target)}", "Spark refuses it")
        )
    count = exp.Mul(this=_count(node.this, target), expression=exp.Literal.number(_unit(target)))
    return _to_interval(exp.cast(count, "HUGEINT"), target)


_ARROW_SAFE_MICROS = (2**63 - 1) // 1000  # Arrow's month_day_nano holds this many micros


def arrow_safe(value: exp.Expr, construct: str) -> exp.Expr:
    """``value`` (a calendar interval), refused at run time where its microseconds (beside
    its months and days) pass what Arrow's nanoseconds hold: DuckDB would hand the rows out
    wrapped. Spark's calendar interval keeps them apart from its days, so they cannot move."""
    hours = call("datepart", exp.Literal.string("hour"), value.copy())
    minutes = call("datepart", exp.Literal.string("minute"), value.copy())
    micros = call("datepart", exp.Literal.string("microseconds"), value.copy())
    total = exp.Add(
        this=exp.Add(
            this=exp.Mul(
                this=exp.cast(hours, "HUGEINT"), expression=exp.Literal.number(3_600_000_000)
            ),
            expression=exp.Mul(
                this=exp.cast(minutes, "HUGEINT"), expression=exp.Literal.number(60_000_000)
            ),
        ),
        expression=exp.cast(micros, "HUGEINT"),
    )
    too_long = exp.GT(
        this=exp.func("abs", total), expression=exp.Literal.number(_ARROW_SAFE_MICROS)
    )
    why = "its time part passes the 106751 days of microseconds icesql's Arrow rows hold"
    return refuse_when(too_long, construct, why, value)


def _text_to_interval(node: exp.Cast, target: IntervalType) -> exp.Expr:
    if target.kind != "calendar":
        fields = (exp.Literal.number(target.start), exp.Literal.number(target.end))
        text = exp.cast(node.this, "VARCHAR")
        if target.kind == "ym":
            return call("to_months", call(TEXT_YEAR_MONTH, text, *fields))
        return day_time_interval(call(TEXT_DAY_TIME, text, *fields))
    parts = call(STRING_TO_INTERVAL, exp.cast(node.this, "VARCHAR"))
    made = exp.Add(
        this=exp.Add(
            this=call(
                "to_months",
                exp.Dot(this=exp.paren(parts.copy()), expression=exp.to_identifier("months")),
            ),
            expression=call(
                "to_days",
                exp.Dot(this=exp.paren(parts.copy()), expression=exp.to_identifier("days")),
            ),
        ),
        expression=call(
            "to_microseconds",
            exp.Dot(this=exp.paren(parts), expression=exp.to_identifier("micros")),
        ),
    )
    return arrow_safe(exp.paren(made), "CAST of text to INTERVAL")


def _interval_text(node: exp.Cast, source: IntervalType) -> exp.Expr:
    if source.kind == "calendar":
        refuse("CAST of a calendar interval to STRING", "icesql does not print Spark's text of it")
    fields = (exp.Literal.number(source.start), exp.Literal.number(source.end))
    if source.kind == "ym":
        return call(YEAR_MONTH_TEXT, exp.cast(months_of(node.this), "INT"), *fields)
    return call(DAY_TIME_TEXT, micros_of(node.this), *fields)


def cast(node: exp.Cast) -> exp.Expr:
    """``node`` as Spark casts to or from an interval, or ``node`` itself when neither side
    is an interval."""
    if not isinstance(node.to, exp.DataType):
        return node
    made = _cast(node)
    target = interval_type_of_data_type(node.to)
    if made is not node and target is not None:
        made.meta[INTERVAL_TYPE_KEY] = target  # for the rules of the expressions around it
    return made


def _cast(node: exp.Cast) -> exp.Expr:
    assert isinstance(node.to, exp.DataType)
    target = interval_type_of_data_type(node.to)
    found = arg_data_type(node)
    operand = arg_type(node)
    source = spark_interval_type(node.this)
    if source is None and interval_type_of_data_type(found) not in (None, CALENDAR):
        source = interval_type_of_data_type(found)  # a column's or cast's own type
    if source is None and interval_type_of_data_type(found) is not None:
        if target is None and node.to.this not in INTEGRAL | TEXTUAL | {T.DECIMAL}:
            return node
        refuse(
            f"CAST of an interval of unknown type to {node.to.sql('spark')}",
            "its Spark type is not known",
        )
    if source is not None and target is not None:
        return _between_intervals(node, source, target)
    if source is not None:
        if node.to.this in TEXTUAL:
            return _interval_text(node, source)
        if source.kind == "calendar":
            return node
        if node.to.this in INTEGRAL or node.to.this == T.DECIMAL:
            return _from_interval(node, source, node.to)
        return node
    if target is None:
        return node
    if operand in TEXTUAL:
        return _text_to_interval(node, target)
    if (
        target.kind != "calendar"
        and operand is not None
        and (operand in INTEGRAL or operand == T.DECIMAL)
    ):
        return _number_to_interval(node, target, operand)
    return node
