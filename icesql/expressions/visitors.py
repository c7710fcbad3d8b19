"""The one bottom-up traversal of an expression tree, and the visitor shapes it drives.

``visit(expr, visitor)`` visits the children first and hands their results to the visitor,
which only combines them: visitors never recurse on their own. ``BoundPredicateVisitor``
splits bound predicates by operator into one method each (``visit_lt(term, literal)``...),
which is the shape of every evaluator::

    >>> from icesql.expressions.tree import And, equal, less_than
    >>> class Count(BooleanExpressionVisitor[int]):
    ...     def visit_true(self): return 0
    ...     def visit_false(self): return 0
    ...     def visit_not(self, child): return child
    ...     def visit_and(self, left, right): return left + right
    ...     def visit_or(self, left, right): return left + right
    ...     def visit_unbound_predicate(self, pred): return 1
    ...     def visit_bound_predicate(self, pred): return 1
    >>> visit(And(equal("a", 1), less_than("b", 2)), Count())
    2
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import singledispatch
from typing import Any, Generic, TypeVar

from icesql.expressions.tree import (
    AlwaysFalse,
    AlwaysTrue,
    And,
    BooleanExpression,
    BoundPredicate,
    BoundReference,
    Not,
    Operation,
    Or,
    UnboundPredicate,
    and_,
    negate,
    or_,
)

__all__ = [
    "BooleanExpressionVisitor",
    "BoundPredicateVisitor",
    "referenced_field_ids",
    "rewrite_not",
    "visit",
]

T = TypeVar("T")


class BooleanExpressionVisitor(ABC, Generic[T]):
    """Combines the results of a node's children into the node's result."""

    @abstractmethod
    def visit_true(self) -> T: ...

    @abstractmethod
    def visit_false(self) -> T: ...

    @abstractmethod
    def visit_not(self, child: T) -> T: ...

    @abstractmethod
    def visit_and(self, left: T, right: T) -> T: ...

    @abstractmethod
    def visit_or(self, left: T, right: T) -> T: ...

    @abstractmethod
    def visit_unbound_predicate(self, pred: UnboundPredicate) -> T: ...

    @abstractmethod
    def visit_bound_predicate(self, pred: BoundPredicate) -> T: ...


@singledispatch
def visit(expr: BooleanExpression, visitor: BooleanExpressionVisitor[T]) -> T:
    """Visit ``expr`` bottom-up with ``visitor`` and return the root's result."""
    raise TypeError(f"not an expression node: {expr!r}")


@visit.register
def _(expr: AlwaysTrue, visitor: BooleanExpressionVisitor[T]) -> T:
    return visitor.visit_true()


@visit.register
def _(expr: AlwaysFalse, visitor: BooleanExpressionVisitor[T]) -> T:
    return visitor.visit_false()


@visit.register
def _(expr: Not, visitor: BooleanExpressionVisitor[T]) -> T:
    return visitor.visit_not(visit(expr.child, visitor))


@visit.register
def _(expr: And, visitor: BooleanExpressionVisitor[T]) -> T:
    return visitor.visit_and(visit(expr.left, visitor), visit(expr.right, visitor))


@visit.register
def _(expr: Or, visitor: BooleanExpressionVisitor[T]) -> T:
    return visitor.visit_or(visit(expr.left, visitor), visit(expr.right, visitor))


@visit.register
def _(expr: UnboundPredicate, visitor: BooleanExpressionVisitor[T]) -> T:
    return visitor.visit_unbound_predicate(expr)


@visit.register
def _(expr: BoundPredicate, visitor: BooleanExpressionVisitor[T]) -> T:
    return visitor.visit_bound_predicate(expr)


