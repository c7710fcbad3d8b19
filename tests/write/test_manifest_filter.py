"""The manifest filter of every commit: files removed by row filter and by partition, old
delete files aged out, dangling deletion vectors and empty manifests dropped, all decided
again on the base each attempt lands on (Java's ``ManifestFilterManager`` rules)."""

from __future__ import annotations

import pytest
from deletes_support import deletion_vector

import icesql
from icesql.expressions.tree import ALWAYS_TRUE, equal
from icesql.metadata.manifest import STATUS_DELETED, read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.scan.planner import plan_files
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.spec.manifest_file import CONTENT_DELETES
from icesql.write.commit import commit
from icesql.write.snapshot import Change

T = ("db", "t")


def _table(con, version=2):
    con.execute(
        "CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)"
        f" TBLPROPERTIES ('format-version'='{version}', 'commit.retry.min-wait-ms'='1')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'a')")
    return con.catalog.load_table(T)


def _data(table, partition):
    md = table.metadata
    return [
        t.data_file
        for t in plan_files(md, md.current_snapshot(), table.io)
        if t.data_file.partition == (partition,)
    ]


def _position_deletes(partition, name="pos.parquet"):
    """A position delete file's manifest entry; never read by these tests."""
    return DataFile(
        file_path=f"/nowhere/{name}",
        file_format="PARQUET",
        partition=(partition,),
        record_count=1,
        file_size_in_bytes=10,
        content=POSITION_DELETES,
    )


def _live_deletes(table):
    snap = table.metadata.current_snapshot()
    out = []
    for m in read_manifest_list(table.io, snap.manifest_list, snap):
        if m.content == CONTENT_DELETES:
            out += [e.data_file.file_path for e in read_manifest(table.io, m) if e.is_live]
    return out


def test_appends_never_drop_delete_files(con):
    table = _table(con)
    table = commit(
        con.catalog, table, Change(operation="delete", added_files=(_position_deletes("a"),))
    )
    con.execute("INSERT INTO db.t VALUES (3, 'b')")
    assert _live_deletes(con.catalog.load_table(T)) == ["/nowhere/pos.parquet"]


def test_delete_files_older_than_all_data_age_out_once_data_is_removed(con):
    table = _table(con)  # data a: seq 1
    table = commit(
        con.catalog, table, Change(operation="delete", added_files=(_position_deletes("a"),))
    )  # seq 2
    con.execute("INSERT INTO db.t VALUES (3, 'b')")  # seq 3
    table = con.catalog.load_table(T)
    [old] = _data(table, "a")
    table = commit(con.catalog, table, Change(operation="delete", removed_files=(old,)))
    summary = table.metadata.current_snapshot().summary
    assert _live_deletes(table) == []
    assert (summary["removed-delete-files"], summary["total-delete-files"]) == ("1", "0")
    assert summary["deleted-data-files"] == "1"


def test_deletion_vectors_of_removed_data_files_go_with_them(con):
    table = _table(con, version=3)
    con.execute("INSERT INTO db.t VALUES (3, 'b')")
    table = con.catalog.load_table(T)
    [a], [b] = _data(table, "a"), _data(table, "b")
    table = commit(
        con.catalog,
        table,
        Change(
            operation="delete",
            added_files=(
                deletion_vector(table, a, [0], "a.puffin"),
                deletion_vector(table, b, [0], "b.puffin"),
            ),
        ),
    )
    table = commit(con.catalog, table, Change(operation="delete", removed_files=(a,)))
    summary = table.metadata.current_snapshot().summary
    assert [p.rsplit("/", 1)[-1] for p in _live_deletes(table)] == ["b.puffin"]
    assert (summary["removed-dvs"], summary["total-delete-files"]) == ("1", "1")
    assert (
        sorted(r[0] for r in con.execute("SELECT id FROM db.t").fetchall()) == []
    )  # a gone, b's one row deleted


def test_manifests_without_live_files_are_not_carried_forward(con):
    table = _table(con)
    [a] = _data(table, "a")
    table = commit(con.catalog, table, Change(operation="delete", removed_files=(a,)))
    snap = table.metadata.current_snapshot()
    [rewritten] = read_manifest_list(table.io, snap.manifest_list, snap)
    assert [e.status for e in read_manifest(table.io, rewritten)] == [STATUS_DELETED]
    con.execute("INSERT INTO db.t VALUES (3, 'b')")
    table = con.catalog.load_table(T)
    snap = table.metadata.current_snapshot()
    paths = [m.manifest_path for m in read_manifest_list(table.io, snap.manifest_list, snap)]
    assert rewritten.manifest_path not in paths and len(paths) == 1


def test_row_filter_is_applied_to_the_base_each_attempt_lands_on(con):
    stale = _table(con)
    con.execute("INSERT INTO db.t VALUES (3, 'a'), (4, 'b')")  # lands after `stale` was read
    change = Change(operation="delete", delete_filter=equal("p", "a"))
    table = commit(con.catalog, stale, change)
    assert con.execute("SELECT id FROM db.t").fetchall() == [(4,)]
    summary = table.metadata.current_snapshot().summary
    assert (summary["deleted-data-files"], summary["deleted-records"]) == ("2", "3")


def test_dropped_partitions_take_their_delete_files(con):
    table = _table(con)
    con.execute("INSERT INTO db.t VALUES (4, 'b')")
    table = con.catalog.load_table(T)
    table = commit(
        con.catalog,
        table,
        Change(
            operation="delete",
            added_files=(_position_deletes("a"), _position_deletes("b", "pb.parquet")),
        ),
    )
    spec_id = table.metadata.spec().spec_id
    table = commit(
        con.catalog,
        table,
        Change(operation="overwrite", dropped_partitions=frozenset({(spec_id, ("a",))})),
    )
    summary = table.metadata.current_snapshot().summary
    assert _live_deletes(table) == ["/nowhere/pb.parquet"]
    assert (summary["deleted-data-files"], summary["removed-delete-files"]) == ("1", "1")


def test_a_filter_splitting_a_data_file_fails_and_writes_nothing(con, tmp_path):
    _table(con)
    table = con.catalog.load_table(T)
    before = sorted(p.name for p in (tmp_path / "db" / "t" / "metadata").iterdir())
    with pytest.raises(icesql.ProgrammingError, match="rows that match and rows that do not"):
        commit(con.catalog, table, Change(operation="delete", delete_filter=equal("id", 1)))
    assert sorted(p.name for p in (tmp_path / "db" / "t" / "metadata").iterdir()) == before
    # a filter every row of the file matches (by its metrics) removes it
    commit(con.catalog, table, Change(operation="delete", delete_filter=ALWAYS_TRUE))
    assert con.execute("SELECT count(*) FROM db.t").fetchone() == (0,)
