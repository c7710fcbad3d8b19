"""Procedures that move ``main`` (or another branch) between existing snapshots, and the one
that reports a snapshot's ancestry: ``rollback_to_snapshot``, ``rollback_to_timestamp``,
``set_current_snapshot``, ``fast_forward`` and ``ancestors_of``, with Spark's arguments,
outputs and errors (Java's ``SetSnapshotOperation`` and ``UpdateSnapshotReferencesOperation``).

Each move is one metadata-only commit of a ``SetSnapshotRefUpdate`` required to find the
ref where the procedure saw it, so a concurrent commit to the same branch fails the call
instead of being undone by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table
from icesql.metadata.snapshots import MAIN_BRANCH, Snapshot, SnapshotRef
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import AssertRefSnapshotId
from icesql.metadata.table_updates import SetSnapshotRefUpdate
from icesql.statements.procedures.base import LONG, STRING, TIMESTAMP, Call, Parameter, Procedure
from icesql.write.commit import commit
from icesql.write.snapshot import Change

__all__ = ["PROCEDURES", "move_branch"]

_TABLE = Parameter("table", STRING)
_MOVED = pa.schema([
    pa.field("previous_snapshot_id", pa.int64(), nullable=False),
    pa.field("current_snapshot_id", pa.int64(), nullable=False),
])  # fmt: skip


def move_branch(catalog: Catalog, table: Table, branch: str, snapshot_id: int) -> Table:
    """Point ``branch`` (created when missing) at ``snapshot_id``, keeping its retention."""
    md = table.metadata
    current = md.refs.get(branch)
    ref = (
        SnapshotRef(snapshot_id)
        if current is None
        else SnapshotRef(
            snapshot_id,
            current.type,
            current.min_snapshots_to_keep,
            current.max_snapshot_age_ms,
            current.max_ref_age_ms,
            current.extra,
        )
    )
    requirement = AssertRefSnapshotId(branch, current.snapshot_id if current is not None else None)
    return commit(
        catalog,
        table,
        Change(updates=(SetSnapshotRefUpdate(branch, ref),), requirements=(requirement,)),
    )


def is_current_ancestor(md: TableMetadata, snapshot_id: int) -> bool:
    current = md.current_snapshot()
    return current is not None and any(
        s.snapshot_id == snapshot_id for s in md.ancestors_of(current.snapshot_id)
    )


def _previous(call: Call, md: TableMetadata) -> int:
    current = md.current_snapshot()
    if current is None:
        raise call.error("the table has no current snapshot to roll back from")
    return current.snapshot_id


def _rollback_to_snapshot(call: Call) -> Sequence[Sequence[Any]]:
    catalog, table = call.table()
    md, snapshot_id = table.metadata, call.args["snapshot_id"]
    previous = _previous(call, md)
    if md.snapshot_by_id(snapshot_id) is None:
        raise call.error(f"Cannot roll back to unknown snapshot id: {snapshot_id}")
    if not is_current_ancestor(md, snapshot_id):
        raise call.error(
            f"Cannot roll back to snapshot, not an ancestor of the current state: {snapshot_id}"
        )
    move_branch(catalog, table, MAIN_BRANCH, snapshot_id)
    return [(previous, snapshot_id)]


def _rollback_to_timestamp(call: Call) -> Sequence[Sequence[Any]]:
    catalog, table = call.table()
    md, timestamp = table.metadata, call.args["timestamp"]
    previous = _previous(call, md)
    target: Snapshot | None = None  # Java's findLatestAncestorOlderThan
    for snapshot in md.ancestors_of(previous):
        if snapshot.timestamp_ms < timestamp and (
            target is None or snapshot.timestamp_ms > target.timestamp_ms
        ):
            target = snapshot
    if target is None:
        raise call.error(f"Cannot roll back, no valid snapshot older than: {timestamp}")
    move_branch(catalog, table, MAIN_BRANCH, target.snapshot_id)
    return [(previous, target.snapshot_id)]


def _set_current_snapshot(call: Call) -> Sequence[Sequence[Any]]:
    snapshot_id, ref = call.args.get("snapshot_id"), call.args.get("ref")
    if (snapshot_id is None) == (ref is None):
        raise call.error("Either snapshot_id or ref must be provided, not both")
    catalog, table = call.table()
    md = table.metadata
    current = md.current_snapshot()
    if ref is not None:
        found = md.refs.get(ref)
        if found is None:
            raise call.error(f"Cannot find matching snapshot ID for ref {ref}")
        snapshot_id = found.snapshot_id
    assert snapshot_id is not None  # given, or the ref's (exactly one was: checked above)
    if md.snapshot_by_id(snapshot_id) is None:
        raise call.error(f"Cannot roll back to unknown snapshot id: {snapshot_id}")
    move_branch(catalog, table, MAIN_BRANCH, snapshot_id)
    return [(current.snapshot_id if current is not None else None, snapshot_id)]


def _fast_forward(call: Call) -> Sequence[Sequence[Any]]:
    catalog, table = call.table()
    md, branch, to = table.metadata, call.args["branch"], call.args["to"]
    target = md.refs.get(to)
    if target is None:
        raise call.error(f"Ref does not exist: {to}")
    current = md.refs.get(branch)
    if current is not None:
        if not current.is_branch:
            raise call.error(f"Ref {branch} is a tag not a branch")
        if current.snapshot_id == target.snapshot_id:
            return [(branch, current.snapshot_id, current.snapshot_id)]
        if not any(
            s.snapshot_id == current.snapshot_id for s in md.ancestors_of(target.snapshot_id)
        ):
            raise call.error(f"Cannot fast-forward: {branch} is not an ancestor of {to}")
    move_branch(catalog, table, branch, target.snapshot_id)
    return [(branch, current.snapshot_id if current is not None else None, target.snapshot_id)]


def _ancestors_of(call: Call) -> Sequence[Sequence[Any]]:
    _, table = call.table()
    md = table.metadata
    snapshot_id = call.args.get("snapshot_id")
    if snapshot_id is None:
        current = md.current_snapshot()
        if current is None:
            return []
        snapshot_id = current.snapshot_id
    return [(s.snapshot_id, s.timestamp_ms) for s in md.ancestors_of(snapshot_id)]


PROCEDURES = (
    Procedure("rollback_to_snapshot", (_TABLE, Parameter("snapshot_id", LONG)), _MOVED, _rollback_to_snapshot),
    Procedure("rollback_to_timestamp", (_TABLE, Parameter("timestamp", TIMESTAMP)), _MOVED, _rollback_to_timestamp),
    Procedure(
        "set_current_snapshot",
        (_TABLE, Parameter("snapshot_id", LONG, required=False), Parameter("ref", STRING, required=False)),
        pa.schema([pa.field("previous_snapshot_id", pa.int64()),
                   pa.field("current_snapshot_id", pa.int64(), nullable=False)]),
        _set_current_snapshot,
    ),
    Procedure(
        "fast_forward",
        (_TABLE, Parameter("branch", STRING), Parameter("to", STRING)),
        pa.schema([pa.field("branch_updated", pa.string(), nullable=False),
                   pa.field("previous_ref", pa.int64()),
                   pa.field("updated_ref", pa.int64(), nullable=False)]),
        _fast_forward,
    ),
    Procedure(
        "ancestors_of",
        (_TABLE, Parameter("snapshot_id", LONG, required=False)),
        pa.schema([pa.field("snapshot_id", pa.int64()), pa.field("timestamp", pa.int64())]),
        _ancestors_of,
    ),
)  # fmt: skip
