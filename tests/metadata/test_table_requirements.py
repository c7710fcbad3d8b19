"""The REST spec's table requirements: JSON both ways (the spec's ``AssertCreate`` ...
``AssertDefaultSortOrderId`` objects) and the checks a server runs before applying a commit."""

from __future__ import annotations

import pytest

from icesql.errors import CommitConflictError
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.snapshots import SnapshotRef
from icesql.metadata.table_requirements import (
    AssertCreate,
    AssertCurrentSchemaId,
    AssertDefaultSortOrderId,
    AssertDefaultSpecId,
    AssertLastAssignedFieldId,
    AssertLastAssignedPartitionId,
    AssertRefSnapshotId,
    AssertTableUUID,
    RequirementFailedError,
    check_table_requirements,
    parse_requirement,
    update_requirements,
)
from icesql.metadata.table_updates import (
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    AddSortOrderUpdate,
    InvalidUpdateError,
    RemovePartitionSpecsUpdate,
    RemoveSchemasUpdate,
    RemoveSnapshotRefUpdate,
    RemoveSnapshotsUpdate,
    SetCurrentSchemaUpdate,
    SetDefaultSortOrderUpdate,
    SetDefaultSpecUpdate,
    SetPropertiesUpdate,
    SetSnapshotRefUpdate,
)
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder
from icesql.spec.types import NestedField, StringType

from .test_table_commit import _apply
from .test_table_updates import SCHEMA_JSON, SNAPSHOT_JSON, UUID, _base, _with_snapshot

