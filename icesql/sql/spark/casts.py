"""Spark's casts where DuckDB's answer is NULL or another value: integers to BINARY, text to
BOOLEAN, and everything to and from intervals (``icesql.sql.spark.interval_casts``).

An integer cast to BINARY is its two's complement, big-endian, as wide as its type (Spark's
``Cast`` calls ``NumberConverter.toBinary``): ``CAST(123 AS BINARY)`` is ``0000007B``; DuckDB
cannot cast an integer to BLOB::

    >>> from icesql.sql.dialect import parse_one
    >>> from icesql.sql.semantics import apply_spark_semantics
    >>> apply_spark_semantics(parse_one("SELECT CAST(-123S AS BINARY)")).sql("duckdb")
    "SELECT UNHEX(RIGHT(LPAD(HEX(CAST(CAST(-123 AS SMALLINT) AS BIGINT)), 16, '0'), 4))"

Text is a BOOLEAN when, trimmed of whitespace and control characters (``trimAll``) and in
lower case, it is one of Spark's true or false words (``StringUtils.isTrueString``); DuckDB
neither trims nor reads the same words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from icesql.sql.spark import interval_casts
from icesql.sql.spark.base import TEXTUAL, T, arg_type, call
from icesql.sql.spark.overflow import integral_type

_BYTES = {T.TINYINT: 1, T.SMALLINT: 2, T.INT: 4, T.BIGINT: 8}
# the characters trimAll strips: Java's whitespace and ISO control characters of ASCII
_TRIM_ALL = r"^[\x00-\x20\x7f]+|[\x00-\x20\x7f]+$"
_TRUE = ("t", "true", "y", "yes", "1")
_FALSE = ("f", "false", "n", "no", "0")


def trimmed_all(value: exp.Expr) -> exp.Expr:
    """``value`` trimmed as Spark's ``UTF8String.trimAll`` trims it."""
    return exp.RegexpReplace(
        this=value,
        expression=exp.Literal.string(_TRIM_ALL),
        replacement=exp.Literal.string(""),
        modifiers=exp.Literal.string("g"),
    )


def _integral_to_binary(node: exp.Cast) -> exp.Expr:
    width = _BYTES[integral_type(node, "this") or T.BIGINT]
    digits = call("lpad", call("hex", exp.cast(node.this, "BIGINT")), exp.Literal.number(16))
    digits.append("expressions", exp.Literal.string("0"))
    low = call("right", digits, exp.Literal.number(2 * width))
    return call("unhex", low)


def text_to_boolean(value: exp.Expr) -> exp.Expr:
    """Spark's ``CAST(value AS BOOLEAN)`` of text (module docstring)."""
    word = exp.Lower(this=trimmed_all(value))

    def among(words: tuple[str, ...]) -> exp.Expr:
        return exp.In(this=word.copy(), expressions=[exp.Literal.string(w) for w in words])

    return exp.Case(
        ifs=[
            exp.If(this=among(_TRUE), true=exp.true()),
            exp.If(this=among(_FALSE), true=exp.false()),
        ],
        default=exp.cast(exp.Null(), "BOOLEAN"),
    )


def _cast(node: exp.Cast) -> exp.Expr:
    target = node.to.this if isinstance(node.to, exp.DataType) else None
    operand = arg_type(node)
    if target in (T.BINARY, T.VARBINARY) and integral_type(node, "this") is not None:
        return _integral_to_binary(node)
    if target == T.BOOLEAN and operand in TEXTUAL:
        return text_to_boolean(node.this)
    return interval_casts.cast(node)


RULES: dict[type[exp.Expr], Callable[[Any], exp.Expr]] = {exp.Cast: _cast}
FUNCTIONS: dict[str, Callable[[exp.Anonymous], exp.Expr]] = {}
TYPED = {exp.Cast}
TYPED_FUNCTIONS: set[str] = set()
