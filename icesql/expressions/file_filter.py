"""File pruning: what one row filter says about each manifest, data file and delete file.

``FileFilter(schema, specs, row_filter)`` binds the filter once and builds, per partition
spec on first use, its projections and evaluators; every caller that judges files by a
filter asks it (the scan planner, the manifest filter of a commit, commit validation):

* ``manifest_may_match(manifest)``: may the manifest hold a file with a matching row (its
  partition summaries, ``icesql.expressions.manifest_evaluator``)?
* ``may_match(spec_id, file)``: may the file hold (or delete) a matching row? Its partition
  tuple is judged by the inclusive projection of the filter, then its column metrics by the
  whole filter (``inclusive_metrics``). The ``FileVerdict`` names what proved no match, for
  callers that count skipped files (EXPLAIN); callers that do not, ignore it. An equality
  delete's other columns are not the deleted rows' values, so its metrics are not used.
* ``residual(spec_id, partition)``: what of the filter the partition leaves undecided.
* ``rows_match(spec_id, file)``: do none, some or all of the file's rows match? Judged on
  the residual of the file's partition, by inclusive then strict metrics (Java's
  ``PartitionAndMetricsEvaluator``); ``must_match`` asks the strict half only. These decide
  whole-file removal (a metadata-only DELETE, an overwrite by filter); evaluators are bound
  once per partition.

``may_match`` binds nothing per file, since planning judges every file of a table; the
residual view costs a binding per partition but also sees through an OR of a partition
column and a data column. Both only ever answer "no match" (or "all match") when the
partition and metrics prove it. Guarantees: a file with a matching row never gets a verdict
other than ``MAY_MATCH`` nor ``RowsMatch.NONE``; a file with a row that does not match never
gets ``RowsMatch.ALL``.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from icesql.expressions.binding import bind
from icesql.expressions.bulk_metrics import MetricColumns, bulk_inclusive_metrics, bulk_supported
from icesql.expressions.evaluator import evaluate_bound
from icesql.expressions.inclusive_metrics import inclusive_metrics_evaluator
from icesql.expressions.manifest_evaluator import manifest_evaluator
from icesql.expressions.projections import inclusive_projection
from icesql.expressions.residuals import residual_evaluator
from icesql.expressions.strict_metrics import strict_metrics_evaluator
from icesql.expressions.tree import ALWAYS_FALSE, ALWAYS_TRUE, BooleanExpression
from icesql.spec.content_file import EQUALITY_DELETES, DataFile
from icesql.spec.manifest_file import ManifestFile
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import DoubleType, FloatType

__all__ = ["FileFilter", "FileVerdict", "RowsMatch"]

log = logging.getLogger(__name__)


class FileVerdict(enum.Enum):
    """``FileFilter.may_match``: whether a file may hold a matching row, and if not, what
    proved it."""

    MAY_MATCH = "may match"
    PARTITION_CANNOT_MATCH = "partition cannot match"
    METRICS_CANNOT_MATCH = "metrics cannot match"


class RowsMatch(enum.Enum):
    """``FileFilter.rows_match``: how many of a file's rows match, as far as its partition
    and metrics prove (``SOME``: neither none nor all is proven)."""

    NONE = "none"
    SOME = "some"
    ALL = "all"


@dataclass(frozen=True)
class _SpecEvaluators:
    """The filter through one partition spec."""

    manifest: Callable[[ManifestFile], bool]
    partition: BooleanExpression  # inclusive projection, bound to the partition struct
    residual: Callable[[Sequence[Any]], BooleanExpression]


class _PartitionEvaluators:
    """The metrics evaluators of one partition's residual, each bound on first use."""

    __slots__ = ("residual", "_inclusive", "_strict")

    def __init__(self, residual: BooleanExpression):
        self.residual = residual
        self._inclusive: Callable[[DataFile], bool] | None = None
        self._strict: Callable[[DataFile], bool] | None = None

    def inclusive(self, schema: Schema) -> Callable[[DataFile], bool]:
        if self._inclusive is None:
            self._inclusive = inclusive_metrics_evaluator(schema, self.residual, True)
        return self._inclusive

    def strict(self, schema: Schema) -> Callable[[DataFile], bool]:
        if self._strict is None:
            self._strict = strict_metrics_evaluator(schema, self.residual, True)
        return self._strict


