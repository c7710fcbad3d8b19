"""Building the next table metadata document, as Java's ``TableMetadata.Builder`` does.

The builder edits a deep copy of the base document, so everything it does not touch
(unknown fields and properties included) is carried over unchanged. Each operation keeps
the invariants the reference implementation keeps: ids of equal schemas/specs/orders are
reused and new ones are one above the highest, ``last-column-id`` / ``last-partition-id``
/ ``last-sequence-number`` / ``next-row-id`` only grow, moving ``main`` moves
``current-snapshot-id`` and appends to the snapshot log, and ``build`` records the previous
metadata file and drops snapshot-log history from before an expired snapshot::

    md2 = (md.builder()
              .add_snapshot(snapshot)
              .set_branch_snapshot("main", snapshot.snapshot_id)
              .build(previous_metadata_file=md.path))

Every change the builder makes is recorded as a ``TableUpdate`` (``changes``; the built
metadata's ``changes``), as Java's ``TableMetadata.Builder.changes()``: a REST catalog is
sent those instead of a whole document, so a commit whose requirements still hold lands on
the server's newer version as it was meant. Operations that change nothing record nothing.
An id of ``LAST_ADDED`` (-1) selects the schema, spec or sort order added last, and is
recorded so when it names one this builder added (a server may number it differently).
"""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from icesql.errors import InternalError
from icesql.metadata.snapshots import MAIN_BRANCH, Snapshot, SnapshotRef
from icesql.metadata.statistics import PartitionStatisticsFile, StatisticsFile
from icesql.metadata.table_metadata import (
    PARTITION_DATA_ID_START,
    SUPPORTED_FORMAT_VERSIONS,
    TableMetadata,
)
from icesql.metadata.table_updates import (
    LAST_ADDED,
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    AddSnapshotUpdate,
    AddSortOrderUpdate,
    AssignUUIDUpdate,
    RemovePartitionSpecsUpdate,
    RemovePartitionStatisticsUpdate,
    RemovePropertiesUpdate,
    RemoveSchemasUpdate,
    RemoveSnapshotRefUpdate,
    RemoveSnapshotsUpdate,
    RemoveStatisticsUpdate,
    SetCurrentSchemaUpdate,
    SetDefaultSortOrderUpdate,
    SetDefaultSpecUpdate,
    SetLocationUpdate,
    SetPartitionStatisticsUpdate,
    SetPropertiesUpdate,
    SetSnapshotRefUpdate,
    SetStatisticsUpdate,
    TableUpdate,
    UpgradeFormatVersionUpdate,
)
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder

__all__ = ["MetadataBuilder", "new_table_metadata"]

