"""Scan planning: from a snapshot and a row filter to the data files a query must read.

The manifest list names the manifests; each manifest lists data (or delete) files with the
partition tuple of its own partition spec. Planning prunes at every level with the filter:

1. manifests, by the partition summaries of the manifest list (inclusive projection of the
   filter through the manifest's own spec, so evolved specs are each planned correctly);
2. entries, by their partition tuple (the same projection, evaluated on the tuple);
3. entries, by column metrics (value / null / NaN counts, lower / upper bounds).

The filter's evaluators are ``icesql.expressions.file_filter``'s, which commits use too.
Delete files are pruned by the same evaluators (their metrics describe deleted rows); the
ones left are matched to the data files they apply to (``FileScanTask.delete_files``).
Pruning only ever drops files without a matching row: the engine still evaluates the whole
predicate. Manifests are immutable, so their entries are cached by path for the life of a
connection, and the manifests a scan needs are read in parallel. So is a metadata file: the
plans of the last ``PLANS_KEPT`` scans are kept by (metadata file, snapshot, schema, filter),
so a repeated query re-plans nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from icesql.errors import NotSupportedError
from icesql.expressions.file_filter import FileFilter, FileVerdict
from icesql.expressions.tree import ALWAYS_TRUE, BooleanExpression
from icesql.io import FileIO
from icesql.metadata.manifest import ManifestEntry, read_manifest
from icesql.metadata.manifest_columns import ManifestColumns, read_manifest_columns
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.table_metadata import Snapshot, TableMetadata
from icesql.scan.delete_index import attach_deletes
from icesql.spec.content_file import EQUALITY_DELETES, DataFile
from icesql.spec.lru import Lru
from icesql.spec.manifest_file import ManifestFile
from icesql.spec.schema import Schema

STATUS_DELETED = 2
CONTENT_DATA = 0
MAX_MANIFEST_READERS = 8
MAY_MATCH = FileVerdict.MAY_MATCH
# What a ManifestCache keeps, the least recently used dropped first past either bound:
PLANS_KEPT = 64  # plans...
PLANNED_TASKS_KEPT = 200_000  # ...and the tasks they hold together
ENTRIES_KEPT = 100_000  # manifest entries decoded as objects (a few KB each with metrics)
COLUMN_ROWS_KEPT = 2_000_000  # manifest entries decoded as columns (ManifestColumns)
MANIFEST_LISTS_KEPT = 256  # manifest lists...
LISTED_MANIFESTS_KEPT = 200_000  # ...and the manifests they name together


@dataclass(frozen=True)
class FileScanTask:
    """One data file to read: its spec, data sequence number, the part of the filter its
    partition leaves undecided (``residual``), and the delete files that apply to it."""

    data_file: DataFile
    spec_id: int
    data_sequence_number: int | None = None
    residual: BooleanExpression = ALWAYS_TRUE
    delete_files: tuple[DataFile, ...] = ()


@dataclass
class ScanMetrics:
    """What planning read and skipped (shown by EXPLAIN). Files inside skipped manifests
    are counted from the manifest list's file counts."""

    manifests_total: int = 0
    manifests_read: int = 0
    manifests_skipped: int = 0
    data_files_total: int = 0
    data_files_read: int = 0
    data_files_skipped_by_partition: int = 0
    data_files_skipped_by_metrics: int = 0
    delete_files_total: int = 0
    delete_files_skipped: int = 0
    delete_files_applied: int = 0


@dataclass
class ScanPlan:
    """The planned tasks of one table scan, with the bound filter and the counters."""

    snapshot_id: int | None
    row_filter: BooleanExpression
    tasks: list[FileScanTask]
    metrics: ScanMetrics


