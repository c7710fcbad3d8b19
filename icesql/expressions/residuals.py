"""Residuals: what is left of a row filter for the rows of one partition.

For each predicate of the filter and a file's partition tuple: if the predicate's strict
projection holds for the tuple, every row matches it and it becomes ``true``; if its
inclusive projection fails, no row matches and it becomes ``false``; otherwise it stays.
Guarantee: on the rows of that partition, the residual matches exactly the rows the filter
matches. With ``day(ts)`` partitioning, ``ts >= '2024-01-02' AND id = 5`` leaves ``id = 5``
for the partition of 2024-01-03 and ``false`` for 2024-01-01.

Predicates and their projections are bound once per evaluator; per-file work is a lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from icesql.expressions.binding import bind
from icesql.expressions.evaluator import evaluate_bound
from icesql.expressions.projections import project_predicate
from icesql.expressions.tree import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    BooleanExpression,
    BoundPredicate,
    UnboundPredicate,
    and_,
    or_,
)
from icesql.expressions.visitors import BooleanExpressionVisitor, visit
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema

__all__ = ["residual_evaluator"]


def residual_evaluator(
    schema: Schema, spec: PartitionSpec, row_filter: BooleanExpression, case_sensitive: bool = False
) -> Callable[[Sequence[Any]], BooleanExpression]:
    """A reusable, thread-safe function from a partition tuple of ``spec`` to the residual
    (bound to ``schema``) of ``row_filter`` for that partition."""
    bound = bind(schema, row_filter, case_sensitive)
    if spec.is_unpartitioned():
        return lambda partition: bound
    partition_type = spec.partition_type(schema)
    projections: dict[BoundPredicate, tuple[BooleanExpression, BooleanExpression]] = {}

    def projected(pred: BoundPredicate) -> tuple[BooleanExpression, BooleanExpression]:
        found = projections.get(pred)
        if found is None:
            strict = bind(partition_type, project_predicate(spec, pred, True), True)
            inclusive = bind(partition_type, project_predicate(spec, pred, False), True)
            found = projections[pred] = (strict, inclusive)
        return found

    # bind every projection now, so evaluation only reads the (then immutable) cache
    _collect(bound, projected)
    return lambda partition: visit(bound, _ResidualVisitor(partition, projections))


def _collect(bound: BooleanExpression, projected: Callable[[BoundPredicate], Any]) -> None:
    visit(bound, _Collector(projected))


class _Collector(BooleanExpressionVisitor[None]):
    def __init__(self, projected: Callable[[BoundPredicate], Any]):
        self.projected = projected

    def visit_true(self) -> None:
        return None

    def visit_false(self) -> None:
        return None

    def visit_and(self, left: None, right: None) -> None:
        return None

    def visit_or(self, left: None, right: None) -> None:
        return None

    def visit_bound_predicate(self, pred: BoundPredicate) -> None:
        self.projected(pred)

    def visit_not(self, child: None) -> None:
        raise TypeError("residuals need NOT rewritten first")

    def visit_unbound_predicate(self, pred: UnboundPredicate) -> None:
        raise TypeError(f"residuals need a bound expression, got {pred}")


class _ResidualVisitor(BooleanExpressionVisitor[BooleanExpression]):
    def __init__(
        self,
        partition: Sequence[Any],
        projections: dict[BoundPredicate, tuple[BooleanExpression, BooleanExpression]],
    ):
        self.partition = partition
        self.projections = projections

    def visit_true(self) -> BooleanExpression:
        return ALWAYS_TRUE

    def visit_false(self) -> BooleanExpression:
        return ALWAYS_FALSE

    def visit_and(self, left: BooleanExpression, right: BooleanExpression) -> BooleanExpression:
        return and_(left, right)

    def visit_or(self, left: BooleanExpression, right: BooleanExpression) -> BooleanExpression:
        return or_(left, right)

    def visit_bound_predicate(self, pred: BoundPredicate) -> BooleanExpression:
        strict, inclusive = self.projections[pred]
        if evaluate_bound(strict, self.partition):
            return ALWAYS_TRUE
        if not evaluate_bound(inclusive, self.partition):
            return ALWAYS_FALSE
        return pred

    def visit_not(self, child: BooleanExpression) -> BooleanExpression:
        raise TypeError("residuals need NOT rewritten first")

    def visit_unbound_predicate(self, pred: UnboundPredicate) -> BooleanExpression:
        raise TypeError(f"residuals need a bound expression, got {pred}")
