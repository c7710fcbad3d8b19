"""Iceberg's incremental changelog scan: the rows each snapshot of a range added or removed.

As Java's ``BaseIncrementalChangelogScan`` (Spark's ``<table>.changes``): the snapshots are the
ancestors of the end snapshot after the (exclusive) start one, oldest first, leaving out
``replace`` snapshots (compactions change no rows); each gets a change ordinal (0, 1, ...). A
data file a snapshot added gives ``INSERT`` rows, one it removed ``DELETE`` rows: every row of
the file, read with the table's current schema, followed by ``_change_type``,
``_change_ordinal`` and ``_commit_snapshot_id``. Java refuses ranges holding delete files
(merge-on-read deletes, deletion vectors, equality deletes), and so does this scan, with
Java's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

from icesql.catalog.table import Table
from icesql.errors import NotSupportedError, ProgrammingError
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.snapshots import Snapshot
from icesql.scan.planner import FileScanTask, ManifestCache
from icesql.scan.table_scan import TableScan
from icesql.scan.time_travel import ReadVersion
from icesql.spec.manifest_file import CONTENT_DATA
from icesql.spec.schema import Schema

__all__ = [
    "CHANGE_COLUMNS",
    "CHANGE_ORDINAL",
    "CHANGE_TYPE",
    "COMMIT_SNAPSHOT_ID",
    "ChangeTask",
    "change_batches",
    "changelog_snapshots",
    "plan_changes",
]

CHANGE_TYPE, CHANGE_ORDINAL, COMMIT_SNAPSHOT_ID = (
    "_change_type",
    "_change_ordinal",
    "_commit_snapshot_id",
)
CHANGE_COLUMNS = (
    pa.field(CHANGE_TYPE, pa.string(), nullable=False),
    pa.field(CHANGE_ORDINAL, pa.int32(), nullable=False),
    pa.field(COMMIT_SNAPSHOT_ID, pa.int64(), nullable=False),
)
INSERT, DELETE = "INSERT", "DELETE"
_ADDED, _DELETED = 1, 2  # manifest entry status
_REPLACE = "replace"


@dataclass(frozen=True)
class ChangeTask:
    """One data file's rows as changes of one snapshot."""

    task: FileScanTask
    change_type: str  # INSERT or DELETE
    ordinal: int
    snapshot_id: int


def changelog_snapshots(table: Table, start: int | None, end: int | None) -> list[Snapshot]:
    """The snapshots after ``start`` (exclusive) up to ``end`` (inclusive, default the
    current one), oldest first, without ``replace`` ones; Java's checks and errors."""
    md = table.metadata
    if end is None:
        current = md.current_snapshot()
        if current is None:
            if start is None:
                return []
            raise ProgrammingError("End snapshot is not set and table has no current snapshot")
        end = current.snapshot_id
    if md.snapshot_by_id(end) is None:
        raise ProgrammingError(f"Cannot find snapshot: {end}")
    lineage = list(md.ancestors_of(end))  # newest first, ``end`` included
    if start is not None and not any(s.parent_snapshot_id == start for s in lineage):
        raise ProgrammingError(
            f"Starting snapshot (exclusive) {start} is not a parent ancestor of end snapshot {end}"
        )
    chosen: list[Snapshot] = []
    for snapshot in lineage:
        if snapshot.snapshot_id == start:
            break
        if snapshot.summary.get("operation") == _REPLACE:
            continue
        if any(m.content != CONTENT_DATA for m in _manifests(table, snapshot)):
            raise NotSupportedError("Delete files are currently not supported in changelog scans")
        chosen.append(snapshot)
    return chosen[::-1]


def _manifests(table: Table, snapshot: Snapshot) -> list:
    return list(read_manifest_list(table.io, snapshot.manifest_list, snapshot))


def plan_changes(table: Table, snapshots: list[Snapshot]) -> list[ChangeTask]:
    """The data files the snapshots added and removed, with their change ordinals."""
    ordinals = {s.snapshot_id: i for i, s in enumerate(snapshots)}
    seen: set[str] = set()
    tasks = []
    for snapshot in snapshots:
        for manifest in _manifests(table, snapshot):
            if manifest.added_snapshot_id not in ordinals or manifest.manifest_path in seen:
                continue
            seen.add(manifest.manifest_path)
            for entry in read_manifest(table.io, manifest):
                if entry.snapshot_id not in ordinals or entry.status not in (_ADDED, _DELETED):
                    continue
                task = FileScanTask(entry.data_file, manifest.partition_spec_id)
                kind = INSERT if entry.status == _ADDED else DELETE
                tasks.append(ChangeTask(task, kind, ordinals[entry.snapshot_id], entry.snapshot_id))
    return tasks


def change_batches(
    table: Table, schema: Schema, tasks: list[ChangeTask], cache: ManifestCache, out: pa.Schema
) -> Iterator[pa.RecordBatch]:
    """Every row of each task's file in ``schema`` (no deletes apply to a changelog), with
    the three change columns after the table's, as batches of ``out``."""
    current = table.metadata.current_snapshot()
    version = ReadVersion(current, schema)
    for change in tasks:
        scan = TableScan(table, version, None, cache)
        scan.restrict_to([change.task])
        for batch in scan.batches():
            n = batch.num_rows
            if not n:
                continue
            extra = [
                pa.array([change.change_type] * n, pa.string()),
                pa.array([change.ordinal] * n, pa.int32()),
                pa.array([change.snapshot_id] * n, pa.int64()),
            ]
            columns = [c.cast(f.type) for c, f in zip(batch.columns, out, strict=False)]
            yield pa.RecordBatch.from_arrays([*columns, *extra], schema=out)