PREVIOUS_VERSIONS_MAX = "write.metadata.previous-versions-max"
DEFAULT_PREVIOUS_VERSIONS_MAX = 100
MIN_NULL_CURRENT_SNAPSHOT_VERSION = 3  # from v3 on, "no current snapshot" is JSON null
_ADDED_KINDS = ("schema", "partition spec", "sort order")  # what LAST_ADDED can select


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def new_table_metadata(
    location: str,
    schema: Schema,
    spec: PartitionSpec | None = None,
    sort_order: SortOrder | None = None,
    properties: Mapping[str, str] | None = None,
    format_version: int = 2,
    table_uuid: str | None = None,
    last_updated_ms: int | None = None,
) -> TableMetadata:
    """The metadata of a new, empty table, with every field its format version requires,
    in the key order Java writes. Ids are taken as given (schema 0, spec 0, and sort order
    1 unless unsorted): assign fresh field ids before calling. Its ``changes`` are the
    updates that create it from nothing, as Java's ``newTableMetadata`` records them."""
    if format_version not in SUPPORTED_FORMAT_VERSIONS:
        raise InternalError(f"cannot create a table of format version {format_version}")
    spec = spec or PartitionSpec(0, ())
    sort_order = sort_order or SortOrder(0, ())
    schema_json = {**schema.to_json(), "schema-id": 0}
    spec_json = {**spec.to_json(), "spec-id": 0}
    order_json = {**sort_order.to_json(), "order-id": 0 if sort_order.is_unsorted() else 1}
    raw: dict[str, Any] = {
        "format-version": format_version,
        "table-uuid": table_uuid or str(uuid.uuid4()),
        "location": location,
    }
    if format_version > 1:
        raw["last-sequence-number"] = 0
    raw["last-updated-ms"] = last_updated_ms if last_updated_ms is not None else _now_ms()
    raw["last-column-id"] = schema.highest_field_id()
    if format_version == 1:
        raw["schema"] = schema_json
    raw["current-schema-id"] = 0
    raw["schemas"] = [schema_json]
    if format_version == 1:
        raw["partition-spec"] = spec_json["fields"]
    raw["default-spec-id"] = 0
    raw["partition-specs"] = [spec_json]
    raw["last-partition-id"] = max(
        (f.field_id for f in spec.fields), default=PARTITION_DATA_ID_START - 1
    )
    raw["default-sort-order-id"] = order_json["order-id"]
    raw["sort-orders"] = [order_json]
    raw["properties"] = dict(properties or {})
    raw["current-snapshot-id"] = None if format_version >= MIN_NULL_CURRENT_SNAPSHOT_VERSION else -1
    if format_version >= 3:
        raw["next-row-id"] = 0
    raw["refs"] = {}
    raw["snapshots"] = []
    raw["statistics"] = []
    raw["partition-statistics"] = []
    raw["snapshot-log"] = []
    raw["metadata-log"] = []
    changes: list[TableUpdate] = [
        AssignUUIDUpdate(raw["table-uuid"]),
        UpgradeFormatVersionUpdate(format_version),
        AddSchemaUpdate(Schema.from_json(schema_json)),
        SetCurrentSchemaUpdate(LAST_ADDED),
        AddPartitionSpecUpdate(PartitionSpec.from_json(spec_json)),
        SetDefaultSpecUpdate(LAST_ADDED),
        AddSortOrderUpdate(SortOrder.from_json(order_json)),
        SetDefaultSortOrderUpdate(LAST_ADDED),
        SetLocationUpdate(location),
    ]
    if raw["properties"]:
        changes.append(SetPropertiesUpdate(dict(raw["properties"])))
    return TableMetadata(raw, changes=changes)


