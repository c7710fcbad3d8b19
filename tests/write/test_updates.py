"""Metadata updates replayed on a table's metadata and the requirements checked first:
``-1`` selects the one added last in the change, each requirement names what a concurrent
commit changed, and nothing else is touched."""

from __future__ import annotations

import pytest

from icesql.errors import CommitConflictError, InternalError
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.snapshots import SnapshotRef
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortField, SortOrder
from icesql.spec.transforms import Bucket
from icesql.spec.types import LongType, NestedField, StringType
from icesql.write.updates import (
    AddSchema,
    AddSortOrder,
    AddSpec,
    AssertCurrentSchemaId,
    AssertDefaultSortOrderId,
    AssertDefaultSpecId,
    AssertLastAssignedFieldId,
    AssertLastAssignedPartitionId,
    AssertRefSnapshotId,
    AssertTableUUID,
    RemoveProperties,
    RemoveRef,
    SetCurrentSchema,
    SetDefaultSortOrder,
    SetDefaultSpec,
    SetLocation,
    SetProperties,
    SetRef,
    Update,
    UpgradeFormatVersion,
    apply_updates,
    check_requirements,
)

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
    md = apply_updates(base.builder(), [
        AddSchema(WIDER), SetCurrentSchema(),
        AddSpec(spec), SetDefaultSpec(),
        AddSortOrder(order), SetDefaultSortOrder(),
    ]).build()  # fmt: skip
    assert md.current_schema_id == 1 and [f.name for f in md.schema().fields] == ["id", "s"]
    assert md.default_spec_id == 1 and md.spec().fields[0].name == "s_bucket"
    assert md.default_sort_order_id == 1 and md.sort_order().fields[0].source_id == 2
    assert md.last_column_id == 2 and md.last_partition_id == 1000
    assert base.current_schema_id == 0  # the base is unchanged


def test_explicit_ids_and_simple_settings() -> None:
    md = apply_updates(_base(1).builder(), [
        AddSchema(WIDER), SetCurrentSchema(0),
        SetProperties({"b": "3", "c": "4"}), RemoveProperties(("a", "missing")),
        SetLocation("file:/w/moved"), UpgradeFormatVersion(2),
    ]).build()  # fmt: skip
    assert md.current_schema_id == 0 and len(md.schemas) == 2
    assert dict(md.properties) == {"b": "3", "c": "4"}
    assert (md.location, md.format_version) == ("file:/w/moved", 2)


@pytest.mark.parametrize(
    "update, what",
    [(SetCurrentSchema(), "schema"), (SetDefaultSpec(), "partition spec"),
     (SetDefaultSortOrder(), "sort order")],
)  # fmt: skip
def test_last_added_without_an_add_is_an_internal_error(update: Update, what: str) -> None:
    with pytest.raises(InternalError, match=f"no {what} was added before"):
        apply_updates(_base().builder(), [update])


def test_unknown_updates_are_refused() -> None:
    class Rename(Update):
        pass

    with pytest.raises(InternalError, match="unknown metadata update"):
        apply_updates(_base().builder(), [Rename()])


def test_requirements_that_hold_pass() -> None:
    md = _base()
    check_requirements(md, [
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
        check_requirements(_base(), [AssertCurrentSchemaId(0), requirement], "db.t")
    assert message in str(info.value) and "db.t" in str(info.value)


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
    md = apply_updates(md.builder(), [SetRef("t1", tag), SetRef("b", SnapshotRef(5))]).build()
    assert md.refs["t1"] == tag and md.refs["b"].is_branch
    check_requirements(md, [AssertRefSnapshotId("b", 5), AssertRefSnapshotId("x", None)], "db.t")
    md = apply_updates(md.builder(), [RemoveRef("t1")]).build()
    assert set(md.refs) == {"main", "b"} and md.current_snapshot().snapshot_id == 5


@pytest.mark.parametrize(
    "requirement, message",
    [
        (AssertRefSnapshotId("b", 4), "moved ref 'b' (4 -> 5)"),
        (AssertRefSnapshotId("b", None), "created ref 'b' (at snapshot 5)"),
        (AssertRefSnapshotId("gone", 5), "removed ref 'gone'"),
    ],
)  # fmt: skip
def test_a_ref_moved_by_another_commit_fails_the_change(requirement, message: str) -> None:
    md = apply_updates(_with_snapshot(_base(), 5).builder(), [SetRef("b", SnapshotRef(5))]).build()
    with pytest.raises(CommitConflictError) as info:
        check_requirements(md, [requirement], "db.t")
    assert message in str(info.value)