class BoundPredicateVisitor(BooleanExpressionVisitor[T]):
    """A visitor of bound, NOT-free expressions with one method per operator."""

    def visit_not(self, child: T) -> T:
        raise TypeError(f"{type(self).__name__} needs NOT rewritten first (rewrite_not)")

    def visit_unbound_predicate(self, pred: UnboundPredicate) -> T:
        raise TypeError(f"{type(self).__name__} needs a bound expression, got {pred}")

    def visit_bound_predicate(self, pred: BoundPredicate) -> T:
        method = _DISPATCH[pred.op]
        if pred.op.is_unary:
            return method(self, pred.term)
        if pred.op.is_set:
            return method(self, pred.term, pred.literals)
        return method(self, pred.term, pred.literal)

    @abstractmethod
    def visit_is_null(self, term: BoundReference) -> T: ...

    @abstractmethod
    def visit_not_null(self, term: BoundReference) -> T: ...

    @abstractmethod
    def visit_is_nan(self, term: BoundReference) -> T: ...

    @abstractmethod
    def visit_not_nan(self, term: BoundReference) -> T: ...

    @abstractmethod
    def visit_lt(self, term: BoundReference, literal: Any) -> T: ...

    @abstractmethod
    def visit_lt_eq(self, term: BoundReference, literal: Any) -> T: ...

    @abstractmethod
    def visit_gt(self, term: BoundReference, literal: Any) -> T: ...

    @abstractmethod
    def visit_gt_eq(self, term: BoundReference, literal: Any) -> T: ...

    @abstractmethod
    def visit_eq(self, term: BoundReference, literal: Any) -> T: ...

    @abstractmethod
    def visit_not_eq(self, term: BoundReference, literal: Any) -> T: ...

    @abstractmethod
    def visit_starts_with(self, term: BoundReference, literal: Any) -> T: ...

    @abstractmethod
    def visit_not_starts_with(self, term: BoundReference, literal: Any) -> T: ...

    @abstractmethod
    def visit_in(self, term: BoundReference, literals: frozenset[Any]) -> T: ...

    @abstractmethod
    def visit_not_in(self, term: BoundReference, literals: frozenset[Any]) -> T: ...


_DISPATCH: dict[Operation, Callable[..., Any]] = {
    Operation.IS_NULL: lambda v, term: v.visit_is_null(term),
    Operation.NOT_NULL: lambda v, term: v.visit_not_null(term),
    Operation.IS_NAN: lambda v, term: v.visit_is_nan(term),
    Operation.NOT_NAN: lambda v, term: v.visit_not_nan(term),
    Operation.LT: lambda v, term, lit: v.visit_lt(term, lit),
    Operation.LT_EQ: lambda v, term, lit: v.visit_lt_eq(term, lit),
    Operation.GT: lambda v, term, lit: v.visit_gt(term, lit),
    Operation.GT_EQ: lambda v, term, lit: v.visit_gt_eq(term, lit),
    Operation.EQ: lambda v, term, lit: v.visit_eq(term, lit),
    Operation.NOT_EQ: lambda v, term, lit: v.visit_not_eq(term, lit),
    Operation.STARTS_WITH: lambda v, term, lit: v.visit_starts_with(term, lit),
    Operation.NOT_STARTS_WITH: lambda v, term, lit: v.visit_not_starts_with(term, lit),
    Operation.IN: lambda v, term, lits: v.visit_in(term, lits),
    Operation.NOT_IN: lambda v, term, lits: v.visit_not_in(term, lits),
}


# ---------------------------------------------------------------------------------------------
# Small rewrites


class _RewriteNot(BooleanExpressionVisitor[BooleanExpression]):
    def visit_true(self) -> BooleanExpression:
        return AlwaysTrue()

    def visit_false(self) -> BooleanExpression:
        return AlwaysFalse()

    def visit_not(self, child: BooleanExpression) -> BooleanExpression:
        return negate(child)  # the child is already NOT-free

    def visit_and(self, left: BooleanExpression, right: BooleanExpression) -> BooleanExpression:
        return and_(left, right)

    def visit_or(self, left: BooleanExpression, right: BooleanExpression) -> BooleanExpression:
        return or_(left, right)

    def visit_unbound_predicate(self, pred: UnboundPredicate) -> BooleanExpression:
        return pred

    def visit_bound_predicate(self, pred: BoundPredicate) -> BooleanExpression:
        return pred


def rewrite_not(expr: BooleanExpression) -> BooleanExpression:
    """``expr`` without ``Not`` nodes, matching exactly the same rows (SQL three-valued
    logic): ``NOT (a < 5 OR b IS NULL)`` becomes ``a >= 5 AND b IS NOT NULL``."""
    return visit(expr, _RewriteNot())


class _FieldIds(BooleanExpressionVisitor[frozenset[int]]):
    def visit_true(self) -> frozenset[int]:
        return frozenset()

    def visit_false(self) -> frozenset[int]:
        return frozenset()

    def visit_not(self, child: frozenset[int]) -> frozenset[int]:
        return child

    def visit_and(self, left: frozenset[int], right: frozenset[int]) -> frozenset[int]:
        return left | right

    def visit_or(self, left: frozenset[int], right: frozenset[int]) -> frozenset[int]:
        return left | right

    def visit_unbound_predicate(self, pred: UnboundPredicate) -> frozenset[int]:
        raise TypeError(f"referenced_field_ids needs a bound expression, got {pred}")

    def visit_bound_predicate(self, pred: BoundPredicate) -> frozenset[int]:
        return frozenset({pred.term.field_id})


def referenced_field_ids(expr: BooleanExpression) -> frozenset[int]:
    """The field ids a bound expression reads."""
    return visit(expr, _FieldIds())
