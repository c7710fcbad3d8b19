"""Spark's integer overflow (ANSI mode off, its default): ``+ - *``, unary minus and ``abs``
of integers wrap around in two's complement at their type's width, and ``sum`` of integers
wraps at BIGINT's; DuckDB raises an out-of-range error instead.

Wrapping every operator would slow every query, so these rules are off by default: the engine
runs a statement as written and, only when DuckDB reports an integer overflow, translates it
again inside ``wrapping_integers()`` and reruns it (``icesql.engine``). A rule computes in
HUGEINT, where no product of two BIGINTs overflows, and keeps the low bits::

    >>> from icesql.sql.semantics import apply_spark_semantics
    >>> from icesql.sql.dialect import parse_one
    >>> with wrapping_integers():
    ...     apply_spark_semantics(parse_one("SELECT 2147483647 + 1")).sql("duckdb")
    'SELECT CAST((((CAST(2147483647 AS INT128) + CAST(1 AS INT128)) + CAST(2147483648 AS INT128)) & CAST(4294967295 AS INT128)) - CAST(2147483648 AS INT128) AS INT)'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from sqlglot import exp

from icesql.sql.dialect import TYPED_LITERAL
from icesql.sql.spark.base import INTEGRAL, T, arg_data_type, literal_int

_WRAPPING: ContextVar[bool] = ContextVar("icesql_wrapping_integers", default=False)
_BITS = {T.TINYINT: 8, T.SMALLINT: 16, T.INT: 32, T.BIGINT: 64}
PARAM_INT_KEY = "icesql_param_int"  # on a ``?`` bound to a Python int: its value (a literal's type)
_OPERATORS = (exp.Add, exp.Sub, exp.Mul, exp.Neg, exp.Abs)


@contextmanager
def wrapping_integers() -> Iterator[None]:
    """Translate with Spark's wrapping integer arithmetic (and type the nodes it needs)."""
    token = _WRAPPING.set(True)
    try:
        yield
    finally:
        _WRAPPING.reset(token)


def wrapping() -> bool:
    return _WRAPPING.get()


def _hugeint(value: exp.Expr | int) -> exp.Expr:
    node = exp.Literal.number(value) if isinstance(value, int) else value
    return exp.cast(node, "HUGEINT")


def wrapped(value: exp.Expr, kind: T) -> exp.Expr:
    """``value`` (an integer, at most 127 bits) wrapped to the width of ``kind``."""
    bits = _BITS[kind]
    half = _hugeint(2 ** (bits - 1))
    low = exp.BitwiseAnd(
        this=exp.paren(exp.Add(this=exp.paren(value, copy=False), expression=half)),
        expression=_hugeint(2**bits - 1),
    )
    return exp.cast(exp.Sub(this=exp.paren(low), expression=half.copy()), kind)


def _constant_kind(operand: exp.Expr) -> T | None:
    while isinstance(operand, exp.Paren):
        operand = operand.this
    if isinstance(operand, exp.Cast) and operand.to.this in INTEGRAL:
        return _constant_kind(operand.this) and operand.to.this
    value = literal_int(operand)
    if value is None:
        return None
    if -(2**31) <= value < 2**31:
        return T.INT
    return T.BIGINT if -(2**63) <= value < 2**63 else None


def integral_type(node: exp.Expr, key: str, index: int | None = None) -> T | None:
    """Spark's type of an integral operand: a literal's from its value (2147483647 is an INT,
    2147483648 a BIGINT; sqlglot calls both INT), else the inferred one."""
    operand = node.args.get(key)
    if index is not None:
        operand = operand[index] if isinstance(operand, list) and index < len(operand) else None
    found = arg_data_type(node, key, index)
    return integral_type_of(operand, found.this if found is not None else None)


def integral_type_of(operand: exp.Expr | None, inferred: T | None) -> T | None:
    """``integral_type`` of ``operand`` whose inferred type is ``inferred``."""
    while isinstance(operand, exp.Paren):
        operand = operand.this
    if isinstance(operand, exp.Cast) and operand.to.this in INTEGRAL:
        return operand.to.this  # a rule below made it Spark's type (or the query's own cast)
    value = literal_int(operand)
    if isinstance(operand, exp.Placeholder):
        value = operand.meta.get(PARAM_INT_KEY)
    if value is not None:
        if -(2**31) <= value < 2**31:
            return T.INT
        return T.BIGINT if -(2**63) <= value < 2**63 else None
    return inferred if inferred in INTEGRAL else None


