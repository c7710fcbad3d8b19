"""The health report's numbers are the metadata tables' numbers: files, partitions (deletes and
deletion vectors apart), manifests, snapshots and metadata files, for v2 position deletes, v3
deletion vectors, an evolved partition spec and an empty table."""

from __future__ import annotations

import pytest
from health_support import small_files_table


def _rows(con, sql):
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _label(partition: dict | None) -> str:
    if not partition:
        return "(unpartitioned)"
    return "/".join(f"{k}={'null' if v is None else v}" for k, v in partition.items())


def assert_matches_metadata_tables(con, name="db.t"):
    h = con.health(name)
    (files,) = _rows(
        con,
        f"SELECT count(*) AS n, coalesce(sum(file_size_in_bytes), 0) AS b,"
        f" coalesce(sum(record_count), 0) AS r FROM {name}.files WHERE content = 0",
    )
    assert (h.files.files, h.files.bytes, h.files.records) == (files["n"], files["b"], files["r"])
    assert sum(b.files for b in h.files.buckets) == h.files.files
    assert sum(b.bytes for b in h.files.buckets) == h.files.bytes

    expected = {
        _label(row.get("partition")): (
            row["record_count"],
            row["file_count"],
            row["total_data_file_size_in_bytes"],
            row["position_delete_record_count"],
            row["position_delete_file_count"],
            row["equality_delete_record_count"],
            row["equality_delete_file_count"],
        )
        for row in _rows(con, f"SELECT * FROM {name}.partitions")
    }
    got = {
        p.partition: (
            p.records,
            p.data_files,
            p.bytes,
            p.position_deleted_records,
            p.position_delete_files + p.deletion_vectors,
            p.equality_delete_records,
            p.equality_delete_files,
        )
        for p in h.partitions
    }
    assert got == expected

    manifests = _rows(con, f"SELECT * FROM {name}.manifests")
    assert sorted((m.path, m.length, m.spec_id) for m in h.manifests) == sorted(
        (m["path"], m["length"], m["partition_spec_id"]) for m in manifests
    )
    snapshots = _rows(con, f"SELECT snapshot_id, operation FROM {name}.snapshots")
    assert sorted((s.snapshot_id, s.operation) for s in h.snapshots) == sorted(
        (s["snapshot_id"], s["operation"]) for s in snapshots
    )
    log = _rows(con, f"SELECT file FROM {name}.metadata_log_entries")
    assert [f.path for f in h.metadata_files] == [e["file"] for e in log]
    assert all(f.bytes for f in h.metadata_files)
    return h


def test_v2_position_deletes_match_the_metadata_tables(planted):
    h = assert_matches_metadata_tables(planted)
    by_partition = {p.partition: p for p in h.partitions}
    # the DELETE removed ids 0-3, 10-13, ... of the first append: 20 in p=0, 20 in p=1
    assert by_partition["p=0"].position_deleted_records == 20
    assert by_partition["p=0"].position_delete_files == 1
    assert by_partition["p=0"].deletion_vectors == 0
    assert by_partition["p=0"].live_records == 280
    assert by_partition["p=0"].deleted_fraction == pytest.approx(20 / 300)
    assert h.files.small_files == h.files.files == 12


def test_v3_deletion_vectors_are_counted_apart(con):
    small_files_table(con, version=3, inserts=2)
    con.execute("DELETE FROM db.t WHERE id % 5 = 0")
    h = assert_matches_metadata_tables(con)
    for p in h.partitions:
        assert p.position_delete_files == 0
        assert p.deletion_vectors == 2  # one per data file the delete touched
        assert p.position_deleted_records == 20  # ids 0, 10, ... in p=0; 5, 15, ... in p=1


def test_an_evolved_spec_groups_as_the_partitions_table_does(con):
    small_files_table(con, inserts=1)
    con.execute("ALTER TABLE db.t ADD PARTITION FIELD bucket(2, id) AS b")
    con.execute("INSERT INTO db.t VALUES (1000, 0, 'x'), (1001, 1, 'y')")
    h = assert_matches_metadata_tables(con)
    assert {p.spec_id for p in h.partitions} == {0, 1}
    assert any(p.partition.endswith("b=null") for p in h.partitions)


def test_an_empty_table_has_an_empty_report(con):
    con.execute("CREATE TABLE db.e (id INT) USING iceberg")
    h = assert_matches_metadata_tables(con, "db.e")
    assert h.snapshot_id is None and h.partitions == () and h.advice == ()
    assert h.files.buckets == ()


def test_the_sizes_are_those_rewrite_data_files_plans_with(con):
    con.execute(
        "CREATE TABLE db.s (id INT) USING iceberg"
        " TBLPROPERTIES ('write.target-file-size-bytes'='1000')"
    )
    h = con.health("db.s")
    assert (h.files.target_bytes, h.files.min_bytes, h.files.max_bytes) == (1000, 750, 1800)


def test_the_timeline_labels_refs_and_counts_changes(planted):
    planted.execute("ALTER TABLE db.t CREATE TAG keep")
    h = planted.health("db.t")
    last = h.snapshots[-1]
    assert last.operation == "delete" and last.refs == ("main", "keep")
    assert last.added_delete_files == 2
    first = h.snapshots[0]
    assert (first.added_data_files, first.added_records, first.total_records) == (2, 100, 100)
