"""``expire_snapshots``: forget old snapshots, then delete the files only they reached
(Java's ``RemoveSnapshots`` for what expires, ``ExpireSnapshotsSparkAction`` for the files).

What expires: every snapshot that no ref keeps. ``main`` always stays; another ref stays while
its head is younger than its ``max-ref-age-ms`` (else the table's
``history.expire.max-ref-age-ms``, default forever) and is removed otherwise. A kept tag keeps
its head; a kept branch keeps its head and its ancestors while they are fewer than its
``min-snapshots-to-keep`` or younger than ``now - max-snapshot-age-ms`` (defaults:
``retain_last`` / ``history.expire.min-snapshots-to-keep`` (1) and ``older_than`` / ``now -
history.expire.max-snapshot-age-ms`` (5 days)). A snapshot on no branch's history and no tag
(a staged WAP snapshot, a dropped branch's) stays while younger than ``older_than``. The ids
in ``snapshot_ids`` expire as well, unless a kept ref points at one (an error, as in Java).
With ``clean_expired_metadata`` the partition specs and schemas no kept snapshot uses go too
(never the default spec or the current schema).

Order: the metadata change commits first (remove refs, snapshots, specs, schemas), required
to find the snapshots and refs the plan was made from; a concurrent commit makes the
procedure plan again on the new version (up to ``commit.retry.num-retries`` times), and a
commit that fails or whose outcome is unknown deletes nothing. Only then are files deleted:
those the expired snapshots reached (manifest lists, manifests, live data and delete files,
statistics files) that no remaining snapshot reaches (``icesql.metadata.reachable``),
``max_concurrent_deletes`` at a time. The output counts them per kind, as Spark does.
Another ``expire_snapshots`` may run at the same time: a file of an expired snapshot already
gone has nothing left to delete, and a kept snapshot's file gone (a later expiry removed it)
makes the kept side be read again from the table's current version (``_only_expired``).
``stream_results`` changes how Spark collects its file list to the driver, not what is
deleted; icesql accepts it and holds the candidate paths in memory either way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table
from icesql.errors import CommitConflictError, NoSuchTableError, OperationalError
from icesql.io import FileIO, is_missing_file
from icesql.metadata import reachable
from icesql.metadata.snapshots import MAIN_BRANCH, SnapshotRef
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import (
    AssertCurrentSchemaId,
    AssertDefaultSpecId,
    TableRequirement,
)
from icesql.metadata.table_updates import (
    RemovePartitionSpecsUpdate,
    RemoveSchemasUpdate,
    RemoveSnapshotRefUpdate,
    RemoveSnapshotsUpdate,
    TableUpdate,
)
from icesql.spec.manifest_file import ManifestFile
from icesql.statements.procedures.base import (
    BOOLEAN,
    INT,
    LONG_ARRAY,
    STRING,
    TIMESTAMP,
    Call,
    Parameter,
    Procedure,
)
from icesql.statements.procedures.cleanup import delete_files
from icesql.write.commit import commit
from icesql.write.properties import TableProperties
from icesql.write.snapshot import Change

__all__ = ["PROCEDURES", "ExpirePolicy", "expire_snapshots", "plan_expiry"]

_COUNTED = (
    reachable.DATA_FILE, reachable.POSITION_DELETE_FILE, reachable.EQUALITY_DELETE_FILE,
    reachable.MANIFEST, reachable.MANIFEST_LIST, reachable.STATISTICS_FILE,
)  # fmt: skip
# deleted in this order: what a reader reaches last goes first
_DELETE_ORDER = _COUNTED


@dataclass(frozen=True)
class ExpirePolicy:
    """The procedure's arguments (None: the table's default)."""

    now_ms: int
    older_than_ms: int | None = None
    retain_last: int | None = None
    snapshot_ids: tuple[int, ...] = ()
    clean_expired_metadata: bool = False


@dataclass(frozen=True)
class ExpiryPlan:
    refs: tuple[str, ...]  # refs removed
    snapshot_ids: tuple[int, ...]  # snapshots removed
    spec_ids: tuple[int, ...] = ()
    schema_ids: tuple[int, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.refs or self.snapshot_ids or self.spec_ids or self.schema_ids)

    def updates(self) -> tuple[TableUpdate, ...]:
        out: list[TableUpdate] = [RemoveSnapshotRefUpdate(name) for name in self.refs]
        if self.snapshot_ids:
            out.append(RemoveSnapshotsUpdate(self.snapshot_ids))
        if self.spec_ids:
            out.append(RemovePartitionSpecsUpdate(self.spec_ids))
        if self.schema_ids:
            out.append(RemoveSchemasUpdate(self.schema_ids))
        return tuple(out)


class _Replan(CommitConflictError):
    """The table's snapshots or refs changed since the plan was made."""


