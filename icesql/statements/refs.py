"""ALTER TABLE ... CREATE / REPLACE / DROP BRANCH and TAG: metadata-only ref changes.

Each statement is one commit of a ``SetSnapshotRefUpdate`` or ``RemoveSnapshotRefUpdate``,
required to find the ref where the statement saw it (``AssertRefSnapshotId``), so a
concurrent move of the same ref fails the statement instead of being overwritten. The rules are Spark's
(``CreateOrReplaceBranchExec`` / ``CreateOrReplaceTagExec`` over Java's
``UpdateSnapshotReferencesOperation``):

* a new ref points at ``AS OF VERSION id``, else at the current snapshot; a branch created on
  a table without snapshots gets an empty ``append`` snapshot of its own (Java's
  ``SnapshotManager.createBranch``), a tag there is refused;
* ``CREATE`` of an existing ref fails (``Ref b already exists``) unless ``IF NOT EXISTS``;
  ``REPLACE`` needs the ref to exist with the same kind, and keeps its retention settings
  except the ones the statement gives; ``CREATE OR REPLACE`` creates or replaces;
* ``DROP`` fails for a missing ref unless ``IF EXISTS``, for the other kind, and for ``main``.

Retention: ``RETAIN n unit`` is the ref's ``max-ref-age-ms``; a branch's ``WITH SNAPSHOT
RETENTION n SNAPSHOTS`` / ``n unit`` are ``min-snapshots-to-keep`` / ``max-snapshot-age-ms``.
"""

from __future__ import annotations

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table
from icesql.errors import AlreadyExistsError, ProgrammingError
from icesql.metadata.snapshots import MAIN_BRANCH, SnapshotRef
from icesql.metadata.table_requirements import AssertRefSnapshotId
from icesql.metadata.table_updates import RemoveSnapshotRefUpdate, SetSnapshotRefUpdate
from icesql.sql import nodes
from icesql.write.commit import commit
from icesql.write.snapshot import Change, SnapshotOperation

__all__ = ["change_ref"]


def change_ref(
    catalog: Catalog, table: Table, action: nodes.CreateOrReplaceRef | nodes.DropRef
) -> None:
    """Run one branch or tag statement on ``table`` (module docstring)."""
    if isinstance(action, nodes.DropRef):
        _drop(catalog, table, action)
    else:
        _create_or_replace(catalog, table, action)


def _create_or_replace(catalog: Catalog, table: Table, action: nodes.CreateOrReplaceRef) -> None:
    md, name, kind = table.metadata, action.ref_name, action.kind
    existing = md.refs.get(name)
    current = md.current_snapshot()
    snapshot_id = action.snapshot_id
    if snapshot_id is None and current is not None:
        snapshot_id = current.snapshot_id
    if snapshot_id is None and (kind == "tag" or action.or_replace and existing is not None):
        raise ProgrammingError(
            f"Cannot complete {'create or replace' if kind == 'tag' else 'replace'} {kind}"
            f" operation on {table.name}, main has no snapshot"
        )
    if snapshot_id is not None and md.snapshot_by_id(snapshot_id) is None:
        raise ProgrammingError(f"Cannot set {name} to unknown snapshot: {snapshot_id}")
    if action.or_replace and (existing is not None or not action.create):
        if existing is None:
            raise ProgrammingError(f"{kind.capitalize()} does not exist: {name}")
        if existing.type != kind:
            raise ProgrammingError(f"Ref {name} is a {existing.type} not a {kind}")
        base = existing
    else:
        if existing is not None:
            if action.if_not_exists:
                return
            raise AlreadyExistsError(f"Ref {name} already exists")
        base = SnapshotRef(snapshot_id or 0, kind)
    if snapshot_id is None:  # a branch of a table without snapshots: an empty one of its own
        table = commit(
            catalog,
            table,
            Change(
                operation=SnapshotOperation.APPEND,
                branch=name,
                requirements=(AssertRefSnapshotId(name, None),),
            ),
        )
        base = table.metadata.refs[name]
        snapshot_id = base.snapshot_id
        existing = base
        if _retention(action, base) == base:
            return
    ref = _retention(
        action,
        SnapshotRef(
            snapshot_id,
            kind,
            base.min_snapshots_to_keep,
            base.max_snapshot_age_ms,
            base.max_ref_age_ms,
            base.extra,
        ),
    )
    requirement = AssertRefSnapshotId(name, existing.snapshot_id if existing is not None else None)
    commit(
        catalog,
        table,
        Change(updates=(SetSnapshotRefUpdate(name, ref),), requirements=(requirement,)),
    )


def _retention(action: nodes.CreateOrReplaceRef, ref: SnapshotRef) -> SnapshotRef:
    """``ref`` with the retention settings the statement gives."""

    def pick(given: int | None, kept: int | None) -> int | None:
        return given if given is not None else kept

    return SnapshotRef(
        ref.snapshot_id,
        ref.type,
        pick(action.min_snapshots_to_keep, ref.min_snapshots_to_keep),
        pick(action.max_snapshot_age_ms, ref.max_snapshot_age_ms),
        pick(action.max_ref_age_ms, ref.max_ref_age_ms),
        ref.extra,
    )


def _drop(catalog: Catalog, table: Table, action: nodes.DropRef) -> None:
    md, name, kind = table.metadata, action.ref_name, action.kind
    existing = md.refs.get(name)
    if existing is None and action.if_exists:
        return
    if kind == "branch" and name == MAIN_BRANCH:
        raise ProgrammingError("Cannot remove main branch")
    if existing is None:
        raise ProgrammingError(f"{kind.capitalize()} does not exist: {name}")
    if existing.type != kind:
        raise ProgrammingError(f"Ref {name} is a {existing.type} not a {kind}")
    requirement = AssertRefSnapshotId(name, existing.snapshot_id)
    commit(
        catalog,
        table,
        Change(updates=(RemoveSnapshotRefUpdate(name),), requirements=(requirement,)),
    )
