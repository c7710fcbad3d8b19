"""icesql.write.snapshot: the snapshot of one change — its operation, its parent (the branch
head), the manifests and manifest list an attempt writes, its summary, and the cleanup of
exactly the files an attempt wrote. What is written is read back with icesql's readers and
with fastavro (an independent Avro reader)."""

from __future__ import annotations

import os

import fastavro
import pyarrow as pa
import pytest

from icesql.errors import CommitConflictError, InternalError, ProgrammingError
from icesql.metadata.manifest import STATUS_ADDED, read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.snapshots import SnapshotRef
from icesql.spec.content_file import EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.spec.manifest_file import CONTENT_DATA, CONTENT_DELETES
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.snapshot import (
    Change,
    SnapshotOperation,
    SnapshotProducer,
    branch_head,
    new_snapshot_id,
    operation_for,
)

T = ("db", "t")


def _table(con, version=2, rows=((1,), (2,))):
    con.execute(
        f"CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='{version}')"
    )
    for (i,) in rows:
        con.execute(f"INSERT INTO db.t VALUES ({i})")
    return con.catalog.load_table(T)


def _files_for(table, ids):
    writer = DataWriter(WriteTarget.for_table(table))
    writer.write(pa.record_batch([pa.array(ids, pa.int64())], names=["id"]))
    return tuple(writer.close())


def _file(path="d.parquet", content=0, records=1, **kw):
    return DataFile(
        file_path=path,
        file_format="PARQUET",
        partition=(),
        record_count=records,
        file_size_in_bytes=10,
        content=content,
        **kw,
    )


def _avro(path):
    with open(path, "rb") as f:
        reader = fastavro.reader(f)
        return reader.metadata, list(reader)


def _metadata_dir(tmp_path):
    return tmp_path / "db" / "t" / "metadata"


def _avro_files(tmp_path):
    return {n for n in os.listdir(_metadata_dir(tmp_path)) if n.endswith(".avro")}


# ---------------------------------------------------------------------------------------------
# SnapshotOperation, operation_for, Change

DATA = _file()
POS = _file("pos.parquet", POSITION_DELETES)
DV = DataFile(
    file_path="x.puffin",
    file_format="PUFFIN",
    partition=(),
    record_count=1,
    file_size_in_bytes=1,
    content=POSITION_DELETES,
    referenced_data_file="d.parquet",
)
EQ = _file("eq.parquet", EQUALITY_DELETES, equality_ids=(1,))


@pytest.mark.parametrize(
    ("added", "removed", "expected"),
    [
        ([DATA], [], "append"),  # new data only
        ([DATA, DATA], [], "append"),
        ([], [DATA], "delete"),  # removals only
        ([DV], [], "delete"),  # delete files only (merge-on-read DELETE)
        ([POS, EQ], [], "delete"),
        ([DV], [DV], "delete"),  # a replaced deletion vector
        ([DATA], [DATA], "overwrite"),  # copy-on-write UPDATE
        ([DATA, DV], [], "overwrite"),  # merge-on-read UPDATE
        ([DATA], [DV], "overwrite"),
        ([DATA, EQ], [DATA], "overwrite"),
    ],
)
def test_operation_follows_javas_rules(added, removed, expected):
    op = operation_for(added, removed)
    assert op is SnapshotOperation(expected) and op == expected


def test_the_operation_is_an_enum():
    assert Change(operation="delete").operation is SnapshotOperation.DELETE
    assert Change(operation=SnapshotOperation.REPLACE).operation is SnapshotOperation.REPLACE
    with pytest.raises(ValueError, match="upsert"):
        Change(operation="upsert")
    assert [o.value for o in SnapshotOperation] == ["append", "replace", "overwrite", "delete"]


def test_only_a_change_with_an_operation_adds_a_snapshot():
    assert Change(operation="append").adds_snapshot
    assert not Change().adds_snapshot  # updates only (ALTER TABLE ...)
    assert Change().branch == "main" and Change().keep_existing


def test_new_snapshot_ids_are_positive_longs_and_distinct():
    ids = [new_snapshot_id() for _ in range(2000)]
    assert all(0 <= i < 2**63 for i in ids)
    assert len(set(ids)) == len(ids)
    assert max(ids) > 2**60  # uses the whole range, not a small counter


# ---------------------------------------------------------------------------------------------
# branch_head


def test_branch_head_of_main_a_branch_a_new_branch_and_an_empty_table(con):
    table = _table(con, rows=())
    assert branch_head(table.metadata, "main") is None  # no snapshot yet
    con.execute("INSERT INTO db.t VALUES (1)")
    con.execute("INSERT INTO db.t VALUES (2)")
    md = con.catalog.load_table(T).metadata
    first, second = md.snapshots
    assert branch_head(md, "main") == second
    assert branch_head(md, "never-made") == second  # a new branch forks from the current one
    md = md.builder().set_ref("b", SnapshotRef(first.snapshot_id, "branch")).build()
    assert branch_head(md, "b") == first


