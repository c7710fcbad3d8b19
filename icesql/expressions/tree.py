"""The Iceberg expression tree: constants, and/or/not, and predicates on one column.

A predicate is *unbound* while it names its column (``Reference("id")``) and holds plain
Python literals; binding (``icesql.expressions.binding``) resolves the name to a field of a
schema or partition struct and converts the literals to that field's value convention
(dates as int days, timestamps as int micros or nanos, decimals as ``Decimal``...)::

    >>> expr = and_(greater_than_or_equal("id", 10), is_null("name"))
    >>> str(expr)
    '(id >= 10 AND name IS NULL)'
    >>> str(not_(expr))
    'NOT (id >= 10 AND name IS NULL)'

Semantics are SQL's (three-valued): a predicate matches a row when it is TRUE. Comparisons,
``IN`` and ``STARTS WITH`` never match a null; unlike Java Iceberg, neither do their
negations (``!=``, ``NOT IN``, ``NOT STARTS WITH``) nor ``NOT NAN``, so that ``NOT`` pushed
down by ``rewrite_not`` is exactly SQL's ``NOT``. NaN is ordered as Spark and DuckDB order
it: above every number and equal to itself, so a NaN matches ``>``, ``>=``, ``!=`` and
``NOT IN`` of numbers (which keeps ``NOT x < 5`` equal to ``x >= 5``); binding turns ``= NaN``
into ``IS NAN``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from icesql.spec.types import IcebergType, NestedField

__all__ = [
    "ALWAYS_FALSE",
    "ALWAYS_TRUE",
    "AlwaysFalse",
    "AlwaysTrue",
    "And",
    "BooleanExpression",
    "BoundPredicate",
    "BoundReference",
    "Not",
    "Operation",
    "Or",
    "Reference",
    "UnboundPredicate",
    "and_",
    "equal",
    "greater_than",
    "greater_than_or_equal",
    "in_",
    "is_nan",
    "is_null",
    "less_than",
    "less_than_or_equal",
    "negate",
    "not_",
    "not_equal",
    "not_in",
    "not_nan",
    "not_null",
    "not_starts_with",
    "or_",
    "predicate",
    "starts_with",
]


class Operation(enum.Enum):
    """A predicate's operator."""

    IS_NULL = "IS NULL"
    NOT_NULL = "IS NOT NULL"
    IS_NAN = "IS NAN"
    NOT_NAN = "IS NOT NAN"
    LT = "<"
    LT_EQ = "<="
    GT = ">"
    GT_EQ = ">="
    EQ = "="
    NOT_EQ = "!="
    STARTS_WITH = "STARTS WITH"
    NOT_STARTS_WITH = "NOT STARTS WITH"
    IN = "IN"
    NOT_IN = "NOT IN"

    @property
    def is_unary(self) -> bool:
        return self in _UNARY

    @property
    def is_set(self) -> bool:
        return self in (Operation.IN, Operation.NOT_IN)

    @property
    def is_literal(self) -> bool:
        return not self.is_unary and not self.is_set

    def negate(self) -> Operation:
        """The operator matching exactly the rows where this one is FALSE (SQL ``NOT``)."""
        return _NEGATED[self]

    def flip(self) -> Operation:
        """The operator for swapped operands: ``5 < x`` is ``x > 5``."""
        return _FLIPPED.get(self, self)


_UNARY = frozenset({Operation.IS_NULL, Operation.NOT_NULL, Operation.IS_NAN, Operation.NOT_NAN})
_PAIRS = [
    (Operation.IS_NULL, Operation.NOT_NULL),
    (Operation.IS_NAN, Operation.NOT_NAN),
    (Operation.LT, Operation.GT_EQ),
    (Operation.LT_EQ, Operation.GT),
    (Operation.EQ, Operation.NOT_EQ),
    (Operation.STARTS_WITH, Operation.NOT_STARTS_WITH),
    (Operation.IN, Operation.NOT_IN),
]
_NEGATED = {**{a: b for a, b in _PAIRS}, **{b: a for a, b in _PAIRS}}
_FLIPPED = {
    Operation.LT: Operation.GT,
    Operation.GT: Operation.LT,
    Operation.LT_EQ: Operation.GT_EQ,
    Operation.GT_EQ: Operation.LT_EQ,
}


class BooleanExpression:
    """Base of every node. Nodes are frozen dataclasses: compare and hash by value."""

    __slots__ = ()


