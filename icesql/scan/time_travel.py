"""Choosing the snapshot and schema a read sees, as Spark + Iceberg choose them."""

from __future__ import annotations

from dataclasses import dataclass

from icesql.errors import ProgrammingError
from icesql.metadata.table_metadata import Snapshot, TableMetadata
from icesql.spec.schema import Schema


@dataclass(frozen=True)
class ReadVersion:
    snapshot: Snapshot | None  # None: the table has no snapshot yet (reads no rows)
    schema: Schema


def select_version(
    metadata: TableMetadata,
    table_name: str,
    version: int | str | None = None,
    timestamp_ms: int | None = None,
    ref: str | None = None,
    ref_kind: str | None = None,
) -> ReadVersion:
    """The snapshot and schema for a read.

    Like Iceberg's ``SnapshotUtil.schemaFor``: reading a branch (or the current state) uses
    the table's current schema, since writes to a branch use it; a tag, a snapshot id or a
    timestamp reads with the schema the snapshot was written with.
    """
    if ref is not None:
        snapshot = _ref_snapshot(metadata, table_name, ref, ref_kind)
        return _version_for(metadata, snapshot, is_branch=_is_branch(metadata, ref))
    if isinstance(version, str):
        by_id = metadata.snapshot_by_id(int(version)) if version.isdigit() else None
        if by_id is not None:
            return _version_for(metadata, by_id, False)
        snapshot = _ref_snapshot(metadata, table_name, version, None)
        return _version_for(metadata, snapshot, is_branch=_is_branch(metadata, version))
    if isinstance(version, int):
        found = metadata.snapshot_by_id(version)
        if found is None:
            raise ProgrammingError(f"snapshot {version} not found in table {table_name}")
        return _version_for(metadata, found, False)
    if timestamp_ms is not None:
        try:
            snapshot = metadata.snapshot_as_of(timestamp_ms)
        except Exception as e:
            raise ProgrammingError(
                f"no snapshot of table {table_name} is older than timestamp {timestamp_ms} ms: {e}"
            ) from None
        if snapshot is None:
            raise ProgrammingError(
                f"no snapshot of table {table_name} is older than timestamp {timestamp_ms} ms"
            )
        return _version_for(metadata, snapshot, False)
    return ReadVersion(metadata.current_snapshot(), metadata.schema())


def _is_branch(metadata: TableMetadata, name: str) -> bool:
    r = metadata.refs.get(name)
    return r is not None and r.type == "branch"


def _ref_snapshot(metadata: TableMetadata, table_name: str, ref: str, kind: str | None) -> Snapshot:
    r = metadata.refs.get(ref)
    if r is None or (kind is not None and r.type != kind):
        what = kind or "branch or tag"
        raise ProgrammingError(f"{what} {ref!r} not found in table {table_name}")
    snapshot = metadata.snapshot_by_id(r.snapshot_id)
    if snapshot is None:
        raise ProgrammingError(
            f"{r.type} {ref!r} of table {table_name} points at missing snapshot {r.snapshot_id}"
        )
    return snapshot


def _version_for(metadata: TableMetadata, snapshot: Snapshot, is_branch: bool) -> ReadVersion:
    if is_branch or snapshot.schema_id is None:
        return ReadVersion(snapshot, metadata.schema())
    return ReadVersion(snapshot, metadata.schema_by_id(snapshot.schema_id) or metadata.schema())
