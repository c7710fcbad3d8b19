"""The REST catalog protocol's table updates: JSON both ways, and applied to metadata.

A commit in the Iceberg REST spec (``CommitTableRequest``) is a list of *requirements* (what
must still hold of the table's current metadata) and a list of *updates* (the changes, in
order). This module is that vocabulary as frozen dataclasses, one per ``action`` of the spec's
``TableUpdate`` (the requirements are in ``table_requirements``, re-exported here), so that a REST server applies what a client
sends and a REST client serializes what it commits, with one definition of each::

    >>> u = parse_update({"action": "set-properties", "updates": {"owner": "ana"}})
    >>> u
    SetPropertiesUpdate(updates={'owner': 'ana'})
    >>> u.to_json()
    {'action': 'set-properties', 'updates': {'owner': 'ana'}}

Updates are applied through ``MetadataBuilder``, which keeps the invariants Java's
``TableMetadata.Builder`` keeps (ids reused or assigned one above the highest, counters that
only grow, ``main`` moving the current snapshot). An id of ``-1`` in ``set-current-schema`` /
``set-default-spec`` / ``set-default-sort-order`` means "the one added last in this commit".
A commit that creates a table (requirement ``assert-create``, Spark's CTAS after a staged
create) starts from the table its first ``add-schema`` / ``add-spec`` / ``add-sort-order``
describe, so those get ids 0 (order 1), as Java's ``buildFromEmpty`` gives them.

Errors: a malformed or unknown update or requirement, or one that cannot apply (a snapshot
that does not exist, a downgrade) raises ``InvalidUpdateError`` (a client error: HTTP 400);
a requirement that no longer holds raises ``RequirementFailedError`` naming it (HTTP 409
``CommitFailedException``); encryption keys are refused with ``NotSupportedError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from icesql.errors import InternalError, NotSupportedError
from icesql.metadata.builder import MetadataBuilder, new_table_metadata
from icesql.metadata.snapshots import Snapshot, SnapshotRef
from icesql.metadata.statistics import PartitionStatisticsFile, StatisticsFile
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import (
    AssertCreate,
    InvalidUpdateError,
    RequirementFailedError,
    TableRequirement,
    check_table_requirements,
    parse_requirement,
    request_field,
    request_int,
    request_int_list,
    request_parsed,
    request_str_map,
)
from icesql.spec.partitioning import UNPARTITIONED_SPEC, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import UNSORTED_ORDER, SortOrder

__all__ = [
    "LAST_ADDED",
    "InvalidUpdateError",
    "RequirementFailedError",
    "TableCommit",
    "TableRequirement",
    "TableUpdate",
    "apply_table_updates",
    "check_table_requirements",
    "parse_requirement",
    "parse_update",
]

LAST_ADDED = -1
DEFAULT_FORMAT_VERSION = 2  # what Java creates when the request names none


# --------------------------------------------------------------------------------------------
# Updates
# --------------------------------------------------------------------------------------------


class _Applying:
    """The builder and the ids added so far in one commit (for the ``-1`` ids)."""

    def __init__(self, builder: MetadataBuilder, creating: bool) -> None:
        self.builder = builder
        self.creating = creating
        self.last_schema: int | None = None
        self.last_spec: int | None = None
        self.last_order: int | None = None

    def resolve(self, given: int, last: int | None, what: str) -> int:
        if given != LAST_ADDED:
            return given
        if last is None:
            raise InvalidUpdateError(f"cannot set the last added {what}: none was added")
        return last


class TableUpdate:
    """One ``TableUpdate`` of the REST spec; ``action`` is its discriminator."""

    action: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, **self._body()}

    def _body(self) -> dict[str, Any]:
        raise NotImplementedError

    def _apply(self, ctx: _Applying) -> None:
        raise NotImplementedError


_UPDATES: dict[str, Callable[[Mapping[str, Any], str], TableUpdate]] = {}


def _update(action: str):
    """Register an update class under its action; its ``_from_json(obj, what)`` parses it."""

    def register(cls):
        cls.action = action
        _UPDATES[action] = cls._from_json
        return cls

    return register


@_update("assign-uuid")
@dataclass(frozen=True)
class AssignUUIDUpdate(TableUpdate):
    uuid: str

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssignUUIDUpdate:
        return AssignUUIDUpdate(request_field(obj, "uuid", str, what))

    def _body(self) -> dict[str, Any]:
        return {"uuid": self.uuid}

    def _apply(self, ctx: _Applying) -> None:
        current = ctx.builder.raw.get("table-uuid")
        if current is not None and current != self.uuid and not ctx.creating:
            raise InvalidUpdateError(
                f"assign-uuid: the table already has uuid {current}; a uuid is never reassigned"
            )
        ctx.builder.raw["table-uuid"] = self.uuid


@_update("upgrade-format-version")
@dataclass(frozen=True)
class UpgradeFormatVersionUpdate(TableUpdate):
    format_version: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> UpgradeFormatVersionUpdate:
        return UpgradeFormatVersionUpdate(request_int(obj, "format-version", what))

    def _body(self) -> dict[str, Any]:
        return {"format-version": self.format_version}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.upgrade_format_version(self.format_version)


@_update("add-schema")
@dataclass(frozen=True)
class AddSchemaUpdate(TableUpdate):
    schema: Schema
    last_column_id: int | None = None  # deprecated in the spec; kept when a client sends it

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AddSchemaUpdate:
        schema = request_parsed(Schema.from_json, request_field(obj, "schema", dict, what), what)
        last = (
            request_int(obj, "last-column-id", what)
            if obj.get("last-column-id") is not None
            else None
        )
        return AddSchemaUpdate(schema, last)

    def _body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schema": self.schema.to_json()}
        if self.last_column_id is not None:
            out["last-column-id"] = self.last_column_id
        return out

    def _apply(self, ctx: _Applying) -> None:
        ctx.last_schema = ctx.builder.add_schema(self.schema)
        if self.last_column_id is not None:
            raw = ctx.builder.raw
            raw["last-column-id"] = max(raw["last-column-id"], self.last_column_id)


@_update("set-current-schema")
@dataclass(frozen=True)
class SetCurrentSchemaUpdate(TableUpdate):
    schema_id: int = LAST_ADDED

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetCurrentSchemaUpdate:
        return SetCurrentSchemaUpdate(request_int(obj, "schema-id", what))

    def _body(self) -> dict[str, Any]:
        return {"schema-id": self.schema_id}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.set_current_schema(ctx.resolve(self.schema_id, ctx.last_schema, "schema"))


@_update("add-spec")
@dataclass(frozen=True)
class AddPartitionSpecUpdate(TableUpdate):
    spec: PartitionSpec

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AddPartitionSpecUpdate:
        return AddPartitionSpecUpdate(
            request_parsed(PartitionSpec.from_json, request_field(obj, "spec", dict, what), what)
        )

    def _body(self) -> dict[str, Any]:
        return {"spec": self.spec.to_json()}

    def _apply(self, ctx: _Applying) -> None:
        ctx.last_spec = ctx.builder.add_partition_spec(self.spec)


@_update("set-default-spec")
@dataclass(frozen=True)
class SetDefaultSpecUpdate(TableUpdate):
    spec_id: int = LAST_ADDED

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetDefaultSpecUpdate:
        return SetDefaultSpecUpdate(request_int(obj, "spec-id", what))

    def _body(self) -> dict[str, Any]:
        return {"spec-id": self.spec_id}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.set_default_spec(ctx.resolve(self.spec_id, ctx.last_spec, "partition spec"))


@_update("add-sort-order")
@dataclass(frozen=True)
class AddSortOrderUpdate(TableUpdate):
    sort_order: SortOrder

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AddSortOrderUpdate:
        return AddSortOrderUpdate(
            request_parsed(SortOrder.from_json, request_field(obj, "sort-order", dict, what), what)
        )

    def _body(self) -> dict[str, Any]:
        return {"sort-order": self.sort_order.to_json()}

    def _apply(self, ctx: _Applying) -> None:
        ctx.last_order = ctx.builder.add_sort_order(self.sort_order)


@_update("set-default-sort-order")
@dataclass(frozen=True)
class SetDefaultSortOrderUpdate(TableUpdate):
    sort_order_id: int = LAST_ADDED

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetDefaultSortOrderUpdate:
        return SetDefaultSortOrderUpdate(request_int(obj, "sort-order-id", what))

    def _body(self) -> dict[str, Any]:
        return {"sort-order-id": self.sort_order_id}

    def _apply(self, ctx: _Applying) -> None:
        order_id = ctx.resolve(self.sort_order_id, ctx.last_order, "sort order")
        ctx.builder.set_default_sort_order(order_id)


@_update("add-snapshot")
@dataclass(frozen=True)
class AddSnapshotUpdate(TableUpdate):
    snapshot: Snapshot

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AddSnapshotUpdate:
        return AddSnapshotUpdate(
            request_parsed(Snapshot.from_json, request_field(obj, "snapshot", dict, what), what)
        )

    def _body(self) -> dict[str, Any]:
        return {"snapshot": self.snapshot.to_json()}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.add_snapshot(self.snapshot)


@_update("set-snapshot-ref")
@dataclass(frozen=True)
class SetSnapshotRefUpdate(TableUpdate):
    ref_name: str
    ref: SnapshotRef

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetSnapshotRefUpdate:
        name = request_field(obj, "ref-name", str, what)
        body = {k: v for k, v in obj.items() if k not in ("action", "ref-name")}
        return SetSnapshotRefUpdate(name, request_parsed(SnapshotRef.from_json, body, what))

    def _body(self) -> dict[str, Any]:
        return {"ref-name": self.ref_name, **self.ref.to_json()}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.set_ref(self.ref_name, self.ref)


@_update("remove-snapshots")
@dataclass(frozen=True)
class RemoveSnapshotsUpdate(TableUpdate):
    snapshot_ids: tuple[int, ...]

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemoveSnapshotsUpdate:
        return RemoveSnapshotsUpdate(request_int_list(obj, "snapshot-ids", what))

    def _body(self) -> dict[str, Any]:
        return {"snapshot-ids": list(self.snapshot_ids)}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.remove_snapshots(self.snapshot_ids)


@_update("remove-snapshot-ref")
@dataclass(frozen=True)
class RemoveSnapshotRefUpdate(TableUpdate):
    ref_name: str

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemoveSnapshotRefUpdate:
        return RemoveSnapshotRefUpdate(request_field(obj, "ref-name", str, what))

    def _body(self) -> dict[str, Any]:
        return {"ref-name": self.ref_name}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.remove_ref(self.ref_name)


@_update("set-location")
@dataclass(frozen=True)
class SetLocationUpdate(TableUpdate):
    location: str

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetLocationUpdate:
        return SetLocationUpdate(request_field(obj, "location", str, what))

    def _body(self) -> dict[str, Any]:
        return {"location": self.location}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.set_location(self.location)


@_update("set-properties")
@dataclass(frozen=True)
class SetPropertiesUpdate(TableUpdate):
    updates: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetPropertiesUpdate:
        return SetPropertiesUpdate(request_str_map(obj, "updates", what))

    def _body(self) -> dict[str, Any]:
        return {"updates": dict(self.updates)}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.set_properties(self.updates)


@_update("remove-properties")
@dataclass(frozen=True)
class RemovePropertiesUpdate(TableUpdate):
    removals: tuple[str, ...]

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemovePropertiesUpdate:
        removals = request_field(obj, "removals", list, what)
        if not all(isinstance(k, str) for k in removals):
            raise InvalidUpdateError(f"{what}: field 'removals' must be a list of strings")
        return RemovePropertiesUpdate(tuple(removals))

    def _body(self) -> dict[str, Any]:
        return {"removals": list(self.removals)}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.remove_properties(self.removals)


@_update("set-statistics")
@dataclass(frozen=True)
class SetStatisticsUpdate(TableUpdate):
    statistics: StatisticsFile

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetStatisticsUpdate:
        stats = request_field(obj, "statistics", dict, what)
        return SetStatisticsUpdate(request_parsed(StatisticsFile.from_json, stats, what))

    def _body(self) -> dict[str, Any]:
        # the deprecated top-level snapshot-id is still written: older servers require it
        return {"snapshot-id": self.statistics.snapshot_id, "statistics": self.statistics.to_json()}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.set_statistics(self.statistics)


@_update("remove-statistics")
@dataclass(frozen=True)
class RemoveStatisticsUpdate(TableUpdate):
    snapshot_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemoveStatisticsUpdate:
        return RemoveStatisticsUpdate(request_int(obj, "snapshot-id", what))

    def _body(self) -> dict[str, Any]:
        return {"snapshot-id": self.snapshot_id}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.remove_statistics(self.snapshot_id)


@_update("set-partition-statistics")
@dataclass(frozen=True)
class SetPartitionStatisticsUpdate(TableUpdate):
    partition_statistics: PartitionStatisticsFile

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetPartitionStatisticsUpdate:
        stats = request_field(obj, "partition-statistics", dict, what)
        return SetPartitionStatisticsUpdate(
            request_parsed(PartitionStatisticsFile.from_json, stats, what)
        )

    def _body(self) -> dict[str, Any]:
        return {"partition-statistics": self.partition_statistics.to_json()}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.set_partition_statistics(self.partition_statistics)


@_update("remove-partition-statistics")
@dataclass(frozen=True)
class RemovePartitionStatisticsUpdate(TableUpdate):
    snapshot_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemovePartitionStatisticsUpdate:
        return RemovePartitionStatisticsUpdate(request_int(obj, "snapshot-id", what))

    def _body(self) -> dict[str, Any]:
        return {"snapshot-id": self.snapshot_id}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.remove_partition_statistics(self.snapshot_id)


@_update("remove-partition-specs")
@dataclass(frozen=True)
class RemovePartitionSpecsUpdate(TableUpdate):
    spec_ids: tuple[int, ...]

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemovePartitionSpecsUpdate:
        return RemovePartitionSpecsUpdate(request_int_list(obj, "spec-ids", what))

    def _body(self) -> dict[str, Any]:
        return {"spec-ids": list(self.spec_ids)}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.remove_partition_specs(self.spec_ids)


@_update("remove-schemas")
@dataclass(frozen=True)
class RemoveSchemasUpdate(TableUpdate):
    schema_ids: tuple[int, ...]

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemoveSchemasUpdate:
        return RemoveSchemasUpdate(request_int_list(obj, "schema-ids", what))

    def _body(self) -> dict[str, Any]:
        return {"schema-ids": list(self.schema_ids)}

    def _apply(self, ctx: _Applying) -> None:
        ctx.builder.remove_schemas(self.schema_ids)


_REFUSED_UPDATES = {
    "add-encryption-key": "encrypted tables are not supported by icesql",
    "remove-encryption-key": "encrypted tables are not supported by icesql",
    "add-view-version": "views are not supported by icesql",
    "set-current-view-version": "views are not supported by icesql",
}


def parse_update(obj: Any) -> TableUpdate:
    """The ``TableUpdate`` a JSON object describes (``InvalidUpdateError`` if none)."""
    if not isinstance(obj, Mapping):
        raise InvalidUpdateError(f"a table update must be a JSON object, got {obj!r}")
    action = obj.get("action")
    if action in _REFUSED_UPDATES:
        raise NotSupportedError(f"table update {action!r}: {_REFUSED_UPDATES[action]}")
    parse = _UPDATES.get(action) if isinstance(action, str) else None
    if parse is None:
        raise InvalidUpdateError(f"unknown table update action {action!r}")
    return parse(obj, f"table update {action!r}")


# --------------------------------------------------------------------------------------------
# A commit, and applying one
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableCommit:
    """A ``CommitTableRequest``: the table (optional on the per-table route), what must hold,
    and what changes."""

    identifier: tuple[str, ...] | None
    requirements: tuple[TableRequirement, ...] = ()
    updates: tuple[TableUpdate, ...] = ()

    @property
    def creates(self) -> bool:
        """Whether this commit creates its table (``assert-create``)."""
        return any(isinstance(r, AssertCreate) for r in self.requirements)

    @staticmethod
    def from_json(obj: Any) -> TableCommit:
        if not isinstance(obj, Mapping):
            raise InvalidUpdateError(f"a table commit must be a JSON object, got {obj!r}")
        for key in ("requirements", "updates"):
            if not isinstance(obj.get(key), list):
                raise InvalidUpdateError(f"a table commit needs a list of {key}")
        ident = obj.get("identifier")
        identifier = None
        if ident is not None:
            namespace = ident.get("namespace") if isinstance(ident, Mapping) else None
            name = ident.get("name") if isinstance(ident, Mapping) else None
            if not (
                isinstance(namespace, list)
                and all(isinstance(p, str) for p in namespace)
                and isinstance(name, str)
            ):
                raise InvalidUpdateError(f"invalid table identifier {ident!r}")
            identifier = (*namespace, name)
        return TableCommit(
            identifier,
            tuple(parse_requirement(r) for r in obj["requirements"]),
            tuple(parse_update(u) for u in obj["updates"]),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.identifier is not None:
            out["identifier"] = {
                "namespace": list(self.identifier[:-1]),
                "name": self.identifier[-1],
            }
        out["requirements"] = [r.to_json() for r in self.requirements]
        out["updates"] = [u.to_json() for u in self.updates]
        return out


def apply_table_updates(
    base: TableMetadata | None,
    updates: Sequence[TableUpdate],
    previous_metadata_file: str | None = None,
    location: str | None = None,
) -> TableMetadata:
    """The metadata after ``updates``, in order, on ``base``; with ``base`` None, a new table
    built from the updates (``location`` when they set none)."""
    try:
        creating = base is None
        if creating:
            base = _empty_table(updates, location)
        ctx = _Applying(base.builder(), creating)
        for update in updates:
            update._apply(ctx)
        return ctx.builder.build(previous_metadata_file=previous_metadata_file)
    except (InternalError, ValueError, TypeError, KeyError) as e:
        raise InvalidUpdateError(f"cannot apply the table updates: {e}") from None


def _empty_table(updates: Sequence[TableUpdate], location: str | None) -> TableMetadata:
    """The table the first schema, spec and order of a creating commit describe (ids 0, and
    1 for a sort order), so that applying the updates to it finds them and changes nothing."""

    def first(kind: type) -> Any:
        return next((u for u in updates if isinstance(u, kind)), None)

    schema = first(AddSchemaUpdate)
    if schema is None:
        raise InvalidUpdateError("a commit that creates a table needs an add-schema update")
    spec, order = first(AddPartitionSpecUpdate), first(AddSortOrderUpdate)
    version, uuid = first(UpgradeFormatVersionUpdate), first(AssignUUIDUpdate)
    set_location = [u for u in updates if isinstance(u, SetLocationUpdate)]
    where = set_location[-1].location if set_location else location
    if where is None:
        raise InvalidUpdateError("a commit that creates a table needs a set-location update")
    return new_table_metadata(
        where,
        Schema(schema.schema.fields, 0, schema.schema.identifier_field_ids),
        PartitionSpec(0, spec.spec.fields) if spec else UNPARTITIONED_SPEC,
        SortOrder(0, order.sort_order.fields) if order else UNSORTED_ORDER,
        format_version=version.format_version if version else DEFAULT_FORMAT_VERSION,
        table_uuid=uuid.uuid if uuid else None,
    )
