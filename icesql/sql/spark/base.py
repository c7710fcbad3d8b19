"""What the rewrite rules share: argument types, Spark's type families, refusals.

Types come from the binding pass (``icesql.sql.bound_query``): before the rules run, its typed
copy of the statement records on each node of a ``TYPED`` kind the types of its direct
arguments (``meta[TYPES_KEY]``), keyed by argument name (``this``, ``expression``) or, for a
list argument, name and position (``expressions.1``). A type sqlglot cannot infer is absent,
and rules leave such nodes as written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

from sqlglot import exp

from icesql.errors import NotSupportedError

Rule = Callable[[exp.Expr], exp.Expr]
TYPES_KEY = "icesql_arg_types"
T = exp.DType  # the enum behind exp.DataType.Type (a class variable, so no type to mypy)
INTEGRAL = {T.TINYINT, T.SMALLINT, T.INT, T.BIGINT}
FLOATING = {T.FLOAT, T.DOUBLE}
FRACTIONAL = FLOATING | {T.DECIMAL}
TEXTUAL = {T.TEXT, T.VARCHAR, T.CHAR}
TIMESTAMPS = {
    T.TIMESTAMP,
    T.TIMESTAMPTZ,
    T.TIMESTAMPLTZ,
    T.TIMESTAMPNTZ,
    T.DATETIME,
    T.TIMESTAMP_NS,
}
ZONED_NANOS = "TIMESTAMPTZ_NS"  # no sqlglot type: a user-defined type of the dialect


def is_zoned_nanos(found: exp.DataType | None) -> bool:
    """Whether ``found`` is the nanosecond timestamp with time zone (``TIMESTAMPTZ_NS``)."""
    return (
        found is not None
        and found.this == T.USERDEFINED
        and (str(found.args.get("kind", "")).upper() == ZONED_NANOS)
    )


def arg_key(key: str, index: int | None = None) -> str:
    return key if index is None else f"{key}.{index}"


def arg_data_type(
    node: exp.Expr, key: str = "this", index: int | None = None
) -> exp.DataType | None:
    """The full type (with precision, element types) of one argument, if it was inferred."""
    return node.meta.get(TYPES_KEY, {}).get(arg_key(key, index))


def decimal_digits(found: exp.DataType) -> tuple[int, int]:
    """Precision and scale of a DECIMAL type (Spark's default DECIMAL is DECIMAL(10, 0))."""
    digits = [
        int((p.this if isinstance(p, exp.DataTypeParam) else p).name) for p in found.expressions
    ]
    return (digits[0] if digits else 10), (digits[1] if len(digits) > 1 else 0)


def arg_type(node: exp.Expr, key: str = "this", index: int | None = None) -> T | None:
    """The type kind of one argument (``T.DOUBLE``, ``T.DECIMAL``...), if it was inferred."""
    found = arg_data_type(node, key, index)
    return found.this if found is not None else None


def refuse(construct: str, why: str) -> NoReturn:
    """Stop: Spark would answer ``construct`` in a way DuckDB's translation cannot match."""
    raise NotSupportedError(f"{construct} is not supported: {why}")


RUNTIME_REFUSAL = "icesql: not supported: "


def refuse_when(condition: exp.Expr, construct: str, why: str, value: exp.Expr) -> exp.Expr:
    """``value``, or at run time an error that icesql reports as NotSupportedError: for
    inputs (not statements) that DuckDB would answer differently, such as non-ASCII text."""
    message = exp.Literal.string(f"{RUNTIME_REFUSAL}{construct}: {why}")
    return exp.Case(ifs=[exp.If(this=condition, true=call("error", message))], default=value)


def literal_int(node: exp.Expr | None) -> int | None:
    """The value of an integer literal (``3``, ``-3``), else None."""
    if isinstance(node, exp.Neg):
        value = literal_int(node.this)
        return -value if value is not None else None
    if isinstance(node, exp.Literal) and node.is_int:
        return int(node.this)
    return None


def literal_string(node: exp.Expr | None) -> str | None:
    return node.this if isinstance(node, exp.Literal) and node.is_string else None


def null_if_any_null(value: exp.Expr, *args: exp.Expr) -> exp.Expr:
    """``value``, or NULL when one of ``args`` is NULL (Spark's null propagation, spelled out
    where DuckDB's function would skip or absorb a NULL argument)."""
    checks = [exp.Is(this=arg.copy(), expression=exp.Null()) for arg in args]
    if not checks:
        return value
    return exp.Case(ifs=[exp.If(this=exp.or_(*checks), true=exp.Null())], default=value)


def call(name: str, *args: exp.Expr) -> exp.Expr:
    """A DuckDB function call that no later rule rewrites (sqlglot keeps it as written)."""
    return exp.Anonymous(this=name, expressions=list(args))


def copies(*nodes: exp.Expr) -> list[exp.Expr]:
    return [n.copy() for n in nodes]
