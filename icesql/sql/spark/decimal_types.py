"""Spark's DECIMAL result types (``DecimalPrecision``, ``spark.sql.decimalOperations.
allowPrecisionLoss`` on, Spark's default), written once for the binder and the rewrites.

The binder's type inference (sqlglot's ``annotate_types``) types ``sum`` of a DECIMAL(7, 2)
as DECIMAL(7, 2), a decimal ``/`` as an unsized DECIMAL and ``round`` as a DOUBLE. The types
then flow on through subqueries and CTEs, so arithmetic over a CTE's ``sum`` column was cast
to a type too narrow for it. ``EXPRESSION_METADATA`` gives the inference Spark's types for
the DECIMAL cases; the rules of ``icesql.sql.spark.numbers`` and ``aggregates`` cast each
such node to the same type, so what the binder infers is what DuckDB computes::

    >>> add((17, 2), (1, 0)), divide((17, 2), (17, 2)), multiply((38, 18), (2, 0))
    ((18, 2), (37, 20), (38, 15))
    >>> rounded((37, 20), 2), total((7, 2)), average((7, 2))
    ((20, 2), (17, 2), (11, 6))
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlglot import exp

from icesql.sql.dialect import IcebergSpark
from icesql.sql.spark.base import FLOATING, INTEGRAL, T, decimal_digits, literal_int

Digits = tuple[int, int]  # precision, scale
MAX_DIGITS = 38
_MINIMUM_ADJUSTED_SCALE = 6
_PRECISION_LOSS: ContextVar[bool] = ContextVar("icesql_decimal_precision_loss", default=True)
# DecimalType.forType: the DECIMAL an integral (or floating) operand is widened to
FOR_TYPE: dict[T, Digits] = {
    T.TINYINT: (3, 0),
    T.SMALLINT: (5, 0),
    T.INT: (10, 0),
    T.BIGINT: (20, 0),
    T.FLOAT: (14, 7),
    T.DOUBLE: (30, 15),
}


def bounded(precision: int, scale: int) -> Digits:
    """``DecimalType.bounded``: both capped at 38."""
    return min(precision, MAX_DIGITS), min(scale, MAX_DIGITS)


@contextmanager
def precision_loss(allowed: bool) -> Iterator[None]:
    """Type arithmetic under ``spark.sql.decimalOperations.allowPrecisionLoss`` = ``allowed``
    (false: results are only capped at 38 digits, and overflow to NULL sooner)."""
    token = _PRECISION_LOSS.set(allowed)
    try:
        yield
    finally:
        _PRECISION_LOSS.reset(token)


def adjusted(precision: int, scale: int) -> Digits:
    """``DecimalType.adjustPrecisionScale``: past 38 digits keep the integral digits and at
    least 6 of the fraction (fewer only when the type had fewer); ``bounded`` where the
    session allows no precision loss."""
    if not _PRECISION_LOSS.get():
        return bounded(precision, scale)
    if precision <= MAX_DIGITS:
        return precision, scale
    kept = max(MAX_DIGITS - (precision - scale), min(scale, _MINIMUM_ADJUSTED_SCALE))
    return MAX_DIGITS, kept


def add(left: Digits, right: Digits) -> Digits:
    """``+`` and ``-``."""
    (p1, s1), (p2, s2) = left, right
    scale = max(s1, s2)
    return adjusted(max(p1 - s1, p2 - s2) + scale + 1, scale)


def multiply(left: Digits, right: Digits) -> Digits:
    (p1, s1), (p2, s2) = left, right
    return adjusted(p1 + p2 + 1, s1 + s2)


def divide(left: Digits, right: Digits) -> Digits:
    (p1, s1), (p2, s2) = left, right
    scale = max(_MINIMUM_ADJUSTED_SCALE, s1 + p2 + 1)
    if _PRECISION_LOSS.get():
        return adjusted(p1 - s1 + s2 + scale, scale)
    # Divide.resultDecimalType without precision loss: at most 38 integral and fraction
    # digits, a sum past 38 split about evenly
    whole, fraction = min(MAX_DIGITS, p1 - s1 + s2), min(MAX_DIGITS, scale)
    excess = whole + fraction - MAX_DIGITS
    if excess > 0:
        fraction -= excess // 2 + 1
        whole = MAX_DIGITS - fraction
    return bounded(whole + fraction, fraction)


def remainder(left: Digits, right: Digits) -> Digits:
    """``%`` and ``pmod``: no larger than either operand."""
    (p1, s1), (p2, s2) = left, right
    scale = max(s1, s2)
    return adjusted(min(p1 - s1, p2 - s2) + scale, scale)


def wider(digits: Iterable[Digits]) -> Digits:
    """``widerDecimalType``: the type of coalesce / CASE / greatest over DECIMAL branches."""
    found = list(digits)
    scale = max(s for _, s in found)
    return bounded(max(p - s for p, s in found) + scale, scale)


def total(operand: Digits) -> Digits:
    """``sum`` of a DECIMAL(p, s): DECIMAL(p + 10, s)."""
    return bounded(operand[0] + 10, operand[1])


def average(operand: Digits) -> Digits:
    """``avg`` of a DECIMAL(p, s): DECIMAL(p + 4, s + 4)."""
    return bounded(operand[0] + 4, operand[1] + 4)


def rounded(operand: Digits, places: int) -> Digits:
    """``round`` / ``bround`` / ``floor`` / ``ceil`` to ``places`` (RoundBase): room for a
    carry into one more integral digit, the scale cut to ``places`` (0 when negative)."""
    precision, scale = operand
    whole = precision - scale + 1
    if places < 0:
        return min(max(whole, 1 - places), MAX_DIGITS), 0
    kept = min(scale, places)
    return min(whole + kept, MAX_DIGITS), kept


def literal_digits(text: str) -> Digits | None:
    """A number literal's DECIMAL as Spark reads it: ``1.50`` is DECIMAL(3, 2), ``0.01``
    DECIMAL(2, 2); None for a literal Spark reads as a DOUBLE (``1e3``) or an integer."""
    if "." not in text or "e" in text.lower():
        return None
    sign, digits, exponent = decimal.Decimal(text).as_tuple()
    assert isinstance(exponent, int)  # a finite literal
    unscaled = "".join(map(str, digits)).lstrip("0")
    precision = max(len(unscaled), -exponent, 1)
    return (precision, -exponent) if precision <= MAX_DIGITS else None


def integer_literal_digits(node: exp.Expr) -> Digits | None:
    """``DecimalType.fromLiteral`` of an integer literal (``-123`` is DECIMAL(3, 0)): the
    DECIMAL an integer literal meeting a DECIMAL in arithmetic becomes."""
    value = literal_int(node)
    return (max(len(str(abs(value))), 1), 0) if value is not None else None


def _bare(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _digits(found: exp.DataType | None) -> Digits | None:
    """A DECIMAL type's digits (an unsized DECIMAL is sqlglot's guess: None)."""
    if found is None or found.this != T.DECIMAL or not found.expressions:
        return None
    return decimal_digits(found)


def operand_digits(node: exp.Expr) -> Digits | None:
    """The DECIMAL an operand of arithmetic with a DECIMAL is (an integer literal its own
    digits, an integral type ``FOR_TYPE``), from the types already inferred below it."""
    literal = integer_literal_digits(_bare(node))
    if literal is not None:
        return literal
    found = node.type
    if found is not None and found.this in INTEGRAL:
        return FOR_TYPE[found.this]
    return _digits(found)


def _decimal_args(nodes: list[exp.Expr]) -> list[Digits] | None:
    """Each argument's DECIMAL, when one is a DECIMAL and the others DECIMALs or integers."""
    if not any(_digits(n.type) is not None for n in nodes):
        return None
    found = [operand_digits(n) for n in nodes]
    return None if any(d is None for d in found) else [d for d in found if d is not None]


