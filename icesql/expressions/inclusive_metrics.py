"""Inclusive metrics evaluation: can a file hold a row matching the filter?

``inclusive_metrics_evaluator(schema, row_filter)`` binds once and returns a function of a
``DataFile`` (data or delete file) that is ``ROWS_CANNOT_MATCH`` (False) only if the file's
counts and bounds prove that none of its rows matches. Guarantee: never False for a file
holding a matching row. Bounds may be truncated (strings): a lower bound is at most, an
upper bound at least every non-null, non-NaN value, which is all the rules rely on.

SQL semantics throughout: nulls match no comparison; NaN sorts above every number, so an
upper bound (which never counts NaN) cannot rule out ``>`` while NaNs may be present::

    >>> from icesql.spec.types import IntegerType, NestedField
    >>> from icesql.expressions.tree import greater_than
    >>> from icesql.spec.content_file import DataFile
    >>> schema = Schema((NestedField(1, "id", IntegerType()),))
    >>> f = DataFile(file_path="a.parquet", file_format="PARQUET", partition=(),
    ...              record_count=10, file_size_in_bytes=1, value_counts={1: 10},
    ...              null_value_counts={1: 0}, lower_bounds={1: (1).to_bytes(4, "little")},
    ...              upper_bounds={1: (30).to_bytes(4, "little")})
    >>> inclusive_metrics_evaluator(schema, greater_than("id", 30))(f)
    False
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from icesql.expressions.binding import bind
from icesql.expressions.file_metrics import FileMetrics
from icesql.expressions.manifest_evaluator import (
    IN_PREDICATE_LIMIT,
    ROWS_CANNOT_MATCH,
    ROWS_MIGHT_MATCH,
)
from icesql.expressions.tree import BooleanExpression, BoundReference
from icesql.expressions.visitors import BoundPredicateVisitor, visit
from icesql.spec.content_file import DataFile
from icesql.spec.schema import Schema

__all__ = ["ROWS_CANNOT_MATCH", "ROWS_MIGHT_MATCH", "inclusive_metrics_evaluator"]


def inclusive_metrics_evaluator(
    schema: Schema, row_filter: BooleanExpression, case_sensitive: bool = False
) -> Callable[[DataFile], bool]:
    """A reusable, thread-safe test: may this file hold a row matching ``row_filter``?"""
    bound = bind(schema, row_filter, case_sensitive)

    def evaluate(file: DataFile) -> bool:
        if file.record_count == 0:
            return ROWS_CANNOT_MATCH
        if file.record_count < 0:
            return ROWS_MIGHT_MATCH  # imported files with an unknown count (-1)
        return visit(bound, _InclusiveVisitor(FileMetrics(file)))

    return evaluate


class _InclusiveVisitor(BoundPredicateVisitor[bool]):
    def __init__(self, metrics: FileMetrics):
        self.m = metrics

    def visit_true(self) -> bool:
        return ROWS_MIGHT_MATCH

    def visit_false(self) -> bool:
        return ROWS_CANNOT_MATCH

    def visit_and(self, left: bool, right: bool) -> bool:
        return left and right

    def visit_or(self, left: bool, right: bool) -> bool:
        return left or right

    def _no_numbers(self, term: BoundReference) -> bool:
        """Every value is null or NaN."""
        fid = term.field_id
        return self.m.nulls_only(fid) or self.m.nans_only(fid) or self.m.nulls_or_nans_only(fid)

    def visit_is_null(self, term: BoundReference) -> bool:
        if self.m.null_count(term.field_id) == 0:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some value may be null

    def visit_not_null(self, term: BoundReference) -> bool:
        if self.m.nulls_only(term.field_id):
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some value may be non-null

    def visit_is_nan(self, term: BoundReference) -> bool:
        if self.m.nan_count(term.field_id) == 0 or self.m.nulls_only(term.field_id):
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some value may be NaN

    def visit_not_nan(self, term: BoundReference) -> bool:
        if self._no_numbers(term):
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some value may be a number

    def visit_lt(self, term: BoundReference, literal: Any) -> bool:
        if self._no_numbers(term):
            return ROWS_CANNOT_MATCH
        lower = self.m.lower(term)
        if lower is not None and lower >= literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the lower bound is below the literal (or unknown)

    def visit_lt_eq(self, term: BoundReference, literal: Any) -> bool:
        if self._no_numbers(term):
            return ROWS_CANNOT_MATCH
        lower = self.m.lower(term)
        if lower is not None and lower > literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the lower bound is at most the literal (or unknown)

    def visit_gt(self, term: BoundReference, literal: Any) -> bool:
        if self.m.nulls_only(term.field_id):
            return ROWS_CANNOT_MATCH
        if self.m.may_contain_nan(term):
            return ROWS_MIGHT_MATCH  # NaN sorts above every number
        upper = self.m.upper(term)
        if upper is not None and upper <= literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the upper bound is above the literal (or unknown)

    def visit_gt_eq(self, term: BoundReference, literal: Any) -> bool:
        if self.m.nulls_only(term.field_id):
            return ROWS_CANNOT_MATCH
        if self.m.may_contain_nan(term):
            return ROWS_MIGHT_MATCH  # NaN sorts above every number
        upper = self.m.upper(term)
        if upper is not None and upper < literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the upper bound is at least the literal (or unknown)

    def visit_eq(self, term: BoundReference, literal: Any) -> bool:
        if self._no_numbers(term):
            return ROWS_CANNOT_MATCH
        lower = self.m.lower(term)
        if lower is not None and lower > literal:
            return ROWS_CANNOT_MATCH
        upper = self.m.upper(term)
        if upper is not None and upper < literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the literal lies within the bounds (or unknown)

    def visit_not_eq(self, term: BoundReference, literal: Any) -> bool:
        fid = term.field_id
        if self.m.nulls_only(fid):
            return ROWS_CANNOT_MATCH
        lower, upper = self.m.lower(term), self.m.upper(term)
        if (
            lower is not None
            and lower == literal == upper
            and self.m.has_no_nulls(fid)
            and not self.m.may_contain_nan(term)
        ):
            return ROWS_CANNOT_MATCH  # every value equals the literal
        return ROWS_MIGHT_MATCH  # some value may differ from the literal

    def visit_in(self, term: BoundReference, literals: frozenset[Any]) -> bool:
        if self._no_numbers(term):
            return ROWS_CANNOT_MATCH
        if len(literals) > IN_PREDICATE_LIMIT:
            return ROWS_MIGHT_MATCH  # too many values to compare
        candidates = list(literals)
        lower = self.m.lower(term)
        if lower is not None:
            candidates = [v for v in candidates if lower <= v]
            if not candidates:
                return ROWS_CANNOT_MATCH
        upper = self.m.upper(term)
        if upper is not None:
            candidates = [v for v in candidates if v <= upper]
            if not candidates:
                return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # some value lies within the bounds (or unknown)

    def visit_not_in(self, term: BoundReference, literals: frozenset[Any]) -> bool:
        if self.m.nulls_only(term.field_id):
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # bounds cannot show that every value is in the set

    def visit_starts_with(self, term: BoundReference, literal: Any) -> bool:
        if self.m.nulls_only(term.field_id):
            return ROWS_CANNOT_MATCH
        n = len(literal)
        lower = self.m.lower(term)
        if lower is not None and lower[:n] > literal:
            return ROWS_CANNOT_MATCH
        upper = self.m.upper(term)
        if upper is not None and upper[:n] < literal:
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # the prefix lies within the bounds (or unknown)

    def visit_not_starts_with(self, term: BoundReference, literal: Any) -> bool:
        if self.m.nulls_only(term.field_id):
            return ROWS_CANNOT_MATCH
        lower, upper = self.m.lower(term), self.m.upper(term)
        if (
            lower is not None
            and upper is not None
            and lower.startswith(literal)
            and upper.startswith(literal)
        ):
            return ROWS_CANNOT_MATCH  # every value between the bounds has the prefix
        return ROWS_MIGHT_MATCH  # some value may lack the prefix