@dataclass
class ManifestCache:
    """Live entries of manifests by path; safe to share across the queries of a connection.
    ``reads`` counts manifest and manifest-list files actually read from storage. Entries
    read without metrics serve only requests that do not need them; a request that does
    reads the manifest again, with metrics, and replaces them. Every map is bounded (the
    constants above): a connection open for days over many tables holds what it used last."""

    # live entries by manifest path, and whether they were decoded with their metrics
    entries: Lru[str, tuple[tuple[ManifestEntry, ...], bool]] = field(default_factory=Lru)
    columns: Lru[str, ManifestColumns] = field(default_factory=Lru)
    lists: Lru[str, tuple[ManifestFile, ...]] = field(default_factory=Lru)
    plans: Lru[tuple[object, ...], ScanPlan] = field(default_factory=Lru)  # by ``_plan_key``
    reads: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def manifests(self, io: FileIO, snapshot: Snapshot) -> tuple[ManifestFile, ...]:
        key = snapshot.manifest_list or f"v1-manifests:{snapshot.snapshot_id}"
        with self._lock:
            cached = self.lists.get(key)
        if cached is None:
            cached = tuple(read_manifest_list(io, snapshot.manifest_list, snapshot))
            with self._lock:
                self.lists.put(key, cached, len(cached))
                self.lists.trim(MANIFEST_LISTS_KEPT, LISTED_MANIFESTS_KEPT)
                self.reads += 1
        return cached

    def live_columns(self, io: FileIO, manifest: ManifestFile) -> ManifestColumns:
        """The manifest's live entries as columns (``manifest_columns``), made from entries
        already cached with their metrics rather than read again."""
        path = manifest.manifest_path
        with self._lock:
            cached = self.columns.get(path)
            held = self.entries.peek(path)
        if cached is None:
            if held is not None and held[1]:
                cached = ManifestColumns.from_entries(manifest, held[0])
            else:
                cached = read_manifest_columns(io, manifest)
                with self._lock:
                    self.reads += 1
            with self._lock:
                self.columns.put(path, cached, max(cached.n, 1))
                self.columns.trim(COLUMN_ROWS_KEPT, COLUMN_ROWS_KEPT)
        return cached

    def live_entries(
        self, io: FileIO, manifest: ManifestFile, metrics: bool = True
    ) -> tuple[ManifestEntry, ...]:
        """The manifest's live entries; without ``metrics`` their column metrics may be
        None (skipped while decoding, which is most of the cost of a manifest)."""
        path = manifest.manifest_path
        with self._lock:
            held = self.entries.get(path)
            cached = held[0] if held is not None and (held[1] or not metrics) else None
            columns = self.columns.peek(path) if cached is None else None
        if columns is not None:  # decoded before as columns: no need to read it again
            cached = tuple(columns.entry(i) for i in range(columns.n))
            self._keep_entries(path, cached, True)
        if cached is None:
            read = read_manifest(io, manifest, metrics)
            cached = tuple(e for e in read if e.status != STATUS_DELETED)
            self._keep_entries(path, cached, metrics)
            with self._lock:
                self.reads += 1
        return cached

    def _keep_entries(self, path: str, entries: tuple[ManifestEntry, ...], metrics: bool) -> None:
        with self._lock:
            self.entries.put(path, (entries, metrics), max(len(entries), 1))
            self.entries.trim(ENTRIES_KEPT, ENTRIES_KEPT)

    def plan(self, key: tuple[object, ...] | None) -> ScanPlan | None:
        """A copy of the plan kept under ``key`` (None when there is none)."""
        if key is None:
            return None
        with self._lock:
            plan = self.plans.get(key)
        return None if plan is None else _copy_plan(plan)

    def keep_plan(self, key: tuple[object, ...] | None, plan: ScanPlan) -> None:
        """Keep a copy of ``plan`` under ``key``, dropping the least recently used plans
        past the bounds."""
        if key is None or len(plan.tasks) > PLANNED_TASKS_KEPT:
            return
        with self._lock:
            self.plans.put(key, _copy_plan(plan), len(plan.tasks))
            self.plans.trim(PLANS_KEPT, PLANNED_TASKS_KEPT)


def _copy_plan(plan: ScanPlan) -> ScanPlan:
    """A plan whose task list and counters the caller may change without touching the kept
    one (the tasks themselves are frozen)."""
    return ScanPlan(plan.snapshot_id, plan.row_filter, list(plan.tasks), replace(plan.metrics))