def test_a_tag_cannot_be_committed_to_and_the_error_names_it(con):
    md = _table(con).metadata
    md = md.builder().set_ref("v1", SnapshotRef(md.snapshots[0].snapshot_id, "tag")).build()
    with pytest.raises(ProgrammingError, match=r"cannot commit to db\.t: 'v1' is a tag"):
        branch_head(md, "v1", "db.t")
    with pytest.raises(ProgrammingError, match="cannot commit to the table: 'v1' is a tag"):
        branch_head(md, "v1")


# ---------------------------------------------------------------------------------------------
# SnapshotProducer.produce


def test_an_append_writes_one_manifest_and_a_list_on_top_of_the_parent(con, tmp_path):
    table = _table(con)
    md = table.metadata
    parent = md.current_snapshot()
    added = _files_for(table, [7, 8, 9])
    before = _avro_files(tmp_path)
    producer = SnapshotProducer(table.io, Change(operation="append", added_files=added), "db.t")
    snap = producer.produce(md, 1)

    sid = snap.snapshot_id
    assert snap.parent_snapshot_id == parent.snapshot_id
    assert snap.sequence_number == parent.sequence_number + 1 == md.last_sequence_number + 1
    assert snap.schema_id == md.current_schema_id
    assert snap.timestamp_ms >= md.last_updated_ms
    assert snap.first_row_id is None and snap.added_rows is None  # v2: no row lineage
    meta = str(_metadata_dir(tmp_path))
    assert snap.manifest_list == f"{meta}/snap-{sid}-1-{producer.commit_uuid}.avro"
    new_names = _avro_files(tmp_path) - before
    assert new_names == {f"{producer.commit_uuid}-m0.avro", os.path.basename(snap.manifest_list)}

    # the summary: this change's counts and the parent's totals carried on
    s = snap.summary
    assert s["operation"] == "append"
    assert s["added-data-files"] == "1" and s["added-records"] == "3"
    assert s["total-records"] == str(int(parent.summary["total-records"]) + 3) == "5"
    assert s["total-data-files"] == "3"

    # icesql's reader: the new manifest first, then the parent's, with sequence numbers
    manifests = read_manifest_list(table.io, snap.manifest_list, snap)
    old = read_manifest_list(table.io, parent.manifest_list, parent)
    assert [m.manifest_path for m in manifests[1:]] == [m.manifest_path for m in old]
    new = manifests[0]
    assert new.manifest_path == f"{meta}/{producer.commit_uuid}-m0.avro"
    assert (new.added_snapshot_id, new.sequence_number, new.min_sequence_number) == (sid, 3, 3)
    assert (new.added_files_count, new.added_rows_count, new.content) == (1, 3, CONTENT_DATA)
    entries = list(read_manifest(table.io, new))
    assert [(e.status, e.snapshot_id, e.sequence_number) for e in entries] == [
        (STATUS_ADDED, sid, 3)
    ]
    assert entries[0].data_file.file_path == added[0].file_path

    # fastavro: the list's key-value metadata and rows, the manifest's entries
    list_meta, rows = _avro(snap.manifest_list)
    assert list_meta["snapshot-id"] == str(sid)
    assert list_meta["parent-snapshot-id"] == str(parent.snapshot_id)
    assert list_meta["sequence-number"] == "3" and list_meta["format-version"] == "2"
    assert [r["manifest_path"] for r in rows] == [m.manifest_path for m in manifests]
    assert rows[0]["added_snapshot_id"] == sid and rows[0]["sequence_number"] == 3
    assert [r["sequence_number"] for r in rows[1:]] == [2, 1]  # the parent's keep theirs
    _, manifest_rows = _avro(new.manifest_path)
    assert [(r["status"], r["snapshot_id"]) for r in manifest_rows] == [(1, sid)]
    # the sequence numbers are inherited from the list: null in the manifest
    assert manifest_rows[0]["sequence_number"] is None
    assert manifest_rows[0]["file_sequence_number"] is None
    assert manifest_rows[0]["data_file"]["file_path"] == added[0].file_path
    assert manifest_rows[0]["data_file"]["record_count"] == 3


