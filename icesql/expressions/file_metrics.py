"""Column metrics of one data or delete file, as the evaluators read them.

A manifest entry stores, per field id: value counts (nulls and NaNs included), null counts,
NaN counts and lower/upper bounds (Appendix D bytes). Data and delete files store the same
metrics, for the rows they hold or delete, so one reader serves both. Anything missing or
undecodable reads as "unknown", which only ever costs pruning; bounds are decoded by the one
rule of ``icesql.expressions.bounds``.
"""

from __future__ import annotations

from typing import Any

from icesql.expressions.bounds import decode_bound
from icesql.expressions.tree import BoundReference
from icesql.spec.content_file import DataFile
from icesql.spec.types import DoubleType, FloatType

__all__ = ["FileMetrics"]


class FileMetrics:
    """Typed access to one file's metrics; created per file, so evaluators stay thread-safe."""

    __slots__ = ("file", "_lower", "_upper", "_values", "_nulls", "_nans")

    def __init__(self, file: DataFile):
        self.file = file
        self._values = file.value_counts or {}
        self._nulls = file.null_value_counts or {}
        self._nans = file.nan_value_counts or {}
        self._lower = file.lower_bounds or {}
        self._upper = file.upper_bounds or {}

    @property
    def record_count(self) -> int:
        return self.file.record_count

    def null_count(self, field_id: int) -> int | None:
        return self._nulls.get(field_id)

    def nan_count(self, field_id: int) -> int | None:
        return self._nans.get(field_id)

    def value_count(self, field_id: int) -> int | None:
        return self._values.get(field_id)

    def may_contain_null(self, field_id: int) -> bool:
        return self._nulls.get(field_id) != 0

    def has_no_nulls(self, field_id: int) -> bool:
        return self._nulls.get(field_id) == 0

    def may_contain_nan(self, term: BoundReference) -> bool:
        """A float column may hold NaN unless its NaN count says 0; other types never do."""
        if not isinstance(term.type, FloatType | DoubleType):
            return False
        return self._nans.get(term.field_id) != 0

    def nulls_only(self, field_id: int) -> bool:
        values, nulls = self._values.get(field_id), self._nulls.get(field_id)
        return values is not None and nulls is not None and values == nulls

    def nans_only(self, field_id: int) -> bool:
        values, nans = self._values.get(field_id), self._nans.get(field_id)
        return values is not None and nans is not None and values == nans

    def nulls_or_nans_only(self, field_id: int) -> bool:
        values = self._values.get(field_id)
        nulls, nans = self._nulls.get(field_id, 0), self._nans.get(field_id, 0)
        if values is None or field_id not in self._nulls and field_id not in self._nans:
            return False
        return values == nulls + nans

    def lower(self, term: BoundReference) -> Any:
        """The decoded lower bound, or None when absent or unusable."""
        return decode_bound(term.type, self._lower.get(term.field_id))

    def upper(self, term: BoundReference) -> Any:
        return decode_bound(term.type, self._upper.get(term.field_id))