@dataclass(frozen=True)
class AlwaysTrue(BooleanExpression):
    def __str__(self) -> str:
        return "true"


@dataclass(frozen=True)
class AlwaysFalse(BooleanExpression):
    def __str__(self) -> str:
        return "false"


ALWAYS_TRUE = AlwaysTrue()
ALWAYS_FALSE = AlwaysFalse()


@dataclass(frozen=True)
class And(BooleanExpression):
    left: BooleanExpression
    right: BooleanExpression

    def __str__(self) -> str:
        return f"({self.left} AND {self.right})"


@dataclass(frozen=True)
class Or(BooleanExpression):
    left: BooleanExpression
    right: BooleanExpression

    def __str__(self) -> str:
        return f"({self.left} OR {self.right})"


@dataclass(frozen=True)
class Not(BooleanExpression):
    child: BooleanExpression

    def __str__(self) -> str:
        inner = str(self.child)
        return f"NOT {inner}" if inner.startswith("(") else f"NOT ({inner})"


# ---------------------------------------------------------------------------------------------
# Terms


@dataclass(frozen=True)
class Reference:
    """A column named in an unbound predicate (dotted for nested fields)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class BoundReference:
    """A resolved field; ``position`` is its index in the bound struct when it is a top-level
    field there (partition tuples are evaluated by position), else None."""

    field: NestedField
    position: int | None = None
    name: str = ""

    @property
    def field_id(self) -> int:
        return self.field.field_id

    @property
    def type(self) -> IcebergType:
        return self.field.type

    def __str__(self) -> str:
        return self.name or self.field.name


# ---------------------------------------------------------------------------------------------
# Predicates


def _literal_text(value: Any, t: IcebergType | None) -> str:
    """A literal as SQL-ish text: temporal convention values shown as ISO text."""
    from icesql.spec import types as T

    if (
        t is not None
        and isinstance(
            t,
            T.DateType
            | T.TimeType
            | T.TimestampType
            | T.TimestamptzType
            | T.TimestampNanoType
            | T.TimestamptzNanoType,
        )
        and isinstance(value, int)
    ):
        from icesql.spec.values import human_string

        return f"'{human_string(t, value)}'"
    if isinstance(value, bytes):
        return f"X'{value.hex()}'"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _predicate_text(op: Operation, term: Any, literal: Any, literals: Any, t: Any) -> str:
    if op.is_unary:
        return f"{term} {op.value}"
    if op.is_set:
        items = ", ".join(sorted(_literal_text(v, t) for v in literals))
        return f"{term} {op.value} ({items})"
    return f"{term} {op.value} {_literal_text(literal, t)}"


def _check_operands(op: Operation, literal: Any, literals: Any) -> None:
    if not isinstance(literals, frozenset):
        raise TypeError(f"{op.value}: literals must be a frozenset, got {type(literals).__name__}")
    if op.is_literal and (literal is None or literals):
        raise ValueError(f"{op.value} takes exactly one non-null literal")
    if not op.is_literal and (literal is not None or (op.is_unary and literals)):
        raise ValueError(f"{op.value} takes {'no literal' if op.is_unary else 'a set of literals'}")


@dataclass(frozen=True)
class UnboundPredicate(BooleanExpression):
    """``op`` on a named column, with one literal (comparisons, starts-with) or a set of
    literals (in / not in); literals are plain Python values until bound."""

    op: Operation
    term: Reference
    literal: Any = None
    literals: frozenset[Any] = frozenset()

    def __post_init__(self) -> None:
        _check_operands(self.op, self.literal, self.literals)

    def __str__(self) -> str:
        return _predicate_text(self.op, self.term, self.literal, self.literals, None)


@dataclass(frozen=True)
class BoundPredicate(BooleanExpression):
    """``op`` on a resolved field; literals are convention values of the field's type."""

    op: Operation
    term: BoundReference
    literal: Any = None
    literals: frozenset[Any] = frozenset()

    def __post_init__(self) -> None:
        _check_operands(self.op, self.literal, self.literals)

    def __str__(self) -> str:
        return _predicate_text(self.op, self.term, self.literal, self.literals, self.term.type)


# ---------------------------------------------------------------------------------------------
# Builders (simplify constants as they go)


