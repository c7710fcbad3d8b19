"""Conflict validation: may a row-level change that read snapshot S commit on a newer base?

A DELETE, UPDATE or MERGE decides what to write from the table as of the snapshot it read.
When other commits landed since, retrying blindly could resurrect rows deleted
concurrently or miss rows appended concurrently. The rules are Java's, as Spark 3.5
configures ``OverwriteFiles`` (copy-on-write) and ``RowDelta`` (merge-on-read) per
``write.<command>.isolation-level``:

* ``serializable``: a data file added since (by an append or overwrite, not a compaction)
  that may hold rows matching the statement's condition is a conflict — the statement
  would have seen those rows;
* both levels: a delete file added since that may delete rows matching the condition, or
  that applies to a data file this change rewrites or deletes from, is a conflict (a
  rewrite would undo it; a second deletion vector for one data file is never allowed);
* both levels: a data file the change rewrites or deletes from, or one matching the
  condition, removed since is a conflict.

Anything else (appends to other partitions, unrelated deletes) lets the commit be retried
on the new base. "May match" is the planner's inclusive partition and metrics pruning
(``icesql.expressions.file_filter``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from icesql.errors import CommitConflictError
from icesql.expressions.file_filter import FileFilter, FileVerdict
from icesql.expressions.tree import ALWAYS_TRUE, BooleanExpression
from icesql.io import FileIO
from icesql.metadata.manifest import STATUS_ADDED, STATUS_DELETED, read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.snapshots import MAIN_BRANCH, Snapshot
from icesql.metadata.table_metadata import TableMetadata
from icesql.scan.delete_index import referenced_data_file
from icesql.spec.content_file import DATA, EQUALITY_DELETES, DataFile
from icesql.spec.reserved import FILE_PATH_FIELD_ID
from icesql.write.snapshot import SnapshotOperation, branch_head

__all__ = ["SERIALIZABLE", "SNAPSHOT", "RewriteValidation", "Validation"]

SERIALIZABLE = "serializable"
SNAPSHOT = "snapshot"
# Java: not "replace"
_DATA_CONFLICT_OPERATIONS = frozenset({SnapshotOperation.APPEND, SnapshotOperation.OVERWRITE})


@dataclass(frozen=True)
class Validation:
    """What a row-level statement read, to check the commits made since against."""

    from_snapshot_id: int | None
    conflict_filter: BooleanExpression = ALWAYS_TRUE
    isolation: str = SERIALIZABLE
    referenced_data_files: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if self.isolation not in (SERIALIZABLE, SNAPSHOT):
            raise ValueError(f"unknown isolation level {self.isolation!r}")

    def check(
        self,
        md: TableMetadata,
        io: FileIO,
        table: str,
        removed: tuple[DataFile, ...] = (),
        branch: str = MAIN_BRANCH,
    ) -> None:
        """Raise ``CommitConflictError`` if a commit to ``branch`` of ``md`` since
        ``from_snapshot_id`` conflicts with this change, which removes ``removed``."""
        new = _snapshots_since(md, self.from_snapshot_id, table, branch)
        if not new:
            return
        conflicts = FileFilter(md.schema(), md.specs, self.conflict_filter)

        def may_match(spec_id: int, f: DataFile) -> bool:
            return conflicts.may_match(spec_id, f) is FileVerdict.MAY_MATCH

        touched = self.referenced_data_files | {f.file_path for f in removed if f.content == DATA}
        removed_data = [f for f in removed if f.content == DATA]
        for snapshot in new:
            for status, spec_id, f in _changed_files(io, snapshot):
                where = f"snapshot {snapshot.snapshot_id} ({snapshot.operation or 'unknown'})"
                if f.content == DATA and status == STATUS_ADDED:
                    if (
                        self.isolation == SERIALIZABLE
                        and snapshot.operation in _DATA_CONFLICT_OPERATIONS
                        and may_match(spec_id, f)
                    ):
                        _conflict(
                            table,
                            f"{where} added data file {f.file_path}"
                            f" that may hold rows matching {self.conflict_filter}",
                        )
                elif f.content == DATA:  # removed since
                    if f.file_path in touched or may_match(spec_id, f):
                        _conflict(
                            table,
                            f"{where} removed data file {f.file_path} that this statement read",
                        )
                elif status == STATUS_ADDED:
                    if f.referenced_data_file is not None:
                        hit = f.referenced_data_file in touched
                    else:
                        hit = _may_apply(f, spec_id, removed_data)
                    if hit or (self.referenced_data_files and may_match(spec_id, f)):
                        _conflict(
                            table,
                            f"{where} added delete file {f.file_path}"
                            " for rows this statement changes",
                        )


@dataclass(frozen=True)
class RewriteValidation:
    """What a compaction (``rewrite_data_files``) read, checked as Java's ``BaseRewriteFiles``
    does: no row-level delete committed since ``from_snapshot_id`` may apply to a data file
    it rewrites — the rewrite would resurrect the deleted rows. Equality deletes are ignored
    when the new files keep the starting sequence number (``ignore_equality_deletes``): they
    still apply to the rewritten rows. Data files removed since fail the commit in the
    manifest filter (``CommitConflictError``); appends never conflict."""

    from_snapshot_id: int | None
    ignore_equality_deletes: bool = True

    def check(
        self,
        md: TableMetadata,
        io: FileIO,
        table: str,
        removed: tuple[DataFile, ...] = (),
        branch: str = MAIN_BRANCH,
    ) -> None:
        """Raise ``CommitConflictError`` when a delete committed since applies to ``removed``."""
        new = _snapshots_since(md, self.from_snapshot_id, table, branch)
        replaced = [f for f in removed if f.content == DATA]
        if not new or not replaced:
            return
        paths = {f.file_path for f in replaced}
        for snapshot in new:
            for status, spec_id, f in _changed_files(io, snapshot):
                if f.content == DATA or status != STATUS_ADDED:
                    continue
                if f.content == EQUALITY_DELETES:
                    if self.ignore_equality_deletes:
                        continue
                    hit = _may_apply(f, spec_id, replaced)
                elif (named := referenced_data_file(f)) is not None:
                    hit = named in paths  # a DV or a file-scoped position delete file
                else:  # partition-scoped: by partition and its file_path bounds
                    hit = _may_apply(f, spec_id, replaced) and _path_in_bounds(f, replaced)
                if hit:
                    where = f"snapshot {snapshot.snapshot_id} ({snapshot.operation or 'unknown'})"
                    _conflict(
                        table,
                        f"{where} added delete file {f.file_path} for data files"
                        " this rewrite replaces",
                    )


def _path_in_bounds(delete: DataFile, data_files: list[DataFile]) -> bool:
    """Whether a position delete file's ``file_path`` bounds may hold one of ``data_files``
    (no bounds: it may)."""
    lower = (delete.lower_bounds or {}).get(FILE_PATH_FIELD_ID)
    upper = (delete.upper_bounds or {}).get(FILE_PATH_FIELD_ID)
    for d in data_files:
        path = d.file_path.encode("utf-8")
        if (lower is None or lower <= path) and (upper is None or path <= upper):
            return True
    return False


def _may_apply(delete: DataFile, spec_id: int, data_files: list[DataFile]) -> bool:
    """Whether a partition-scoped or equality delete may apply to one of ``data_files``
    (same spec and partition; an equality delete of an unpartitioned spec is global)."""
    if delete.content == EQUALITY_DELETES and not delete.partition:
        return bool(data_files)
    return any(d.spec_id == spec_id and d.partition == delete.partition for d in data_files)


def _conflict(table: str, what: str) -> None:
    raise CommitConflictError(
        f"cannot commit to {table}: conflict with a concurrent commit: {what}"
    )


def _snapshots_since(
    md: TableMetadata, start: int | None, table: str, branch: str
) -> list[Snapshot]:
    """Snapshots on ``branch`` committed after ``start``, oldest first."""
    head = branch_head(md, branch, table)
    if head is None or head.snapshot_id == start:
        return []
    out: list[Snapshot] = []
    for snapshot in md.ancestors_of(head.snapshot_id):
        if snapshot.snapshot_id == start:
            return out[::-1]
        out.append(snapshot)
    if start is None:
        return out[::-1]
    raise CommitConflictError(
        f"cannot commit to {table}: snapshot {start}, which this statement read, is no longer"
        " an ancestor of the current state (the table was rolled back or its history expired)"
    )


def _changed_files(io: FileIO, snapshot: Snapshot) -> Iterator[tuple[int, int, DataFile]]:
    """(status, spec id, file) for each file ``snapshot`` itself added or removed."""
    sid = snapshot.snapshot_id
    for manifest in read_manifest_list(io, snapshot.manifest_list, snapshot):
        if manifest.added_snapshot_id != sid:
            continue
        for entry in read_manifest(io, manifest):
            if entry.snapshot_id == sid and entry.status in (STATUS_ADDED, STATUS_DELETED):
                yield entry.status, manifest.partition_spec_id, entry.data_file
