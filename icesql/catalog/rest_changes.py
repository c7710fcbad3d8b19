"""A metadata change as the REST catalog spec states it: requirements and updates.

icesql's commit path makes the whole next metadata document and asks the catalog to swap it
in. A REST catalog takes the change instead, as ``requirements`` (what must still hold on
the server's current metadata: the table's uuid, each moved ref's snapshot, the schema,
spec and sort order the change was based on) and ``updates`` (add-schema, add-snapshot,
set-snapshot-ref, set-properties, ...), and applies the updates to its own current version.
So the change is read off the two documents: whatever differs between the version the
change was based on and the one it made. A change whose requirements still hold on a newer
server version (an append on ``main`` while someone else moved a tag) commits without a
retry; one that does not gets a 409, and icesql's commit loop re-reads and retries.

A new table (no base) is one change asserting that the table does not exist
(``assert-create``) and carrying its whole first version: the route Java's REST client takes
for create transactions, so the server keeps icesql's field ids, specs and first snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from icesql.metadata.table_metadata import TableMetadata

__all__ = ["table_changes"]

Json = dict[str, Any]


def table_changes(base: TableMetadata | None, new: TableMetadata) -> tuple[list[Json], list[Json]]:
    """(requirements, updates) that turn ``base`` (None: no table yet) into ``new``."""
    if base is None:
        return [{"type": "assert-create"}], _create_updates(new)
    requirements: list[Json] = [{"type": "assert-table-uuid", "uuid": base.table_uuid}]
    updates: list[Json] = []
    if new.format_version != base.format_version:
        updates.append({"action": "upgrade-format-version", "format-version": new.format_version})

    base_schemas = {s.schema_id for s in base.schemas}
    added = [s for s in new.schemas if s.schema_id not in base_schemas]
    updates += [{"action": "add-schema", "schema": s.to_json()} for s in added]
    if added or new.current_schema_id != base.current_schema_id:
        requirements.append(
            {"type": "assert-current-schema-id", "current-schema-id": base.current_schema_id}
        )
        requirements.append(
            {"type": "assert-last-assigned-field-id", "last-assigned-field-id": base.last_column_id}
        )
    if new.current_schema_id != base.current_schema_id:
        updates.append({"action": "set-current-schema", "schema-id": new.current_schema_id})

    base_specs = {s["spec-id"] for s in base.specs_json}
    new_specs = [s for s in new.specs_json if s["spec-id"] not in base_specs]
    updates += [{"action": "add-spec", "spec": s} for s in new_specs]
    if new_specs or new.default_spec_id != base.default_spec_id:
        requirements.append(
            {"type": "assert-default-spec-id", "default-spec-id": base.default_spec_id}
        )
        requirements.append(
            {
                "type": "assert-last-assigned-partition-id",
                "last-assigned-partition-id": base.last_partition_id,
            }
        )
    if new.default_spec_id != base.default_spec_id:
        updates.append({"action": "set-default-spec", "spec-id": new.default_spec_id})
    # removals (expire_snapshots' clean_expired_metadata) require what Java's UpdateRequirements
    # requires: the default spec / current schema they kept is still that
    removed_specs = sorted(base_specs - {s["spec-id"] for s in new.specs_json})
    if removed_specs:
        updates.append({"action": "remove-partition-specs", "spec-ids": removed_specs})
        _require(
            requirements,
            {"type": "assert-default-spec-id", "default-spec-id": base.default_spec_id},
        )
    removed_schemas = sorted(base_schemas - {s.schema_id for s in new.schemas})
    if removed_schemas:
        updates.append({"action": "remove-schemas", "schema-ids": removed_schemas})
        _require(
            requirements,
            {"type": "assert-current-schema-id", "current-schema-id": base.current_schema_id},
        )

    base_orders = {o["order-id"] for o in base.sort_orders_json}
    new_orders = [o for o in new.sort_orders_json if o["order-id"] not in base_orders]
    updates += [{"action": "add-sort-order", "sort-order": o} for o in new_orders]
    if new.default_sort_order_id != base.default_sort_order_id:
        requirements.append(
            {
                "type": "assert-default-sort-order-id",
                "default-sort-order-id": base.default_sort_order_id,
            }
        )
        updates.append(
            {"action": "set-default-sort-order", "sort-order-id": new.default_sort_order_id}
        )

    if new.location != base.location:
        updates.append({"action": "set-location", "location": new.location})
    updates += _property_updates(base.properties, new.properties)
    updates += _snapshot_updates(base, new, requirements)
    updates += _statistics_updates(base.raw, new.raw)
    return requirements, updates


def _require(requirements: list[Json], requirement: Json) -> None:
    if requirement not in requirements:
        requirements.append(requirement)


def _create_updates(new: TableMetadata) -> list[Json]:
    updates: list[Json] = [
        {"action": "assign-uuid", "uuid": new.table_uuid},
        {"action": "upgrade-format-version", "format-version": new.format_version},
    ]
    updates += [{"action": "add-schema", "schema": s.to_json()} for s in new.schemas]
    updates.append({"action": "set-current-schema", "schema-id": new.current_schema_id})
    updates += [{"action": "add-spec", "spec": s} for s in new.specs_json]
    updates.append({"action": "set-default-spec", "spec-id": new.default_spec_id})
    updates += [{"action": "add-sort-order", "sort-order": o} for o in new.sort_orders_json]
    updates.append({"action": "set-default-sort-order", "sort-order-id": new.default_sort_order_id})
    updates.append({"action": "set-location", "location": new.location})
    updates += _property_updates({}, new.properties)
    updates += _snapshot_updates(None, new, [])
    return updates


def _property_updates(base: Mapping[str, str], new: Mapping[str, str]) -> list[Json]:
    updates: list[Json] = []
    changed = {k: v for k, v in new.items() if base.get(k) != v}
    removed = sorted(k for k in base if k not in new)
    if changed:
        updates.append({"action": "set-properties", "updates": changed})
    if removed:
        updates.append({"action": "remove-properties", "removals": removed})
    return updates


def _snapshot_updates(
    base: TableMetadata | None, new: TableMetadata, requirements: list[Json]
) -> list[Json]:
    base_ids = {s.snapshot_id for s in base.snapshots} if base is not None else set()
    new_ids = {s.snapshot_id for s in new.snapshots}
    raw = {s["snapshot-id"]: s for s in new.raw.get("snapshots") or []}
    updates: list[Json] = [
        {"action": "add-snapshot", "snapshot": raw[s.snapshot_id]}
        for s in sorted(new.snapshots, key=lambda s: (s.sequence_number, s.timestamp_ms))
        if s.snapshot_id not in base_ids
    ]
    removed = sorted(base_ids - new_ids)
    if removed:
        updates.append({"action": "remove-snapshots", "snapshot-ids": removed})
        # expiry was planned from every ref's head: a ref moved meanwhile (onto a removed
        # snapshot, say) must fail the commit, not lose the ref
        for name, ref in sorted(base.refs.items()) if base is not None else ():
            _require(
                requirements,
                {"type": "assert-ref-snapshot-id", "ref": name, "snapshot-id": ref.snapshot_id},
            )
    base_refs = dict(base.refs) if base is not None else {}
    new_refs = dict(new.refs)
    for name, ref in sorted(new_refs.items()):
        old = base_refs.get(name)
        if old == ref:
            continue
        if base is not None:
            _require(
                requirements,
                {
                    "type": "assert-ref-snapshot-id",
                    "ref": name,
                    "snapshot-id": old.snapshot_id if old is not None else None,
                },
            )
        update: Json = {
            "action": "set-snapshot-ref",
            "ref-name": name,
            "type": ref.type,
            "snapshot-id": ref.snapshot_id,
        }
        for key, value in (
            ("min-snapshots-to-keep", ref.min_snapshots_to_keep),
            ("max-snapshot-age-ms", ref.max_snapshot_age_ms),
            ("max-ref-age-ms", ref.max_ref_age_ms),
        ):
            if value is not None:
                update[key] = value
        updates.append(update)
    for name in sorted(set(base_refs) - set(new_refs)):
        _require(
            requirements,
            {
                "type": "assert-ref-snapshot-id",
                "ref": name,
                "snapshot-id": base_refs[name].snapshot_id,
            },
        )
        updates.append({"action": "remove-snapshot-ref", "ref-name": name})
    return updates


def _statistics_updates(base: Mapping[str, Any], new: Mapping[str, Any]) -> list[Json]:
    updates: list[Json] = []
    for key, set_action, remove_action in (
        ("statistics", "set-statistics", "remove-statistics"),
        ("partition-statistics", "set-partition-statistics", "remove-partition-statistics"),
    ):
        old = {s["snapshot-id"]: s for s in base.get(key) or []}
        now = {s["snapshot-id"]: s for s in new.get(key) or []}
        for sid, stats in sorted(now.items()):
            if old.get(sid) != stats:
                field = "statistics" if key == "statistics" else "partition-statistics"
                updates.append({"action": set_action, "snapshot-id": sid, field: stats})
        updates += [
            {"action": remove_action, "snapshot-id": sid} for sid in sorted(set(old) - set(now))
        ]
    return updates
