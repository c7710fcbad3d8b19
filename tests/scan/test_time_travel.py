"""The snapshot and schema a read sees (``icesql.scan.time_travel``), as Java's
``SnapshotUtil.schemaFor`` chooses them: a branch (or the current state) reads with the
current schema, a tag, a snapshot id or a timestamp with the schema the snapshot was written
with."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.snapshots import Snapshot, SnapshotRef
from icesql.scan.time_travel import select_version
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField, StringType

OLD = Schema((NestedField(1, "id", LongType()),), schema_id=0)
NEW = Schema((NestedField(1, "id", LongType()), NestedField(2, "s", StringType())), schema_id=1)
FIRST, SECOND, UNKNOWN_SCHEMA = 11, 22, 33


def _snapshot(snapshot_id, ts, seq, parent, schema_id):
    return Snapshot(
        snapshot_id=snapshot_id,
        timestamp_ms=ts,
        manifest_list=f"/m/snap-{snapshot_id}.avro",
        parent_snapshot_id=parent,
        sequence_number=seq,
        summary={"operation": "append"},
        schema_id=schema_id,
    )


@pytest.fixture(scope="module")
def metadata():
    builder = new_table_metadata("/wh/db/t", OLD).builder()
    builder.add_snapshot(_snapshot(FIRST, 1_000, 1, None, 0))
    builder.set_ref("main", SnapshotRef(FIRST))
    builder.set_current_schema(builder.add_schema(NEW))
    builder.add_snapshot(_snapshot(SECOND, 2_000, 2, FIRST, 1))
    builder.set_ref("main", SnapshotRef(SECOND))
    builder.add_snapshot(_snapshot(UNKNOWN_SCHEMA, 3_000, 3, FIRST, None))  # v1 style: no id
    builder.set_ref("tag1", SnapshotRef(FIRST, type="tag"))
    builder.set_ref("branch1", SnapshotRef(FIRST, type="branch"))
    builder.set_ref("22", SnapshotRef(FIRST, type="tag"))  # a ref named like a snapshot id
    builder.set_ref("7", SnapshotRef(FIRST, type="tag"))  # digits, but no such snapshot
    builder.set_ref("old", SnapshotRef(UNKNOWN_SCHEMA, type="tag"))
    md = builder.build()
    assert md.schema().schema_id == 1 and md.current_snapshot_id == SECOND
    return md


@pytest.mark.parametrize(
    ("kwargs", "snapshot_id", "schema_id"),
    [
        ({}, SECOND, 1),  # the current state
        ({"version": FIRST}, FIRST, 0),  # VERSION AS OF <id>
        ({"version": str(FIRST)}, FIRST, 0),  # VERSION AS OF '<id>'
        ({"version": "tag1"}, FIRST, 0),  # a tag: the snapshot's schema
        ({"version": "branch1"}, FIRST, 1),  # a branch: the current schema
        ({"version": "22"}, SECOND, 1),  # a snapshot id wins over a ref of that name
        ({"version": "7"}, FIRST, 0),  # digits that are no snapshot id: the ref
        ({"ref": "tag1"}, FIRST, 0),  # t.tag_tag1 / t.branch_x name the ref directly
        ({"ref": "branch1", "ref_kind": "branch"}, FIRST, 1),
        ({"ref": "tag1", "ref_kind": "tag"}, FIRST, 0),
        ({"timestamp_ms": 1_000}, FIRST, 0),  # at the commit time: that snapshot
        ({"timestamp_ms": 1_999}, FIRST, 0),
        ({"timestamp_ms": 2_000}, SECOND, 1),
        ({"timestamp_ms": 10**13}, SECOND, 1),
        ({"version": UNKNOWN_SCHEMA}, UNKNOWN_SCHEMA, 1),  # no schema id: the current one
        ({"version": "old"}, UNKNOWN_SCHEMA, 1),
    ],
)
def test_select_version(metadata, kwargs, snapshot_id, schema_id):
    version = select_version(metadata, "db.t", **kwargs)
    assert version.snapshot.snapshot_id == snapshot_id
    assert version.schema.schema_id == schema_id
    assert version.schema == metadata.schema_by_id(schema_id)


def test_a_table_without_snapshots_reads_nothing_with_its_schema():
    version = select_version(new_table_metadata("/wh/db/e", OLD), "db.e")
    assert version.snapshot is None and version.schema == OLD


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"version": 999}, "snapshot 999 not found in table db.t"),
        ({"version": "nope"}, "branch or tag 'nope' not found in table db.t"),
        ({"ref": "nope"}, "branch or tag 'nope' not found in table db.t"),
        ({"ref": "tag1", "ref_kind": "branch"}, "branch 'tag1' not found in table db.t"),
        ({"ref": "branch1", "ref_kind": "tag"}, "tag 'branch1' not found in table db.t"),
        ({"timestamp_ms": 999}, "no snapshot of table db.t is older than timestamp 999 ms"),
    ],
)
def test_errors_name_the_table_and_what_was_asked(metadata, kwargs, message):
    with pytest.raises(ProgrammingError) as e:
        select_version(metadata, "db.t", **kwargs)
    assert message in str(e.value)
