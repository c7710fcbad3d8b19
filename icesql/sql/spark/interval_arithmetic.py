"""Spark's interval arithmetic where DuckDB answers otherwise.

``DATE '2001-10-01' - DATE '2001-09-28'`` is the day-time interval ``INTERVAL '3' DAY`` in Spark
3.5 (``SubtractDates`` without the legacy interval setting), text on either side read as a
date; DuckDB answers the number 3. The difference becomes a DuckDB interval of whole days,
typed ``INTERVAL DAY`` for the rules around it (``CAST(d1 - d2 AS BIGINT)`` is 3 again).

A year-month or day-time interval times or divided by a number is its months or microseconds
scaled and rounded half up (``MultiplyYMInterval``, ``DivideDTInterval``...): ``INTERVAL 2
WEEKS 3 MICROSECONDS * 1.5`` is 21 days and 5 microseconds, where DuckDB scales each field and
truncates; Spark raises on a zero divisor or a result past the type's range.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from icesql.sql.spark.base import (
    FLOATING,
    INTEGRAL,
    TEXTUAL,
    T,
    arg_data_type,
    arg_type,
    call,
    decimal_digits,
)
from icesql.sql.spark.interval_casts import day_time_interval, micros_of, months_of
from icesql.sql.spark.interval_types import INTERVAL_TYPE_KEY, IntervalType, spark_interval_type

_DAYS = IntervalType("dt", 0, 0)


def _date_difference(node: exp.Sub) -> exp.Expr:
    left, right = arg_type(node, "this"), arg_type(node, "expression")
    dates = {left, right} == {T.DATE} or (
        T.DATE in (left, right) and (left in TEXTUAL or right in TEXTUAL)
    )
    if not dates:
        return node
    days = exp.Sub(this=exp.cast(node.this, "DATE"), expression=exp.cast(node.expression, "DATE"))
    made = call("to_days", exp.cast(exp.paren(days), "INT"))
    made.meta[INTERVAL_TYPE_KEY] = _DAYS
    return made


def _fails(condition: exp.Expr, message: str, value: exp.Expr) -> exp.Expr:
    error = call("error", exp.Literal.string(message))
    return exp.Case(ifs=[exp.If(this=condition, true=error)], default=value)


def _half_up_quotient(dividend: exp.Expr, divisor: exp.Expr) -> exp.Expr:
    """``dividend / divisor`` of two HUGEINTs, rounded half away from zero."""
    quotient = exp.IntDiv(this=dividend.copy(), expression=divisor.copy())
    rest = exp.Mod(this=dividend.copy(), expression=divisor.copy())
    half = exp.GTE(
        this=exp.Mul(this=exp.Literal.number(2), expression=exp.func("abs", rest)),
        expression=exp.func("abs", divisor.copy()),
    )
    away = exp.Mul(this=exp.func("sign", dividend), expression=exp.func("sign", divisor))
    return exp.Case(
        ifs=[exp.If(this=half, true=exp.Add(this=quotient.copy(), expression=away))],
        default=quotient,
    )


def _unscaled(value: exp.Expr, scale: int) -> exp.Expr:
    """The unscaled integer of a DECIMAL with ``scale`` places, exactly, as a HUGEINT."""
    text = exp.cast(exp.cast(value, f"DECIMAL(38, {scale})"), "VARCHAR")
    digits = call("replace", text, exp.Literal.string("."), exp.Literal.string(""))
    return exp.cast(digits, "HUGEINT")


def _scaled_count(
    count: exp.Expr, factor: exp.Expr, kind: T, digits: tuple[int, int] | None, divide: bool
) -> exp.Expr | None:
    """``count`` (months or microseconds) times or divided by ``factor``, rounded half up, as
    a HUGEINT (a DOUBLE's, as a BIGINT); None for a factor of another type."""
    count = exp.cast(count, "HUGEINT")
    if kind in INTEGRAL:
        number = exp.cast(factor, "HUGEINT")
        return (
            _half_up_quotient(count, number) if divide else exp.Mul(this=count, expression=number)
        )
    if kind == T.DECIMAL and digits is not None and digits[1] <= 18:
        scale = digits[1]
        unscaled = _unscaled(factor, scale)
        power = exp.cast(exp.Literal.number(10**scale), "HUGEINT")
        if divide:
            return _half_up_quotient(exp.Mul(this=count, expression=power), unscaled)
        return _half_up_quotient(exp.Mul(this=count, expression=unscaled), power)
    if kind in FLOATING:
        value = exp.cast(count, "DOUBLE")
        result = (
            exp.Div(this=value, expression=factor)
            if divide
            else exp.Mul(this=value, expression=factor)
        )
        return exp.cast(exp.func("round", result), "BIGINT")
    return None


def _scaled_interval(node: exp.Mul | exp.Div) -> exp.Expr:
    divide = isinstance(node, exp.Div)
    keys = ("this", "expression")
    for interval_key, factor_key in (keys, keys[::-1])[: 1 if divide else 2]:
        kind = spark_interval_type(node.args[interval_key])
        factor_type = arg_type(node, factor_key)
        if kind is None or kind.kind == "calendar" or factor_type is None:
            continue
        found = arg_data_type(node, factor_key)
        digits = decimal_digits(found) if factor_type == T.DECIMAL and found is not None else None
        interval, factor = node.args[interval_key], node.args[factor_key]
        count = months_of(interval) if kind.kind == "ym" else micros_of(interval)
        scaled = _scaled_count(count, factor.copy(), factor_type, digits, divide)
        if scaled is None:
            continue
        low, high = (-(2**31), 2**31 - 1) if kind.kind == "ym" else (-(2**63), 2**63 - 1)
        outside = exp.or_(
            exp.LT(this=scaled.copy(), expression=exp.Literal.number(low)),
            exp.GT(this=scaled.copy(), expression=exp.Literal.number(high)),
        )
        checked = _fails(outside, "[INTERVAL_ARITHMETIC_OVERFLOW] integer overflow", scaled)
        if divide:
            zero = exp.EQ(this=factor.copy(), expression=exp.Literal.number(0))
            checked = _fails(zero, "[INTERVAL_DIVIDED_BY_ZERO] Division by zero", checked)
        if kind.kind == "ym":
            made = call("to_months", exp.cast(checked, "INT"))
        else:
            made = day_time_interval(exp.cast(checked, "BIGINT"))
        made.meta[INTERVAL_TYPE_KEY] = kind
        return made
    return node


def needs_types(node: exp.Expr) -> bool:
    """A difference may be of dates unless a side is a number or an interval literal; a
    product or quotient is of an interval when a side is one."""
    if isinstance(node, (exp.Mul, exp.Div)):
        return any(spark_interval_type(side) is not None for side in (node.this, node.expression))
    sides = (node.this, node.expression) if isinstance(node, exp.Sub) else ()
    return bool(sides) and not any(
        isinstance(side, exp.Interval) or (isinstance(side, exp.Literal) and side.is_number)
        for side in sides
    )


RULES: dict[type[exp.Expr], Callable[[Any], exp.Expr]] = {
    exp.Sub: _date_difference,
    exp.Mul: _scaled_interval,
    exp.Div: _scaled_interval,
}
FUNCTIONS: dict[str, Callable[[exp.Anonymous], exp.Expr]] = {}
TYPED = {exp.Sub, exp.Mul, exp.Div}
TYPED_FUNCTIONS: set[str] = set()
