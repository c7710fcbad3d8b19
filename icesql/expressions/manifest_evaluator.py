"""Skipping whole manifests by the partition summaries in the manifest list.

``manifest_evaluator(schema, spec, row_filter)`` projects the row filter inclusively onto
``spec``, binds it to the spec's partition struct once, and returns a function of a
``ManifestFile`` that is ``ROWS_CANNOT_MATCH`` (False) only if no file in that manifest can
hold a matching row. Guarantee: never False for a manifest with a matching row.

Each summary gives, per partition field, whether some value is null / NaN and bounds of the
other values; a missing bound means every value is null or NaN (spec, "Manifest Lists").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from icesql.expressions.binding import bind
from icesql.expressions.bounds import decode_bounds
from icesql.expressions.projections import inclusive_projection
from icesql.expressions.tree import BooleanExpression, BoundReference
from icesql.expressions.visitors import BoundPredicateVisitor, visit
from icesql.spec.manifest_file import FieldSummary, ManifestFile
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import DoubleType, FloatType

__all__ = ["IN_PREDICATE_LIMIT", "ROWS_CANNOT_MATCH", "ROWS_MIGHT_MATCH", "manifest_evaluator"]

ROWS_MIGHT_MATCH = True
ROWS_CANNOT_MATCH = False
IN_PREDICATE_LIMIT = 200


def manifest_evaluator(
    schema: Schema, spec: PartitionSpec, row_filter: BooleanExpression, case_sensitive: bool = False
) -> Callable[[ManifestFile], bool]:
    """A reusable, thread-safe test: may this manifest (of ``spec``) hold matching rows?"""
    partition_filter = inclusive_projection(schema, spec, case_sensitive)(row_filter)
    bound = bind(spec.partition_type(schema), partition_filter, case_sensitive=True)

    def evaluate(manifest: ManifestFile) -> bool:
        summaries = manifest.partitions
        if summaries is None:
            return ROWS_MIGHT_MATCH  # no summaries written: nothing to go by
        return visit(bound, _ManifestVisitor(summaries))

    return evaluate


def _is_float(term: BoundReference) -> bool:
    return isinstance(term.type, FloatType | DoubleType)


class _ManifestVisitor(BoundPredicateVisitor[bool]):
    def __init__(self, summaries: tuple[FieldSummary, ...]):
        self.summaries = summaries
        self._decoded: dict[int | None, tuple[Any, Any] | None] = {}

    def _summary(self, term: BoundReference) -> FieldSummary | None:
        pos = term.position
        if pos is None or pos >= len(self.summaries):
            return None
        return self.summaries[pos]

    def _bounds(self, term: BoundReference) -> tuple[Any, Any] | None:
        """(lower, upper) decoded once per field (``icesql.expressions.bounds``), None if
        absent or unusable."""
        pos = term.position
        if pos in self._decoded:
            return self._decoded[pos]
        s = self._summary(term)
        bounds = None if s is None else decode_bounds(term.type, s.lower_bound, s.upper_bound)
        self._decoded[pos] = bounds
        return bounds

    def _all_null_or_nan(self, term: BoundReference) -> bool:
        s = self._summary(term)
        # spec: the lower bound is null only when all values are null or NaN
        return (
            s is not None
            and s.lower_bound is None
            and s.upper_bound is None
            and (s.contains_null or bool(s.contains_nan))
        )

    def _may_contain_nan(self, term: BoundReference) -> bool:
        s = self._summary(term)
        return _is_float(term) and (s is None or s.contains_nan is not False)

    def visit_true(self) -> bool:
        return ROWS_MIGHT_MATCH

    def visit_false(self) -> bool:
        return ROWS_CANNOT_MATCH

    def visit_and(self, left: bool, right: bool) -> bool:
        return left and right

    def visit_or(self, left: bool, right: bool) -> bool:
        return left or right

    def visit_is_null(self, term: BoundReference) -> bool:
        s = self._summary(term)
        if s is not None and not s.contains_null:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some partition value is null

    def visit_not_null(self, term: BoundReference) -> bool:
        s = self._summary(term)
        if (
            s is not None
            and s.contains_null
            and s.lower_bound is None
            and not (_is_float(term) and s.contains_nan is not False)
        ):
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some value may be non-null

    def visit_is_nan(self, term: BoundReference) -> bool:
        s = self._summary(term)
        if s is not None and s.contains_nan is False:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # NaN may be present (or unknown)

    def visit_not_nan(self, term: BoundReference) -> bool:
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some value may be a number

    def visit_lt(self, term: BoundReference, literal: Any) -> bool:
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        bounds = self._bounds(term)
        if bounds is not None and bounds[0] >= literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the lower bound is below the literal (or unknown)

    def visit_lt_eq(self, term: BoundReference, literal: Any) -> bool:
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        bounds = self._bounds(term)
        if bounds is not None and bounds[0] > literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the lower bound is at most the literal (or unknown)

    def visit_gt(self, term: BoundReference, literal: Any) -> bool:
        if self._may_contain_nan(term):
            return ROWS_MIGHT_MATCH  # NaN sorts above every number
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        bounds = self._bounds(term)
        if bounds is not None and bounds[1] <= literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the upper bound is above the literal (or unknown)

    def visit_gt_eq(self, term: BoundReference, literal: Any) -> bool:
        if self._may_contain_nan(term):
            return ROWS_MIGHT_MATCH  # NaN sorts above every number
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        bounds = self._bounds(term)
        if bounds is not None and bounds[1] < literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the upper bound is at least the literal (or unknown)

    def visit_eq(self, term: BoundReference, literal: Any) -> bool:
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        bounds = self._bounds(term)
        if bounds is not None and (bounds[0] > literal or bounds[1] < literal):
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the literal lies within the bounds (or unknown)

    def visit_not_eq(self, term: BoundReference, literal: Any) -> bool:
        s = self._summary(term)
        if (
            s is not None
            and s.lower_bound is None
            and s.upper_bound is None
            and s.contains_null
            and not self._may_contain_nan(term)
        ):
            return ROWS_CANNOT_MATCH  # every value is null
        return ROWS_MIGHT_MATCH  # bounds cannot show that every value equals the literal

    def visit_starts_with(self, term: BoundReference, literal: Any) -> bool:
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        bounds = self._bounds(term)
        if bounds is not None:
            n = len(literal)
            if bounds[0][:n] > literal or bounds[1][:n] < literal:
                return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the prefix lies within the bounds (or unknown)

    def visit_not_starts_with(self, term: BoundReference, literal: Any) -> bool:
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        bounds = self._bounds(term)
        if bounds is not None:
            lower, upper = bounds
            if lower.startswith(literal) and upper.startswith(literal):
                return ROWS_CANNOT_MATCH  # every value between the bounds has the prefix
        return ROWS_MIGHT_MATCH  # some value may lack the prefix

    def visit_in(self, term: BoundReference, literals: frozenset[Any]) -> bool:
        if self._all_null_or_nan(term):
            return ROWS_CANNOT_MATCH
        if len(literals) > IN_PREDICATE_LIMIT:
            return ROWS_MIGHT_MATCH  # too many values to compare
        bounds = self._bounds(term)
        if bounds is not None and not any(bounds[0] <= v <= bounds[1] for v in literals):
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some value lies within the bounds (or unknown)

    def visit_not_in(self, term: BoundReference, literals: frozenset[Any]) -> bool:
        return self.visit_not_eq(term, None)  # only an all-null partition field rules it out