def _negative_literal(node: exp.Neg) -> exp.Expr:
    """Spark reads ``-2147483648`` as one INT literal (and ``-9223372036854775808`` as a BIGINT);
    DuckDB negates a BIGINT (a HUGEINT), so ``abs`` of it would not wrap."""
    value = literal_int(node)
    if value == -(2**31):
        return exp.cast(node, "INT")
    if value == -(2**63):
        return exp.cast(node, "BIGINT")
    return node


def negated_typed_literal(node: exp.Expr) -> bool:
    """Whether ``node`` is the typed integer literal of ``-128Y``, ``-9223372036854775808L``:
    Spark's grammar reads the minus as part of the literal (``MINUS? TINYINT_LITERAL``), so
    the value may be the type's minimum, whose absolute value the type cannot hold."""
    return (
        isinstance(node, exp.Cast)
        and bool(node.meta.get(TYPED_LITERAL))
        and node.to.this in INTEGRAL
        and literal_int(node.this) is not None
        and isinstance(node.parent, exp.Neg)
        and node.arg_key == "this"
    )


def _typed_negative_literal(node: exp.Neg) -> exp.Expr | None:
    operand = node.this
    if not isinstance(operand, exp.Cast) or not negated_typed_literal(operand):
        return None
    value = literal_int(operand.this)
    assert value is not None  # negated_typed_literal read it
    literal = exp.Neg(this=exp.Literal.number(value))
    return exp.cast(literal, operand.to.this.value)


def _in_try(node: exp.Expr) -> bool:
    """An operator of try_add & co.: its overflow is NULL (DuckDB's TRY), never wrapped."""
    parent = node.parent
    return isinstance(parent, exp.Paren) and isinstance(parent.parent, exp.Try)


def _wrapping_arithmetic(node: exp.Expr) -> exp.Expr:
    if _in_try(node):
        return node
    if isinstance(node, exp.Neg) and literal_int(node) is not None:
        return _negative_literal(node)
    if isinstance(node, exp.Neg):
        typed = _typed_negative_literal(node)
        if typed is not None:
            return typed
    if not wrapping():
        constant = _constant_kind(node.this) if isinstance(node, exp.Neg) else None
        if constant is not None:
            # DuckDB folds -(constant) into a wider literal: keep Spark's type, so that an
            # overflow is an error here and wraps in the rerun
            return exp.cast(node, constant)
        return node
    keys = ("this",) if isinstance(node, (exp.Neg, exp.Abs)) else ("this", "expression")
    found = [integral_type(node, key) for key in keys]
    kinds = [kind for kind in found if kind is not None]
    if len(kinds) != len(found):
        return node
    kind = max(kinds, key=lambda k: _BITS[k])
    args = [_hugeint(node.args[key].copy()) for key in keys]
    if isinstance(node, exp.Abs):
        exact: exp.Expr = exp.Abs(this=args[0])
    elif isinstance(node, exp.Neg):
        exact = exp.Neg(this=exp.paren(args[0]))
    else:
        exact = type(node)(this=args[0], expression=args[1])
    return wrapped(exact, kind)


def mark_int_parameters(statement: exp.Expr, params: Sequence[object]) -> None:
    """Give each ``?`` bound to an integer its value, so it is typed as that literal would be."""
    for node in statement.find_all(exp.Placeholder):
        index = node.meta.get("icesql_param")
        if index is not None and index < len(params):
            value = params[index]
            if isinstance(value, int) and not isinstance(value, bool):
                node.meta[PARAM_INT_KEY] = value


# DuckDB rewrites sum(x + c) as sum(x) + c * count(x), whose exact total hides an overflow of
# x + c on one row (which Spark wraps): a query summing such arithmetic runs without that rewrite
KEEP_SUMS_AS_WRITTEN = "SET disabled_optimizers = 'aggregate_function_rewriter'"


def sums_arithmetic(statement: exp.Expr) -> bool:
    """Whether ``statement`` sums a ``+``/``-`` (see ``KEEP_SUMS_AS_WRITTEN``)."""
    return any(
        node.this.find(exp.Add, exp.Sub) is not None
        for node in statement.find_all(exp.Sum)
        if isinstance(node.this, exp.Expr)
    )


def needs_types(node: exp.Expr) -> bool:
    """Integer operators need their operands' types only when rerun to wrap an overflow."""
    return wrapping()


RULES = {cls: _wrapping_arithmetic for cls in _OPERATORS}
FUNCTIONS: dict = {}
TYPED = set(_OPERATORS)
TYPED_FUNCTIONS: set[str] = set()