def and_(*exprs: BooleanExpression) -> BooleanExpression:
    """The conjunction; ``true`` operands vanish, a ``false`` one wins."""
    out: BooleanExpression = ALWAYS_TRUE
    for e in exprs:
        if isinstance(e, AlwaysFalse) or isinstance(out, AlwaysFalse):
            return ALWAYS_FALSE
        if isinstance(e, AlwaysTrue):
            continue
        out = e if isinstance(out, AlwaysTrue) else And(out, e)
    return out


def or_(*exprs: BooleanExpression) -> BooleanExpression:
    """The disjunction; ``false`` operands vanish, a ``true`` one wins."""
    out: BooleanExpression = ALWAYS_FALSE
    for e in exprs:
        if isinstance(e, AlwaysTrue) or isinstance(out, AlwaysTrue):
            return ALWAYS_TRUE
        if isinstance(e, AlwaysFalse):
            continue
        out = e if isinstance(out, AlwaysFalse) else Or(out, e)
    return out


def not_(expr: BooleanExpression) -> BooleanExpression:
    if isinstance(expr, AlwaysTrue):
        return ALWAYS_FALSE
    if isinstance(expr, AlwaysFalse):
        return ALWAYS_TRUE
    if isinstance(expr, Not):
        return expr.child
    return Not(expr)


def predicate(op: Operation, name: str, value: Any = None) -> UnboundPredicate:
    """A predicate on column ``name``: no value for unary operators, an iterable for sets."""
    ref = Reference(name)
    if op.is_unary:
        return UnboundPredicate(op, ref)
    if op.is_set:
        return UnboundPredicate(op, ref, literals=frozenset(value))
    if value is None:
        raise ValueError(f"{op.value} needs a non-null literal")
    return UnboundPredicate(op, ref, value)


def is_null(name: str) -> UnboundPredicate:
    return predicate(Operation.IS_NULL, name)


def not_null(name: str) -> UnboundPredicate:
    return predicate(Operation.NOT_NULL, name)


def is_nan(name: str) -> UnboundPredicate:
    return predicate(Operation.IS_NAN, name)


def not_nan(name: str) -> UnboundPredicate:
    return predicate(Operation.NOT_NAN, name)


def less_than(name: str, value: Any) -> UnboundPredicate:
    return predicate(Operation.LT, name, value)


def less_than_or_equal(name: str, value: Any) -> UnboundPredicate:
    return predicate(Operation.LT_EQ, name, value)


def greater_than(name: str, value: Any) -> UnboundPredicate:
    return predicate(Operation.GT, name, value)


def greater_than_or_equal(name: str, value: Any) -> UnboundPredicate:
    return predicate(Operation.GT_EQ, name, value)


def equal(name: str, value: Any) -> UnboundPredicate:
    return predicate(Operation.EQ, name, value)


def not_equal(name: str, value: Any) -> UnboundPredicate:
    return predicate(Operation.NOT_EQ, name, value)


def starts_with(name: str, value: str) -> UnboundPredicate:
    return predicate(Operation.STARTS_WITH, name, value)


def not_starts_with(name: str, value: str) -> UnboundPredicate:
    return predicate(Operation.NOT_STARTS_WITH, name, value)


def in_(name: str, values: Iterable[Any]) -> UnboundPredicate:
    return predicate(Operation.IN, name, values)


def not_in(name: str, values: Iterable[Any]) -> UnboundPredicate:
    return predicate(Operation.NOT_IN, name, values)


def negate(expr: BooleanExpression) -> BooleanExpression:
    """SQL's ``NOT expr`` without a ``Not`` node at the top: De Morgan for and/or, the
    negated operator for predicates (exact in three-valued logic: see the module doc)."""
    if isinstance(expr, AlwaysTrue):
        return ALWAYS_FALSE
    if isinstance(expr, AlwaysFalse):
        return ALWAYS_TRUE
    if isinstance(expr, And):
        return or_(negate(expr.left), negate(expr.right))
    if isinstance(expr, Or):
        return and_(negate(expr.left), negate(expr.right))
    if isinstance(expr, Not):
        return expr.child
    if isinstance(expr, UnboundPredicate):
        return type(expr)(expr.op.negate(), expr.term, expr.literal, expr.literals)
    if isinstance(expr, BoundPredicate):
        return type(expr)(expr.op.negate(), expr.term, expr.literal, expr.literals)
    raise TypeError(f"cannot negate {expr!r}")