def _plan_key(
    metadata: TableMetadata,
    snapshot: Snapshot,
    schema: Schema,
    row_filter: BooleanExpression,
    case_sensitive: bool,
    table_name: str,
) -> tuple[object, ...] | None:
    """What a plan depends on: the metadata file (immutable once written; its table uuid in
    case a dropped table's name is reused), the snapshot, the schema the filter binds to and
    the filter, compared by value and by text (``1`` and ``1.0`` are equal but bind
    differently). None for metadata that was never written (a builder's), and for a schema
    or filter holding a value that cannot be hashed (a v3 default of a nested type)."""
    if metadata.path is None:
        return None
    key = (
        metadata.path,
        metadata.table_uuid,
        snapshot.snapshot_id,
        snapshot.manifest_list,
        schema,
        row_filter,
        repr(row_filter),
        case_sensitive,
        table_name,
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key


def plan_files(
    metadata: TableMetadata,
    snapshot: Snapshot | None,
    io: FileIO,
    cache: ManifestCache | None = None,
    table_name: str = "",
    row_filter: BooleanExpression = ALWAYS_TRUE,
    schema: Schema | None = None,
) -> Iterator[FileScanTask]:
    """The data files of ``snapshot`` that may hold rows matching ``row_filter``."""
    return iter(plan_scan(metadata, snapshot, io, cache, table_name, row_filter, schema).tasks)


def plan_scan(
    metadata: TableMetadata,
    snapshot: Snapshot | None,
    io: FileIO,
    cache: ManifestCache | None = None,
    table_name: str = "",
    row_filter: BooleanExpression = ALWAYS_TRUE,
    schema: Schema | None = None,
    case_sensitive: bool = False,
) -> ScanPlan:
    """Plan a scan of ``snapshot`` (none for a table without one) filtered by ``row_filter``
    (bound to ``schema``, default the current schema, or unbound). Each task carries the
    delete files that apply to it (``icesql.scan.delete_index``)."""
    metadata.refuse_encrypted(table_name, snapshot)
    schema = schema or metadata.schema()
    cache = cache or ManifestCache()
    key = None
    if snapshot is not None:
        key = _plan_key(metadata, snapshot, schema, row_filter, case_sensitive, table_name)
        kept = cache.plan(key)
        if kept is not None:
            return kept
    filters = FileFilter(schema, metadata.specs, row_filter, case_sensitive)
    metrics = ScanMetrics()
    if snapshot is None:
        return ScanPlan(None, filters.bound, [], metrics)
    manifests = cache.manifests(io, snapshot)
    metrics.manifests_total = len(manifests)

    wanted: list[ManifestFile] = []
    for manifest in manifests:
        if manifest.key_metadata is not None:
            raise _encrypted(table_name, f"manifest {manifest.manifest_path} has key_metadata")
        if _has_live_files(manifest) is False or not filters.manifest_may_match(manifest):
            metrics.manifests_skipped += 1
            _count_skipped_manifest(manifest, metrics)
        else:
            wanted.append(manifest)
    metrics.manifests_read = len(wanted)

    # delete manifests first (with metrics: position deletes are matched to data files by
    # their file_path bounds); data file metrics only when something will evaluate them
    delete_manifests = [m for m in wanted if m.content != CONTENT_DATA]
    delete_entries = _read_all(io, cache, delete_manifests, metrics=True)
    has_equality = any(
        e.data_file.content == EQUALITY_DELETES for entries in delete_entries for e in entries
    )
    data_manifests = [m for m in wanted if m.content == CONTENT_DATA]
    data_tasks: list[FileScanTask] = []
    deletes: list[tuple[ManifestEntry, int]] = []
    if filters.bulk and not has_equality:
        # columnar: judge each manifest's files in bulk, build only the survivors
        for manifest, columns in zip(data_manifests, _read_columns(io, cache, data_manifests)):
            data_tasks += _bulk_tasks(filters, manifest, columns, metrics, table_name)
        data_manifests = []
    metrics_needed = filters.filtering or has_equality
    data_entries = _read_all(io, cache, data_manifests, metrics=metrics_needed)

    pairs = [*zip(data_manifests, data_entries), *zip(delete_manifests, delete_entries)]
    for manifest, entries in pairs:
        is_data = manifest.content == CONTENT_DATA
        spec_id = manifest.partition_spec_id
        skipped: list[FileVerdict] = []
        for entry in entries:
            f = entry.data_file
            if f.key_metadata is not None:
                raise _encrypted(table_name, f"file {f.file_path} has key_metadata")
            verdict = filters.may_match(spec_id, f)
            if verdict is not MAY_MATCH:
                skipped.append(verdict)
            elif is_data:
                residual = filters.residual(spec_id, f.partition)
                data_tasks.append(FileScanTask(f, spec_id, entry.sequence_number, residual))
            else:
                deletes.append((entry, spec_id))
        _count_files(len(entries), skipped, is_data, metrics)

    tasks, applied = attach_deletes(data_tasks, deletes, metadata)
    metrics.delete_files_applied = applied
    plan = ScanPlan(snapshot.snapshot_id, filters.bound, tasks, metrics)
    cache.keep_plan(key, plan)
    return plan


def _encrypted(table: str, reason: str) -> NotSupportedError:
    return NotSupportedError(
        f"table {table} is encrypted ({reason}); icesql does not support Iceberg table encryption"
    )


def _bulk_tasks(
    filters: FileFilter,
    manifest: ManifestFile,
    columns: ManifestColumns,
    metrics: ScanMetrics,
    table_name: str,
) -> list[FileScanTask]:
    """The tasks of one data manifest's files, judged in bulk (``may_match_all``)."""
    if columns.key_metadata_at is not None:
        f = columns.entry(columns.key_metadata_at).data_file
        raise _encrypted(table_name, f"file {f.file_path} has key_metadata")
    spec_id = manifest.partition_spec_id
    partition, by_metrics = filters.may_match_all(spec_id, columns)
    keep = partition & by_metrics
    n = columns.n
    skipped_partition = n - int(partition.sum())
    read = int(keep.sum())
    metrics.data_files_total += n
    metrics.data_files_read += read
    metrics.data_files_skipped_by_partition += skipped_partition
    metrics.data_files_skipped_by_metrics += n - read - skipped_partition
    tasks = []
    for i in keep.nonzero()[0].tolist():
        entry = columns.entry(i)
        f = entry.data_file
        residual = filters.residual(spec_id, f.partition)
        tasks.append(FileScanTask(f, spec_id, entry.sequence_number, residual))
    return tasks


def _read_columns(
    io: FileIO, cache: ManifestCache, manifests: Sequence[ManifestFile]
) -> list[ManifestColumns]:
    """Columns of each manifest, in order; uncached ones read by a small thread pool."""
    cached = cache.columns
    if len(manifests) <= 1 or all(m.manifest_path in cached for m in manifests):
        return [cache.live_columns(io, m) for m in manifests]
    workers = min(MAX_MANIFEST_READERS, len(manifests))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="icesql-manifest") as pool:
        return list(pool.map(lambda m: cache.live_columns(io, m), manifests))