@dataclass(frozen=True)
class _Unchanged(TableRequirement):
    """The snapshots and refs (with their retention) are those the plan was made from."""

    snapshot_ids: frozenset[int]
    refs: Mapping[str, SnapshotRef]

    def check(self, md: TableMetadata | None, table: str | None = None) -> None:
        assert md is not None  # checked by icesql's own commit, on the loaded table
        if {s.snapshot_id for s in md.snapshots} != self.snapshot_ids or dict(md.refs) != self.refs:
            raise _Replan(f"table {table} changed while expiring its snapshots")


def plan_expiry(
    md: TableMetadata, policy: ExpirePolicy, io: FileIO, fail: Callable[[str], Exception]
) -> ExpiryPlan:
    """Which refs, snapshots (and specs, schemas) expire under ``policy`` (module docstring);
    ``fail(message)`` makes the error for a snapshot id a kept ref still points at."""
    if not md.snapshots:
        return ExpiryPlan((), ())
    props = TableProperties(md.properties)
    now = policy.now_ms
    older_than = policy.older_than_ms
    if older_than is None:
        older_than = now - props.max_snapshot_age_ms
    min_keep = policy.retain_last if policy.retain_last is not None else props.min_snapshots_to_keep
    kept_refs = _kept_refs(md, now, props.max_ref_age_ms)
    keep: set[int] = set()
    heads: dict[int, list[str]] = {}
    for name, ref in kept_refs.items():
        heads.setdefault(ref.snapshot_id, []).append(name)
        keep.add(ref.snapshot_id)
    for snapshot_id in policy.snapshot_ids:
        if snapshot_id in heads:
            raise fail(
                f"Cannot expire {snapshot_id}. Still referenced by refs: [{', '.join(sorted(heads[snapshot_id]))}]"
            )
    referenced: set[int] = set()
    for ref in kept_refs.values():
        if not ref.is_branch:
            referenced.add(ref.snapshot_id)
            continue
        before = (
            now - ref.max_snapshot_age_ms if ref.max_snapshot_age_ms is not None else older_than
        )
        at_least = ref.min_snapshots_to_keep if ref.min_snapshots_to_keep is not None else min_keep
        kept_here = 0
        for ancestor in md.ancestors_of(ref.snapshot_id):
            if kept_here >= at_least and ancestor.timestamp_ms < before:
                break
            keep.add(ancestor.snapshot_id)
            kept_here += 1
        referenced |= {a.snapshot_id for a in md.ancestors_of(ref.snapshot_id)}
    keep |= {
        s.snapshot_id for s in md.snapshots
        if s.snapshot_id not in referenced and s.timestamp_ms >= older_than
    }  # fmt: skip
    known = {s.snapshot_id for s in md.snapshots}
    removed = (set(policy.snapshot_ids) & known) | (known - keep)
    refs = tuple(sorted(name for name in md.refs if name not in kept_refs))
    specs: tuple[int, ...] = ()
    schemas: tuple[int, ...] = ()
    if policy.clean_expired_metadata:
        used_specs = {md.default_spec_id}
        used_schemas = {md.current_schema_id}
        for snapshot_id in keep:
            used_specs |= {
                m.partition_spec_id for m in reachable.manifests(io, md, [snapshot_id]).values()
            }
            kept = md.snapshot_by_id(snapshot_id)
            assert kept is not None  # kept ids are the table's (TableMetadata checks its refs)
            schema_id = kept.schema_id
            if schema_id is not None:
                used_schemas.add(schema_id)
        specs = tuple(sorted({s["spec-id"] for s in md.specs_json} - used_specs))
        schemas = tuple(sorted({s.schema_id for s in md.schemas} - used_schemas))
    return ExpiryPlan(refs, tuple(sorted(removed)), specs, schemas)


