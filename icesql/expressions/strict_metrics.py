"""Strict metrics evaluation: does every row of a file match the filter?

``strict_metrics_evaluator(schema, row_filter)`` binds once and returns a function of a
``DataFile`` that is ``ROWS_MUST_MATCH`` (True) only if the file's counts and bounds prove
that all its rows match (an empty file matches vacuously). Guarantee: never True for a file
with a row that does not match. SQL semantics: a null never matches a comparison, nor its
negation, so "all rows match" needs a null count of 0; NaN sorts above every number.

Used for residuals and for whole-file decisions (a DELETE that removes whole files)::

    >>> from icesql.spec.types import IntegerType, NestedField
    >>> from icesql.expressions.tree import less_than
    >>> from icesql.spec.content_file import DataFile
    >>> schema = Schema((NestedField(1, "id", IntegerType()),))
    >>> f = DataFile(file_path="a.parquet", file_format="PARQUET", partition=(),
    ...              record_count=10, file_size_in_bytes=1, value_counts={1: 10},
    ...              null_value_counts={1: 0}, lower_bounds={1: (1).to_bytes(4, "little")},
    ...              upper_bounds={1: (30).to_bytes(4, "little")})
    >>> strict_metrics_evaluator(schema, less_than("id", 31))(f)
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from icesql.expressions.binding import bind
from icesql.expressions.file_metrics import FileMetrics
from icesql.expressions.tree import BooleanExpression, BoundReference
from icesql.expressions.visitors import BoundPredicateVisitor, visit
from icesql.spec.content_file import DataFile
from icesql.spec.schema import Schema

__all__ = ["ROWS_MIGHT_NOT_MATCH", "ROWS_MUST_MATCH", "strict_metrics_evaluator"]

ROWS_MUST_MATCH = True
ROWS_MIGHT_NOT_MATCH = False


def strict_metrics_evaluator(
    schema: Schema, row_filter: BooleanExpression, case_sensitive: bool = False
) -> Callable[[DataFile], bool]:
    """A reusable, thread-safe test: must every row of this file match ``row_filter``?"""
    bound = bind(schema, row_filter, case_sensitive)

    def evaluate(file: DataFile) -> bool:
        if file.record_count == 0:
            return ROWS_MUST_MATCH
        if file.record_count < 0:
            return ROWS_MIGHT_NOT_MATCH  # imported files with an unknown count (-1)
        return visit(bound, _StrictVisitor(FileMetrics(file)))

    return evaluate


class _StrictVisitor(BoundPredicateVisitor[bool]):
    def __init__(self, metrics: FileMetrics):
        self.m = metrics

    def visit_true(self) -> bool:
        return ROWS_MUST_MATCH

    def visit_false(self) -> bool:
        return ROWS_MIGHT_NOT_MATCH

    def visit_and(self, left: bool, right: bool) -> bool:
        return left and right

    def visit_or(self, left: bool, right: bool) -> bool:
        return left or right

    def _numbers_only(self, term: BoundReference) -> bool:
        """No null and no NaN, as far as the counts prove."""
        return self.m.has_no_nulls(term.field_id) and not self.m.may_contain_nan(term)

    def visit_is_null(self, term: BoundReference) -> bool:
        if self.m.nulls_only(term.field_id):
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # some value may be non-null

    def visit_not_null(self, term: BoundReference) -> bool:
        if self.m.has_no_nulls(term.field_id):
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # some value may be null

    def visit_is_nan(self, term: BoundReference) -> bool:
        if self.m.nans_only(term.field_id):
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # some value may be a number or null

    def visit_not_nan(self, term: BoundReference) -> bool:
        if self._numbers_only(term):
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # some value may be NaN or null

    def visit_lt(self, term: BoundReference, literal: Any) -> bool:
        if not self._numbers_only(term):
            return ROWS_MIGHT_NOT_MATCH  # a null or NaN does not match
        upper = self.m.upper(term)
        if upper is not None and upper < literal:
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # the upper bound reaches the literal (or unknown)

    def visit_lt_eq(self, term: BoundReference, literal: Any) -> bool:
        if not self._numbers_only(term):
            return ROWS_MIGHT_NOT_MATCH  # a null or NaN does not match
        upper = self.m.upper(term)
        if upper is not None and upper <= literal:
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # the upper bound passes the literal (or unknown)

    def visit_gt(self, term: BoundReference, literal: Any) -> bool:
        if not self.m.has_no_nulls(term.field_id):
            return ROWS_MIGHT_NOT_MATCH  # a null does not match (NaN does)
        lower = self.m.lower(term)
        if lower is not None and lower > literal:
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # the lower bound reaches the literal (or unknown)

    def visit_gt_eq(self, term: BoundReference, literal: Any) -> bool:
        if not self.m.has_no_nulls(term.field_id):
            return ROWS_MIGHT_NOT_MATCH  # a null does not match (NaN does)
        lower = self.m.lower(term)
        if lower is not None and lower >= literal:
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # the lower bound passes below the literal (or unknown)

    def visit_eq(self, term: BoundReference, literal: Any) -> bool:
        if not self._numbers_only(term):
            return ROWS_MIGHT_NOT_MATCH  # a null or NaN does not match
        lower, upper = self.m.lower(term), self.m.upper(term)
        if lower is not None and upper is not None and lower == literal == upper:
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # some value may differ (or unknown)

    def visit_not_eq(self, term: BoundReference, literal: Any) -> bool:
        fid = term.field_id
        if not self.m.has_no_nulls(fid):
            return ROWS_MIGHT_NOT_MATCH  # a null does not match
        if self.m.nans_only(fid):
            return ROWS_MUST_MATCH
        lower, upper = self.m.lower(term), self.m.upper(term)
        if (lower is not None and lower > literal) or (upper is not None and upper < literal):
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # the literal lies within the bounds (or unknown)

    def visit_in(self, term: BoundReference, literals: frozenset[Any]) -> bool:
        if not self._numbers_only(term):
            return ROWS_MIGHT_NOT_MATCH  # a null or NaN does not match
        lower, upper = self.m.lower(term), self.m.upper(term)
        if lower is not None and upper is not None and lower == upper and lower in literals:
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # the file may hold values outside the set

    def visit_not_in(self, term: BoundReference, literals: frozenset[Any]) -> bool:
        fid = term.field_id
        if not self.m.has_no_nulls(fid):
            return ROWS_MIGHT_NOT_MATCH  # a null does not match
        if self.m.nans_only(fid):
            return ROWS_MUST_MATCH
        lower, upper = self.m.lower(term), self.m.upper(term)
        if lower is None or upper is None:
            return ROWS_MIGHT_NOT_MATCH  # no bounds to compare with
        if all(v < lower or v > upper for v in literals):
            return ROWS_MUST_MATCH
        return ROWS_MIGHT_NOT_MATCH  # a set value lies within the bounds

    def visit_starts_with(self, term: BoundReference, literal: Any) -> bool:
        if not self.m.has_no_nulls(term.field_id):
            return ROWS_MIGHT_NOT_MATCH  # a null does not match
        lower, upper = self.m.lower(term), self.m.upper(term)
        if (
            lower is not None
            and upper is not None
            and lower.startswith(literal)
            and upper.startswith(literal)
        ):
            return ROWS_MUST_MATCH  # every value between the bounds has the prefix
        return ROWS_MIGHT_NOT_MATCH  # some value may lack the prefix

    def visit_not_starts_with(self, term: BoundReference, literal: Any) -> bool:
        if not self.m.has_no_nulls(term.field_id):
            return ROWS_MIGHT_NOT_MATCH  # a null does not match
        n = len(literal)
        lower, upper = self.m.lower(term), self.m.upper(term)
        if (upper is not None and upper < literal) or (lower is not None and lower[:n] > literal):
            return ROWS_MUST_MATCH  # every value sorts outside the prefix's range
        return ROWS_MIGHT_NOT_MATCH  # some value may have the prefix
