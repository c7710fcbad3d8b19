"""Commits that remove files and add delete files, and their conflict validation."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import CommitConflictError
from icesql.expressions.tree import equal
from icesql.metadata.manifest import STATUS_DELETED, STATUS_EXISTING, read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.puffin import write_deletion_vector_puffin
from icesql.scan.planner import plan_files
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.write.commit import commit
from icesql.write.snapshot import Change, operation_for
from icesql.write.validation import SNAPSHOT, Validation

T = ("db", "t")


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    yield connection
    connection.close()


def _table(con, version=2, partitioned=True):
    part = "PARTITIONED BY (p)" if partitioned else ""
    con.execute(
        f"CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg {part}"
        f" TBLPROPERTIES ('format-version'='{version}', 'commit.retry.min-wait-ms'='1')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    con.execute("INSERT INTO db.t VALUES (4, 'b'), (5, 'c')")
    return con.catalog.load_table(T)


def _live(table):
    md = table.metadata
    return [t.data_file for t in plan_files(md, md.current_snapshot(), table.io)]


def _file_with(table, value):
    """The data file of partition ``value`` holding the most rows."""
    files = [f for f in _live(table) if f.partition == (value,)]
    return max(files, key=lambda f: f.record_count)


def _ids(con):
    return sorted(r[0] for r in con.execute("SELECT id FROM db.t").fetchall())


def _dv(table, data_file, positions, name="dv.puffin"):
    path = f"{table.metadata.location}/data/{name}"
    [(offset, length, card)] = write_deletion_vector_puffin(table.io, path, [(data_file.file_path, positions)])
    return DataFile(
        file_path=path, file_format="PUFFIN", partition=data_file.partition, record_count=card,
        file_size_in_bytes=table.io.size(path),
        content=POSITION_DELETES, referenced_data_file=data_file.file_path,
        content_offset=offset, content_size_in_bytes=length, spec_id=data_file.spec_id,
    )


def _all_entries(table):
    snap = table.metadata.current_snapshot()
    for m in read_manifest_list(table.io, snap.manifest_list, snap):
        yield from ((m, e) for e in read_manifest(table.io, m))


def test_operation_follows_javas_rules():
    data = DataFile(file_path="d", file_format="PARQUET", partition=(), record_count=1, file_size_in_bytes=1)
    dv = DataFile(file_path="x", file_format="PUFFIN", partition=(), record_count=1,
                  file_size_in_bytes=1, content=POSITION_DELETES)
    assert operation_for([data], []) == "append"
    assert operation_for([], [data]) == "delete"
    assert operation_for([dv], []) == "delete"
    assert operation_for([data], [data]) == "overwrite"
    assert operation_for([data, dv], []) == "overwrite"


def test_removing_a_data_file_rewrites_only_its_manifest(con):
    table = _table(con)
    victim = _file_with(table, "a")
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
    victim = _file_with(table, "b")
    commit(con.catalog, table, Change(operation="delete", removed_files=(victim,)))
    before = con.catalog.load_table(T).metadata_location
    with pytest.raises(CommitConflictError, match=victim.file_path.rsplit("/", 1)[-1]):
        commit(con.catalog, con.catalog.load_table(T), Change(operation="delete", removed_files=(victim,)))
    assert con.catalog.load_table(T).metadata_location == before
    meta = tmp_path / "db" / "t" / "metadata"
    assert len([n for n in meta.iterdir() if n.name.startswith("snap-")]) == 3


def test_v3_row_ids_survive_a_manifest_rewrite(con):
    table = _table(con, version=3)
    before = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    victim = _file_with(table, "a")
    commit(con.catalog, table, Change(operation="delete", removed_files=(victim,)))
    after = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    assert after == {k: v for k, v in before.items() if k not in (1, 2)}


def test_a_deletion_vector_is_added_then_replaced(con):
    table = _table(con, version=3, partitioned=False)
    target = max(_live(table), key=lambda f: f.record_count)
    first = _dv(table, target, [0])
    table = commit(con.catalog, table, Change(operation=operation_for([first], []), added_files=(first,)))
    assert _ids(con) == [2, 3, 4, 5]
    summary = table.metadata.current_snapshot().summary
    assert summary["operation"] == "delete"
    assert summary["added-dvs"] == "1" and summary["added-position-deletes"] == "1"
    merged = _dv(table, target, [0, 2], name="dv2.puffin")
    table = commit(
        con.catalog, table,
        Change(operation="delete", added_files=(merged,), removed_files=(first,)),
    )
    assert _ids(con) == [2, 4, 5]
    summary = table.metadata.current_snapshot().summary
    assert summary["removed-dvs"] == "1" and summary["total-position-deletes"] == "2"
    deletes = [(m.content, e.status) for m, e in _all_entries(table) if e.data_file.content]
    assert sorted(deletes) == [(1, 1), (1, 2)]


def test_serializable_delete_conflicts_with_a_matching_append(con):
    table = _table(con)
    start = table.metadata.current_snapshot().snapshot_id
    con.execute("INSERT INTO db.t VALUES (6, 'a')")  # lands between read and commit
    change = Change(
        operation="delete",
        removed_files=(_file_with(table, "a"),),
        validation=Validation(start, equal("p", "a")),
    )
    with pytest.raises(CommitConflictError, match="added data file .* may hold rows matching"):
        commit(con.catalog, table, change)
    assert _ids(con) == [1, 2, 3, 4, 5, 6]


def test_appends_elsewhere_or_under_snapshot_isolation_are_retried(con):
    table = _table(con)
    start = table.metadata.current_snapshot().snapshot_id
    con.execute("INSERT INTO db.t VALUES (7, 'z')")
    change = Change(
        operation="delete",
        removed_files=(_file_with(table, "a"),),
        validation=Validation(start, equal("p", "a")),
    )
    commit(con.catalog, table, change)
    assert _ids(con) == [3, 4, 5, 7]
    table = con.catalog.load_table(T)
    start = table.metadata.current_snapshot().snapshot_id
    con.execute("INSERT INTO db.t VALUES (8, 'b')")
    change = Change(
        operation="delete",
        removed_files=(_file_with(table, "b"),),
        validation=Validation(start, equal("p", "b"), isolation=SNAPSHOT),
    )
    commit(con.catalog, table, change)
    assert 8 in _ids(con)


def test_a_concurrent_dv_for_a_referenced_file_conflicts(con):
    table = _table(con, version=3, partitioned=False)
    start = table.metadata.current_snapshot().snapshot_id
    target = max(_live(table), key=lambda f: f.record_count)
    theirs = _dv(table, target, [1], name="theirs.puffin")
    commit(con.catalog, table, Change(operation="delete", added_files=(theirs,)))
    ours = _dv(table, target, [0], name="ours.puffin")
    change = Change(
        operation="delete",
        added_files=(ours,),
        validation=Validation(start, equal("id", 1), isolation=SNAPSHOT,
                              referenced_data_files=frozenset({target.file_path})),
    )
    with pytest.raises(CommitConflictError, match="added delete file"):
        commit(con.catalog, table, change)
    assert _ids(con) == [1, 3, 4, 5]


def test_a_referenced_file_removed_concurrently_conflicts(con):
    table = _table(con)
    start = table.metadata.current_snapshot().snapshot_id
    target = _file_with(table, "c")
    commit(con.catalog, table, Change(operation="delete", removed_files=(target,)))
    ours = _dv(table, target, [0])
    change = Change(
        operation="delete",
        added_files=(ours,),
        validation=Validation(start, equal("id", 5), referenced_data_files=frozenset({target.file_path})),
    )
    with pytest.raises(CommitConflictError, match="removed data file"):
        commit(con.catalog, table, change)
