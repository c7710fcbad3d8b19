"""Metadata updates: one frozen dataclass per ``action`` of the REST spec's ``TableUpdate``.

The one vocabulary of metadata changes. A statement states *what* it changes as these
(``icesql.write.snapshot.Change.updates``); ``MetadataBuilder`` applies them (``apply_to``)
and records every change it makes as one of them (``MetadataBuilder.changes``, Java's
``TableMetadata.Builder.changes()``); the REST client sends the recorded ones; the REST
server parses what a client sends (``parse_update``) and applies it through the same
builder. JSON goes both ways in the spec's shape::

    >>> u = parse_update({"action": "set-properties", "updates": {"owner": "ana"}})
    >>> u
    SetPropertiesUpdate(updates={'owner': 'ana'})
    >>> u.to_json()
    {'action': 'set-properties', 'updates': {'owner': 'ana'}}

An id of ``-1`` (``LAST_ADDED``) in ``set-current-schema`` / ``set-default-spec`` /
``set-default-sort-order`` means "the one added last in this change": ids are only known
once applied, and a server may assign other ids than the client would.

Errors: a malformed or unknown update raises ``InvalidUpdateError`` (a client error: HTTP
400); encryption keys and views are refused with ``NotSupportedError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from icesql.errors import InternalError, NotSupportedError, ProgrammingError
from icesql.metadata.snapshots import Snapshot, SnapshotRef
from icesql.metadata.statistics import PartitionStatisticsFile, StatisticsFile
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder

if TYPE_CHECKING:
    from icesql.metadata.builder import MetadataBuilder

__all__ = [
    "LAST_ADDED",
    "AddPartitionSpecUpdate",
    "AddSchemaUpdate",
    "AddSnapshotUpdate",
    "AddSortOrderUpdate",
    "AssignUUIDUpdate",
    "InvalidUpdateError",
    "RemovePartitionSpecsUpdate",
    "RemovePartitionStatisticsUpdate",
    "RemovePropertiesUpdate",
    "RemoveSchemasUpdate",
    "RemoveSnapshotRefUpdate",
    "RemoveSnapshotsUpdate",
    "RemoveStatisticsUpdate",
    "SetCurrentSchemaUpdate",
    "SetDefaultSortOrderUpdate",
    "SetDefaultSpecUpdate",
    "SetLocationUpdate",
    "SetPartitionStatisticsUpdate",
    "SetPropertiesUpdate",
    "SetSnapshotRefUpdate",
    "SetStatisticsUpdate",
    "TableUpdate",
    "UpgradeFormatVersionUpdate",
    "parse_update",
]

LAST_ADDED = -1


class InvalidUpdateError(ProgrammingError):
    """An update or requirement that is malformed, unknown, or cannot apply to the table."""


# --------------------------------------------------------------------------------------------
# JSON field readers that name the update and the key (shared with table_requirements)
# --------------------------------------------------------------------------------------------


def request_field(
    obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str
) -> Any:
    if key not in obj:
        raise InvalidUpdateError(f"{what}: missing required field {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise InvalidUpdateError(f"{what}: field {key!r} has the wrong type: {value!r}")
    return value


def request_int(obj: Mapping[str, Any], key: str, what: str) -> int:
    value = request_field(obj, key, int, what)
    if isinstance(value, bool):
        raise InvalidUpdateError(f"{what}: field {key!r} must be an integer, got {value!r}")
    return int(value)


def request_int_list(obj: Mapping[str, Any], key: str, what: str) -> tuple[int, ...]:
    values = request_field(obj, key, list, what)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise InvalidUpdateError(f"{what}: field {key!r} must be a list of integers")
    return tuple(values)


def request_str_map(obj: Mapping[str, Any], key: str, what: str) -> dict[str, str]:
    values = request_field(obj, key, dict, what)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
        raise InvalidUpdateError(f"{what}: field {key!r} must map strings to strings")
    return dict(values)


_Parsed = TypeVar("_Parsed")


def request_parsed(parse: Callable[[Any], _Parsed], obj: Any, what: str) -> _Parsed:
    """A nested spec object (schema, snapshot, ...) parsed by its own model."""
    try:
        return parse(obj)
    except InvalidUpdateError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, ProgrammingError) as e:
        raise InvalidUpdateError(f"{what}: {e}") from None
    except NotSupportedError as e:  # an unknown type name: the request's mistake, not ours
        raise InvalidUpdateError(f"{what}: {e}") from None


# --------------------------------------------------------------------------------------------
# Updates
# --------------------------------------------------------------------------------------------


class TableUpdate:
    """One ``TableUpdate`` of the REST spec; ``action`` is its discriminator."""

    action: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, **self._body()}

    def _body(self) -> dict[str, Any]:
        raise NotImplementedError

    def apply_to(self, builder: MetadataBuilder) -> None:
        """Make this change on ``builder`` (which records it)."""
        raise InternalError(f"unknown metadata update {self!r}")


_Update = TypeVar("_Update", bound=type[TableUpdate])
_UPDATES: dict[str, Callable[[Mapping[str, Any], str], TableUpdate]] = {}


def _update(action: str) -> Callable[[_Update], _Update]:
    """Register an update class under its action; its ``_from_json(obj, what)`` parses it."""

    def register(cls: _Update) -> _Update:
        cls.action = action
        _UPDATES[action] = cls._from_json  # type: ignore[attr-defined]
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

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.assign_uuid(self.uuid)


@_update("upgrade-format-version")
@dataclass(frozen=True)
class UpgradeFormatVersionUpdate(TableUpdate):
    format_version: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> UpgradeFormatVersionUpdate:
        return UpgradeFormatVersionUpdate(request_int(obj, "format-version", what))

    def _body(self) -> dict[str, Any]:
        return {"format-version": self.format_version}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.upgrade_format_version(self.format_version)


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

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.add_schema(self.schema, self.last_column_id)


@_update("set-current-schema")
@dataclass(frozen=True)
class SetCurrentSchemaUpdate(TableUpdate):
    schema_id: int = LAST_ADDED

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetCurrentSchemaUpdate:
        return SetCurrentSchemaUpdate(request_int(obj, "schema-id", what))

    def _body(self) -> dict[str, Any]:
        return {"schema-id": self.schema_id}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_current_schema(self.schema_id)


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

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.add_partition_spec(self.spec)


@_update("set-default-spec")
@dataclass(frozen=True)
class SetDefaultSpecUpdate(TableUpdate):
    spec_id: int = LAST_ADDED

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetDefaultSpecUpdate:
        return SetDefaultSpecUpdate(request_int(obj, "spec-id", what))

    def _body(self) -> dict[str, Any]:
        return {"spec-id": self.spec_id}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_default_spec(self.spec_id)


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

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.add_sort_order(self.sort_order)


@_update("set-default-sort-order")
@dataclass(frozen=True)
class SetDefaultSortOrderUpdate(TableUpdate):
    sort_order_id: int = LAST_ADDED

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetDefaultSortOrderUpdate:
        return SetDefaultSortOrderUpdate(request_int(obj, "sort-order-id", what))

    def _body(self) -> dict[str, Any]:
        return {"sort-order-id": self.sort_order_id}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_default_sort_order(self.sort_order_id)


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

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.add_snapshot(self.snapshot)


# the spec's fields of a ref (a ref read from a table may carry extra keys of its own)
_REF_FIELDS = (
    "snapshot-id",
    "type",
    "min-snapshots-to-keep",
    "max-snapshot-age-ms",
    "max-ref-age-ms",
)


@_update("set-snapshot-ref")
@dataclass(frozen=True)
class SetSnapshotRefUpdate(TableUpdate):
    """Point a branch or tag at a snapshot with its retention settings (moving ``main``
    makes its snapshot current)."""

    ref_name: str
    ref: SnapshotRef

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetSnapshotRefUpdate:
        name = request_field(obj, "ref-name", str, what)
        body = {k: v for k, v in obj.items() if k not in ("action", "ref-name")}
        return SetSnapshotRefUpdate(name, request_parsed(SnapshotRef.from_json, body, what))

    def _body(self) -> dict[str, Any]:
        ref = self.ref.to_json()
        return {"ref-name": self.ref_name, **{k: ref[k] for k in _REF_FIELDS if k in ref}}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_ref(self.ref_name, self.ref)


@_update("remove-snapshots")
@dataclass(frozen=True)
class RemoveSnapshotsUpdate(TableUpdate):
    """Expire snapshots: they leave ``snapshots`` with their statistics files, and the
    snapshot log forgets the history before them."""

    snapshot_ids: tuple[int, ...]

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemoveSnapshotsUpdate:
        return RemoveSnapshotsUpdate(request_int_list(obj, "snapshot-ids", what))

    def _body(self) -> dict[str, Any]:
        return {"snapshot-ids": list(self.snapshot_ids)}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.remove_snapshots(self.snapshot_ids)


@_update("remove-snapshot-ref")
@dataclass(frozen=True)
class RemoveSnapshotRefUpdate(TableUpdate):
    """Drop a branch or tag; dropping ``main`` leaves the table without a current snapshot
    (what a REPLACE TABLE does before its first snapshot)."""

    ref_name: str

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemoveSnapshotRefUpdate:
        return RemoveSnapshotRefUpdate(request_field(obj, "ref-name", str, what))

    def _body(self) -> dict[str, Any]:
        return {"ref-name": self.ref_name}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.remove_ref(self.ref_name)


@_update("set-location")
@dataclass(frozen=True)
class SetLocationUpdate(TableUpdate):
    location: str

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetLocationUpdate:
        return SetLocationUpdate(request_field(obj, "location", str, what))

    def _body(self) -> dict[str, Any]:
        return {"location": self.location}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_location(self.location)


@_update("set-properties")
@dataclass(frozen=True)
class SetPropertiesUpdate(TableUpdate):
    updates: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> SetPropertiesUpdate:
        return SetPropertiesUpdate(request_str_map(obj, "updates", what))

    def _body(self) -> dict[str, Any]:
        return {"updates": dict(self.updates)}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_properties(self.updates)


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

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.remove_properties(self.removals)


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

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_statistics(self.statistics)


@_update("remove-statistics")
@dataclass(frozen=True)
class RemoveStatisticsUpdate(TableUpdate):
    snapshot_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemoveStatisticsUpdate:
        return RemoveStatisticsUpdate(request_int(obj, "snapshot-id", what))

    def _body(self) -> dict[str, Any]:
        return {"snapshot-id": self.snapshot_id}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.remove_statistics(self.snapshot_id)


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

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.set_partition_statistics(self.partition_statistics)


@_update("remove-partition-statistics")
@dataclass(frozen=True)
class RemovePartitionStatisticsUpdate(TableUpdate):
    snapshot_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemovePartitionStatisticsUpdate:
        return RemovePartitionStatisticsUpdate(request_int(obj, "snapshot-id", what))

    def _body(self) -> dict[str, Any]:
        return {"snapshot-id": self.snapshot_id}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.remove_partition_statistics(self.snapshot_id)


@_update("remove-partition-specs")
@dataclass(frozen=True)
class RemovePartitionSpecsUpdate(TableUpdate):
    """Drop partition specs no manifest of a kept snapshot uses (never the default one)."""

    spec_ids: tuple[int, ...]

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemovePartitionSpecsUpdate:
        return RemovePartitionSpecsUpdate(request_int_list(obj, "spec-ids", what))

    def _body(self) -> dict[str, Any]:
        return {"spec-ids": list(self.spec_ids)}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.remove_partition_specs(self.spec_ids)


@_update("remove-schemas")
@dataclass(frozen=True)
class RemoveSchemasUpdate(TableUpdate):
    """Drop schemas no kept snapshot was written with (never the current one)."""

    schema_ids: tuple[int, ...]

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> RemoveSchemasUpdate:
        return RemoveSchemasUpdate(request_int_list(obj, "schema-ids", what))

    def _body(self) -> dict[str, Any]:
        return {"schema-ids": list(self.schema_ids)}

    def apply_to(self, builder: MetadataBuilder) -> None:
        builder.remove_schemas(self.schema_ids)


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
    if action is not None and not isinstance(action, str):
        raise InvalidUpdateError(
            f"a table update's field 'action' must be a string, got {action!r}"
        )
    if action in _REFUSED_UPDATES:
        raise NotSupportedError(f"table update {action!r}: {_REFUSED_UPDATES[action]}")
    parse = _UPDATES.get(action) if action is not None else None
    if parse is None:
        raise InvalidUpdateError(f"unknown table update action {action!r}")
    return parse(obj, f"table update {action!r}")
