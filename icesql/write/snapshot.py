"""Making the snapshot of a change: manifests, manifest list, summary, row lineage.

The new files' manifests are written once and reused by every commit attempt (their
entries carry null sequence numbers and, in v3, null first row ids, so nothing in them
depends on the attempt); each attempt writes a new manifest list on top of the table as
it is *then* (spec "Sequence Numbers": "to change a sequence number for a retry, only the
manifest list must be rewritten"), with the next sequence number, the parent's manifests
carried forward (data and delete manifests alike) and, in v3, the table's ``next-row-id``
as the snapshot's ``first-row-id``.

The snapshot lands on the change's branch (``Change.branch``, ``main`` unless told): its
parent is that branch's head, and the branch is moved to it; other refs stay where they are.

Removing files (a DELETE, an overwrite, a replaced deletion vector) rewrites only the
manifests that hold them, as Java's ``ManifestFilterManager`` does
(``icesql.write.manifest_filter``: the removed entries become DELETED, the other live ones
EXISTING with their sequence numbers and first row ids written out; manifests without live
files, old delete files and dangling deletion vectors are dropped as Java drops them). The
parent's manifests go through that filter on every attempt, against the base the attempt
lands on. A file to remove that the base no longer holds means a concurrent commit removed
it: the change fails with ``CommitConflictError`` rather than resurrecting or double
counting it. The manifests are then merged as Java's ``MergingSnapshotProducer`` merges
them (``icesql.write.manifest_merge``), data and delete manifests apart. File names follow Java's ``SnapshotProducer``:
``<commit uuid>-m<N>.avro`` and ``snap-<snapshot id>-<attempt>-<commit uuid>.avro``.
"""

from __future__ import annotations

import enum
import time
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from icesql import faults
from icesql.errors import CommitConflictError, InternalError, ProgrammingError
from icesql.expressions.tree import BooleanExpression
from icesql.io import FileIO
from icesql.metadata.manifest import STATUS_ADDED, ManifestEntry, write_manifest
from icesql.metadata.manifest_list import read_manifest_list, write_manifest_list
from icesql.metadata.snapshots import MAIN_BRANCH, Snapshot
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import TableRequirement
from icesql.metadata.table_updates import TableUpdate
from icesql.spec.content_file import DATA, DataFile
from icesql.spec.manifest_file import CONTENT_DATA, CONTENT_DELETES, ManifestFile
from icesql.write.manifest_filter import ManifestFilter, file_key
from icesql.write.manifest_merge import ManifestMerger
from icesql.write.manifest_rewrite import ManifestRewrite, rewrite_group
from icesql.write.properties import TableProperties
from icesql.write.summary import snapshot_summary

__all__ = [
    "Change",
    "SnapshotOperation",
    "SnapshotProducer",
    "branch_head",
    "file_key",
    "new_snapshot_id",
    "operation_for",
]


class SnapshotOperation(enum.StrEnum):
    """The ``operation`` a snapshot's summary records (spec: "Snapshots")."""

    APPEND = "append"
    REPLACE = "replace"
    OVERWRITE = "overwrite"
    DELETE = "delete"


def operation_for(added: Sequence[DataFile], removed: Sequence[DataFile]) -> SnapshotOperation:
    """The snapshot operation Java records for files added and removed: ``append`` for new
    data only, ``delete`` when nothing but removals and delete files, else ``overwrite``."""
    adds_data = any(f.content == DATA for f in added)
    adds_deletes = any(f.content != DATA for f in added)
    removes_data = any(f.content == DATA for f in removed)
    if adds_data and not adds_deletes and not removed:
        return SnapshotOperation.APPEND
    if not adds_data:
        return SnapshotOperation.DELETE
    if adds_deletes or removes_data or removed:
        return SnapshotOperation.OVERWRITE
    return SnapshotOperation.APPEND


