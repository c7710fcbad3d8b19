"""The files a table's snapshots reach, by kind, and the key under which two spellings of one
location are the same file."""

from __future__ import annotations

import pytest

import icesql
from icesql.metadata import reachable


@pytest.mark.parametrize(
    ("a", "b"),
    [("file:/w/t/a.parquet", "/w/t/a.parquet"), ("file:///w/t/a.parquet", "/w/t/a.parquet"),
     ("s3a://b/t/a.parquet", "s3://b/t/a.parquet"), ("s3n://b/t/a.parquet", "s3://b/t/a.parquet")],
)  # fmt: skip
def test_spellings_of_one_location_are_one_file(a, b):
    assert reachable.same_file(a) == reachable.same_file(b)


def test_different_files_stay_different():
    keys = {
        reachable.same_file(p) for p in ("/w/a", "/w/b", "s3://b/w/a", "gs://b/w/a", "file:/w/b/")
    }
    assert len(keys) == 5


def _table_after(tmp_path, *statements: str):
    """db.t (merge-on-read) after ``statements``: its metadata and file IO."""
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')"
    )
    for sql in statements:
        con.execute(sql)
    table = con.catalog.load_table(("db", "t"))
    con.close()
    return table.metadata, table.io


def test_kinds_of_a_merge_on_read_table(tmp_path):
    md, io = _table_after(
        tmp_path, "INSERT INTO db.t VALUES (1), (2)", "DELETE FROM db.t WHERE id = 1"
    )
    first, second = (s.snapshot_id for s in md.snapshots)
    assert len(reachable.manifest_lists(md, [first, second])) == 2
    manifests = reachable.manifests(io, md, [first, second])
    assert len(manifests) == 2  # the data manifest is shared; the delete manifest is new
    kinds = sorted(kind for _, kind in reachable.content_files(io, manifests.values()))
    assert kinds == [reachable.DATA_FILE, reachable.POSITION_DELETE_FILE]
    assert reachable.statistics_files(md) == set()


def test_a_missing_file_fails_the_walk_unless_missing_ok(tmp_path):
    """What a reader must keep is never guessed; only a walk over files being deleted (an
    expired snapshot's) takes a file already gone as listing nothing."""
    md, io = _table_after(tmp_path, "INSERT INTO db.t VALUES (1)", "INSERT INTO db.t VALUES (2)")
    first, second = md.snapshots
    manifests = reachable.manifests(io, md, [second.snapshot_id])
    gone = reachable.manifests(io, md, [first.snapshot_id])
    io.delete(first.manifest_list)
    (path,) = gone
    io.delete(path)
    with pytest.raises(icesql.OperationalError, match="file not found"):
        reachable.manifests(io, md, [first.snapshot_id])
    assert (
        reachable.manifests(io, md, [first.snapshot_id, second.snapshot_id], missing_ok=True)
        == manifests
    )
    with pytest.raises(icesql.OperationalError, match="file not found"):
        list(reachable.content_files(io, manifests.values()))
    assert len(list(reachable.content_files(io, manifests.values(), missing_ok=True))) == 1