def _read_all(
    io: FileIO, cache: ManifestCache, manifests: Sequence[ManifestFile], metrics: bool
) -> list[tuple[ManifestEntry, ...]]:
    """Entries of each manifest, in order; uncached ones read by a small thread pool."""
    if len(manifests) <= 1:
        return [cache.live_entries(io, m, metrics) for m in manifests]
    workers = min(MAX_MANIFEST_READERS, len(manifests))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="icesql-manifest") as pool:
        return list(pool.map(lambda m: cache.live_entries(io, m, metrics), manifests))


def _has_live_files(manifest: ManifestFile) -> bool | None:
    """False when the manifest list's counts say no live file is inside; None if unknown."""
    added, existing = manifest.added_files_count, manifest.existing_files_count
    if added is None or existing is None:
        return None
    return added + existing > 0


def _count_files(
    judged: int, skipped: Sequence[FileVerdict], is_data: bool, metrics: ScanMetrics
) -> None:
    """Count the files of one manifest judged by the filter, ``skipped`` saying why each
    one skipped was (a delete file is skipped, or not, for either reason)."""
    if not is_data:
        metrics.delete_files_total += judged
        metrics.delete_files_skipped += len(skipped)
        return
    by_partition = skipped.count(FileVerdict.PARTITION_CANNOT_MATCH)
    metrics.data_files_total += judged
    metrics.data_files_read += judged - len(skipped)
    metrics.data_files_skipped_by_partition += by_partition
    metrics.data_files_skipped_by_metrics += len(skipped) - by_partition


def _count_skipped_manifest(manifest: ManifestFile, metrics: ScanMetrics) -> None:
    live = (manifest.added_files_count or 0) + (manifest.existing_files_count or 0)
    if manifest.content == CONTENT_DATA:
        metrics.data_files_total += live
        metrics.data_files_skipped_by_partition += live
    else:
        metrics.delete_files_total += live
        metrics.delete_files_skipped += live