class FileFilter:
    """A row filter's answers about the files of a table (module docstring). Evaluators are
    built lazily and cached; one instance serves one thread at a time."""

    def __init__(
        self,
        schema: Schema,
        specs: Iterable[PartitionSpec],
        row_filter: BooleanExpression,
        case_sensitive: bool = False,
    ):
        self.schema = schema
        self.bound = bind(schema, row_filter, case_sensitive)
        self.filtering = self.bound != ALWAYS_TRUE
        self._specs = {spec.spec_id: spec for spec in specs}
        self._metrics = inclusive_metrics_evaluator(schema, self.bound) if self.filtering else None
        self._by_spec: dict[int, _SpecEvaluators | None] = {}
        self._by_partition: dict[tuple[int, tuple[Any, ...]], _PartitionEvaluators] = {}
        self._floats: dict[int, bool] = {}  # per spec: has a floating partition field

    def _spec(self, spec_id: int) -> _SpecEvaluators | None:
        """The spec's evaluators; None when the spec is unknown or cannot be projected."""
        if spec_id in self._by_spec:
            return self._by_spec[spec_id]
        spec = self._specs.get(spec_id)
        built = None
        if spec is not None:
            try:
                projected = inclusive_projection(self.schema, spec)(self.bound)
                built = _SpecEvaluators(
                    manifest_evaluator(self.schema, spec, self.bound),
                    bind(spec.partition_type(self.schema), projected, case_sensitive=True),
                    residual_evaluator(self.schema, spec, self.bound),
                )
            except Exception as e:
                log.debug("no partition pruning for spec %s: %s", spec_id, e)
        self._by_spec[spec_id] = built
        return built

    def manifest_may_match(self, manifest: ManifestFile) -> bool:
        """Whether ``manifest`` may hold a file with a matching row."""
        built = self._spec(manifest.partition_spec_id) if self.filtering else None
        return True if built is None else built.manifest(manifest)

    def may_match(self, spec_id: int, file: DataFile) -> FileVerdict:
        """Whether ``file`` (of spec ``spec_id``) may hold or delete a matching row."""
        if not self.filtering:
            return FileVerdict.MAY_MATCH
        built = self._spec(spec_id)
        if built is not None and not _partition_may_match(built.partition, file.partition):
            return FileVerdict.PARTITION_CANNOT_MATCH
        # an equality delete's other columns are not the deleted rows' values: only data
        # and position delete files are judged by metrics (iceberg#4311)
        if (
            file.content != EQUALITY_DELETES
            and self._metrics is not None
            and not self._metrics(file)
        ):
            return FileVerdict.METRICS_CANNOT_MATCH
        return FileVerdict.MAY_MATCH

    @property
    def bulk(self) -> bool:
        """Whether ``may_match_all`` judges files for this filter (``bulk_metrics``)."""
        return self.filtering and bulk_supported(self.bound)

    def may_match_all(self, spec_id: int, columns: BulkColumns) -> tuple[np.ndarray, np.ndarray]:
        """``may_match`` for every file of ``columns`` (one manifest's entries) at once, as
        two boolean arrays: where the partition may match, and where the metrics may too
        (a ``METRICS_CANNOT_MATCH`` verdict is ``partition & ~metrics``). The partition
        filter is evaluated once per distinct tuple. Needs ``bulk``."""
        n = columns.n
        built = self._spec(spec_id)
        if built is None:
            partition = np.ones(n, bool)
        elif self._float_partitions(spec_id):  # -0.0 == 0.0: judge each tuple
            partition = np.fromiter(
                (_partition_may_match(built.partition, p) for p in columns.partitions), bool, n
            )
        else:
            distinct, codes = _partition_codes(columns)
            verdicts = [_partition_may_match(built.partition, p) for p in distinct]
            partition = np.array(verdicts, bool)[codes] if n else np.zeros(0, bool)
        metrics = bulk_inclusive_metrics(self.bound, columns)
        if EQUALITY_DELETES in columns.content:
            metrics |= np.array(columns.content) == EQUALITY_DELETES
        return partition, metrics

    def _float_partitions(self, spec_id: int) -> bool:
        found = self._floats.get(spec_id)
        if found is None:
            spec = self._specs.get(spec_id)
            try:
                fields = spec.partition_type(self.schema).fields if spec is not None else ()
                found = any(isinstance(f.type, FloatType | DoubleType) for f in fields)
            except Exception:
                found = True
            self._floats[spec_id] = found
        return found

    def residual(self, spec_id: int, partition: Sequence[Any]) -> BooleanExpression:
        """The filter on the rows of ``partition`` (the whole filter when it cannot tell)."""
        if not self.filtering:
            return ALWAYS_TRUE
        built = self._spec(spec_id)
        if built is None:
            return self.bound
        try:
            return built.residual(partition)
        except Exception:
            return self.bound

    def rows_match(self, spec_id: int, file: DataFile) -> RowsMatch:
        """None, some or all of ``file``'s rows match, judged on its partition's residual."""
        evaluators = self._partition(spec_id, file.partition)
        if evaluators.residual == ALWAYS_FALSE or not evaluators.inclusive(self.schema)(file):
            return RowsMatch.NONE
        return RowsMatch.ALL if evaluators.strict(self.schema)(file) else RowsMatch.SOME

    def must_match(self, spec_id: int, file: DataFile) -> bool:
        """Whether every row of ``file`` matches (an empty file does), judged on its
        partition's residual by strict metrics."""
        return self._partition(spec_id, file.partition).strict(self.schema)(file)

    def _partition(self, spec_id: int, partition: tuple[Any, ...]) -> _PartitionEvaluators:
        key = (spec_id, partition)
        found = self._by_partition.get(key)
        if found is None:
            found = self._by_partition[key] = _PartitionEvaluators(
                self.residual(spec_id, partition)
            )
        return found


class BulkColumns(MetricColumns, Protocol):
    """What ``may_match_all`` reads besides the metrics: partition tuples and contents."""

    partitions: list[tuple[Any, ...]]
    content: list[int]


def _partition_codes(columns: BulkColumns) -> tuple[list[tuple[Any, ...]], np.ndarray]:
    """The distinct partition tuples of ``columns`` and each file's index among them (kept
    with the columns)."""
    found = columns.derived.get("partition codes")
    if found is None:
        index: dict[tuple[Any, ...], int] = {}
        codes = [index.setdefault(p, len(index)) for p in columns.partitions]
        found = columns.derived["partition codes"] = (list(index), np.array(codes, np.intp))
    return found


def _partition_may_match(partition_filter: BooleanExpression, partition: Sequence[Any]) -> bool:
    try:
        return evaluate_bound(partition_filter, partition)
    except Exception:
        return True