def branch_head(md: TableMetadata, branch: str, table: str = "") -> Snapshot | None:
    """The snapshot a commit to ``branch`` builds on: the branch's head, or for a branch
    that does not exist yet the current snapshot (Java's ``SnapshotUtil.latestSnapshot``: a
    new branch forks from it). A tag cannot be committed to."""
    ref = md.refs.get(branch)
    if ref is None:
        return md.current_snapshot()
    if not ref.is_branch:
        raise ProgrammingError(f"cannot commit to {table or 'the table'}: {branch!r} is a tag")
    return md.snapshot_by_id(ref.snapshot_id)


@dataclass(frozen=True)
class Change:
    """One atomic change to a table, as plain data handed to ``icesql.write.commit.commit``.

    ``updates`` (``icesql.metadata.table_updates``) are applied first (schema, spec,
    properties ...); then, when ``operation``
    is set, a snapshot is added to ``branch`` (``branch_head``) holding ``added_files`` (data and delete files)
    on top of the parent's files (``keep_existing``) or alone (a REPLACE TABLE), without
    ``removed_files``. ``requirements`` (``icesql.metadata.table_requirements``) must hold
    on the table the change lands on, and
    ``validation`` (``icesql.write.validation``) on the commits made since the statement
    read the table (its history on ``branch``); appends have neither and always re-apply.

    Besides ``removed_files``, whole files can be removed by what they hold, decided anew on
    each attempt's base (``icesql.write.manifest_filter``): ``delete_filter`` removes every
    file all of whose rows match it (an INSERT OVERWRITE's static partition; a data file only
    partly matching fails the commit), ``dropped_partitions`` every file of those
    ``(spec id, partition)`` tuples (a dynamic partition overwrite).

    ``stage_only`` adds the snapshot (its parent the branch head) without moving any ref:
    write-audit-publish's staged commit, published later by a cherry-pick.

    ``data_sequence_number`` gives the added files that data sequence number instead of the
    new snapshot's (Java's ``RewriteFiles.dataSequenceNumber``: a compaction keeps the
    sequence number of the snapshot it read, so equality deletes committed since still apply
    to the rewritten rows); ``data_sequence_numbers`` does so per added file path (a rewrite
    of position delete files keeps the highest sequence number of the files it merges).

    ``rewritten_manifests`` replaces groups of the parent's manifests by new ones holding the
    same entries (``rewrite_manifests``; ``icesql.write.manifest_rewrite``), without
    filtering or merging: Java's ``BaseRewriteManifests``.
    """

    operation: SnapshotOperation | None = None
    added_files: tuple[DataFile, ...] = ()
    removed_files: tuple[DataFile, ...] = ()
    keep_existing: bool = True
    updates: tuple[TableUpdate, ...] = ()
    requirements: tuple[TableRequirement, ...] = ()
    summary: Mapping[str, str] = field(default_factory=dict)
    validation: Any = None  # icesql.write.validation.Validation
    delete_filter: BooleanExpression | None = None
    dropped_partitions: frozenset[tuple[int, tuple[Any, ...]]] = frozenset()
    branch: str = MAIN_BRANCH
    stage_only: bool = False
    data_sequence_number: int | None = None
    data_sequence_numbers: Mapping[str, int] = field(default_factory=dict)  # by file path
    rewritten_manifests: tuple[ManifestRewrite, ...] = ()
    partition_metrics: bool = True  # False: no changed-partition-count (summary.py)

    def __post_init__(self) -> None:
        if self.operation is not None and not isinstance(self.operation, SnapshotOperation):
            object.__setattr__(self, "operation", SnapshotOperation(self.operation))

    @property
    def adds_snapshot(self) -> bool:
        return self.operation is not None


def new_snapshot_id() -> int:
    """Java's scheme: a random UUID's halves XORed, made positive."""
    u = uuid.uuid4().int
    return ((u >> 64) ^ (u & (2**64 - 1))) & (2**63 - 1)


