"""icesql.write.manifest_merge: manifests merged on commit as Java's ManifestMergeManager does
— when, into what, and with which entry statuses, snapshot ids and sequence numbers."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from icesql.metadata.manifest import STATUS_ADDED, STATUS_EXISTING, read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.scan.planner import ManifestCache, plan_scan
from icesql.spec.manifest_file import CONTENT_DATA, CONTENT_DELETES, ManifestFile
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.manifest_merge import pack_end
from icesql.write.snapshot import Change, SnapshotOperation

T = ("db", "t")


def _manifests(con, table=T):
    t = con.catalog.load_table(table)
    s = t.metadata.current_snapshot()
    return t, s, read_manifest_list(t.io, s.manifest_list, s)


def _m(name: str, length: int) -> ManifestFile:
    return ManifestFile(manifest_path=name, manifest_length=length, partition_spec_id=0, content=0)


def test_pack_end_fills_bins_from_the_oldest_manifest():
    items = [_m("new", 3), _m("a", 4), _m("b", 4), _m("c", 4)]
    bins = pack_end(items, 8)
    assert [[m.manifest_path for m in b] for b in bins] == [["new", "a"], ["b", "c"]]
    # an item larger than the target gets its own bin
    assert [[m.manifest_path for m in b] for b in pack_end([_m("x", 20), _m("y", 1)], 8)] == [
        ["x"],
        ["y"],
    ]


def test_appends_merge_when_the_count_reaches_min_count(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg"
        " TBLPROPERTIES ('format-version'='2', 'commit.manifest.min-count-to-merge'='5')"
    )
    counts = []
    for i in range(12):
        con.execute(f"INSERT INTO db.t VALUES ({i})")
        counts.append(len(_manifests(con)[2]))
    # Java: 4 manifests, then the 5th commit merges all 5; then 2..5 again (merged one + new)
    assert counts == [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]
    t, s, manifests = _manifests(con)
    merged = manifests[-1]
    entries = list(read_manifest(t.io, merged))
    assert merged.added_snapshot_id == next(
        x.snapshot_id for x in t.metadata.snapshots if x.sequence_number == 9
    )
    # the merged manifest of commit 9 (its new one, commits 8..6, and commit 5's merge of
    # 5..1): its own file ADDED, the others EXISTING with snapshot ids and sequence numbers
    by_seq = {x.sequence_number: x.snapshot_id for x in t.metadata.snapshots}
    assert [e.status for e in entries] == [STATUS_ADDED] + [STATUS_EXISTING] * 8
    assert [e.sequence_number for e in entries] == list(range(9, 0, -1))
    assert [e.file_sequence_number for e in entries] == list(range(9, 0, -1))
    assert [e.snapshot_id for e in entries] == [by_seq[n] for n in range(9, 0, -1)]
    assert merged.min_sequence_number == 1
    assert sorted(r[0] for r in con.execute("SELECT id FROM db.t").fetchall()) == list(range(12))
    # the merging commit's own new manifest was merged away and deleted
    metadata_dir = t.metadata.location + "/metadata"
    sid9 = by_seq[9]
    snap9 = t.metadata.snapshot_by_id(sid9)
    uuid9 = snap9.manifest_list.rsplit("-", 5)[-5:]
    m0 = f"{metadata_dir}/{'-'.join(uuid9)[:-5]}-m0.avro"
    assert merged.manifest_path.endswith("-m1.avro") and not t.io.exists(m0)


def test_merge_disabled_keeps_every_manifest(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES"
        " ('commit.manifest.min-count-to-merge'='2', 'commit.manifest-merge.enabled'='false')"
    )
    for i in range(4):
        con.execute(f"INSERT INTO db.t VALUES ({i})")
    assert len(_manifests(con)[2]) == 4


def test_target_size_bounds_merged_manifests(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES"
        " ('commit.manifest.min-count-to-merge'='2', 'commit.manifest.target-size-bytes'='1')"
    )
    for i in range(4):
        con.execute(f"INSERT INTO db.t VALUES ({i})")
    # every manifest is larger than the target: each is its own bin, none merged
    assert len(_manifests(con)[2]) == 4


def test_delete_manifests_merge_apart_and_old_deletes_are_dropped(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT, p INT) USING iceberg PARTITIONED BY (p) TBLPROPERTIES"
        " ('format-version'='2', 'write.delete.mode'='merge-on-read',"
        " 'commit.manifest.min-count-to-merge'='3')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3)")
    for i in (1, 3, 5):
        con.execute(f"DELETE FROM db.t WHERE id = {i}")
    t, _, manifests = _manifests(con)
    deletes = [m for m in manifests if m.content == CONTENT_DELETES]
    assert [m.content for m in manifests] == [CONTENT_DATA] * (len(manifests) - len(deletes)) + [
        CONTENT_DELETES
    ] * len(deletes)
    assert len(deletes) == 1  # three delete manifests merged into one
    entries = list(read_manifest(t.io, deletes[0]))
    assert sorted(e.sequence_number for e in entries) == [2, 3, 4]
    assert sorted(r[0] for r in con.execute("SELECT id FROM db.t").fetchall()) == [2, 4, 6]
    # a copy-on-write overwrite removes a whole partition: its DELETED entries are dropped
    # by the next merge of that manifest, never carried as EXISTING
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.delete.mode'='copy-on-write')")
    con.execute("DELETE FROM db.t WHERE p = 1")
    for i in (7, 8, 9):
        con.execute(f"INSERT INTO db.t VALUES ({i}, 4)")
    t, s, manifests = _manifests(con)
    for m in manifests:
        for e in read_manifest(t.io, m):
            assert e.is_live or e.snapshot_id == m.added_snapshot_id
    assert sorted(r[0] for r in con.execute("SELECT id FROM db.t").fetchall()) == [4, 6, 7, 8, 9]


def test_v3_row_ids_survive_merging(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg"
        " TBLPROPERTIES ('format-version'='3', 'commit.manifest.min-count-to-merge'='4')"
    )
    con.execute("INSERT INTO db.t VALUES (0), (1)")
    before = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    for i in range(2, 7):
        con.execute(f"INSERT INTO db.t VALUES ({i})")
    after = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    assert {k: after[k] for k in before} == before
    assert len(set(after.values())) == 7


@pytest.mark.slow
def test_a_thousand_appends_plan_ten_manifests(con):
    """What Java's MergeAppend gives with the defaults (min-count 100): the count reaches
    100 and merges into 1 at commits 100, 199, 298 ... 991, so 10 manifests after 1,000.
    The 1,000 single-file appends go through the commit path an INSERT takes, without
    parsing and writing 1,000 statements' Parquet files one by one."""
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg"
        " TBLPROPERTIES ('format-version'='2', 'write.target-file-size-bytes'='1')"
    )
    table = con.catalog.load_table(T)
    writer = DataWriter(WriteTarget.for_table(table))
    writer.write(pa.record_batch([pa.array(range(1, 1001), pa.int64())], names=["id"]))
    files = writer.close()
    assert len(files) == 1000
    counts = {}
    for i, f in enumerate(files, 1):
        table = commit(con.catalog, table, Change(SnapshotOperation.APPEND, added_files=(f,)))
        if i in (99, 100, 101, 198, 199, 991, 1000):
            s = table.metadata.current_snapshot()
            counts[i] = len(read_manifest_list(table.io, s.manifest_list, s))
    assert counts == {99: 99, 100: 1, 101: 2, 198: 99, 199: 1, 991: 1, 1000: 10}
    cache = ManifestCache()
    start = time.perf_counter()
    plan = plan_scan(table.metadata, table.metadata.current_snapshot(), table.io, cache, "db.t")
    elapsed = time.perf_counter() - start
    assert len(plan.tasks) == 1000
    assert cache.reads == 11  # the manifest list and 10 manifests
    assert elapsed < 5  # generous for a loaded machine; ~1,000 manifests would take far longer
    assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchall() == [(1000, 500500)]
