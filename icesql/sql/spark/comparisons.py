"""Spark's types for comparing text with a number or a boolean (``TypeCoercion``'s
``findCommonTypeForBinaryComparison``, ANSI off).

Text compared with a DECIMAL is compared as a DOUBLE on both sides (no decimal type fits
every text, SPARK-22469): ``1.5 = '1.51'`` is false, where DuckDB casts the text to the
decimal's own type and finds them equal. Text compared with an integer, a floating-point
number or a boolean is cast to that type with Spark's cast: ``1 = '1.5'`` is true (the
text truncates to 1) and ``'abc' = 1`` is NULL, where DuckDB compares other values or
fails. Only a text literal's comparisons are typed for this (``WHERE ts >= '2024-05-01'``
already compares as Spark does).

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.spark.base import TYPES_KEY
>>> eq = parse_one("SELECT 1.5 = '1.51'").expressions[0]
>>> eq.meta[TYPES_KEY] = {"this": exp.DataType.build("DECIMAL(2,1)"),
...                       "expression": exp.DataType.build("VARCHAR")}
>>> _compare(eq).sql("duckdb")
"CAST(1.5 AS DOUBLE) = CAST('1.51' AS DOUBLE)"
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from icesql.sql.spark import numbers
from icesql.sql.spark.base import FLOATING, INTEGRAL, TEXTUAL, T, arg_type
from icesql.sql.spark.casts import text_to_boolean

_COMPARISONS = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
)
_SIDES = ("this", "expression")


def _text_literal(node: Any) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


def needs_types(node: exp.Expr) -> bool:
    """One side a text literal, the other not: only then can the sides' types differ."""
    if isinstance(node, exp.In):
        items = node.expressions
        return any(map(_text_literal, items)) and not _text_literal(node.this)
    sides = [node.args.get(k) for k in _SIDES]
    return sum(_text_literal(s) for s in sides) == 1


def _in_text(node: exp.In) -> exp.Expr:
    """``x IN ('1.5', ...)`` with a number ``x``: Spark's ``InConversion`` finds the wider
    type of all the values, text for text and an integer or decimal (``stringPromotion``),
    so they compare as text (``1.5 IN ('1.51')`` is false, DuckDB reads '1.51' as the
    decimal 1.5)."""
    if arg_type(node) not in INTEGRAL and arg_type(node) != T.DECIMAL:
        return node
    if not any(_text_literal(e) for e in node.expressions):
        return node
    node.set("this", exp.cast(node.this, "VARCHAR"))
    node.set(
        "expressions",
        [e if _text_literal(e) else exp.cast(e, "VARCHAR") for e in node.expressions],
    )
    return node


def _spark_cast(value: exp.Expr, kind: T) -> exp.Expr:
    """``CAST(value AS kind)`` with the rules Spark's cast of text has here."""
    to = exp.DataType.build(kind.value)
    if kind == T.BOOLEAN:
        return text_to_boolean(value)
    cast = exp.Cast(this=value, to=to)
    if kind in INTEGRAL:
        return numbers.text_to_integral(cast, kind)
    return exp.TryCast(this=value, to=to)


def _compare(node: exp.Expr) -> exp.Expr:
    kinds = {k: arg_type(node, k) for k in _SIDES}
    text = next((k for k in _SIDES if kinds[k] in TEXTUAL), None)
    if text is None:
        return node
    other = "expression" if text == "this" else "this"
    kind = kinds[other]
    if kind == T.DECIMAL:
        for key in _SIDES:
            node.set(key, exp.cast(node.args[key], "DOUBLE"))
        return node
    if kind in INTEGRAL or kind in FLOATING or kind == T.BOOLEAN:
        assert kind is not None
        node.set(text, _spark_cast(node.args[text], kind))
        return node
    return node


RULES: dict[type[exp.Expr], Callable[[Any], exp.Expr]] = {
    **dict.fromkeys(_COMPARISONS, _compare),
    exp.In: _in_text,
}
FUNCTIONS: dict[str, Callable[[exp.Anonymous], exp.Expr]] = {}
TYPED = {*_COMPARISONS, exp.In}
TYPED_FUNCTIONS: set[str] = set()
