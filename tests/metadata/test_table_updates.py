"""The REST spec's table updates and commit requests: JSON both ways, and application.

The JSON objects follow the spec's schemas (``open-api/rest-catalog-open-api.yaml``:
``AddSchemaUpdate`` ... ``RemoveSchemasUpdate``, ``AssertCreate`` ... ``AssertDefaultSortOrderId``)
and the create commit Spark 3.5 / Iceberg 1.10 sends for a CTAS after a staged create.
"""

from __future__ import annotations

import doctest

import pytest

import icesql.metadata.table_requirements as table_requirements
import icesql.metadata.table_updates as table_updates
from icesql.errors import NotSupportedError
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.table_updates import (
    InvalidUpdateError,
    RequirementFailedError,
    TableCommit,
    apply_table_updates,
    check_table_requirements,
    parse_requirement,
    parse_update,
)
from icesql.spec.schema import Schema

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


def test_doctests() -> None:
    assert doctest.testmod(table_updates).failed == 0
    assert doctest.testmod(table_requirements).failed == 0


@pytest.mark.parametrize("obj", UPDATES, ids=lambda o: o["action"])
def test_every_update_reads_and_writes_the_specs_json(obj) -> None:
    assert parse_update(obj).to_json() == obj


def test_a_commit_request_round_trips_with_and_without_identifier() -> None:
    body = {
        "identifier": {"namespace": ["db", "x"], "name": "t"},
        "requirements": [
            {"type": "assert-table-uuid", "uuid": "2cc52516-5e73-41f2-b139-545d41a4e151"},
            {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 3055729675574597004},
        ],
        "updates": UPDATES[14:17],
    }
    commit = TableCommit.from_json(body)
    assert commit.identifier == ("db", "x", "t") and not commit.creates
    assert commit.to_json() == body
    without = {"requirements": [{"type": "assert-create"}], "updates": []}
    assert TableCommit.from_json(without).to_json() == without
    assert TableCommit.from_json(without).creates


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


def test_bad_commits() -> None:
    with pytest.raises(InvalidUpdateError, match="list of updates"):
        TableCommit.from_json({"requirements": []})
    with pytest.raises(InvalidUpdateError, match="invalid table identifier"):
        TableCommit.from_json({"identifier": {"name": "t"}, "requirements": [], "updates": []})


def test_encryption_keys_are_refused_by_name() -> None:
    with pytest.raises(NotSupportedError, match="add-encryption-key.*encrypted tables"):
        parse_update({"action": "add-encryption-key", "encryption-key": {"key-id": "k"}})


# --- applying ------------------------------------------------------------------------------


def _table(format_version: int = 2):
    return new_table_metadata(
        "s3://b/wh/db/t",
        Schema.from_json(SCHEMA_JSON),
        format_version=format_version,
        table_uuid="2cc52516-5e73-41f2-b139-545d41a4e151",
    )


def _apply(base, *objs, **kw):
    return apply_table_updates(base, [parse_update(o) for o in objs], **kw)