def _decimal(digits: Digits) -> exp.DataType:
    return exp.DataType.build(f"DECIMAL({digits[0]}, {digits[1]})")


Annotator = Callable[[Any, exp.Expr], Any]
_BASE: dict[type[exp.Expr], dict[str, Any]] = IcebergSpark.EXPRESSION_METADATA


def _then(
    cls: type[exp.Expr], spark: Callable[[exp.Expr], Digits | exp.DataType | None]
) -> dict[str, Any]:
    """sqlglot's annotator for ``cls``, then Spark's type where ``spark`` finds one (digits:
    a DECIMAL)."""
    spec = _BASE.get(cls, {})
    base: Annotator | None = spec.get("annotator")
    returns = spec.get("returns")

    def annotate(annotator: Any, node: exp.Expr) -> None:
        if base is not None:
            base(annotator, node)
        else:
            annotator._set_type(node, returns)
        found = spark(node)
        if found is not None:
            annotator._set_type(node, found if isinstance(found, exp.DataType) else _decimal(found))

    return {"annotator": annotate}


def _literal(node: exp.Expr) -> Digits | None:
    assert isinstance(node, exp.Literal)
    return literal_digits(node.this) if node.is_number else None


def _binary(rule: Callable[[Digits, Digits], Digits]) -> Callable[[exp.Expr], Digits | None]:
    def spark(node: exp.Expr) -> Digits | None:
        found = _decimal_args([node.this, node.expression])
        return rule(found[0], found[1]) if found is not None else None

    return spark


def _aggregate(rule: Callable[[Digits], Digits]) -> Callable[[exp.Expr], Digits | None]:
    def spark(node: exp.Expr) -> Digits | None:
        found = _digits(node.this.type)
        return rule(found) if found is not None else None

    return spark