def _kept_refs(md: TableMetadata, now: int, default_max_ref_age: int) -> dict[str, SnapshotRef]:
    kept = {}
    for name, ref in md.refs.items():
        if name == MAIN_BRANCH:
            kept[name] = ref
            continue
        snapshot = md.snapshot_by_id(ref.snapshot_id)
        if snapshot is None:
            continue  # a ref to a missing snapshot is removed, as Java does
        max_age = ref.max_ref_age_ms if ref.max_ref_age_ms is not None else default_max_ref_age
        if now - snapshot.timestamp_ms <= max_age:
            kept[name] = ref
    return kept


def expire_snapshots(
    catalog: Catalog,
    table: Table,
    policy: ExpirePolicy,
    fail: Callable[[str], Exception],
    max_workers: int = 4,
) -> dict[str, int]:
    """Expire (module docstring); returns the number of files deleted per kind."""
    base, attempts = table, TableProperties(table.metadata.properties).commit_num_retries + 1
    while True:
        md = base.metadata
        try:
            plan = plan_expiry(md, policy, base.io, fail)
        except OperationalError as e:
            # clean_expired_metadata reads the kept snapshots' manifests: one gone means a
            # concurrent expire_snapshots moved the table on, so plan on its new version
            if not is_missing_file(e) or attempts <= 1:
                raise
            current = catalog.load_table(table.identifier)
            if current.metadata_location == base.metadata_location:
                raise
            base, attempts = current, attempts - 1
            continue
        if plan.empty:
            return dict.fromkeys(_COUNTED, 0)
        requirements: list[TableRequirement] = [
            _Unchanged(frozenset(s.snapshot_id for s in md.snapshots), dict(md.refs))
        ]
        if plan.spec_ids:
            requirements.append(AssertDefaultSpecId(md.default_spec_id))
        if plan.schema_ids:
            requirements.append(AssertCurrentSchemaId(md.current_schema_id))
        change = Change(updates=plan.updates(), requirements=tuple(requirements))
        try:
            committed = commit(catalog, base, change)
            break
        except _Replan:
            attempts -= 1
            if attempts <= 0:
                raise
            base = catalog.load_table(table.identifier)
    return _delete_unreachable(catalog, base, md, committed.metadata, max_workers)


def _delete_unreachable(
    catalog: Catalog, table: Table, before: TableMetadata, after: TableMetadata, max_workers: int
) -> dict[str, int]:
    """Delete what the snapshots ``before`` had and ``after`` lacks reached, and nothing any
    snapshot of ``after`` (or of a later version, see ``_only_expired``) reaches."""
    io = table.io
    kept_ids = [s.snapshot_id for s in after.snapshots]
    kept_set = set(kept_ids)
    expired_ids = [s.snapshot_id for s in before.snapshots if s.snapshot_id not in kept_set]
    same = reachable.same_file
    doomed: dict[str, tuple[str, str]] = {}  # comparison key -> (path, kind)

    def doom(paths: set[str], kept: set[str], kind: str) -> None:
        kept_keys = {same(p) for p in kept}
        doomed.update((same(p), (p, kind)) for p in paths if same(p) not in kept_keys)

    if expired_ids:
        # an expired snapshot's file already gone: another cleaner got there first
        expired_manifests = reachable.manifests(io, before, expired_ids, missing_ok=True)
        found = _only_expired(catalog, table, after, expired_manifests)
        if found is not None:
            only_expired, candidates = found
            doomed.update(candidates)
            doom({m.manifest_path for m in only_expired}, set(), reachable.MANIFEST)
        doom(
            reachable.manifest_lists(before, expired_ids),
            reachable.manifest_lists(after, kept_ids),
            reachable.MANIFEST_LIST,
        )
    doom(
        reachable.statistics_files(before, expired_ids),
        reachable.statistics_files(after),
        reachable.STATISTICS_FILE,
    )
    ordered = sorted(doomed.values(), key=lambda item: _DELETE_ORDER.index(item[1]))
    deleted = delete_files(io, ordered, max_workers)
    counts = dict.fromkeys(_COUNTED, 0)
    for kind in deleted:
        counts[kind] += 1
    return counts