def test_schema_spec_and_order_evolution_with_last_added_ids() -> None:
    md = _apply(
        _table(),
        {"action": "add-schema", "schema": SCHEMA2_JSON},
        {"action": "set-current-schema", "schema-id": -1},
        {"action": "add-spec", "spec": SPEC_JSON},
        {"action": "set-default-spec", "spec-id": -1},
        {"action": "add-sort-order", "sort-order": ORDER_JSON},
        {"action": "set-default-sort-order", "sort-order-id": -1},
        previous_metadata_file="s3://b/wh/db/t/metadata/00000-a.metadata.json",
    )
    assert md.current_schema_id == 1 and md.last_column_id == 3
    assert md.default_spec_id == 1 and md.last_partition_id == 1000
    assert md.default_sort_order_id == 1
    assert [e.metadata_file for e in md.metadata_log] == [
        "s3://b/wh/db/t/metadata/00000-a.metadata.json"
    ]
    check_table_requirements(
        md,
        [
            parse_requirement(r)
            for r in (
                {"type": "assert-current-schema-id", "current-schema-id": 1},
                {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 3},
                {"type": "assert-default-spec-id", "default-spec-id": 1},
                {"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 1000},
                {"type": "assert-default-sort-order-id", "default-sort-order-id": 1},
            )
        ],
    )
    # unused schemas and specs can go, the current ones cannot
    md = _apply(
        md,
        {"action": "remove-schemas", "schema-ids": [0]},
        {"action": "remove-partition-specs", "spec-ids": [0]},
    )
    assert [s.schema_id for s in md.schemas] == [1] and [s.spec_id for s in md.specs] == [1]
    with pytest.raises(InvalidUpdateError, match="current schema 1"):
        _apply(md, {"action": "remove-schemas", "schema-ids": [1]})
    with pytest.raises(InvalidUpdateError, match="default partition spec 1"):
        _apply(md, {"action": "remove-partition-specs", "spec-ids": [1]})


def test_snapshots_refs_and_statistics() -> None:
    sid = SNAPSHOT_JSON["snapshot-id"]
    md = _apply(
        _table(),
        {"action": "add-snapshot", "snapshot": SNAPSHOT_JSON},
        {"action": "set-snapshot-ref", "ref-name": "main", "snapshot-id": sid, "type": "branch"},
        {"action": "set-snapshot-ref", "ref-name": "v1", "snapshot-id": sid, "type": "tag"},
        {"action": "set-statistics", "statistics": STATS_JSON},
        {"action": "set-partition-statistics", "partition-statistics": PARTITION_STATS_JSON},
    )
    assert md.current_snapshot_id == sid and md.last_sequence_number == 1
    assert set(md.refs) == {"main", "v1"} and not md.refs["v1"].is_branch
    assert [s.statistics_path for s in md.statistics] == [STATS_JSON["statistics-path"]]
    assert len(md.partition_statistics) == 1
    check_table_requirements(
        md,
        [parse_requirement({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": sid})],
    )
    with pytest.raises(RequirementFailedError, match="tag v1 was created concurrently"):
        parse_requirement(
            {"type": "assert-ref-snapshot-id", "ref": "v1", "snapshot-id": None}
        ).check(md)
    with pytest.raises(RequirementFailedError, match="branch main has changed: expected id 5 != "):
        parse_requirement(
            {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 5}
        ).check(md)
    with pytest.raises(RequirementFailedError, match="branch or tag b is missing, expected 5"):
        parse_requirement({"type": "assert-ref-snapshot-id", "ref": "b", "snapshot-id": 5}).check(
            md
        )

    md = _apply(
        md,
        {"action": "remove-statistics", "snapshot-id": sid},
        {"action": "remove-partition-statistics", "snapshot-id": sid},
        {"action": "remove-snapshot-ref", "ref-name": "v1"},
    )
    assert md.statistics == [] and md.partition_statistics == [] and set(md.refs) == {"main"}
    md = _apply(md, {"action": "remove-snapshots", "snapshot-ids": [sid]})
    assert md.snapshots == [] and md.current_snapshot_id is None and md.refs == {}


def test_properties_location_and_format_version() -> None:
    md = _apply(
        _table(),
        {"action": "set-properties", "updates": {"owner": "ana", "k": "v"}},
        {"action": "remove-properties", "removals": ["k", "absent"]},
        {"action": "set-location", "location": "s3://b/wh/db/t2"},
        {"action": "upgrade-format-version", "format-version": 3},
    )
    assert dict(md.properties) == {"owner": "ana"} and md.location == "s3://b/wh/db/t2"
    assert md.format_version == 3 and md.next_row_id == 0
    with pytest.raises(InvalidUpdateError, match="cannot change format version 3 to 2"):
        _apply(md, {"action": "upgrade-format-version", "format-version": 2})


def test_updates_that_cannot_apply_are_client_errors() -> None:
    with pytest.raises(InvalidUpdateError, match="unknown schema 7"):
        _apply(_table(), {"action": "set-current-schema", "schema-id": 7})
    with pytest.raises(InvalidUpdateError, match="last added schema: none was added"):
        _apply(_table(), {"action": "set-current-schema", "schema-id": -1})
    with pytest.raises(InvalidUpdateError, match="unknown snapshot 9"):
        _apply(
            _table(),
            {"action": "set-snapshot-ref", "ref-name": "main", "snapshot-id": 9, "type": "branch"},
        )
    with pytest.raises(InvalidUpdateError, match="never reassigned"):
        _apply(_table(), {"action": "assign-uuid", "uuid": "00000000-0000-0000-0000-000000000000"})


def _create_commit(format_version: int) -> TableCommit:
    """What Spark sends to commit a CTAS after ``stage-create`` (abridged to the updates)."""
    sid = SNAPSHOT_JSON["snapshot-id"]
    snapshot = {
        **SNAPSHOT_JSON,
        **({"first-row-id": 0, "added-rows": 3} if format_version > 2 else {}),
    }
    return TableCommit.from_json(
        {
            "requirements": [{"type": "assert-create"}],
            "updates": [
                {"action": "assign-uuid", "uuid": "2cc52516-5e73-41f2-b139-545d41a4e151"},
                {"action": "upgrade-format-version", "format-version": format_version},
                {
                    "action": "add-schema",
                    "schema": {**SCHEMA2_JSON, "schema-id": 0},
                    "last-column-id": 3,
                },
                {"action": "set-current-schema", "schema-id": -1},
                {"action": "add-spec", "spec": {**SPEC_JSON, "spec-id": 0}},
                {"action": "set-default-spec", "spec-id": -1},
                {"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}},
                {"action": "set-default-sort-order", "sort-order-id": -1},
                {"action": "set-location", "location": "s3://b/wh/db/ctas"},
                {"action": "set-properties", "updates": {"write.delete.mode": "merge-on-read"}},
                {"action": "add-snapshot", "snapshot": snapshot},
                {
                    "action": "set-snapshot-ref",
                    "ref-name": "main",
                    "snapshot-id": sid,
                    "type": "branch",
                },
            ],
        }
    )


@pytest.mark.parametrize("format_version", [2, 3])
def test_a_creating_commit_builds_the_table_from_its_updates(format_version) -> None:
    commit = _create_commit(format_version)
    assert commit.creates
    check_table_requirements(None, commit.requirements)
    md = apply_table_updates(None, commit.updates)
    assert md.format_version == format_version
    assert md.table_uuid == "2cc52516-5e73-41f2-b139-545d41a4e151"
    assert [s.schema_id for s in md.schemas] == [0] and md.last_column_id == 3
    assert [s.spec_id for s in md.specs] == [0] and md.last_partition_id == 1000
    assert md.default_sort_order_id == 0 and len(md.sort_orders) == 1
    assert (
        md.location == "s3://b/wh/db/ctas" and md.properties["write.delete.mode"] == "merge-on-read"
    )
    assert md.current_snapshot_id == SNAPSHOT_JSON["snapshot-id"] and md.metadata_log == []
    if format_version == 3:
        assert md.next_row_id == 3


def test_a_creating_commit_without_a_schema_or_location_is_refused() -> None:
    with pytest.raises(InvalidUpdateError, match="needs an add-schema"):
        apply_table_updates(None, [parse_update({"action": "set-location", "location": "x"})])
    updates = [parse_update({"action": "add-schema", "schema": SCHEMA_JSON})]
    with pytest.raises(InvalidUpdateError, match="needs a set-location"):
        apply_table_updates(None, updates)
    assert apply_table_updates(None, updates, location="/wh/db/t").location == "/wh/db/t"
