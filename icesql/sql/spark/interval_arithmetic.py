"""Spark's arithmetic that makes intervals where DuckDB makes numbers.

``DATE '2001-10-01' - DATE '2001-09-28'`` is the day-time interval ``INTERVAL '3' DAY`` in Spark
3.5 (``SubtractDates`` without the legacy interval setting), text on either side read as a
date; DuckDB answers the number 3. The difference becomes a DuckDB interval of whole days,
typed ``INTERVAL DAY`` for the rules around it (``CAST(d1 - d2 AS BIGINT)`` is 3 again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from icesql.sql.spark.base import TEXTUAL, T, arg_type, call
from icesql.sql.spark.interval_types import INTERVAL_TYPE_KEY, IntervalType

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


def needs_types(node: exp.Expr) -> bool:
    """A difference may be of dates unless a side is a number or an interval literal."""
    sides = (node.this, node.expression) if isinstance(node, exp.Sub) else ()
    return bool(sides) and not any(
        isinstance(side, exp.Interval) or (isinstance(side, exp.Literal) and side.is_number)
        for side in sides
    )


RULES: dict[type[exp.Expr], Callable[[Any], exp.Expr]] = {exp.Sub: _date_difference}
FUNCTIONS: dict[str, Callable[[exp.Anonymous], exp.Expr]] = {}
TYPED = {exp.Sub}
TYPED_FUNCTIONS: set[str] = set()
