"""``try_add``, ``try_subtract``, ``try_multiply`` and ``try_divide``: the operator with
Spark's rules for its operands, NULL where it fails (DuckDB's ``TRY``, around the operator
the parser put there: ``icesql.sql.dialect``).

Spark types the operands first: text is read as a DOUBLE (``try_add(2147483647, '1')`` is
``2.147483648E9``), a DATE plus an integer is ``date_add``. Inside ``TRY`` any failure is
NULL, so icesql takes only operands whose failures are Spark's too: numbers, text, and a
DATE with an integer. An interval is refused (Spark's day-time intervals overflow past
``Long`` microseconds, DuckDB's never do), and so is an operand whose type the binding pass
could not find, and an operand computed by anything but a cast: ``TRY`` would turn its own
errors into NULL (``try_add(1, 2147483647 + 1)`` is -2147483647 in Spark, whose inner sum
wraps).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from icesql.sql.spark.base import FRACTIONAL, INTEGRAL, TEXTUAL, T, arg_type, refuse

_OPERATORS = {
    exp.Add: "try_add",
    exp.Sub: "try_subtract",
    exp.Mul: "try_multiply",
    exp.Div: "try_divide",
}
_NUMBERS = INTEGRAL | FRACTIONAL
_SIDES = ("this", "expression")


def _in_try(node: exp.Expr) -> bool:
    parent = node.parent
    return isinstance(parent, exp.Paren) and isinstance(parent.parent, exp.Try)


def needs_types(node: exp.Expr) -> bool:
    return _in_try(node)


def _plain(operand: exp.Expr) -> bool:
    """A column or a literal, cast or negated or not: nothing inside can fail."""
    if isinstance(operand, exp.Column | exp.Literal | exp.Null | exp.Boolean):
        return True
    if isinstance(operand, exp.Cast | exp.Neg | exp.Paren):
        return _plain(operand.this)
    return False


def _operands(node: exp.Binary) -> exp.Expr:
    if not _in_try(node):
        return node
    name = _OPERATORS[type(node)]
    for key in _SIDES:
        if not _plain(node.args[key]):
            refuse(
                f"{name}() of a computed operand ({node.args[key].sql('spark')})",
                "TRY would turn the operand's own errors into NULL: compute it first",
            )
    kinds = [arg_type(node, k) for k in _SIDES]
    if any(k in TEXTUAL for k in kinds) and all(k in _NUMBERS | TEXTUAL for k in kinds):
        for key, kind in zip(_SIDES, kinds):
            if kind in TEXTUAL:
                node.set(key, exp.TryCast(this=node.args[key], to=exp.DataType.build("DOUBLE")))
        return node
    if all(k in _NUMBERS for k in kinds):
        return node
    dated = set(kinds) & {T.DATE} and all(k == T.DATE or k in INTEGRAL for k in kinds)
    if dated and isinstance(node, exp.Add | exp.Sub) and kinds[0] != kinds[1]:
        return node
    spelled = ", ".join("an unknown type" if k is None else k.value for k in kinds)
    refuse(
        f"{name}() of {spelled}",
        "only numbers, text and a DATE with an integer have Spark's answer inside TRY",
    )


RULES: dict[type[exp.Expr], Callable[[Any], exp.Expr]] = dict.fromkeys(_OPERATORS, _operands)
FUNCTIONS: dict[str, Callable[[exp.Anonymous], exp.Expr]] = {}
TYPED = set(_OPERATORS)
TYPED_FUNCTIONS: set[str] = set()
