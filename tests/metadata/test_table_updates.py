"""The REST spec's table updates: JSON both ways, and applied through the metadata builder.

The JSON objects follow the spec's schemas (``open-api/rest-catalog-open-api.yaml``:
``AddSchemaUpdate`` ... ``RemoveSchemasUpdate``); icesql's own changes (a statement's
``Change.updates``) are the same classes, replayed on a table's metadata: ``-1`` selects the
one added last in the change, and nothing else is touched.
"""

from __future__ import annotations

import pytest

from icesql.errors import InternalError, NotSupportedError
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.snapshots import SnapshotRef
from icesql.metadata.table_requirements import AssertRefSnapshotId, check_table_requirements
from icesql.metadata.table_updates import (
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    AddSortOrderUpdate,
    InvalidUpdateError,
    RemovePropertiesUpdate,
    RemoveSnapshotRefUpdate,
    SetCurrentSchemaUpdate,
    SetDefaultSortOrderUpdate,
    SetDefaultSpecUpdate,
    SetLocationUpdate,
    SetPropertiesUpdate,
    SetSnapshotRefUpdate,
    TableUpdate,
    UpgradeFormatVersionUpdate,
    parse_update,
)
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortField, SortOrder
from icesql.spec.transforms import Bucket
from icesql.spec.types import LongType, NestedField, StringType

SCHEMA_JSON = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "data", "required": False, "type": "string"},
    ],
}
SCHEMA2_JSON = {
    **SCHEMA_JSON,
    "schema-id": 1,
    "fields": [
        *SCHEMA_JSON["fields"],
        {"id": 3, "name": "ts", "required": False, "type": "timestamptz"},
    ],
}
SPEC_JSON = {
    "spec-id": 1,
    "fields": [{"name": "ts_day", "transform": "day", "source-id": 3, "field-id": 1000}],
}
ORDER_JSON = {
    "order-id": 1,
    "fields": [
        {"transform": "identity", "source-id": 1, "direction": "asc", "null-order": "nulls-first"}
    ],
}
SNAPSHOT_JSON = {
    "snapshot-id": 3055729675574597004,
    "sequence-number": 1,
    "timestamp-ms": 1555100955770,
    "summary": {"operation": "append"},
    "manifest-list": "s3://b/wh/.../snap-2-1-c87bfec7.avro",
    "schema-id": 0,
}
STATS_JSON = {
    "snapshot-id": 3055729675574597004,
    "statistics-path": "s3://b/wh/t/stats.puffin",
    "file-size-in-bytes": 413,
    "file-footer-size-in-bytes": 42,
    "blob-metadata": [
        {
            "type": "apache-datasketches-theta-v1",
            "snapshot-id": 3055729675574597004,
            "sequence-number": 1,
            "fields": [1],
        }
    ],
}
PARTITION_STATS_JSON = {
    "snapshot-id": 3055729675574597004,
    "statistics-path": "s3://b/wh/t/partition-stats.parquet",
    "file-size-in-bytes": 1000,
}

UPDATES = [
    {"action": "assign-uuid", "uuid": "2cc52516-5e73-41f2-b139-545d41a4e151"},
    {"action": "upgrade-format-version", "format-version": 3},
    {"action": "add-schema", "schema": SCHEMA2_JSON},
    {"action": "add-schema", "schema": SCHEMA2_JSON, "last-column-id": 3},
    {"action": "set-current-schema", "schema-id": -1},
    {"action": "add-spec", "spec": SPEC_JSON},
    {"action": "set-default-spec", "spec-id": -1},
    {"action": "add-sort-order", "sort-order": ORDER_JSON},
    {"action": "set-default-sort-order", "sort-order-id": -1},
    {"action": "add-snapshot", "snapshot": SNAPSHOT_JSON},
    {
        "action": "set-snapshot-ref",
        "ref-name": "main",
        "snapshot-id": 3055729675574597004,
        "type": "branch",
    },
    {
        "action": "set-snapshot-ref",
        "ref-name": "v1",
        "snapshot-id": 3055729675574597004,
        "type": "tag",
        "max-ref-age-ms": 86400000,
    },
    {"action": "remove-snapshots", "snapshot-ids": [1, 2]},
    {"action": "remove-snapshot-ref", "ref-name": "v1"},
    {"action": "set-location", "location": "s3://b/wh/db/t2"},
    {"action": "set-properties", "updates": {"owner": "ana"}},
    {"action": "remove-properties", "removals": ["owner", "other"]},
    {"action": "set-statistics", "snapshot-id": 3055729675574597004, "statistics": STATS_JSON},
    {"action": "remove-statistics", "snapshot-id": 3055729675574597004},
    {"action": "set-partition-statistics", "partition-statistics": PARTITION_STATS_JSON},
    {"action": "remove-partition-statistics", "snapshot-id": 3055729675574597004},
    {"action": "remove-partition-specs", "spec-ids": [0]},
    {"action": "remove-schemas", "schema-ids": [0]},
]


