"""A commit in the REST spec's terms: ``CommitTableRequest`` JSON both ways, and the
metadata its updates make (the create commit Spark 3.5 / Iceberg 1.10 sends for a CTAS after
a staged create builds the table from nothing)."""

from __future__ import annotations

import pytest

from icesql.metadata.builder import new_table_metadata
from icesql.metadata.table_commit import TableCommit, apply_table_updates
from icesql.metadata.table_requirements import (
    RequirementFailedError,
    check_table_requirements,
    parse_requirement,
)
from icesql.metadata.table_updates import InvalidUpdateError, parse_update
from icesql.spec.schema import Schema

from .test_table_updates import (
    ORDER_JSON,
    PARTITION_STATS_JSON,
    SCHEMA2_JSON,
    SCHEMA_JSON,
    SNAPSHOT_JSON,
    SPEC_JSON,
    STATS_JSON,
    UPDATES,
)


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


def test_bad_commits() -> None:
    with pytest.raises(InvalidUpdateError, match="list of updates"):
        TableCommit.from_json({"requirements": []})
    with pytest.raises(InvalidUpdateError, match="invalid table identifier"):
        TableCommit.from_json({"identifier": {"name": "t"}, "requirements": [], "updates": []})


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
