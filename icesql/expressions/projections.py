"""Projections: a row filter turned into a filter on a partition spec's tuples.

* ``inclusive_projection`` (for pruning): if a row matches the filter, its partition tuple
  matches the projection. A predicate no partition field can carry becomes ``true``.
* ``strict_projection`` (for residuals and whole-file decisions): if a partition tuple
  matches the projection, every row of the partition matches the filter. A predicate no
  partition field can guarantee becomes ``false``.

NOT is pushed down to the predicates first (``rewrite_not``), since negating a projection is
not a projection of the negation. With ``day(ts)`` partitioning (field ``ts_day``)::

    >>> from icesql.spec.partitioning import PartitionField, PartitionSpec
    >>> from icesql.spec.transforms import Day
    >>> from icesql.spec.types import NestedField, TimestampType
    >>> from icesql.expressions.tree import less_than
    >>> schema = Schema((NestedField(1, "ts", TimestampType()),))
    >>> spec = PartitionSpec(0, (PartitionField(1, 1000, Day(), "ts_day"),))
    >>> str(inclusive_projection(schema, spec)(less_than("ts", "2024-01-02 00:00:00")))
    'ts_day <= 19723'
    >>> str(strict_projection(schema, spec)(less_than("ts", "2024-01-02 00:00:00")))
    'ts_day < 19724'
"""

from __future__ import annotations

from collections.abc import Callable

from icesql.expressions.binding import bind
from icesql.expressions.transform_projections import project, strict_project
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
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema

__all__ = ["inclusive_projection", "project_predicate", "strict_projection"]

Projection = Callable[[BooleanExpression], BooleanExpression]


def inclusive_projection(
    schema: Schema, spec: PartitionSpec, case_sensitive: bool = False
) -> Projection:
    """A function from a row filter (bound to ``schema``, or unbound) to its inclusive
    partition filter, unbound, naming partition fields."""
    return lambda expr: visit(bind(schema, expr, case_sensitive), _Projector(spec, False))


def strict_projection(
    schema: Schema, spec: PartitionSpec, case_sensitive: bool = False
) -> Projection:
    """A function from a row filter to its strict partition filter (see module docstring)."""
    return lambda expr: visit(bind(schema, expr, case_sensitive), _Projector(spec, True))


def project_predicate(spec: PartitionSpec, pred: BoundPredicate, strict: bool) -> BooleanExpression:
    """One bound predicate through every partition field on its column: the AND of the
    inclusive projections (``true`` if none), or the OR of the strict ones (``false``)."""
    parts = []
    for field in _fields_on(spec, pred.term.field_id):
        if strict:
            projected = strict_project(field.transform, field.name, pred)
        else:
            projected = project(field.transform, field.name, pred)
        if projected is not None:
            parts.append(projected)
    if strict:
        return or_(*parts) if parts else ALWAYS_FALSE
    return and_(*parts) if parts else ALWAYS_TRUE


def _fields_on(spec: PartitionSpec, field_id: int) -> list[PartitionField]:
    # multi-argument (v3) transforms take several columns: no single-column projection
    return [f for f in spec.fields if f.source_id == field_id and len(f.all_source_ids) == 1]


class _Projector(BooleanExpressionVisitor[BooleanExpression]):
    def __init__(self, spec: PartitionSpec, strict: bool):
        self.spec = spec
        self.strict = strict

    def visit_true(self) -> BooleanExpression:
        return ALWAYS_TRUE

    def visit_false(self) -> BooleanExpression:
        return ALWAYS_FALSE

    def visit_not(self, child: BooleanExpression) -> BooleanExpression:
        raise TypeError("projections need NOT rewritten first")

    def visit_and(self, left: BooleanExpression, right: BooleanExpression) -> BooleanExpression:
        return and_(left, right)

    def visit_or(self, left: BooleanExpression, right: BooleanExpression) -> BooleanExpression:
        return or_(left, right)

    def visit_unbound_predicate(self, pred: UnboundPredicate) -> BooleanExpression:
        raise TypeError(f"projections need a bound expression, got {pred}")

    def visit_bound_predicate(self, pred: BoundPredicate) -> BooleanExpression:
        return project_predicate(self.spec, pred, self.strict)