def test_data_and_delete_files_go_to_manifests_of_their_content(con, tmp_path):
    table = _table(con)
    data = _files_for(table, [3])
    deletes = (
        _file(f"{table.metadata.location}/data/pos.parquet", POSITION_DELETES, records=2),
        _file(
            f"{table.metadata.location}/data/eq.parquet",
            EQUALITY_DELETES,
            records=4,
            equality_ids=(1,),
        ),
    )
    change = Change(operation=operation_for([*data, *deletes], []), added_files=(*deletes, *data))
    producer = SnapshotProducer(table.io, change, "db.t")
    snap = producer.produce(table.metadata, 1)
    assert snap.summary["operation"] == "overwrite"
    assert snap.summary["added-delete-files"] == "2"
    assert snap.summary["added-position-deletes"] == "2"
    assert snap.summary["added-equality-deletes"] == "4"
    # Java's order: data manifests (new first), then delete manifests
    listed = read_manifest_list(table.io, snap.manifest_list, snap)
    manifests = [m for m in listed if m.added_snapshot_id == snap.snapshot_id]
    assert [m.content for m in listed] == [CONTENT_DATA] * (len(listed) - 1) + [CONTENT_DELETES]
    assert [m.content for m in manifests] == [CONTENT_DATA, CONTENT_DELETES]
    assert [m.manifest_path.rsplit("-", 1)[1] for m in manifests] == ["m0.avro", "m1.avro"]
    by_content = {
        m.content: [e.data_file.file_path for e in read_manifest(table.io, m)] for m in manifests
    }
    assert by_content == {
        CONTENT_DATA: [data[0].file_path],
        CONTENT_DELETES: [f.file_path for f in deletes],
    }
    meta, _ = _avro(manifests[1].manifest_path)
    assert meta["content"] == "deletes"
    meta, _ = _avro(manifests[0].manifest_path)
    assert meta["content"] == "data"


def test_keep_existing_false_leaves_the_parents_files_out(con):
    table = _table(con)
    added = _files_for(table, [5])
    change = Change(operation="overwrite", added_files=added, keep_existing=False)
    snap = SnapshotProducer(table.io, change, "db.t").produce(table.metadata, 1)
    manifests = read_manifest_list(table.io, snap.manifest_list, snap)
    assert len(manifests) == 1 and manifests[0].added_snapshot_id == snap.snapshot_id
    # the totals start from zero, not the parent's
    assert snap.summary["total-records"] == "1" and snap.summary["total-data-files"] == "1"
    assert snap.parent_snapshot_id == table.metadata.current_snapshot_id


def test_a_first_snapshot_has_no_parent(con, tmp_path):
    table = _table(con, rows=())
    snap = SnapshotProducer(
        table.io, Change(operation="append", added_files=_files_for(table, [1, 2])), "db.t"
    ).produce(table.metadata, 1)
    assert snap.parent_snapshot_id is None and snap.sequence_number == 1
    meta, rows = _avro(snap.manifest_list)
    assert meta["parent-snapshot-id"] == "null"  # Java's String.valueOf(null)
    assert len(rows) == 1 and snap.summary["total-records"] == "2"


def test_v1_snapshots_have_sequence_number_zero(con):
    table = _table(con, version=1)
    snap = SnapshotProducer(
        table.io, Change(operation="append", added_files=_files_for(table, [3])), "db.t"
    ).produce(table.metadata, 1)
    assert snap.sequence_number == 0
    meta, rows = _avro(snap.manifest_list)
    assert meta["format-version"] == "1" and "sequence-number" not in meta
    assert "sequence_number" not in rows[0]  # the v1 manifest list schema has no such field


def test_v3_snapshot_takes_the_tables_next_row_id(con):
    table = _table(con, version=3, rows=((1,), (2,)))
    md = table.metadata
    assert md.next_row_id == 2
    snap = SnapshotProducer(
        table.io, Change(operation="append", added_files=_files_for(table, [3, 4, 5])), "db.t"
    ).produce(md, 1)
    assert (snap.first_row_id, snap.added_rows) == (2, 3)
    meta, rows = _avro(snap.manifest_list)
    assert meta["first-row-id"] == "2"
    assert rows[0]["first_row_id"] == 2  # the new manifest's rows start at the table's next id


def test_a_retry_reuses_the_manifests_and_writes_a_new_list_on_the_new_base(con, tmp_path):
    table = _table(con)
    producer = SnapshotProducer(
        table.io, Change(operation="append", added_files=_files_for(table, [9])), "db.t"
    )
    first = producer.produce(table.metadata, 1)
    one = read_manifest_list(table.io, first.manifest_list, first)
    con.execute("INSERT INTO db.t VALUES (3)")  # a competitor commits first
    base = con.catalog.load_table(T).metadata
    producer.discard_attempt(first)
    second = producer.produce(base, 2)
    assert second.snapshot_id == first.snapshot_id  # not taken meanwhile: kept
    assert second.parent_snapshot_id == base.current_snapshot_id
    assert (first.sequence_number, second.sequence_number) == (3, 4)
    assert "-2-" in os.path.basename(second.manifest_list)
    assert not os.path.exists(first.manifest_list) and os.path.exists(second.manifest_list)
    two = read_manifest_list(table.io, second.manifest_list, second)
    assert one[0].manifest_path == two[0].manifest_path  # the manifest written once
    assert len(two) == len(one) + 1  # the competitor's manifest carried forward too
    assert second.summary["total-records"] == "4"
    names = _avro_files(tmp_path)
    assert len([n for n in names if n.startswith(producer.commit_uuid)]) == 1


