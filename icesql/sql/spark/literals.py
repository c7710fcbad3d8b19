"""Numeric literals Spark's parser refuses, refused here too rather than answered.

``128Y`` is past TINYINT's range (Spark: ``INVALID_NUMERIC_LITERAL_RANGE``; DuckDB wraps it to
-128), ``9223372036854775808L`` past BIGINT's (DuckDB: NULL), an integer or decimal literal of
more than 38 digits past DECIMAL's precision (DuckDB reads a BIGNUM or a DOUBLE), ``1E309``
past DOUBLE's range (DuckDB: infinity). A minus before a typed literal is part of it
(``-128Y`` is a TINYINT)::

    >>> from icesql.sql.dialect import parse_one
    >>> from icesql.sql.semantics import apply_spark_semantics
    >>> apply_spark_semantics(parse_one("SELECT 128Y"))
    Traceback (most recent call last):
    ...
    icesql.errors.ProgrammingError: [INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 128 is outside the valid range for tinyint with minimum value of -128 and maximum value of 127.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.dialect import TYPED_LITERAL
from icesql.sql.spark.base import T

_RANGES = {
    T.TINYINT: ("tinyint", 8),
    T.SMALLINT: ("smallint", 16),
    T.INT: ("int", 32),
    T.BIGINT: ("bigint", 64),
}
_MAX_DIGITS = 38


def _out_of_range(text: str, name: str, low: object, high: object) -> ProgrammingError:
    return ProgrammingError(
        f"[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal {text} is outside the valid range"
        f" for {name} with minimum value of {low} and maximum value of {high}."
    )


def _typed(node: exp.Cast) -> exp.Expr:
    if not node.meta.get(TYPED_LITERAL) or not isinstance(node.this, exp.Literal):
        return node
    target = node.to.this if isinstance(node.to, exp.DataType) else None
    if target not in _RANGES:
        return node
    name, bits = _RANGES[target]
    try:
        value = Decimal(node.this.name)
    except InvalidOperation:
        return node
    signed = -value if isinstance(node.parent, exp.Neg) else value
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    if not low <= signed <= high:
        raise _out_of_range(node.this.name, name, low, high)
    return node


def _number(node: exp.Literal) -> exp.Expr:
    if not node.is_number or isinstance(node.parent, exp.Cast):
        return node  # typed literals are checked above; a cast's text is the cast's
    text = node.name
    if "e" in text.lower():
        if math.isinf(float(text)):
            raise _out_of_range(
                text, "double", "-1.7976931348623157E+308", "1.7976931348623157E+308"
            )
        return node
    if "." not in text and abs(int(text)) < 2**63:
        return node  # an INT or BIGINT
    _, figures, exponent = Decimal(text).as_tuple()
    assert isinstance(exponent, int)  # a finite literal
    digits = max(len(figures), -exponent)  # Spark's DecimalType(max(precision, scale), scale)
    if digits > _MAX_DIGITS:
        raise ProgrammingError(
            f"[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision {digits} exceeds max"
            f" precision {_MAX_DIGITS}."
        )
    return node


RULES: dict[type[exp.Expr], Callable[[Any], exp.Expr]] = {exp.Cast: _typed, exp.Literal: _number}
FUNCTIONS: dict[str, Callable[[exp.Anonymous], exp.Expr]] = {}
TYPED: set[type[exp.Expr]] = set()
TYPED_FUNCTIONS: set[str] = set()