class MetadataBuilder:
    """Accumulates changes to a copy of ``base.raw``; ``build`` returns the new metadata.

    ``changes`` starts with the base's own (those of a version not yet committed, such as a
    new table's) and records each change made here."""

    def __init__(self, base: TableMetadata):
        self.base = base
        self.raw: dict[str, Any] = copy.deepcopy(dict(base.raw))
        self.format_version = base.format_version
        self.changes: list[TableUpdate] = list(base.changes)
        self._added_snapshots: dict[int, Snapshot] = {}
        self._last_updated_ms: int | None = None
        self._legacy_dirty = False
        # the schema, spec and order added last (found or new), and the ids new here
        self._last_added: dict[str, int] = {}
        self._new_ids: dict[str, set[int]] = {k: set() for k in _ADDED_KINDS}

    def apply(self, updates: Iterable[TableUpdate]) -> MetadataBuilder:
        """Make ``updates``, in order (each records itself)."""
        for update in updates:
            update.apply_to(self)
        return self

    # --- helpers -----------------------------------------------------------------------------

    def _view(self) -> TableMetadata:
        """The document so far, as a (validated) metadata view."""
        return TableMetadata(self.raw, self.base.path)

    def _list(self, key: str) -> list[Any]:
        value = self.raw.get(key)
        if value is None:
            value = self.raw[key] = []
        return value

    def _no_current_snapshot(self) -> int | None:
        return None if self.format_version >= MIN_NULL_CURRENT_SNAPSHOT_VERSION else -1

    def _added(self, what: str, found: int, new: bool) -> int:
        self._last_added[what] = found
        if new:
            self._new_ids[what].add(found)
        return found

    def _resolve(self, given: int, what: str) -> tuple[int, int]:
        """The id ``given`` selects, and the id to record for it (``LAST_ADDED`` when it is
        one this builder added last)."""
        last = self._last_added.get(what)
        if given == LAST_ADDED:
            if last is None:
                raise InternalError(
                    f"cannot set the last added {what}: none was added"
                    f" (no {what} was added before selecting the last added one)"
                )
            given = last
        recorded = LAST_ADDED if given == last and given in self._new_ids[what] else given
        return given, recorded

    # --- simple settings ---------------------------------------------------------------------

    def set_properties(self, updates: Mapping[str, str]) -> MetadataBuilder:
        props = self.raw.setdefault("properties", {})
        for key, value in updates.items():
            if not isinstance(value, str):
                raise InternalError(f"table property {key!r} must be a string, got {value!r}")
            props[key] = value
        if updates:
            self.changes.append(SetPropertiesUpdate(dict(updates)))
        return self

    def remove_properties(self, keys: Iterable[str]) -> MetadataBuilder:
        props = self.raw.setdefault("properties", {})
        removals = tuple(keys)
        for key in removals:
            props.pop(key, None)
        if removals:
            self.changes.append(RemovePropertiesUpdate(removals))
        return self

    def set_location(self, location: str) -> MetadataBuilder:
        if self.raw.get("location") != location:
            self.raw["location"] = location
            self.changes.append(SetLocationUpdate(location))
        return self

    def assign_uuid(self, table_uuid: str) -> MetadataBuilder:
        """Give the table its uuid; a table that has one keeps it (Java refuses too)."""
        current = self.raw.get("table-uuid")
        if current == table_uuid:
            return self
        if current is not None:
            raise InternalError(
                f"assign-uuid: the table already has uuid {current}; a uuid is never reassigned"
            )
        self.raw["table-uuid"] = table_uuid
        self.changes.append(AssignUUIDUpdate(table_uuid))
        return self

    def upgrade_format_version(self, version: int) -> MetadataBuilder:
        """Upgrade (never downgrade): v2 adds the lists and counters v1 left optional,
        v3 starts ``next-row-id`` at 0; legacy v1 ``schema``/``partition-spec`` go away."""
        if version < self.format_version or version not in SUPPORTED_FORMAT_VERSIONS:
            raise InternalError(f"cannot change format version {self.format_version} to {version}")
        if version == self.format_version:
            return self
        view = self._view()
        raw = self.raw
        raw["format-version"] = version
        if self.format_version == 1:
            raw.setdefault("table-uuid", str(uuid.uuid4()))
            raw["last-sequence-number"] = 0
            raw["current-schema-id"] = view.current_schema_id
            raw["schemas"] = [s.to_json() for s in view.schemas]
            raw["partition-specs"] = view.specs_json
            raw["default-spec-id"] = view.default_spec_id
            raw["last-partition-id"] = view.last_partition_id
            raw["sort-orders"] = view.sort_orders_json
            raw["default-sort-order-id"] = view.default_sort_order_id
            raw.pop("schema", None)
            raw.pop("partition-spec", None)
        if version >= 3 and raw.get("next-row-id") is None:
            raw["next-row-id"] = 0
        if version >= MIN_NULL_CURRENT_SNAPSHOT_VERSION and raw.get("current-snapshot-id") == -1:
            raw["current-snapshot-id"] = None
        self.format_version = version
        self.changes.append(UpgradeFormatVersionUpdate(version))
        return self

    # --- schemas, specs, sort orders ---------------------------------------------------------

    def add_schema(self, schema: Schema, last_column_id: int | None = None) -> int:
        """Add a schema (or find an equal one) and return its id; does not make it current.
        ``last_column_id`` (a client's, deprecated) raises the table's when higher."""
        new_id = self._add_schema(schema)
        if last_column_id is not None:
            self.raw["last-column-id"] = max(self.raw["last-column-id"], last_column_id)
        return new_id

    def _add_schema(self, schema: Schema) -> int:
        for existing in self._view().schemas:
            if (existing.fields, existing.identifier_field_ids) == (
                schema.fields,
                schema.identifier_field_ids,
            ):
                return self._added("schema", existing.schema_id, new=False)
        schemas = self._list("schemas") if "schemas" in self.raw else None
        view = self._view()
        if schemas is None:  # a v1 document with only "schema"
            schemas = self.raw["schemas"] = [s.to_json() for s in view.schemas]
            self.raw.setdefault("current-schema-id", view.current_schema_id)
        new_id = max(s.schema_id for s in view.schemas) + 1
        schemas.append({**schema.to_json(), "schema-id": new_id})
        self.raw["last-column-id"] = max(view.last_column_id, schema.highest_field_id())
        self.changes.append(
            AddSchemaUpdate(Schema(schema.fields, new_id, schema.identifier_field_ids))
        )
        return self._added("schema", new_id, new=True)

    def set_current_schema(self, schema_id: int) -> MetadataBuilder:
        """Make a schema current (``LAST_ADDED``: the one added last)."""
        schema_id, recorded = self._resolve(schema_id, "schema")
        view = self._view()
        if view.schema_by_id(schema_id) is None:
            raise InternalError(f"cannot set current schema to unknown schema {schema_id}")
        self._legacy_dirty = True
        if view.current_schema_id != schema_id:
            self.changes.append(SetCurrentSchemaUpdate(recorded))
        self.raw["current-schema-id"] = schema_id
        return self

    def add_partition_spec(self, spec: PartitionSpec) -> int:
        """Add a spec (or find one with the same fields) and return its id."""
        view = self._view()
        specs = [PartitionSpec.from_json(s) for s in view.specs_json]
        for existing in specs:
            if existing.fields == spec.fields:
                return self._added("partition spec", existing.spec_id, new=False)
        if "partition-specs" not in self.raw:
            self.raw["partition-specs"] = view.specs_json
            self.raw.setdefault("default-spec-id", view.default_spec_id)
        new_id = max(s.spec_id for s in specs) + 1
        self.raw["partition-specs"].append({**spec.to_json(), "spec-id": new_id})
        self.raw["last-partition-id"] = max(view.last_partition_id, spec.last_assigned_field_id)
        self.changes.append(AddPartitionSpecUpdate(PartitionSpec(new_id, spec.fields)))
        return self._added("partition spec", new_id, new=True)

    def set_default_spec(self, spec_id: int) -> MetadataBuilder:
        """Make a spec the default (``LAST_ADDED``: the one added last)."""
        spec_id, recorded = self._resolve(spec_id, "partition spec")
        view = self._view()
        if view.spec_json_by_id(spec_id) is None:
            raise InternalError(f"cannot set default spec to unknown spec {spec_id}")
        self._legacy_dirty = True
        if view.default_spec_id != spec_id:
            self.changes.append(SetDefaultSpecUpdate(recorded))
        self.raw["default-spec-id"] = spec_id
        return self

    def add_sort_order(self, order: SortOrder) -> int:
        """Add a sort order (or find one with the same fields) and return its id; the
        unsorted order is always id 0."""
        orders = [SortOrder.from_json(o) for o in self._view().sort_orders_json]
        for existing in orders:
            if existing.fields == order.fields:
                return self._added("sort order", existing.order_id, new=False)
        if order.is_unsorted():
            new_id = 0
        else:
            new_id = max([o.order_id for o in orders] + [0]) + 1
        if "sort-orders" not in self.raw:
            self.raw["sort-orders"] = self._view().sort_orders_json
        self.raw["sort-orders"].append({**order.to_json(), "order-id": new_id})
        self.changes.append(AddSortOrderUpdate(SortOrder(new_id, order.fields)))
        return self._added("sort order", new_id, new=True)

    def set_default_sort_order(self, order_id: int) -> MetadataBuilder:
        """Make a sort order the default (``LAST_ADDED``: the one added last)."""
        order_id, recorded = self._resolve(order_id, "sort order")
        view = self._view()
        if view.sort_order_by_id(order_id) is None:
            raise InternalError(f"cannot set default sort order to unknown order {order_id}")
        if view.default_sort_order_id != order_id:
            self.changes.append(SetDefaultSortOrderUpdate(recorded))
        self.raw["default-sort-order-id"] = order_id
        return self

    def remove_schemas(self, schema_ids: Iterable[int]) -> MetadataBuilder:
        """Drop unused schemas; the current one cannot go (Java refuses it too)."""
        ids = tuple(schema_ids)
        view = self._view()
        if view.current_schema_id in ids:
            raise InternalError(f"cannot remove the current schema {view.current_schema_id}")
        if "schemas" in self.raw:
            self.raw["schemas"] = [s for s in self.raw["schemas"] if s["schema-id"] not in ids]
        removed = _present(ids, {s.schema_id for s in view.schemas})
        if removed:
            self.changes.append(RemoveSchemasUpdate(removed))
        return self

    def remove_partition_specs(self, spec_ids: Iterable[int]) -> MetadataBuilder:
        """Drop unused partition specs; the default one cannot go."""
        ids = tuple(spec_ids)
        view = self._view()
        if view.default_spec_id in ids:
            raise InternalError(f"cannot remove the default partition spec {view.default_spec_id}")
        if "partition-specs" in self.raw:
            specs = self.raw["partition-specs"]
            self.raw["partition-specs"] = [s for s in specs if s["spec-id"] not in ids]
        removed = _present(ids, {s["spec-id"] for s in view.specs_json})
        if removed:
            self.changes.append(RemovePartitionSpecsUpdate(removed))
        return self

    # --- snapshots and refs ------------------------------------------------------------------

    def add_snapshot(self, snapshot: Snapshot) -> MetadataBuilder:
        """Add a snapshot (not yet referenced by any branch): advances
        ``last-sequence-number`` and, in v3, ``next-row-id`` by its ``added-rows``."""
        view = self._view()
        if view.snapshot_by_id(snapshot.snapshot_id) is not None:
            raise InternalError(f"snapshot {snapshot.snapshot_id} already exists")
        if self.format_version >= 2:
            last = view.last_sequence_number
            if snapshot.sequence_number <= last and snapshot.parent_snapshot_id is not None:
                raise InternalError(
                    f"cannot add snapshot with sequence number {snapshot.sequence_number}"
                    f" older than last sequence number {last}"
                )
            self.raw["last-sequence-number"] = max(last, snapshot.sequence_number)
        if self.format_version >= 3:
            next_row_id = view.next_row_id or 0
            if snapshot.first_row_id is None or snapshot.first_row_id < next_row_id:
                raise InternalError(
                    f"snapshot first-row-id {snapshot.first_row_id} is behind the table's"
                    f" next-row-id {next_row_id}"
                )
            self.raw["next-row-id"] = next_row_id + (snapshot.added_rows or 0)
        self._list("snapshots").append(snapshot.to_json())
        self._added_snapshots[snapshot.snapshot_id] = snapshot
        self._last_updated_ms = snapshot.timestamp_ms
        self.changes.append(AddSnapshotUpdate(snapshot))
        return self

    def set_ref(self, name: str, ref: SnapshotRef) -> MetadataBuilder:
        """Point a branch or tag at a snapshot; moving ``main`` makes it current and logs it."""
        view = self._view()
        if view.snapshot_by_id(ref.snapshot_id) is None:
            raise InternalError(f"cannot set {name} to unknown snapshot {ref.snapshot_id}")
        existing = (self.raw.get("refs") or {}).get(name)
        if existing is not None and SnapshotRef.from_json(existing) == ref:
            return self
        if ref.snapshot_id in self._added_snapshots:
            self._last_updated_ms = self._added_snapshots[ref.snapshot_id].timestamp_ms
        if name == MAIN_BRANCH:
            if self._last_updated_ms is None:
                self._last_updated_ms = _now_ms()
            self.raw["current-snapshot-id"] = ref.snapshot_id
            self._list("snapshot-log").append(
                {"timestamp-ms": self._last_updated_ms, "snapshot-id": ref.snapshot_id}
            )
        self.raw.setdefault("refs", {})
        if self.raw["refs"] is None:
            self.raw["refs"] = {}
        if MAIN_BRANCH not in self.raw["refs"] and MAIN_BRANCH in view.refs and name != MAIN_BRANCH:
            self.raw["refs"][MAIN_BRANCH] = view.refs[MAIN_BRANCH].to_json()  # v1: make explicit
        self.raw["refs"][name] = ref.to_json()
        self.changes.append(SetSnapshotRefUpdate(name, ref))
        return self

    def set_branch_snapshot(self, name: str, snapshot_id: int) -> MetadataBuilder:
        """Move (or create) a branch, keeping its retention settings."""
        current = self._view().refs.get(name)
        if current is not None and not current.is_branch:
            raise InternalError(f"{name!r} is a tag, not a branch")
        if current is None:
            return self.set_ref(name, SnapshotRef(snapshot_id))
        return self.set_ref(
            name,
            SnapshotRef(
                snapshot_id,
                current.type,
                current.min_snapshots_to_keep,
                current.max_snapshot_age_ms,
                current.max_ref_age_ms,
                current.extra,
            ),
        )

    def remove_ref(self, name: str) -> MetadataBuilder:
        if name in self._view().refs:
            self.changes.append(RemoveSnapshotRefUpdate(name))
        self._remove_ref(name)
        return self

    def _remove_ref(self, name: str) -> None:
        if name == MAIN_BRANCH:
            self.raw["current-snapshot-id"] = self._no_current_snapshot()
        refs = self.raw.get("refs")
        if refs:
            refs.pop(name, None)

    def remove_snapshots(self, snapshot_ids: Iterable[int]) -> MetadataBuilder:
        """Drop snapshots, the refs that point at them and their statistics files."""
        ids = tuple(snapshot_ids)
        snapshots = self.raw.get("snapshots") or []
        removed = _present(ids, {s["snapshot-id"] for s in snapshots})
        if removed:
            self.changes.append(RemoveSnapshotsUpdate(removed))
        self.raw["snapshots"] = [s for s in snapshots if s["snapshot-id"] not in ids]
        for name, ref in list((self.raw.get("refs") or {}).items()):
            if ref["snapshot-id"] in ids:
                self._remove_ref(name)  # part of the removal, as a server replays it
        if self.raw.get("current-snapshot-id") in ids:
            self.raw["current-snapshot-id"] = self._no_current_snapshot()
        for key in ("statistics", "partition-statistics"):
            if key in self.raw and self.raw[key] is not None:
                self.raw[key] = [s for s in self.raw[key] if s["snapshot-id"] not in ids]
        return self

    # --- statistics --------------------------------------------------------------------------

    def set_statistics(self, stats: StatisticsFile) -> MetadataBuilder:
        """Add or replace the statistics file of ``stats.snapshot_id``."""
        items = [s for s in self._list("statistics") if s["snapshot-id"] != stats.snapshot_id]
        self.raw["statistics"] = items + [stats.to_json()]
        self.changes.append(SetStatisticsUpdate(stats))
        return self

    def remove_statistics(self, snapshot_id: int) -> MetadataBuilder:
        if self._drop_stats("statistics", snapshot_id):
            self.changes.append(RemoveStatisticsUpdate(snapshot_id))
        return self

    def set_partition_statistics(self, stats: PartitionStatisticsFile) -> MetadataBuilder:
        items = self._list("partition-statistics")
        items = [s for s in items if s["snapshot-id"] != stats.snapshot_id]
        self.raw["partition-statistics"] = items + [stats.to_json()]
        self.changes.append(SetPartitionStatisticsUpdate(stats))
        return self

    def remove_partition_statistics(self, snapshot_id: int) -> MetadataBuilder:
        if self._drop_stats("partition-statistics", snapshot_id):
            self.changes.append(RemovePartitionStatisticsUpdate(snapshot_id))
        return self

    def _drop_stats(self, key: str, snapshot_id: int) -> bool:
        """Drop the ``key`` file of a snapshot; whether there was one."""
        items = self._list(key)
        kept = [s for s in items if s["snapshot-id"] != snapshot_id]
        self.raw[key] = kept
        return len(kept) != len(items)

    # --- build -------------------------------------------------------------------------------

    def build(
        self, previous_metadata_file: str | None = None, last_updated_ms: int | None = None
    ) -> TableMetadata:
        """The new metadata. ``previous_metadata_file`` (the base's file) is appended to the
        metadata log with the base's ``last-updated-ms``, keeping at most
        ``write.metadata.previous-versions-max`` entries (default 100)."""
        raw = self.raw
        raw["last-updated-ms"] = (
            last_updated_ms
            if last_updated_ms is not None
            else self._last_updated_ms
            if self._last_updated_ms is not None
            else _now_ms()
        )
        if previous_metadata_file is not None:
            log = self._list("metadata-log")
            log.append(
                {"timestamp-ms": self.base.last_updated_ms, "metadata-file": previous_metadata_file}
            )
            keep = int(
                (raw.get("properties") or {}).get(
                    PREVIOUS_VERSIONS_MAX, DEFAULT_PREVIOUS_VERSIONS_MAX
                )
            )
            raw["metadata-log"] = log[-max(keep, 1) :]
        self._prune_snapshot_log()
        if self.format_version == 1 and self._legacy_dirty:
            view = self._view()
            if "schema" in raw or "schemas" not in raw:
                raw["schema"] = view.schema().to_json()
            if "partition-spec" in raw or "partition-specs" not in raw:
                default_spec = view.spec_json_by_id(view.default_spec_id)
                if default_spec is None:
                    raise InternalError(f"unknown default partition spec {view.default_spec_id}")
                raw["partition-spec"] = default_spec["fields"]
        return TableMetadata(copy.deepcopy(raw), changes=self.changes)

    def _prune_snapshot_log(self) -> None:
        """Java's rule: an entry for an expired snapshot removes all history before it, so
        time travel never lands on a snapshot that was not current at that time."""
        log = self.raw.get("snapshot-log")
        if not log:
            return
        live = {s["snapshot-id"] for s in self.raw.get("snapshots") or []}
        kept: list[Any] = []
        for entry in log:
            if entry["snapshot-id"] in live:
                kept.append(entry)
            else:
                kept.clear()
        self.raw["snapshot-log"] = kept


def _present(ids: Sequence[int], existing: set[int]) -> tuple[int, ...]:
    """The ``ids`` that exist, in the order given."""
    return tuple(i for i in ids if i in existing)
