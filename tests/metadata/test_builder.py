"""Building new metadata versions: commits, refs, schema/spec evolution, expiry, new tables."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from icesql.errors import InternalError
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.snapshots import Snapshot, SnapshotRef
from icesql.metadata.statistics import StatisticsFile
from icesql.metadata.table_metadata import TableMetadata, parse_table_metadata
from icesql.metadata.table_updates import (
    LAST_ADDED,
    AddSchemaUpdate,
    AddSnapshotUpdate,
    SetCurrentSchemaUpdate,
    SetPropertiesUpdate,
    SetSnapshotRefUpdate,
)
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder
from icesql.spec.types import NestedField, StringType

FIXTURES = Path(__file__).parent / "fixtures"
SCHEMA = Schema.from_json(
    {
        "type": "struct",
        "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "ts", "required": False, "type": "timestamptz"},
        ],
    }
)
SPEC = PartitionSpec.from_json(
    {"fields": [{"name": "ts_day", "transform": "day", "source-id": 2, "field-id": 1000}]}
)
ORDER = SortOrder.from_json(
    {
        "order-id": 1,
        "fields": [
            {
                "transform": "identity",
                "source-id": 1,
                "direction": "asc",
                "null-order": "nulls-first",
            }
        ],
    }
)


def load(name: str) -> TableMetadata:
    path = FIXTURES / f"{name}.metadata.json"
    return parse_table_metadata(path.read_text(), str(path))


def reparse(md: TableMetadata) -> TableMetadata:
    again = parse_table_metadata(md.to_json(), "rebuilt.json")
    assert json.loads(again.to_json()) == json.loads(md.to_json())
    return again


@pytest.mark.parametrize("version", [1, 2, 3])
def test_new_table_metadata(version: int) -> None:
    md = reparse(
        new_table_metadata(
            "file:/w/db/t", SCHEMA, SPEC, ORDER, {"owner": "me"}, version, "u-1", 1000
        )
    )
    assert (md.format_version, md.table_uuid, md.location) == (version, "u-1", "file:/w/db/t")
    assert md.current_snapshot_id is None and md.snapshots == []
    assert md.raw["current-snapshot-id"] == (None if version >= 3 else -1)
    assert md.last_column_id == 2 and md.last_partition_id == 1000
    assert md.default_sort_order_id == 1 and md.sort_order().fields == ORDER.fields
    assert md.spec().fields == SPEC.fields
    assert md.next_row_id == (0 if version == 3 else None)
    assert ("schema" in md.raw) == (version == 1)


def _append_on(base: TableMetadata) -> Snapshot:
    return Snapshot(
        4000,
        1700000500000,
        "file:/l.avro",
        parent_snapshot_id=base.current_snapshot_id,
        sequence_number=4,
        summary={"operation": "append"},
        schema_id=1,
    )


def test_append_commit_on_v2() -> None:
    base = load("v2")
    snap = _append_on(base)
    md = reparse(
        base.builder()
        .add_snapshot(snap)
        .set_branch_snapshot("main", 4000)
        .set_properties({"k": "v"})
        .build(previous_metadata_file="file:/w/v3.metadata.json")
    )
    assert md.current_snapshot() == snap
    assert md.last_sequence_number == 4
    assert md.last_updated_ms == 1700000500000
    assert md.snapshot_log[-1].to_json() == {"timestamp-ms": 1700000500000, "snapshot-id": 4000}
    assert md.metadata_log[-1].to_json() == {
        "timestamp-ms": base.last_updated_ms,
        "metadata-file": "file:/w/v3.metadata.json",
    }
    assert md.properties["k"] == "v" and md.properties["some.unknown.key"] == "42"
    assert md.refs["audit"] == base.refs["audit"]  # other refs untouched
    # the base is unchanged
    assert base.current_snapshot_id == 3055729675574597004


def test_sequence_number_must_advance() -> None:
    base = load("v2")
    snap = Snapshot(5, 1, "l", parent_snapshot_id=base.current_snapshot_id, sequence_number=3)
    with pytest.raises(InternalError, match="sequence number 3"):
        base.builder().add_snapshot(snap)


def test_v3_next_row_id_advances_by_added_rows() -> None:
    base = load("v3")
    snap = Snapshot(7, 1700000300000, "l", 8833017711225330001, 3, first_row_id=5, added_rows=40)
    md = reparse(base.builder().add_snapshot(snap).set_branch_snapshot("main", 7).build())
    assert md.next_row_id == 45
    behind = Snapshot(8, 1700000400000, "l", 7, 4, first_row_id=44, added_rows=1)
    with pytest.raises(InternalError, match="behind"):
        md.builder().add_snapshot(behind)


def test_tags_branches_and_retention() -> None:
    base = load("v2")
    md = reparse(
        base.builder()
        .set_ref("nightly", SnapshotRef(3052729675574597004, "tag", max_ref_age_ms=10))
        .set_branch_snapshot("audit", 3055729675574597004)
        .build(last_updated_ms=1700000600000)
    )
    assert md.refs["nightly"].type == "tag"
    audit = md.refs["audit"]
    assert (audit.snapshot_id, audit.min_snapshots_to_keep) == (3055729675574597004, 5)
    assert md.snapshot_log == base.snapshot_log  # only main moves the log
    with pytest.raises(InternalError, match="tag"):
        md.builder().set_branch_snapshot("v1.0", 3052729675574597004)
    with pytest.raises(InternalError, match="unknown snapshot"):
        md.builder().set_ref("x", SnapshotRef(1))
    md2 = reparse(md.builder().remove_ref("main").build())
    assert md2.current_snapshot_id is None and md2.raw["current-snapshot-id"] == -1


def test_rollback_logs_with_the_update_time() -> None:
    base = load("v2")
    md = reparse(
        base.builder()
        .set_branch_snapshot("main", 3052729675574597004)
        .build(last_updated_ms=1700000700000)
    )
    assert md.current_snapshot_id == 3052729675574597004
    assert md.snapshot_log[-1].snapshot_id == 3052729675574597004


def test_remove_snapshots_prunes_log_refs_and_statistics() -> None:
    base = load("v2")
    md = reparse(base.builder().remove_snapshots([3052729675574597004]).build())
    assert [s.snapshot_id for s in md.snapshots] == [3051729675574597004, 3055729675574597004]
    # history before the expired snapshot's entry is dropped
    assert [e.snapshot_id for e in md.snapshot_log] == [3051729675574597004, 3055729675574597004]
    assert md.snapshot_log[0].timestamp_ms == 1700000250000
    md2 = reparse(md.builder().remove_snapshots([3051729675574597004]).build())
    assert "v1.0" not in md2.refs and "audit" not in md2.refs
    md3 = reparse(md2.builder().remove_snapshots([3055729675574597004]).build())
    assert md3.current_snapshot_id is None and md3.statistics == []


def test_statistics_are_replaced_per_snapshot() -> None:
    base = load("v2")
    stats = StatisticsFile(3055729675574597004, "file:/s2.puffin", 10, 5)
    md = reparse(base.builder().set_statistics(stats).build())
    assert md.statistics == [stats]
    md = reparse(md.builder().remove_statistics(3055729675574597004).build())
    assert md.statistics == []


def test_schema_spec_and_order_evolution() -> None:
    base = load("v2")
    builder = base.builder()
    assert builder.add_schema(base.schema()) == 1  # an equal schema is reused
    wider = Schema.from_json(
        {
            "type": "struct",
            "fields": [
                *[json.loads(json.dumps(f)) for f in base.raw["schemas"][1]["fields"]],
                {"id": 9, "name": "extra", "required": False, "type": "string"},
            ],
        }
    )
    new_id = builder.add_schema(wider)
    assert new_id == 2
    builder.set_current_schema(new_id)
    spec = PartitionSpec.from_json(
        {"fields": [{"name": "cat", "transform": "identity", "source-id": 2, "field-id": 1002}]}
    )
    spec_id = builder.add_partition_spec(spec)
    assert spec_id == 2
    assert builder.add_partition_spec(base.spec()) == 1
    builder.set_default_spec(spec_id)
    assert builder.add_sort_order(SortOrder(0, ())) == 0
    order_id = builder.add_sort_order(SortOrder(7, ORDER.fields[:0] + base.sort_order().fields))
    assert order_id == 1  # same fields as the existing order 1
    md = reparse(builder.build())
    assert md.current_schema_id == 2 and md.last_column_id == 9
    assert md.default_spec_id == 2 and md.last_partition_id == 1002
    assert md.schema().find_column_name(9) == "extra"


def test_v1_upgrade_to_v2_and_v3() -> None:
    base = load("v1")
    md = reparse(base.builder().upgrade_format_version(2).build())
    assert md.format_version == 2
    assert "schema" not in md.raw and "partition-spec" not in md.raw
    assert md.specs_json[0]["fields"][0]["field-id"] == 1000
    assert md.last_sequence_number == 0
    assert md.properties["custom.unknown.property"] == "kept"
    assert md.raw["x-vendor-top-level"] is True
    md3 = reparse(md.builder().upgrade_format_version(3).build())
    assert md3.next_row_id == 0
    with pytest.raises(InternalError):
        md3.builder().upgrade_format_version(2)


def test_v1_schema_change_keeps_legacy_fields_in_sync() -> None:
    base = load("v1")
    builder = base.builder()
    wider = Schema.from_json(
        {
            "type": "struct",
            "fields": [
                *base.raw["schema"]["fields"],
                {"id": 4, "name": "x", "required": False, "type": "int"},
            ],
        }
    )
    builder.set_current_schema(builder.add_schema(wider))
    md = reparse(builder.build())
    assert md.format_version == 1
    assert md.raw["schema"]["fields"][-1]["name"] == "x"
    assert md.schema().column_names == ["id", "data", "ts", "x"]
    assert len(md.schemas) == 2


def test_metadata_log_is_trimmed_by_property() -> None:
    md = load("v2")
    md = md.builder().set_properties({"write.metadata.previous-versions-max": "2"}).build()
    for i in range(4):
        md = md.builder().build(previous_metadata_file=f"file:/m{i}.json")
    assert [e.metadata_file for e in md.metadata_log] == ["file:/m2.json", "file:/m3.json"]


def test_the_builder_records_each_change_it_makes() -> None:
    """As Java's ``TableMetadata.Builder.changes()``: what a REST catalog is sent. Operations
    that change nothing record nothing, and a schema added here is made current as -1."""
    base = load("v2")
    wider = Schema(
        (*base.schema().fields, NestedField(9, "extra", StringType())),
        0,
        base.schema().identifier_field_ids,
    )
    snap = dataclasses.replace(_append_on(base), schema_id=2)
    builder = base.builder()
    builder.add_schema(base.schema())  # found: no change
    builder.set_current_schema(builder.add_schema(wider))
    builder.set_location(base.location)  # the same: no change
    builder.set_properties({"k": "v"})
    builder.add_snapshot(snap).set_branch_snapshot("main", 4000)
    md = builder.build()
    assert md.changes == (
        AddSchemaUpdate(Schema(wider.fields, 2, wider.identifier_field_ids)),
        SetCurrentSchemaUpdate(LAST_ADDED),
        SetPropertiesUpdate({"k": "v"}),
        AddSnapshotUpdate(snap),
        SetSnapshotRefUpdate("main", SnapshotRef(4000)),
    )
    assert reparse(md).changes == ()  # a version read back is committed
    replayed = base.builder().apply(md.changes).build(last_updated_ms=md.last_updated_ms)
    assert json.loads(replayed.to_json()) == json.loads(md.to_json())


def test_a_new_table_records_the_updates_that_create_it() -> None:
    md = new_table_metadata("file:/w/db/t", SCHEMA, SPEC, ORDER, {"owner": "me"}, 2, "u-1", 1000)
    assert [u.to_json()["action"] for u in md.changes] == [
        "assign-uuid",
        "upgrade-format-version",
        "add-schema",
        "set-current-schema",
        "add-spec",
        "set-default-spec",
        "add-sort-order",
        "set-default-sort-order",
        "set-location",
        "set-properties",
    ]
    # a builder on it keeps them: a CTAS sends them with its first snapshot
    assert md.builder().set_properties({"k": "v"}).build().changes[:-1] == md.changes