def _average(node: exp.Expr) -> Digits | None:
    # the rule computes avg exactly up to scale 18; past it DuckDB's DOUBLE stays
    operand = _digits(node.this.type)
    return _aggregate(average)(node) if operand is not None and operand[1] <= 18 else None


def _places(node: exp.Expr, key: str = "decimals") -> int | None:
    places = node.args.get(key)
    return 0 if places is None else literal_int(places)


def _round(node: exp.Expr) -> Digits | exp.DataType | None:
    if node.this.type is not None and node.this.type.this in INTEGRAL:
        return node.this.type  # round of an integer keeps its type (RoundBase)
    found, places = _digits(node.this.type), _places(node)
    return rounded(found, places) if found is not None and places is not None else None


def _floor_ceil(node: exp.Expr) -> Digits | None:
    places = _places(node)
    if places is None:
        return None
    found = _digits(node.this.type)
    if found is None and node.args.get("decimals") is not None and node.this.type is not None:
        found = FOR_TYPE.get(node.this.type.this)  # floor(x, d) of a DOUBLE is a DECIMAL
    return rounded(found, places) if found is not None else None


def _branches(values: Callable[[exp.Expr], list[exp.Expr]]) -> Callable[[exp.Expr], Digits | None]:
    def spark(node: exp.Expr) -> Digits | None:
        nodes = [v for v in values(node) if v.type is None or v.type.this != T.NULL]
        if any(v.type is not None and v.type.this in FLOATING for v in nodes):
            return None
        if not any(_digits(v.type) is not None for v in nodes):
            return None
        found = [
            FOR_TYPE[v.type.this]
            if v.type is not None and v.type.this in INTEGRAL
            else _digits(v.type)
            for v in nodes
        ]
        return wider(d for d in found if d is not None) if None not in found else None

    return spark


def _case_values(node: exp.Expr) -> list[exp.Expr]:
    values = [when.args["true"] for when in node.args.get("ifs") or []]
    default = node.args.get("default")
    return values + ([default] if default is not None else [])


def _listed(*keys: str) -> Callable[[exp.Expr], list[exp.Expr]]:
    def values(node: exp.Expr) -> list[exp.Expr]:
        found: list[exp.Expr] = []
        for key in keys:
            value = node.args.get(key)
            found += value if isinstance(value, list) else [value] if value is not None else []
        return found

    return values


_FUNCTIONS: dict[str, Callable[[exp.Anonymous], Digits | exp.DataType | None]] = {}


def _anonymous(node: exp.Expr) -> Digits | exp.DataType | None:
    assert isinstance(node, exp.Anonymous)
    spark = _FUNCTIONS.get(str(node.this).lower())
    return spark(node) if spark is not None else None


def _bround(node: exp.Anonymous) -> Digits | exp.DataType | None:
    args = node.expressions
    if not 1 <= len(args) <= 2:
        return None
    if args[0].type is not None and args[0].type.this in INTEGRAL:
        return args[0].type
    found = _digits(args[0].type)
    places = literal_int(args[1]) if len(args) == 2 else 0
    return rounded(found, places) if found is not None and places is not None else None


def _pmod(node: exp.Anonymous) -> Digits | None:
    if len(node.expressions) != 2:
        return None
    found = _decimal_args(list(node.expressions))
    return remainder(found[0], found[1]) if found is not None else None


_FUNCTIONS.update({"bround": _bround, "pmod": _pmod})

EXPRESSION_METADATA: dict[type[exp.Expr], dict[str, Any]] = {
    **_BASE,
    exp.Literal: _then(exp.Literal, _literal),
    exp.Add: _then(exp.Add, _binary(add)),
    exp.Sub: _then(exp.Sub, _binary(add)),
    exp.Mul: _then(exp.Mul, _binary(multiply)),
    exp.Div: _then(exp.Div, _binary(divide)),
    exp.Mod: _then(exp.Mod, _binary(remainder)),
    exp.Sum: _then(exp.Sum, _aggregate(total)),
    exp.Avg: _then(exp.Avg, _average),
    exp.Round: _then(exp.Round, _round),
    exp.Floor: _then(exp.Floor, _floor_ceil),
    exp.Ceil: _then(exp.Ceil, _floor_ceil),
    exp.Coalesce: _then(exp.Coalesce, _branches(_listed("this", "expressions"))),
    exp.Greatest: _then(exp.Greatest, _branches(_listed("this", "expressions"))),
    exp.Least: _then(exp.Least, _branches(_listed("this", "expressions"))),
    exp.If: _then(exp.If, _branches(_listed("true", "false"))),
    exp.Case: _then(exp.Case, _branches(_case_values)),
    exp.Anonymous: _then(exp.Anonymous, _anonymous),
    # Spark's current_timestamp() is a TIMESTAMP (a zoned one: sqlglot's TIMESTAMP is local)
    exp.CurrentTimestamp: {"returns": T.TIMESTAMPTZ},
}
