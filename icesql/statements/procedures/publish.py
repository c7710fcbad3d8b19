"""Procedures that publish a snapshot onto ``main``: ``cherrypick_snapshot`` and
``publish_changes`` (the cherry-pick of the snapshot staged under a write-audit-publish id),
as Java's ``CherryPickOperation`` does them.

A snapshot whose parent is the current snapshot is *fast-forwarded*: ``main`` moves to it and
no snapshot is made. Otherwise an ``append`` snapshot is re-applied on top of ``main``: a new
``append`` snapshot adding the same data files, its summary naming the
``source-snapshot-id`` and the ``published-wap-id``. A snapshot already in ``main``'s history,
or already picked into it, and a WAP id already published, are refused; so is any other
operation. Cherry-picking a dynamic partition overwrite that is not a fast-forward is not built
yet (``NotSupportedError``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table
from icesql.errors import NotSupportedError
from icesql.metadata.manifest import STATUS_ADDED, read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.snapshots import MAIN_BRANCH, Snapshot
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import AssertRefSnapshotId
from icesql.spec.content_file import DataFile
from icesql.spec.manifest_file import CONTENT_DATA
from icesql.statements.procedures.base import LONG, STRING, Call, Parameter, Procedure
from icesql.statements.procedures.snapshots import is_current_ancestor, move_branch
from icesql.write.commit import commit
from icesql.write.snapshot import Change, SnapshotOperation

__all__ = ["PROCEDURES", "cherrypick"]

STAGED_WAP_ID, PUBLISHED_WAP_ID = "wap.id", "published-wap-id"
SOURCE_SNAPSHOT_ID, REPLACE_PARTITIONS = "source-snapshot-id", "replace-partitions"
_PICKED = pa.schema([
    pa.field("source_snapshot_id", pa.int64(), nullable=False),
    pa.field("current_snapshot_id", pa.int64(), nullable=False),
])  # fmt: skip


def cherrypick(call: Call, catalog: Catalog, table: Table, snapshot_id: int) -> int:
    """Publish snapshot ``snapshot_id`` onto ``main`` (module docstring); returns the
    snapshot ``main`` points at afterwards."""
    md = table.metadata
    snapshot = md.snapshot_by_id(snapshot_id)
    if snapshot is None:
        raise call.error(f"Cannot cherry-pick unknown snapshot ID: {snapshot_id}")
    operation = snapshot.summary.get("operation")
    overwrite = operation == "overwrite" and snapshot.summary.get(REPLACE_PARTITIONS) == "true"
    current = md.current_snapshot()
    current_id = current.snapshot_id if current is not None else None
    fast_forward = snapshot.parent_snapshot_id == current_id
    wap_id = snapshot.summary.get(STAGED_WAP_ID) if operation == "append" or overwrite else None
    if wap_id and _published(md, wap_id):
        raise call.error(
            f"Duplicate request to cherry pick wap id that was published already: {wap_id}"
        )
    if fast_forward:
        move_branch(catalog, table, MAIN_BRANCH, snapshot_id)
        return snapshot_id
    if overwrite:
        raise NotSupportedError(
            f"procedure {call.procedure}: cherry-picking snapshot {snapshot_id}, a dynamic partition"
            " overwrite not based on the current snapshot, is not supported yet"
        )
    if operation != "append":
        raise call.error(
            f"Cannot cherry-pick snapshot {snapshot_id}: not append, dynamic overwrite, or fast-forward"
        )
    if is_current_ancestor(md, snapshot_id):
        raise call.error(f"Cannot cherrypick snapshot {snapshot_id}: already an ancestor")
    for ancestor in md.ancestors_of(current_id) if current_id is not None else ():
        if ancestor.summary.get(SOURCE_SNAPSHOT_ID) == str(snapshot_id):
            raise call.error(
                f"Cannot cherrypick snapshot {snapshot_id}: already picked to create ancestor"
                f" {ancestor.snapshot_id}"
            )
    summary = {SOURCE_SNAPSHOT_ID: str(snapshot_id)}
    if wap_id:
        summary[PUBLISHED_WAP_ID] = wap_id
    change = Change(
        operation=SnapshotOperation.APPEND,
        added_files=tuple(_added_data_files(table, snapshot)),
        summary=summary,
        requirements=(AssertRefSnapshotId(MAIN_BRANCH, current_id),),
    )
    committed = commit(catalog, table, change)
    published = committed.metadata.current_snapshot()
    assert published is not None  # the APPEND to main just added it
    return published.snapshot_id


def _added_data_files(table: Table, snapshot: Snapshot) -> list[DataFile]:
    """The data files ``snapshot`` added (new row ids in v3: they are added again)."""
    files = []
    for manifest in read_manifest_list(table.io, snapshot.manifest_list, snapshot):
        if manifest.content != CONTENT_DATA or manifest.added_snapshot_id != snapshot.snapshot_id:
            continue
        for entry in read_manifest(table.io, manifest):
            if entry.status == STATUS_ADDED:
                files.append(dataclasses.replace(entry.data_file, first_row_id=None))
    return files


def _published(md: TableMetadata, wap_id: str) -> bool:
    """Java's ``WapUtil.isWapIdPublished``: an ancestor of ``main`` staged or published it."""
    current = md.current_snapshot()
    if current is None:
        return False
    return any(
        wap_id in (s.summary.get(STAGED_WAP_ID), s.summary.get(PUBLISHED_WAP_ID))
        for s in md.ancestors_of(current.snapshot_id)
    )


def _cherrypick_snapshot(call: Call) -> Sequence[Sequence[Any]]:
    catalog, table = call.table()
    snapshot_id = call.args["snapshot_id"]
    return [(snapshot_id, cherrypick(call, catalog, table, snapshot_id))]


def _publish_changes(call: Call) -> Sequence[Sequence[Any]]:
    catalog, table = call.table()
    wap_id = call.args["wap_id"]
    matching = [s for s in table.metadata.snapshots if s.summary.get(STAGED_WAP_ID) == wap_id]
    if len(matching) > 1:
        raise call.error(
            f"Cannot apply non-unique WAP ID. Found multiple snapshots with WAP ID '{wap_id}'"
        )
    if not matching:
        raise call.error(f"Cannot apply unknown WAP ID '{wap_id}'")
    source = matching[0].snapshot_id
    return [(source, cherrypick(call, catalog, table, source))]


PROCEDURES = (
    Procedure("cherrypick_snapshot", (Parameter("table", STRING), Parameter("snapshot_id", LONG)),
              _PICKED, _cherrypick_snapshot),
    Procedure("publish_changes", (Parameter("table", STRING), Parameter("wap_id", STRING)),
              _PICKED, _publish_changes),
)  # fmt: skip