def _only_expired(
    catalog: Catalog, table: Table, after: TableMetadata, expired: Mapping[str, ManifestFile]
) -> tuple[list[ManifestFile], dict[str, tuple[str, str]]] | None:
    """The manifests in ``expired`` and the live content files they list that no snapshot of
    ``after`` reaches (content files by comparison key).

    A kept snapshot's file gone means a concurrent ``expire_snapshots`` removed that snapshot
    after this one committed: the kept side is then read again from the table's current
    version (Java cleans against the refreshed metadata too), whose snapshots reach every
    file a later commit can still carry. None when that does not settle within the commit
    retries, or the table is gone: then no manifest or content file is deleted (garbage for
    ``remove_orphan_files``; Java also deletes no content file when it cannot read the kept
    manifests)."""
    io, same = table.io, reachable.same_file
    for _ in range(TableProperties(after.properties).commit_num_retries + 1):
        try:
            kept_manifests = reachable.manifests(
                io, after, [s.snapshot_id for s in after.snapshots]
            )
            kept_keys = {same(p) for p in kept_manifests}
            only = [m for p, m in expired.items() if same(p) not in kept_keys]
            candidates = {
                same(p): (p, kind) for p, kind in reachable.content_files(io, only, missing_ok=True)
            }  # fmt: skip
            if candidates:
                for path, _ in reachable.content_files(io, kept_manifests.values()):
                    candidates.pop(same(path), None)
            return only, candidates
        except OperationalError as e:
            if not is_missing_file(e):
                raise
        try:
            after = catalog.load_table(table.identifier).metadata
        except NoSuchTableError:
            return None
    return None


def _expire_snapshots_procedure(call: Call) -> Sequence[Sequence[Any]]:
    args = call.args
    workers = args.get("max_concurrent_deletes")
    if workers is not None and workers <= 0:
        raise call.error(f"max_concurrent_deletes should have value > 0, value: {workers}")
    catalog, table = call.table()
    if not TableProperties(table.metadata.properties, table.name).gc_enabled:
        raise call.error(
            "Cannot expire snapshots: GC is disabled (deleting files may corrupt other tables)"
        )
    retain_last = args.get("retain_last")
    if retain_last is not None and retain_last < 1:
        raise call.error(
            f"Number of snapshots to retain must be at least 1, cannot be: {retain_last}"
        )
    policy = ExpirePolicy(
        now_ms=time.time_ns() // 1_000_000,
        older_than_ms=args.get("older_than"),
        retain_last=retain_last,
        snapshot_ids=tuple(i for i in args.get("snapshot_ids", ()) if i is not None),
        clean_expired_metadata=bool(args.get("clean_expired_metadata", False)),
    )
    counts = expire_snapshots(catalog, table, policy, call.error, workers or 4)
    return [tuple(counts[kind] for kind in _COUNTED)]


PROCEDURES = (
    Procedure(
        "expire_snapshots",
        (
            Parameter("table", STRING),
            Parameter("older_than", TIMESTAMP, required=False),
            Parameter("retain_last", INT, required=False),
            Parameter("max_concurrent_deletes", INT, required=False),
            Parameter("stream_results", BOOLEAN, required=False),
            Parameter("snapshot_ids", LONG_ARRAY, required=False),
            Parameter("clean_expired_metadata", BOOLEAN, required=False),
        ),
        pa.schema([pa.field(name, pa.int64()) for name in (
            "deleted_data_files_count", "deleted_position_delete_files_count",
            "deleted_equality_delete_files_count", "deleted_manifest_files_count",
            "deleted_manifest_lists_count", "deleted_statistics_files_count",
        )]),
        _expire_snapshots_procedure,
    ),
)  # fmt: skip