@pytest.mark.parametrize("obj", UPDATES, ids=lambda o: o["action"])
def test_every_update_reads_and_writes_the_specs_json(obj) -> None:
    assert parse_update(obj).to_json() == obj


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"action": "drop-everything"}, "unknown table update action 'drop-everything'"),
        ({"updates": {}}, "unknown table update action None"),
        ({"action": "set-current-schema"}, "missing required field 'schema-id'"),
        ({"action": "set-current-schema", "schema-id": "1"}, "'schema-id' has the wrong type"),
        ({"action": "set-current-schema", "schema-id": True}, "must be an integer"),
        ({"action": "set-properties", "updates": {"a": 1}}, "must map strings to strings"),
        ({"action": "add-schema", "schema": {"fields": "x"}}, "table update 'add-schema'"),
        ({"action": "add-snapshot", "snapshot": {"snapshot-id": 1}}, "table update 'add-snapshot'"),
        ([1], "must be a JSON object"),
    ],
)
def test_malformed_updates_are_client_errors_naming_the_problem(obj, message) -> None:
    with pytest.raises(InvalidUpdateError, match=message.replace("(", r"\(")):
        parse_update(obj)


def test_encryption_keys_are_refused_by_name() -> None:
    with pytest.raises(NotSupportedError, match="add-encryption-key.*encrypted tables"):
        parse_update({"action": "add-encryption-key", "encryption-key": {"key-id": "k"}})


# --- icesql's own changes, replayed through the builder -------------------------------------


SCHEMA = Schema((NestedField(1, "id", LongType()),))
WIDER = Schema((NestedField(1, "id", LongType()), NestedField(2, "s", StringType())))
UUID = "9c12d441-03fe-4693-9a96-a0705ddf69c1"


def _base(version: int = 2):
    return new_table_metadata("file:/w/t", SCHEMA, properties={"a": "1", "b": "2"},
                              format_version=version, table_uuid=UUID)  # fmt: skip


def test_last_added_ids_are_resolved() -> None:
    base = _base()
    spec = PartitionSpec(0, (PartitionField(2, 1000, Bucket(4), "s_bucket"),))
    order = SortOrder(1, (SortField(2),))
    md = base.builder().apply([
        AddSchemaUpdate(WIDER), SetCurrentSchemaUpdate(),
        AddPartitionSpecUpdate(spec), SetDefaultSpecUpdate(),
        AddSortOrderUpdate(order), SetDefaultSortOrderUpdate(),
    ]).build()  # fmt: skip
    assert md.current_schema_id == 1 and [f.name for f in md.schema().fields] == ["id", "s"]
    assert md.default_spec_id == 1 and md.spec().fields[0].name == "s_bucket"
    assert md.default_sort_order_id == 1 and md.sort_order().fields[0].source_id == 2
    assert md.last_column_id == 2 and md.last_partition_id == 1000
    assert base.current_schema_id == 0  # the base is unchanged


def test_explicit_ids_and_simple_settings() -> None:
    md = _base(1).builder().apply([
        AddSchemaUpdate(WIDER), SetCurrentSchemaUpdate(0),
        SetPropertiesUpdate({"b": "3", "c": "4"}), RemovePropertiesUpdate(("a", "missing")),
        SetLocationUpdate("file:/w/moved"), UpgradeFormatVersionUpdate(2),
    ]).build()  # fmt: skip
    assert md.current_schema_id == 0 and len(md.schemas) == 2
    assert dict(md.properties) == {"b": "3", "c": "4"}
    assert (md.location, md.format_version) == ("file:/w/moved", 2)


@pytest.mark.parametrize(
    "update, what",
    [(SetCurrentSchemaUpdate(), "schema"), (SetDefaultSpecUpdate(), "partition spec"),
     (SetDefaultSortOrderUpdate(), "sort order")],
)  # fmt: skip
def test_last_added_without_an_add_is_an_internal_error(update: TableUpdate, what: str) -> None:
    with pytest.raises(InternalError, match=f"no {what} was added before"):
        _base().builder().apply([update])


def test_unknown_updates_are_refused() -> None:
    class Rename(TableUpdate):
        pass

    with pytest.raises(InternalError, match="unknown metadata update"):
        _base().builder().apply([Rename()])


def _with_snapshot(md, snapshot_id: int):
    from icesql.metadata.snapshots import Snapshot

    snapshot = Snapshot(
        snapshot_id=snapshot_id,
        timestamp_ms=1,
        manifest_list="file:/w/t/m.avro",
        sequence_number=1,
        summary={"operation": "append"},
        schema_id=0,
    )
    return md.builder().add_snapshot(snapshot).set_branch_snapshot("main", snapshot_id).build()


def test_set_ref_and_remove_ref_replay_on_the_refs() -> None:
    md = _with_snapshot(_base(), 5)
    tag = SnapshotRef(5, "tag", max_ref_age_ms=60_000)
    md = (
        md.builder()
        .apply([SetSnapshotRefUpdate("t1", tag), SetSnapshotRefUpdate("b", SnapshotRef(5))])
        .build()
    )
    assert md.refs["t1"] == tag and md.refs["b"].is_branch
    check_table_requirements(
        md, [AssertRefSnapshotId("b", 5), AssertRefSnapshotId("x", None)], "db.t"
    )
    md = md.builder().apply([RemoveSnapshotRefUpdate("t1")]).build()
    assert set(md.refs) == {"main", "b"} and md.current_snapshot().snapshot_id == 5
