"""Evaluating a bound expression on one struct value, such as a file's partition tuple.

``expression_evaluator(struct, expr)`` binds once and returns a function of a tuple (fields
in ``struct`` order) that says whether the expression is TRUE for it, with SQL semantics:
nulls match only ``IS NULL``; NaN equals itself and sorts above every other number::

    >>> from icesql.spec.types import DoubleType, NestedField, StructType
    >>> from icesql.expressions.tree import greater_than
    >>> matches = expression_evaluator(StructType((NestedField(1, "x", DoubleType()),)),
    ...                                greater_than("x", 1.0))
    >>> matches((2.0,)), matches((float("nan"),)), matches((None,)), matches((0.5,))
    (True, True, False, False)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from icesql.expressions.binding import bind
from icesql.expressions.tree import BooleanExpression, BoundReference
from icesql.expressions.visitors import BoundPredicateVisitor, visit
from icesql.spec.types import StructType

__all__ = ["evaluate_bound", "expression_evaluator"]


def expression_evaluator(
    struct: StructType, expr: BooleanExpression, case_sensitive: bool = True
) -> Callable[[Sequence[Any]], bool]:
    """A reusable (and thread-safe) test of ``expr`` against tuples of ``struct``."""
    bound = bind(struct, expr, case_sensitive)
    return lambda row: evaluate_bound(bound, row)


def evaluate_bound(bound: BooleanExpression, row: Sequence[Any]) -> bool:
    """Whether a bound, NOT-free expression is TRUE for ``row`` (positions of the struct it
    was bound to)."""
    return visit(bound, _Evaluator(row))


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and v != v


class _Evaluator(BoundPredicateVisitor[bool]):
    def __init__(self, row: Sequence[Any]):
        self.row = row

    def _get(self, term: BoundReference) -> Any:
        if term.position is None:
            raise TypeError(f"field {term} is not a top-level field of the evaluated struct")
        return self.row[term.position]

    def visit_true(self) -> bool:
        return True

    def visit_false(self) -> bool:
        return False

    def visit_and(self, left: bool, right: bool) -> bool:
        return left and right

    def visit_or(self, left: bool, right: bool) -> bool:
        return left or right

    def visit_is_null(self, term: BoundReference) -> bool:
        return self._get(term) is None

    def visit_not_null(self, term: BoundReference) -> bool:
        return self._get(term) is not None

    def visit_is_nan(self, term: BoundReference) -> bool:
        return _is_nan(self._get(term))

    def visit_not_nan(self, term: BoundReference) -> bool:
        v = self._get(term)
        return v is not None and not _is_nan(v)

    def visit_lt(self, term: BoundReference, literal: Any) -> bool:
        v = self._get(term)
        return v is not None and not _is_nan(v) and v < literal

    def visit_lt_eq(self, term: BoundReference, literal: Any) -> bool:
        v = self._get(term)
        return v is not None and not _is_nan(v) and v <= literal

    def visit_gt(self, term: BoundReference, literal: Any) -> bool:
        v = self._get(term)
        return v is not None and (_is_nan(v) or v > literal)

    def visit_gt_eq(self, term: BoundReference, literal: Any) -> bool:
        v = self._get(term)
        return v is not None and (_is_nan(v) or v >= literal)

    def visit_eq(self, term: BoundReference, literal: Any) -> bool:
        v = self._get(term)
        return v is not None and v == literal

    def visit_not_eq(self, term: BoundReference, literal: Any) -> bool:
        v = self._get(term)
        return v is not None and v != literal

    def visit_starts_with(self, term: BoundReference, literal: Any) -> bool:
        v = self._get(term)
        return v is not None and v.startswith(literal)

    def visit_not_starts_with(self, term: BoundReference, literal: Any) -> bool:
        v = self._get(term)
        return v is not None and not v.startswith(literal)

    def visit_in(self, term: BoundReference, literals: frozenset[Any]) -> bool:
        v = self._get(term)
        return v is not None and v in literals

    def visit_not_in(self, term: BoundReference, literals: frozenset[Any]) -> bool:
        v = self._get(term)
        return v is not None and v not in literals