REQUIREMENTS = [
    {"type": "assert-create"},
    {"type": "assert-table-uuid", "uuid": "2cc52516-5e73-41f2-b139-545d41a4e151"},
    {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 3055729675574597004},
    {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None},
    {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 3},
    {"type": "assert-current-schema-id", "current-schema-id": 0},
    {"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 1000},
    {"type": "assert-default-spec-id", "default-spec-id": 0},
    {"type": "assert-default-sort-order-id", "default-sort-order-id": 0},
]


def _table():
    return new_table_metadata(
        "s3://b/wh/db/t",
        Schema.from_json(SCHEMA_JSON),
        table_uuid="2cc52516-5e73-41f2-b139-545d41a4e151",
    )


@pytest.mark.parametrize("obj", REQUIREMENTS, ids=lambda o: o["type"])
def test_every_requirement_reads_and_writes_the_specs_json(obj) -> None:
    assert parse_requirement(obj).to_json() == obj


def test_bad_requirements() -> None:
    with pytest.raises(InvalidUpdateError, match="unknown table requirement type 'assert-nothing'"):
        parse_requirement({"type": "assert-nothing"})
    with pytest.raises(InvalidUpdateError, match="'snapshot-id'"):
        parse_requirement({"type": "assert-ref-snapshot-id", "ref": "main"})


def test_requirements_on_a_missing_or_changed_table() -> None:
    md = _table()
    check_table_requirements(None, [parse_requirement({"type": "assert-create"})])
    with pytest.raises(RequirementFailedError, match="Requirement failed: table already exists"):
        parse_requirement({"type": "assert-create"}).check(md)
    with pytest.raises(RequirementFailedError, match="current table metadata is missing"):
        parse_requirement({"type": "assert-current-schema-id", "current-schema-id": 0}).check(None)
    with pytest.raises(RequirementFailedError, match="table UUID does not match"):
        parse_requirement({"type": "assert-table-uuid", "uuid": "x"}).check(md)
    for obj, message in [
        (
            {"type": "assert-current-schema-id", "current-schema-id": 1},
            "current schema changed: expected id 1 != 0",
        ),
        (
            {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 9},
            "last assigned field id changed",
        ),
        (
            {"type": "assert-default-spec-id", "default-spec-id": 2},
            "default partition spec changed",
        ),
        (
            {"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 1},
            "partition id changed",
        ),
        (
            {"type": "assert-default-sort-order-id", "default-sort-order-id": 1},
            "default sort order changed",
        ),
    ]:
        with pytest.raises(RequirementFailedError, match=message):
            parse_requirement(obj).check(md)


def test_a_ref_must_be_where_the_change_saw_it() -> None:
    md = _table()
    absent = parse_requirement(
        {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None}
    )
    absent.check(md)  # no snapshot yet: main does not exist
    moved = _apply(
        md,
        {"action": "add-snapshot", "snapshot": SNAPSHOT_JSON},
        {
            "action": "set-snapshot-ref",
            "ref-name": "main",
            "type": "branch",
            "snapshot-id": SNAPSHOT_JSON["snapshot-id"],
        },
    )
    with pytest.raises(RequirementFailedError, match="main"):
        absent.check(moved)
    parse_requirement(
        {
            "type": "assert-ref-snapshot-id",
            "ref": "main",
            "snapshot-id": SNAPSHOT_JSON["snapshot-id"],
        }
    ).check(moved)
    with pytest.raises(RequirementFailedError, match="main"):
        parse_requirement(
            {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 1}
        ).check(moved)


# --- in icesql's own commits: the message names the table and what changed ----------------


def test_requirements_that_hold_pass() -> None:
    md = _base()
    check_table_requirements(md, [
        AssertTableUUID(UUID), AssertCurrentSchemaId(0), AssertLastAssignedFieldId(1),
        AssertDefaultSpecId(0), AssertLastAssignedPartitionId(999), AssertDefaultSortOrderId(0),
    ], "db.t")  # fmt: skip


@pytest.mark.parametrize(
    "requirement, message",
    [
        (AssertTableUUID("other"),
         f"table db.t was replaced by another table (uuid {UUID}, expected other)"),
        (AssertCurrentSchemaId(3), "changed its current schema (3 -> 0)"),
        (AssertLastAssignedFieldId(5), "changed its last column id (5 -> 1)"),
        (AssertDefaultSpecId(1), "changed its default partition spec (1 -> 0)"),
        (AssertLastAssignedPartitionId(1000), "changed its last partition id (1000 -> 999)"),
        (AssertDefaultSortOrderId(1), "changed its default sort order (1 -> 0)"),
    ],
)  # fmt: skip
def test_broken_requirements_name_the_change(requirement, message: str) -> None:
    with pytest.raises(CommitConflictError) as info:
        check_table_requirements(_base(), [AssertCurrentSchemaId(0), requirement], "db.t")
    assert message in str(info.value) and "db.t" in str(info.value)


@pytest.mark.parametrize(
    "requirement, message",
    [
        (AssertRefSnapshotId("b", 4), "moved ref 'b' (4 -> 5)"),
        (AssertRefSnapshotId("b", None), "created ref 'b' (at snapshot 5)"),
        (AssertRefSnapshotId("gone", 5), "removed ref 'gone'"),
    ],
)  # fmt: skip
def test_a_ref_moved_by_another_commit_fails_the_change(requirement, message: str) -> None:
    md = (
        _with_snapshot(_base(), 5)
        .builder()
        .apply([SetSnapshotRefUpdate("b", SnapshotRef(5))])
        .build()
    )
    with pytest.raises(CommitConflictError) as info:
        check_table_requirements(md, [requirement], "db.t")
    assert message in str(info.value)


# --- what a REST client requires of the updates it sends (Java's UpdateRequirements) --------


def test_each_kind_of_update_requires_what_it_was_based_on() -> None:
    md = _with_snapshot(_base(), 5).builder().set_ref("b", SnapshotRef(5)).build()
    schema = Schema((*md.schema().fields, NestedField(2, "s", StringType())), 0)
    updates = [
        SetSnapshotRefUpdate("main", SnapshotRef(5)),
        AddSchemaUpdate(schema),
        SetCurrentSchemaUpdate(),
        AddPartitionSpecUpdate(PartitionSpec(0, ())),
        SetDefaultSpecUpdate(),
        AddSortOrderUpdate(SortOrder(0, ())),
        SetDefaultSortOrderUpdate(),
        SetSnapshotRefUpdate("new", SnapshotRef(5)),
        RemoveSnapshotRefUpdate("b"),
        SetSnapshotRefUpdate("main", SnapshotRef(5)),  # once is enough
        SetPropertiesUpdate({"k": "v"}),  # requires nothing
    ]
    assert update_requirements(md, updates) == [
        AssertTableUUID(UUID),
        AssertCurrentSchemaId(0),
        AssertLastAssignedFieldId(1),
        AssertDefaultSpecId(0),
        AssertLastAssignedPartitionId(999),
        AssertDefaultSortOrderId(0),
        AssertRefSnapshotId("main", 5),
        AssertRefSnapshotId("new", None),
        AssertRefSnapshotId("b", 5),
    ]
    assert update_requirements(None, updates) == [AssertCreate()]


def test_removals_require_the_refs_and_what_was_kept() -> None:
    md = _with_snapshot(_base(), 5).builder().set_ref("b", SnapshotRef(5)).build()
    md = md.builder().set_ref("t", SnapshotRef(5, "tag")).build()
    assert update_requirements(md, [RemoveSnapshotsUpdate((1,))]) == [
        AssertTableUUID(UUID),
        AssertRefSnapshotId("b", 5),
        AssertRefSnapshotId("main", 5),
        AssertRefSnapshotId("t", 5),
    ]
    # old schemas and specs may go only while no other branch still writes with them
    assert update_requirements(
        md, [RemoveSchemasUpdate((1,)), RemovePartitionSpecsUpdate((1,))]
    ) == [
        AssertTableUUID(UUID),
        AssertCurrentSchemaId(0),
        AssertDefaultSpecId(0),
        AssertRefSnapshotId("b", 5),
    ]