def test_a_removed_file_the_base_no_longer_holds_is_a_conflict(con):
    table = _table(con)
    missing = _file(f"{table.metadata.location}/data/gone.parquet")
    producer = SnapshotProducer(
        table.io, Change(operation="delete", removed_files=(missing,)), "db.t"
    )
    with pytest.raises(CommitConflictError, match=r"db\.t.*gone\.parquet"):
        producer.produce(table.metadata, 1)


def test_a_file_of_an_unknown_spec_is_an_internal_error_naming_the_table(con):
    table = _table(con)
    stray = DataFile(
        file_path="s.parquet",
        file_format="PARQUET",
        partition=(),
        record_count=1,
        file_size_in_bytes=1,
        spec_id=7,
    )
    producer = SnapshotProducer(table.io, Change(operation="append", added_files=(stray,)), "db.t")
    with pytest.raises(InternalError, match=r"db\.t use unknown partition spec 7"):
        producer.produce(table.metadata, 1)


# ---------------------------------------------------------------------------------------------
# discard_attempt and cleanup: exactly the files of the attempt(s)


def _three_attempts(con, tmp_path):
    table = _table(con)
    before = _avro_files(tmp_path)
    producer = SnapshotProducer(
        table.io, Change(operation="append", added_files=_files_for(table, [9])), "db.t"
    )
    snaps = [producer.produce(table.metadata, attempt) for attempt in (1, 2, 3)]
    return producer, snaps, before


def test_discard_attempt_deletes_only_that_attempts_list(con, tmp_path):
    producer, (a, b, c), before = _three_attempts(con, tmp_path)
    producer.discard_attempt(b)
    written = _avro_files(tmp_path) - before
    assert written == {
        os.path.basename(a.manifest_list),
        os.path.basename(c.manifest_list),
        f"{producer.commit_uuid}-m0.avro",
    }
    producer.discard_attempt(None)  # no snapshot made: nothing to do
    producer.discard_attempt(b)  # already gone: best effort, no error
    assert _avro_files(tmp_path) - before == written


def test_cleanup_after_success_keeps_what_the_committed_snapshot_uses(con, tmp_path):
    producer, (a, b, c), before = _three_attempts(con, tmp_path)
    producer.cleanup(b)
    assert _avro_files(tmp_path) - before == {
        os.path.basename(b.manifest_list),
        f"{producer.commit_uuid}-m0.avro",
    }
    assert _avro_files(tmp_path) >= before  # the parent's files are never touched


def test_cleanup_after_failure_deletes_everything_written(con, tmp_path):
    producer, _, before = _three_attempts(con, tmp_path)
    producer.cleanup()
    assert _avro_files(tmp_path) == before


def test_cleanup_keeps_the_rewritten_manifests_the_committed_snapshot_uses(con, tmp_path):
    """A removal rewrites the parent's manifest into a new one (``-m<N>.avro``): that one is
    kept with the committed list; a failed change deletes it."""
    table = _table(con)
    md = table.metadata
    head = md.current_snapshot()
    victim = next(
        e.data_file
        for m in read_manifest_list(table.io, head.manifest_list, head)
        for e in read_manifest(table.io, m)
    )
    before = _avro_files(tmp_path)
    producer = SnapshotProducer(
        table.io, Change(operation="delete", removed_files=(victim,)), "db.t"
    )
    snap = producer.produce(md, 1)
    assert [f.file_path for f in producer.removed] == [victim.file_path]
    assert snap.summary["deleted-data-files"] == "1" and snap.summary["total-records"] == "1"
    rewritten = {
        m.manifest_path
        for m in read_manifest_list(table.io, snap.manifest_list, snap)
        if m.added_snapshot_id == snap.snapshot_id
    }
    assert {os.path.basename(p) for p in rewritten} == {f"{producer.commit_uuid}-m0.avro"}
    producer.cleanup(snap)
    assert _avro_files(tmp_path) - before == {
        os.path.basename(snap.manifest_list),
        f"{producer.commit_uuid}-m0.avro",
    }
    producer.cleanup()
    assert _avro_files(tmp_path) == before
