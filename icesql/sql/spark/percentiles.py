"""Spark's percentiles: ``percentile``, ``median``, ``percentile_cont`` / ``percentile_disc``
``WITHIN GROUP``, ``percentile_approx``.

``percentile_approx`` returns a value of the column (the smallest one with at least the given
fraction of values at or below it), which is DuckDB's ``quantile_disc`` (exact, so within
Spark's approximation for any accuracy, and equal to Spark's answer whenever Spark keeps every
value, as it does below its accuracy); ``percentile`` interpolates: ``quantile_cont``.

The exact percentiles of a number are DOUBLEs in Spark, computed on the values as doubles
(DuckDB's ``quantile_cont`` of a DECIMAL(2,1) answers a DECIMAL(2,1), rounding 1.75 to 1.8),
so a number goes in as a DOUBLE; an interval keeps its type. ``WITHIN GROUP (ORDER BY v
DESC)`` takes the percentile of the values in descending order, which DuckDB ignores over a
window: the value goes in negated and ascending, and the answer comes out negated.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT percentile_approx(x, 0.5) FROM t")).sql("duckdb")
'SELECT QUANTILE_DISC(x, 0.5) FROM t'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.dialect import FUNCTION_ARGS
from icesql.sql.spark.base import (
    FRACTIONAL,
    INTEGRAL,
    TEXTUAL,
    arg_data_type,
    arg_type,
    call,
    literal_int,
    refuse,
)

_AS_DOUBLE = INTEGRAL | FRACTIONAL | TEXTUAL  # Spark casts a string to DOUBLE here too


def _as_double(value: exp.Expr, kind: object) -> exp.Expr:
    return exp.cast(value, "DOUBLE") if kind in _AS_DOUBLE else value


def _approx_percentile(node: exp.ApproxQuantile) -> exp.Expr:
    return call("quantile_disc", node.this, node.args["quantile"])


def _percentile(node: exp.Quantile) -> exp.Expr:
    written = node.meta.get(FUNCTION_ARGS) or []
    if len(written) > 2 and literal_int(written[2]) != 1:
        refuse("percentile() with a frequency", "DuckDB's quantile_cont takes no weights")
    value = _as_double(node.this, arg_type(node))
    return call("quantile_cont", value, node.args["quantile"])


def _median(node: exp.Median) -> exp.Expr:
    kind = arg_type(node)
    if kind not in _AS_DOUBLE:
        return node
    return exp.Median(this=_as_double(node.this, kind))


def _where_value_leaves(node: exp.Expr) -> exp.Expr:
    """The FILTER and OVER around an aggregate call: the node its value leaves by."""
    top = node
    while isinstance(top.parent, (exp.Filter, exp.Window)) and top.arg_key == "this":
        top = top.parent
    return top


def _within_group(node: exp.WithinGroup) -> exp.Expr:
    function, order = node.this, node.expression
    if not isinstance(function, (exp.PercentileCont, exp.PercentileDisc)):
        return node
    if not isinstance(order, exp.Order) or len(order.expressions) != 1:
        return node
    ordered = order.expressions[0]
    found = arg_data_type(ordered)
    descending = bool(ordered.args.get("desc"))
    top = _where_value_leaves(node)
    if found is None:
        if descending and isinstance(top, exp.Window):
            refuse(
                f"{function.sql('spark')} WITHIN GROUP (ORDER BY ... DESC) OVER a window of a"
                " value of unknown type",
                "DuckDB ignores DESC there, and the value cannot be negated without its type",
            )
        return node
    value = _as_double(ordered.this, found.this)
    if descending:
        value = exp.Neg(this=exp.Paren(this=value))
    ordered.set("this", value)
    ordered.set("desc", False)
    ordered.set("nulls_first", True)
    if not descending:
        return node
    if top is node:
        return exp.Neg(this=exp.Paren(this=node))
    # the value leaves by a FILTER or OVER above, which later rules see under the minus
    parent, key, index = top.parent, top.arg_key, top.index
    assert parent is not None and key is not None  # a FILTER or OVER has its call above
    parent.set(key, exp.Neg(this=exp.Paren(this=top)), index)
    return node


def needs_types(node: exp.Expr) -> bool:
    """A sort key needs its type only as the value of a percentile ``WITHIN GROUP``."""
    if isinstance(node, exp.Ordered):
        return isinstance(node.parent, exp.Order) and isinstance(
            node.parent.parent, exp.WithinGroup
        )
    return True


RULES = {
    exp.ApproxQuantile: _approx_percentile,
    exp.Quantile: _percentile,
    exp.Median: _median,
    exp.WithinGroup: _within_group,
}
FUNCTIONS: dict = {}
TYPED = {exp.Quantile, exp.Median, exp.Ordered}
TYPED_FUNCTIONS: set[str] = set()
