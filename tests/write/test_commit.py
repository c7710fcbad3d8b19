"""The commit protocol: retry on a lost race, validation, cleanup, history and lineage."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest
from deletes_support import deletion_vector
from table_support import largest_file_of, live_data_files

import icesql
from icesql.errors import CommitConflictError
from icesql.expressions.tree import equal
from icesql.metadata.manifest import STATUS_DELETED, STATUS_EXISTING, read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.snapshots import SnapshotRef
from icesql.metadata.table_requirements import AssertCurrentSchemaId
from icesql.metadata.table_updates import AddSchemaUpdate, SetCurrentSchemaUpdate
from icesql.scan.planner import plan_files
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.snapshot import Change, operation_for
from icesql.write.validation import Validation

T = ("db", "t")


def _files_for(table, ids):
    writer = DataWriter(WriteTarget.for_table(table))
    writer.write(pa.record_batch([pa.array(ids, pa.int64())], names=["id"]))
    return tuple(writer.close())


def _metadata_files(tmp_path, kind):
    mdir = tmp_path / "db" / "t" / "metadata"
    return sorted(n for n in os.listdir(mdir) if kind(n))


def test_a_lost_race_is_retried_on_the_new_table(con, tmp_path):
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    stale = con.catalog.load_table(T)
    con.execute("INSERT INTO db.t VALUES (1)")  # the competitor wins first
    committed = commit(
        con.catalog, stale, Change(operation="append", added_files=_files_for(stale, [2]))
    )
    md = committed.metadata
    snaps = md.snapshots
    assert [s.sequence_number for s in snaps] == [1, 2]
    assert snaps[1].parent_snapshot_id == snaps[0].snapshot_id  # linear history
    assert snaps[1].summary["total-records"] == "2"
    assert sorted(con.execute("SELECT id FROM db.t").fetchall()) == [(1,), (2,)]
    # the failed attempt's manifest list is gone; one list per committed snapshot
    lists = _metadata_files(tmp_path, lambda n: n.startswith("snap-"))
    assert len(lists) == 2
    assert any("-2-" in n for n in lists)  # the winning attempt was the second


def test_retries_exhausted_raise_and_leave_no_files(con, tmp_path):
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('commit.retry.num-retries'='0')"
    )
    stale = con.catalog.load_table(T)
    con.execute("INSERT INTO db.t VALUES (1)")
    before = set(os.listdir(tmp_path / "db" / "t" / "metadata"))
    with pytest.raises(CommitConflictError, match="after 1 attempts"):
        commit(con.catalog, stale, Change(operation="append", added_files=_files_for(stale, [2])))
    assert set(os.listdir(tmp_path / "db" / "t" / "metadata")) == before
    assert con.catalog.current_version(T)[0] == 2


def test_schema_change_on_a_changed_schema_is_a_conflict(con):
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    stale = con.catalog.load_table(T)
    con.execute("ALTER TABLE db.t ADD COLUMN s STRING")
    version = con.catalog.current_version(T)[0]
    change = Change(
        updates=(AddSchemaUpdate(stale.metadata.schema()), SetCurrentSchemaUpdate()),
        requirements=(AssertCurrentSchemaId(stale.metadata.current_schema_id),),
    )
    with pytest.raises(CommitConflictError, match="concurrent commit changed its current schema"):
        commit(con.catalog, stale, change)
    assert con.catalog.current_version(T)[0] == version


def test_appends_carry_forward_every_manifest_and_count_totals(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (bucket(2, id))"
    )
    for i in range(3):
        con.execute(f"INSERT INTO db.t VALUES ({i}, 'a'), ({i + 10}, 'b')")
    md = con.catalog.load_table(T).metadata
    last = md.current_snapshot()
    assert last.summary["total-records"] == "6"
    assert int(last.summary["total-data-files"]) >= 3
    assert last.summary["engine-name"] == "icesql"
    assert [e.snapshot_id for e in md.snapshot_log] == [s.snapshot_id for s in md.snapshots]
    assert len(md.metadata_log) == 3  # v1..v3 before the current v4


def test_v1_snapshots_have_no_sequence_numbers(con):
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='1')")
    con.execute("INSERT INTO db.t VALUES (1)")
    raw = dict(con.catalog.load_table(T).metadata.raw)
    assert raw["format-version"] == 1
    assert "sequence-number" not in raw["snapshots"][0]
    assert raw["current-snapshot-id"] == raw["snapshots"][0]["snapshot-id"]


def test_v3_row_lineage_advances_next_row_id(con):
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.t VALUES (1), (2), (3)")
    con.execute("INSERT INTO db.t VALUES (4)")
    md = con.catalog.load_table(T).metadata
    assert [(s.first_row_id, s.added_rows) for s in md.snapshots] == [(0, 3), (3, 1)]
    assert md.next_row_id == 4


def test_upgrade_to_v3_assigns_row_ids_to_existing_files(con):
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1), (2)")
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.t VALUES (3)")
    md = con.catalog.load_table(T).metadata
    assert md.format_version == 3
    last = md.current_snapshot()
    assert last.first_row_id == 0 and last.added_rows == 3  # the old manifest got ids too
    assert md.next_row_id == 3


def test_a_failed_statement_leaves_no_version_and_no_files(con, tmp_path):
    con.execute("CREATE TABLE db.t (id BIGINT NOT NULL, s STRING) USING iceberg PARTITIONED BY (s)")
    con.execute("INSERT INTO db.t VALUES (1, 'a')")
    version = con.catalog.current_version(T)[0]
    data = tmp_path / "db" / "t" / "data"
    before = {str(p) for p in data.rglob("*.parquet")}
    with pytest.raises(icesql.IntegrityError, match="NOT NULL column `id`"):
        con.execute("INSERT INTO db.t VALUES (2, 'b'), (NULL, 'c')")
    assert con.catalog.current_version(T)[0] == version
    assert {str(p) for p in data.rglob("*.parquet")} == before


def test_previous_versions_max_bounds_the_metadata_log(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('write.metadata.previous-versions-max'='3')"
    )
    for i in range(6):
        con.execute(f"INSERT INTO db.t VALUES ({i})")
    md = con.catalog.load_table(T).metadata
    assert [e.metadata_file.rsplit("/", 1)[1] for e in md.metadata_log] == [
        "v4.metadata.json",
        "v5.metadata.json",
        "v6.metadata.json",
    ]


def test_appends_keep_existing_delete_manifests(con, tmp_path):
    """An append must carry the parent's delete manifests forward unchanged (a Spark
    merge-on-read DELETE may have written them); written here by hand for a unit test."""
    from icesql.metadata.manifest import STATUS_ADDED, ManifestEntry, write_manifest
    from icesql.metadata.manifest_list import read_manifest_list, write_manifest_list
    from icesql.metadata.snapshots import Snapshot
    from icesql.spec.manifest_file import CONTENT_DELETES

    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1), (2)")
    table = con.catalog.load_table(T)
    md = table.metadata
    deletes = DataFile(
        content=POSITION_DELETES,
        file_path=str(tmp_path / "deletes.parquet"),
        file_format="PARQUET",
        partition=(),
        record_count=1,
        file_size_in_bytes=10,
    )
    manifest = write_manifest(
        table.io,
        str(tmp_path / "del-m0.avro"),
        md.spec(),
        md.schema(),
        2,
        42,
        [ManifestEntry(STATUS_ADDED, 42, None, None, deletes)],
        content=CONTENT_DELETES,
    )
    parent = md.current_snapshot()
    existing = read_manifest_list(table.io, parent.manifest_list, parent)
    sid = 42
    path = str(tmp_path / "db" / "t" / "metadata" / "snap-42.avro")
    write_manifest_list(table.io, path, [manifest, *existing], 2, sid, parent.snapshot_id, 2)
    snap = Snapshot(
        sid,
        parent.timestamp_ms + 1,
        path,
        parent.snapshot_id,
        2,
        {
            "operation": "delete",
            **{k: v for k, v in parent.summary.items() if k.startswith("total-")},
            "total-delete-files": "1",
            "total-position-deletes": "1",
        },
        md.current_schema_id,
    )
    new_md = (
        md.builder()
        .add_snapshot(snap)
        .set_branch_snapshot("main", sid)
        .build(table.metadata_location)
    )
    table = con.catalog.commit_table(table, new_md)

    con.execute("INSERT INTO db.t VALUES (3)")
    md = con.catalog.load_table(T).metadata
    head = md.current_snapshot()
    manifests = read_manifest_list(table.io, head.manifest_list, head)
    assert [m.content for m in manifests].count(CONTENT_DELETES) == 1
    assert any(m.manifest_path == manifest.manifest_path for m in manifests)
    assert head.summary["total-delete-files"] == "1"
    assert head.summary["total-position-deletes"] == "1"
    assert head.summary["total-records"] == "3"


# ---------------------------------------------------------------------------------------------
# Commits to a branch other than main (Change.branch)


def _branch_table(con, name="b"):
    """db.t with ids 1, 2 on main, branch ``name`` made there (through the metadata builder),
    then id 10 appended to main only: the branch and main have diverged."""
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('commit.retry.min-wait-ms'='1')"
    )
    con.execute("INSERT INTO db.t VALUES (1), (2)")
    table = con.catalog.load_table(T)
    fork = table.metadata.current_snapshot().snapshot_id
    md = (
        table.metadata.builder()
        .set_branch_snapshot(name, fork)
        .build(previous_metadata_file=table.metadata_location)
    )
    con.catalog.commit_table(table, md)
    con.execute("INSERT INTO db.t VALUES (10)")
    return con.catalog.load_table(T), fork


def _ids(con, ref=None):
    suffix = f".branch_{ref}" if ref else ""
    return sorted(r[0] for r in con.execute(f"SELECT id FROM db.t{suffix}").fetchall())


def _branch_files(table, name):
    md = table.metadata
    return [t.data_file for t in plan_files(md, md.snapshot_for_ref(name), table.io)]


def test_an_append_to_a_branch_leaves_main_alone(con):
    table, fork = _branch_table(con)
    main_head = table.metadata.current_snapshot().snapshot_id
    change = Change(operation="append", added_files=_files_for(table, [3]), branch="b")
    md = commit(con.catalog, table, change).metadata
    head = md.snapshot_for_ref("b")
    assert head.parent_snapshot_id == fork
    assert head.operation == "append" and head.summary["total-records"] == "3"
    assert md.current_snapshot().snapshot_id == main_head  # main untouched
    assert md.refs["main"].snapshot_id == main_head
    assert [e.snapshot_id for e in md.snapshot_log][-1] == main_head  # only main is logged
    assert _ids(con, "b") == [1, 2, 3]
    assert _ids(con) == [1, 2, 10]


def test_a_row_level_delete_on_a_branch_validates_against_the_branch(con):
    table, fork = _branch_table(con)
    removed = tuple(_branch_files(table, "b"))  # copy-on-write DELETE FROM db.t WHERE id = 1
    added = _files_for(table, [2])
    validation = Validation(
        fork, equal("id", 1), referenced_data_files=frozenset(f.file_path for f in removed)
    )
    # main gains a row matching the condition since the branch was read: no conflict, main's
    # commits are not the branch's history
    con.execute("INSERT INTO db.t VALUES (1)")
    change = Change(
        operation=operation_for(added, removed),
        added_files=added,
        removed_files=removed,
        validation=validation,
        branch="b",
    )
    md = commit(con.catalog, table, change).metadata
    head = md.snapshot_for_ref("b")
    assert head.parent_snapshot_id == fork and head.operation == "overwrite"
    assert _ids(con, "b") == [2]
    assert _ids(con) == [1, 1, 2, 10]


def test_a_concurrent_commit_to_the_branch_conflicts(con):
    table, fork = _branch_table(con)
    removed = tuple(_branch_files(table, "b"))
    # another writer appends a row matching the condition to the branch meanwhile
    commit(
        con.catalog,
        table,
        Change(operation="append", added_files=_files_for(table, [1]), branch="b"),
    )
    version = con.catalog.current_version(T)[0]
    change = Change(
        operation="overwrite",
        added_files=_files_for(table, [2]),
        removed_files=removed,
        validation=Validation(fork, equal("id", 1)),
        branch="b",
    )
    with pytest.raises(CommitConflictError, match="added data file"):
        commit(con.catalog, table, change)
    assert con.catalog.current_version(T)[0] == version


def test_a_metadata_only_delete_on_a_branch_filters_the_branch_files(con):
    from icesql.expressions.tree import ALWAYS_TRUE

    table, fork = _branch_table(con)
    md = commit(
        con.catalog, table, Change(operation="delete", delete_filter=ALWAYS_TRUE, branch="b")
    ).metadata
    assert md.snapshot_for_ref("b").parent_snapshot_id == fork
    assert md.snapshot_for_ref("b").summary["total-records"] == "0"
    assert _ids(con, "b") == []
    assert _ids(con) == [1, 2, 10]


def test_a_lost_race_on_a_branch_is_retried_on_the_new_branch_head(con):
    table, fork = _branch_table(con)  # a stale table: the competitor commits next
    first = commit(
        con.catalog,
        table,
        Change(operation="append", added_files=_files_for(table, [3]), branch="b"),
    )
    md = commit(
        con.catalog,
        table,
        Change(operation="append", added_files=_files_for(table, [4]), branch="b"),
    ).metadata
    head = md.snapshot_for_ref("b")
    assert head.parent_snapshot_id == first.metadata.snapshot_for_ref("b").snapshot_id
    assert _ids(con, "b") == [1, 2, 3, 4]
    assert _ids(con) == [1, 2, 10]


def test_a_new_branch_forks_from_the_current_snapshot_and_a_tag_is_refused(con):
    table, fork = _branch_table(con)
    main_head = table.metadata.current_snapshot().snapshot_id
    md = commit(
        con.catalog,
        table,
        Change(operation="append", added_files=_files_for(table, [5]), branch="new"),
    ).metadata
    assert md.snapshot_for_ref("new").parent_snapshot_id == main_head
    assert md.refs["new"].is_branch
    assert _ids(con, "new") == [1, 2, 5, 10]
    table = con.catalog.load_table(T)
    tagged = (
        table.metadata.builder()
        .set_ref("t1", SnapshotRef(fork, "tag"))
        .build(previous_metadata_file=table.metadata_location)
    )
    table = con.catalog.commit_table(table, tagged)
    with pytest.raises(icesql.ProgrammingError, match="'t1' is a tag"):
        commit(
            con.catalog,
            table,
            Change(operation="append", added_files=_files_for(table, [6]), branch="t1"),
        )


# ---------------------------------------------------------------------------------------------
# Commits that remove files and add delete files (moved here from
# tests/statements/test_row_changes.py; their conflict validation is in test_validation.py)


def _table(con, version=2, partitioned=True):
    part = "PARTITIONED BY (p)" if partitioned else ""
    con.execute(
        f"CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg {part}"
        f" TBLPROPERTIES ('format-version'='{version}', 'commit.retry.min-wait-ms'='1')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    con.execute("INSERT INTO db.t VALUES (4, 'b'), (5, 'c')")
    return con.catalog.load_table(T)


def _all_entries(table):
    snap = table.metadata.current_snapshot()
    for m in read_manifest_list(table.io, snap.manifest_list, snap):
        yield from ((m, e) for e in read_manifest(table.io, m))


def test_removing_a_data_file_rewrites_only_its_manifest(con):
    table = _table(con)
    victim = largest_file_of(table, "a")
    committed = commit(con.catalog, table, Change(operation="delete", removed_files=(victim,)))
    assert _ids(con) == [3, 4, 5]
    summary = committed.metadata.current_snapshot().summary
    assert summary["operation"] == "delete"
    assert summary["deleted-data-files"] == "1"
    assert summary["deleted-records"] == "2"
    assert summary["total-records"] == "3"
    assert summary["total-data-files"] == "3"
    entries = list(_all_entries(committed))
    sid = committed.metadata.current_snapshot().snapshot_id
    deleted = [e for _, e in entries if e.status == STATUS_DELETED]
    assert [e.data_file.file_path for e in deleted] == [victim.file_path]
    assert deleted[0].snapshot_id == sid and deleted[0].sequence_number == 1
    rewritten = [m for m, e in entries if e.status == STATUS_EXISTING]
    assert {m.added_snapshot_id for m in rewritten} == {sid}
    # the second INSERT's manifest was carried over untouched
    assert any(m.added_snapshot_id != sid for m, _ in entries)


def test_removing_a_file_twice_is_a_conflict_and_changes_nothing(con, tmp_path):
    table = _table(con)
    victim = largest_file_of(table, "b")
    commit(con.catalog, table, Change(operation="delete", removed_files=(victim,)))
    before = con.catalog.load_table(T).metadata_location
    with pytest.raises(CommitConflictError, match=victim.file_path.rsplit("/", 1)[-1]):
        commit(
            con.catalog,
            con.catalog.load_table(T),
            Change(operation="delete", removed_files=(victim,)),
        )
    assert con.catalog.load_table(T).metadata_location == before
    meta = tmp_path / "db" / "t" / "metadata"
    assert len([n for n in meta.iterdir() if n.name.startswith("snap-")]) == 3


def test_v3_row_ids_survive_a_manifest_rewrite(con):
    table = _table(con, version=3)
    before = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    victim = largest_file_of(table, "a")
    commit(con.catalog, table, Change(operation="delete", removed_files=(victim,)))
    after = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    assert after == {k: v for k, v in before.items() if k not in (1, 2)}


def test_a_deletion_vector_is_added_then_replaced(con):
    table = _table(con, version=3, partitioned=False)
    target = max(live_data_files(table), key=lambda f: f.record_count)
    first = deletion_vector(table, target, [0], name="dv.puffin")
    table = commit(
        con.catalog, table, Change(operation=operation_for([first], []), added_files=(first,))
    )
    assert _ids(con) == [2, 3, 4, 5]
    summary = table.metadata.current_snapshot().summary
    assert summary["operation"] == "delete"
    assert summary["added-dvs"] == "1" and summary["added-position-deletes"] == "1"
    merged = deletion_vector(table, target, [0, 2], name="dv2.puffin")
    table = commit(
        con.catalog,
        table,
        Change(operation="delete", added_files=(merged,), removed_files=(first,)),
    )
    assert _ids(con) == [2, 4, 5]
    summary = table.metadata.current_snapshot().summary
    assert summary["removed-dvs"] == "1" and summary["total-position-deletes"] == "2"
    deletes = [(m.content, e.status) for m, e in _all_entries(table) if e.data_file.content]
    assert sorted(deletes) == [(1, 1), (1, 2)]


def test_an_append_whose_start_was_expired_meanwhile_retries_on_the_current_table(
    tmp_path, monkeypatch
):
    """The statement started from a snapshot whose manifest list a concurrent
    ``expire_snapshots`` deleted before the commit read it (found by tests/reliability's
    mixed workload): that is a lost race, retried on the current table as Java re-reads it
    for every attempt, not an OperationalError that fails the INSERT."""
    from icesql.statements import insert

    con, other = icesql.connect(str(tmp_path)), icesql.connect(str(tmp_path))
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    real, busy = insert.commit, []

    def expired_meanwhile(catalog, table, change):
        if not busy:
            busy.append(True)
            other.execute("INSERT INTO db.t VALUES (2)")
            other.execute("INSERT INTO db.t VALUES (3)")
            other.execute(
                "CALL system.expire_snapshots(table => 'db.t',"
                " older_than => current_timestamp(), retain_last => 1)"
            )
            start = table.metadata.current_snapshot().manifest_list
            assert not os.path.exists(start.removeprefix("file:"))
        return real(catalog, table, change)

    monkeypatch.setattr(insert, "commit", expired_meanwhile)
    con.execute("INSERT INTO db.t VALUES (4)")
    assert sorted(con.execute("SELECT id FROM db.t").fetchall()) == [(1,), (2,), (3,), (4,)]