class SnapshotProducer:
    """Produces the snapshot of one change, attempt after attempt, and knows which files it
    wrote so a failed commit can remove them."""

    def __init__(self, io: FileIO, change: Change, table: str):
        self.io = io
        self.change = change
        self.table = table
        self.commit_uuid = str(uuid.uuid4())
        self.snapshot_id: int | None = None
        self._manifests: dict[int, list[ManifestFile]] = {}  # by format version
        self._manifest_paths: list[str] = []
        self._filter = ManifestFilter(
            io, table, change.removed_files, change.delete_filter, change.dropped_partitions
        )
        self._merger: ManifestMerger | None = None
        self._rewritten: list[ManifestFile] | None = None  # rewrite_manifests' new manifests
        self.removed: list[DataFile] = []  # what the last attempt removed
        self._list_paths: list[str] = []
        self._uses: dict[str, list[str]] = {}  # manifest list -> the new manifests it names

    def produce(self, md: TableMetadata, attempt: int) -> Snapshot:
        """The snapshot to add to ``md`` (the base with the change's updates applied)."""
        change = self.change
        existing_ids = {s.snapshot_id for s in md.snapshots}
        if self.snapshot_id is None or self.snapshot_id in existing_ids:
            self.snapshot_id = new_snapshot_id()
            while self.snapshot_id in existing_ids:
                self.snapshot_id = new_snapshot_id()
            self._manifests.clear()  # entries are stamped with the snapshot id
            self._filter.reset()
            if self._merger is not None:
                self._merger.reset()
            self._rewritten = None
        sid = self.snapshot_id
        version = md.format_version
        meta_dir = TableProperties(md.properties, self.table).metadata_location(md.location)
        parent = branch_head(md, change.branch, self.table)
        new = self._new_manifests(md, meta_dir, sid)
        existing: list[ManifestFile] = []
        if parent is not None and change.keep_existing:
            existing = read_manifest_list(self.io, parent.manifest_list, parent)

        def write(spec_id: int, entries: Sequence[ManifestEntry], content: int) -> ManifestFile:
            return self._write(md, meta_dir, sid, spec_id, entries, content)

        extra = dict(change.summary)
        if change.rewritten_manifests:
            manifests = self._replace_manifests(existing, write, extra)
            self.removed = []
        else:
            existing, self.removed = self._filter.apply(md, existing, write)
            manifests = self._merge(md, [*new, *existing], sid, write)
        faults.reached("after-manifests")
        sequence = md.last_sequence_number + 1 if version >= 2 else 0
        first_row_id = (md.next_row_id or 0) if version >= 3 else None
        list_path = f"{meta_dir}/snap-{sid}-{attempt}-{self.commit_uuid}.avro"
        self._list_paths.append(list_path)
        self._uses[list_path] = [m.manifest_path for m in manifests]
        written = write_manifest_list(
            self.io,
            list_path,
            manifests,
            version,
            sid,
            parent.snapshot_id if parent is not None else None,
            sequence,
            first_row_id,
        )
        faults.reached("after-manifest-list")
        summary = snapshot_summary(
            (change.operation or SnapshotOperation.APPEND).value,
            added=change.added_files,
            removed=self.removed,
            previous=None if parent is None or not change.keep_existing else parent.summary,
            extra=extra,
            partition_metrics=change.partition_metrics,
        )
        added_rows = None
        if version >= 3:
            added_rows = (written.next_row_id or 0) - (first_row_id or 0)
        return Snapshot(
            snapshot_id=sid,
            timestamp_ms=max(time.time_ns() // 1_000_000, md.last_updated_ms),
            manifest_list=list_path,
            parent_snapshot_id=parent.snapshot_id if parent is not None else None,
            sequence_number=sequence,
            summary=summary,
            schema_id=md.current_schema_id,
            first_row_id=first_row_id,
            added_rows=added_rows,
        )

    def _replace_manifests(
        self, existing: list[ManifestFile], write: Any, summary: dict[str, str]
    ) -> list[ManifestFile]:
        """The parent's manifests with the change's groups rewritten (Java's
        ``BaseRewriteManifests``); a replaced manifest no longer there is a conflict."""
        present = {m.manifest_path for m in existing}
        replaced = {m.manifest_path for r in self.change.rewritten_manifests for m in r.manifests}
        missing = sorted(replaced - present)
        if missing:
            raise CommitConflictError(
                f"cannot commit to {self.table}: manifest {missing[0]} is no longer in the"
                " table (a concurrent commit replaced it)"
            )
        if self._rewritten is None:
            self._rewritten = [
                m for r in self.change.rewritten_manifests for m in rewrite_group(self.io, r, write)
            ]
        kept = [m for m in existing if m.manifest_path not in replaced]
        summary.update({
            "manifests-created": str(len(self._rewritten)),
            "manifests-kept": str(len(kept)),
            "manifests-replaced": str(len(replaced)),
            "entries-processed": "0",
        })  # fmt: skip
        return [*self._rewritten, *kept]

    def _merge(
        self,
        md: TableMetadata,
        manifests: list[ManifestFile],
        sid: int,
        write: Any,
    ) -> list[ManifestFile]:
        """Data manifests, then delete manifests, each merged (``icesql.write.manifest_merge``)."""
        if self._merger is None:
            self._merger = ManifestMerger(self.io, TableProperties(md.properties, self.table))
        data = [m for m in manifests if m.content == CONTENT_DATA]
        deletes = [m for m in manifests if m.content != CONTENT_DATA]
        return [*self._merger.merge(data, sid, write), *self._merger.merge(deletes, sid, write)]

    def _new_manifests(self, md: TableMetadata, meta_dir: str, sid: int) -> list[ManifestFile]:
        version = md.format_version
        cached = self._manifests.get(version)
        if cached is not None:
            return cached
        by_spec: dict[tuple[int, int], list[DataFile]] = defaultdict(list)
        for f in self.change.added_files:
            content = CONTENT_DATA if f.content == DATA else CONTENT_DELETES
            by_spec[(content, f.spec_id)].append(f)
        out = []
        for (content, spec_id), files in sorted(by_spec.items()):
            seq = self.change.data_sequence_number if version >= 2 else None
            seqs = self.change.data_sequence_numbers if version >= 2 else {}
            entries = [
                ManifestEntry(STATUS_ADDED, sid, seqs.get(f.file_path, seq), None, f) for f in files
            ]
            out.append(self._write(md, meta_dir, sid, spec_id, entries, content))
        self._manifests[version] = out
        return out

    def _write(
        self,
        md: TableMetadata,
        meta_dir: str,
        sid: int,
        spec_id: int,
        entries: Sequence[ManifestEntry],
        content: int,
    ) -> ManifestFile:
        spec = md.spec_by_id(spec_id)
        if spec is None:
            raise InternalError(f"files of {self.table} use unknown partition spec {spec_id}")
        path = f"{meta_dir}/{self.commit_uuid}-m{len(self._manifest_paths)}.avro"
        self._manifest_paths.append(path)
        return write_manifest(
            self.io, path, spec, md.schema(), md.format_version, sid, entries, content
        )

    def discard_attempt(self, snapshot: Snapshot | None) -> None:
        """Delete the manifest list of a failed attempt (the manifests stay for a retry)."""
        if snapshot is not None and snapshot.manifest_list is not None:
            _delete(self.io, [snapshot.manifest_list])

    def cleanup(self, committed: Snapshot | None = None) -> None:
        """Delete every file written that ``committed`` does not use (all of them when the
        change failed for good)."""
        keep: set[str] = set()
        if committed is not None and committed.manifest_list is not None:
            keep.add(committed.manifest_list)
            keep.update(self._uses.get(committed.manifest_list, ()))
        _delete(self.io, [p for p in [*self._manifest_paths, *self._list_paths] if p not in keep])


def _delete(io: FileIO, paths: Sequence[str]) -> None:
    for path in paths:
        try:
            io.delete(path)
        except Exception:
            pass
