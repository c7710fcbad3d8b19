"""Metadata changes and the conditions they need, as plain data.

A statement describes *what* it changes (``AddSchema``, ``SetProperties``, ...) and *what
must still hold* when the change lands (``AssertCurrentSchemaId``, ...), the same split the
REST catalog protocol makes. ``icesql.write.commit`` checks the requirements against the
freshly loaded table on every attempt and replays the updates on it, so a retry after a
concurrent commit applies the same change to the new base; when a requirement no longer
holds, the commit fails instead of silently overwriting the other writer's change (spec:
"schema updates and partition spec changes must validate that the schema has not changed
between the base version and the current version").

An id of ``-1`` in ``SetCurrentSchema`` / ``SetDefaultSpec`` / ``SetDefaultSortOrder`` means
"the one added last in this change", because ids are only known once applied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from icesql.errors import CommitConflictError, InternalError
from icesql.metadata.builder import MetadataBuilder
from icesql.metadata.snapshots import SnapshotRef
from icesql.metadata.table_metadata import TableMetadata
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder

__all__ = [
    "AddSchema",
    "AddSortOrder",
    "AddSpec",
    "AssertCurrentSchemaId",
    "AssertDefaultSortOrderId",
    "AssertDefaultSpecId",
    "AssertLastAssignedFieldId",
    "AssertLastAssignedPartitionId",
    "AssertRefSnapshotId",
    "AssertTableUUID",
    "RemoveProperties",
    "RemoveRef",
    "RemoveSchemas",
    "RemoveSnapshots",
    "RemoveSpecs",
    "Requirement",
    "SetCurrentSchema",
    "SetDefaultSortOrder",
    "SetDefaultSpec",
    "SetLocation",
    "SetProperties",
    "SetRef",
    "Update",
    "UpgradeFormatVersion",
    "apply_updates",
    "check_requirements",
]

LAST_ADDED = -1


class Update:
    """A change to table metadata."""


@dataclass(frozen=True)
class AddSchema(Update):
    schema: Schema


@dataclass(frozen=True)
class SetCurrentSchema(Update):
    schema_id: int = LAST_ADDED


@dataclass(frozen=True)
class AddSpec(Update):
    spec: PartitionSpec


@dataclass(frozen=True)
class SetDefaultSpec(Update):
    spec_id: int = LAST_ADDED


@dataclass(frozen=True)
class AddSortOrder(Update):
    order: SortOrder


@dataclass(frozen=True)
class SetDefaultSortOrder(Update):
    order_id: int = LAST_ADDED


@dataclass(frozen=True)
class SetProperties(Update):
    updates: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RemoveProperties(Update):
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class SetLocation(Update):
    location: str


@dataclass(frozen=True)
class UpgradeFormatVersion(Update):
    format_version: int


@dataclass(frozen=True)
class RemoveRef(Update):
    """Drop a branch or tag; dropping ``main`` leaves the table without a current snapshot
    (what a REPLACE TABLE does before its first snapshot)."""

    name: str


@dataclass(frozen=True)
class SetRef(Update):
    """Point a branch or tag at a snapshot with its retention settings (moving ``main``
    makes its snapshot current)."""

    name: str
    ref: SnapshotRef


@dataclass(frozen=True)
class RemoveSnapshots(Update):
    """Expire snapshots: they leave ``snapshots`` with their statistics files, and the
    snapshot log forgets the history before them."""

    snapshot_ids: tuple[int, ...]


@dataclass(frozen=True)
class RemoveSpecs(Update):
    """Drop partition specs no manifest of a kept snapshot uses (never the default one)."""

    spec_ids: tuple[int, ...]


@dataclass(frozen=True)
class RemoveSchemas(Update):
    """Drop schemas no kept snapshot was written with (never the current one)."""

    schema_ids: tuple[int, ...]


def apply_updates(builder: MetadataBuilder, updates: Sequence[Update]) -> MetadataBuilder:
    """Replay ``updates`` on ``builder`` in order."""
    last_schema = last_spec = last_order = None
    for u in updates:
        if isinstance(u, AddSchema):
            last_schema = builder.add_schema(u.schema)
        elif isinstance(u, SetCurrentSchema):
            builder.set_current_schema(_resolve(u.schema_id, last_schema, "schema"))
        elif isinstance(u, AddSpec):
            last_spec = builder.add_partition_spec(u.spec)
        elif isinstance(u, SetDefaultSpec):
            builder.set_default_spec(_resolve(u.spec_id, last_spec, "partition spec"))
        elif isinstance(u, AddSortOrder):
            last_order = builder.add_sort_order(u.order)
        elif isinstance(u, SetDefaultSortOrder):
            builder.set_default_sort_order(_resolve(u.order_id, last_order, "sort order"))
        elif isinstance(u, SetProperties):
            builder.set_properties(u.updates)
        elif isinstance(u, RemoveProperties):
            builder.remove_properties(u.keys)
        elif isinstance(u, SetLocation):
            builder.set_location(u.location)
        elif isinstance(u, UpgradeFormatVersion):
            builder.upgrade_format_version(u.format_version)
        elif isinstance(u, SetRef):
            builder.set_ref(u.name, u.ref)
        elif isinstance(u, RemoveRef):
            builder.remove_ref(u.name)
        elif isinstance(u, RemoveSnapshots):
            builder.remove_snapshots(u.snapshot_ids)
        elif isinstance(u, RemoveSpecs):
            builder.remove_partition_specs(u.spec_ids)
        elif isinstance(u, RemoveSchemas):
            builder.remove_schemas(u.schema_ids)
        else:
            raise InternalError(f"unknown metadata update {u!r}")
    return builder


def _resolve(given: int, last: int | None, what: str) -> int:
    if given != LAST_ADDED:
        return given
    if last is None:
        raise InternalError(f"no {what} was added before selecting the last added one")
    return last


class Requirement:
    """A condition on the table the change was based on."""

    def check(self, md: TableMetadata, table: str) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class AssertTableUUID(Requirement):
    uuid: str | None

    def check(self, md: TableMetadata, table: str) -> None:
        if md.table_uuid != self.uuid:
            raise CommitConflictError(
                f"table {table} was replaced by another table (uuid {md.table_uuid},"
                f" expected {self.uuid}); nothing was committed"
            )


def _conflict(table: str, what: str, expected: int, actual: int) -> CommitConflictError:
    return CommitConflictError(
        f"cannot commit to table {table}: a concurrent commit changed its {what}"
        f" ({expected} -> {actual}); nothing was committed, re-run the statement"
    )


@dataclass(frozen=True)
class AssertCurrentSchemaId(Requirement):
    schema_id: int

    def check(self, md: TableMetadata, table: str) -> None:
        if md.current_schema_id != self.schema_id:
            raise _conflict(table, "current schema", self.schema_id, md.current_schema_id)


@dataclass(frozen=True)
class AssertLastAssignedFieldId(Requirement):
    last_column_id: int

    def check(self, md: TableMetadata, table: str) -> None:
        if md.last_column_id != self.last_column_id:
            raise _conflict(table, "last column id", self.last_column_id, md.last_column_id)


@dataclass(frozen=True)
class AssertDefaultSpecId(Requirement):
    spec_id: int

    def check(self, md: TableMetadata, table: str) -> None:
        if md.default_spec_id != self.spec_id:
            raise _conflict(table, "default partition spec", self.spec_id, md.default_spec_id)


@dataclass(frozen=True)
class AssertLastAssignedPartitionId(Requirement):
    last_partition_id: int

    def check(self, md: TableMetadata, table: str) -> None:
        if md.last_partition_id != self.last_partition_id:
            raise _conflict(
                table, "last partition id", self.last_partition_id, md.last_partition_id
            )


@dataclass(frozen=True)
class AssertDefaultSortOrderId(Requirement):
    order_id: int

    def check(self, md: TableMetadata, table: str) -> None:
        if md.default_sort_order_id != self.order_id:
            raise _conflict(table, "default sort order", self.order_id, md.default_sort_order_id)


@dataclass(frozen=True)
class AssertRefSnapshotId(Requirement):
    """The ref still points where it did (None: it still does not exist), as the REST
    protocol's ``assert-ref-snapshot-id``: a concurrent move of the ref fails the change."""

    name: str
    snapshot_id: int | None

    def check(self, md: TableMetadata, table: str) -> None:
        ref = md.refs.get(self.name)
        actual = ref.snapshot_id if ref is not None else None
        if actual == self.snapshot_id:
            return
        if self.snapshot_id is None:
            what = f"created ref {self.name!r} (at snapshot {actual})"
        elif actual is None:
            what = f"removed ref {self.name!r}"
        else:
            what = f"moved ref {self.name!r} ({self.snapshot_id} -> {actual})"
        raise CommitConflictError(
            f"cannot commit to table {table}: a concurrent commit {what}; nothing was"
            " committed, re-run the statement"
        )


def check_requirements(md: TableMetadata, requirements: Sequence[Requirement], table: str) -> None:
    """Raise ``CommitConflictError`` naming the first requirement ``md`` no longer meets."""
    for requirement in requirements:
        requirement.check(md, table)
