"""The metadata tables of ``scan/metadata_tables.py`` (``db.t.snapshots``, ``db.t.files``, ...)
on a small merge-on-read table built with icesql SQL.

Expected values come from elsewhere than the module: the table's metadata JSON, the files on
disk (sizes, names, contents read with pyarrow / fastavro), and the rows the test inserted.
Column names are Spark's (Iceberg 1.10)."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import fastavro
import pyarrow.parquet as pq
import pytest

import icesql
from icesql.errors import NoSuchTableError

FILE_COLUMNS = [
    "content",
    "file_path",
    "file_format",
    "spec_id",
    "partition",
    "record_count",
    "file_size_in_bytes",
    "column_sizes",
    "value_counts",
    "null_value_counts",
    "nan_value_counts",
    "lower_bounds",
    "upper_bounds",
    "key_metadata",
    "split_offsets",
    "equality_ids",
    "sort_order_id",
    "first_row_id",
    "referenced_data_file",
    "content_offset",
    "content_size_in_bytes",
]
FILES_TABLE_COLUMNS = FILE_COLUMNS + ["readable_metrics"]  # the files tables; data_file is the rest


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """db.t partitioned by p: snapshot 1 adds two files (a: ids 1, 2; b: id 3), snapshot 2 one
    file (b: id 4), snapshot 3 a position delete of id 1 (merge-on-read)."""
    root = tmp_path_factory.mktemp("metadata_tables")
    con = icesql.connect(str(root))
    con.execute(
        "CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)"
        " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    con.execute("INSERT INTO db.t VALUES (4, 'b')")
    con.execute("DELETE FROM db.t WHERE id = 1")
    yield con, root / "db" / "t"
    con.close()


def _rows(con, sql: str) -> list[dict]:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _columns(con, name: str) -> list[str]:
    return [d[0] for d in con.execute(f"SELECT * FROM db.t.{name}").description]


def _metadata(location: Path) -> dict:
    files = sorted(
        (location / "metadata").glob("v*.metadata.json"),
        key=lambda p: int(p.name[1:].split(".")[0]),
    )
    return json.loads(files[-1].read_text())


def _parquet(location: Path) -> dict[str, list[str]]:
    """Data and delete files on disk, by partition directory."""
    out: dict[str, list[str]] = {}
    for path in sorted((location / "data").rglob("*.parquet")):
        out.setdefault(path.parent.name, []).append(str(path))
    return out


def _ms(value) -> int:
    return round(value.timestamp() * 1000)


def test_snapshots_match_the_metadata_json(table):
    con, location = table
    assert _columns(con, "snapshots") == [
        "committed_at",
        "snapshot_id",
        "parent_id",
        "operation",
        "manifest_list",
        "summary",
    ]
    snaps = _metadata(location)["snapshots"]
    rows = _rows(con, "SELECT * FROM db.t.snapshots ORDER BY committed_at")
    assert [r["snapshot_id"] for r in rows] == [s["snapshot-id"] for s in snaps]
    assert [r["parent_id"] for r in rows] == [s.get("parent-snapshot-id") for s in snaps]
    assert [_ms(r["committed_at"]) for r in rows] == [s["timestamp-ms"] for s in snaps]
    assert [r["manifest_list"] for r in rows] == [s["manifest-list"] for s in snaps]
    assert [r["operation"] for r in rows] == ["append", "append", "delete"]
    for row, snap in zip(rows, snaps):
        expected = {k: v for k, v in snap["summary"].items() if k != "operation"}
        assert dict(row["summary"]) == expected
    assert rows[2]["summary"]["added-position-deletes"] == "1"
    assert rows[0]["summary"]["added-records"] == "3"


def test_history_follows_the_snapshot_log(table):
    con, location = table
    assert _columns(con, "history") == [
        "made_current_at",
        "snapshot_id",
        "parent_id",
        "is_current_ancestor",
    ]
    md = _metadata(location)
    rows = _rows(con, "SELECT * FROM db.t.history ORDER BY made_current_at")
    log = md["snapshot-log"]
    assert [(_ms(r["made_current_at"]), r["snapshot_id"]) for r in rows] == [
        (e["timestamp-ms"], e["snapshot-id"]) for e in log
    ]
    parents = {s["snapshot-id"]: s.get("parent-snapshot-id") for s in md["snapshots"]}
    assert [r["parent_id"] for r in rows] == [parents[e["snapshot-id"]] for e in log]
    assert all(r["is_current_ancestor"] for r in rows)


def test_refs_show_main(table):
    con, location = table
    assert _columns(con, "refs") == [
        "name",
        "type",
        "snapshot_id",
        "max_reference_age_in_ms",
        "min_snapshots_to_keep",
        "max_snapshot_age_in_ms",
    ]
    md = _metadata(location)
    assert _rows(con, "SELECT * FROM db.t.refs") == [
        {
            "name": "main",
            "type": "BRANCH",
            "snapshot_id": md["current-snapshot-id"],
            "max_reference_age_in_ms": None,
            "min_snapshots_to_keep": None,
            "max_snapshot_age_in_ms": None,
        }
    ]


def test_metadata_log_entries_list_every_metadata_file(table):
    con, location = table
    assert _columns(con, "metadata_log_entries") == [
        "timestamp",
        "file",
        "latest_snapshot_id",
        "latest_schema_id",
        "latest_sequence_number",
    ]
    rows = _rows(con, "SELECT * FROM db.t.metadata_log_entries ORDER BY timestamp")
    on_disk = sorted(
        (location / "metadata").glob("v*.metadata.json"),
        key=lambda p: int(p.name[1:].split(".")[0]),
    )
    assert [Path(r["file"]).resolve() for r in rows] == [p.resolve() for p in on_disk]
    # v1 is the CREATE (no snapshot yet); each later file is one commit
    snaps = _metadata(location)["snapshots"]
    assert [r["latest_snapshot_id"] for r in rows] == [None] + [s["snapshot-id"] for s in snaps]
    assert [r["latest_sequence_number"] for r in rows] == [None, 1, 2, 3]
    assert [r["latest_schema_id"] for r in rows] == [None, 0, 0, 0]
    assert [_ms(r["timestamp"]) for r in rows] == [
        json.loads(p.read_text())["last-updated-ms"] for p in on_disk
    ]


def test_manifests_count_the_files_each_commit_added(table):
    con, location = table
    assert _columns(con, "manifests") == [
        "content",
        "path",
        "length",
        "partition_spec_id",
        "added_snapshot_id",
        "added_data_files_count",
        "existing_data_files_count",
        "deleted_data_files_count",
        "added_delete_files_count",
        "existing_delete_files_count",
        "deleted_delete_files_count",
        "partition_summaries",
    ]
    snaps = [s["snapshot-id"] for s in _metadata(location)["snapshots"]]
    rows = {r["added_snapshot_id"]: r for r in _rows(con, "SELECT * FROM db.t.manifests")}
    assert set(rows) == set(snaps)
    for row in rows.values():
        assert os.path.getsize(row["path"]) == row["length"]
        assert row["partition_spec_id"] == 0
    first, second, delete = (rows[s] for s in snaps)
    counts = [
        "content",
        "added_data_files_count",
        "existing_data_files_count",
        "deleted_data_files_count",
        "added_delete_files_count",
        "existing_delete_files_count",
        "deleted_delete_files_count",
    ]
    assert [first[c] for c in counts] == [0, 2, 0, 0, 0, 0, 0]
    assert [second[c] for c in counts] == [0, 1, 0, 0, 0, 0, 0]
    assert [delete[c] for c in counts] == [1, 0, 0, 0, 1, 0, 0]
    summary = {"contains_null": False, "contains_nan": False}
    assert first["partition_summaries"] == [{**summary, "lower_bound": "a", "upper_bound": "b"}]
    assert second["partition_summaries"] == [{**summary, "lower_bound": "b", "upper_bound": "b"}]
    assert delete["partition_summaries"] == [{**summary, "lower_bound": "a", "upper_bound": "a"}]


def test_manifest_paths_are_the_ones_in_the_manifest_list(table):
    con, location = table
    current = _metadata(location)["snapshots"][-1]["manifest-list"]
    with open(current, "rb") as f:
        listed = sorted(r["manifest_path"] for r in fastavro.reader(f))
    assert sorted(r["path"] for r in _rows(con, "SELECT path FROM db.t.manifests")) == listed


def test_files_are_the_parquet_files_on_disk(table):
    con, location = table
    assert _columns(con, "files") == FILES_TABLE_COLUMNS
    rows = _rows(con, "SELECT * FROM db.t.files")
    on_disk = _parquet(location)
    assert sorted(r["file_path"] for r in rows) == sorted(p for ps in on_disk.values() for p in ps)
    for r in rows:
        assert r["file_size_in_bytes"] == os.path.getsize(r["file_path"])
        assert r["file_format"] == "PARQUET" and r["spec_id"] == 0
        assert r["record_count"] == pq.ParquetFile(r["file_path"]).metadata.num_rows
        assert r["partition"] == {"p": Path(r["file_path"]).parent.name.removeprefix("p=")}


def test_data_files_carry_their_metrics(table):
    con, _ = table
    assert _columns(con, "data_files") == FILES_TABLE_COLUMNS
    rows = _rows(con, "SELECT * FROM db.t.data_files")
    assert {r["content"] for r in rows} == {0}
    ids = {
        r["file_path"]: pq.ParquetFile(r["file_path"]).read().column("id").to_pylist() for r in rows
    }
    assert sorted(sorted(v) for v in ids.values()) == [[1, 2], [3], [4]]
    for r in rows:
        values = ids[r["file_path"]]
        assert r["value_counts"] == {1: len(values), 2: len(values)}
        assert r["null_value_counts"] == {1: 0, 2: 0}
        assert r["lower_bounds"][1] == struct.pack("<q", min(values))
        assert r["upper_bounds"][1] == struct.pack("<q", max(values))
        assert r["lower_bounds"][2] == r["upper_bounds"][2] == r["partition"]["p"].encode()
        assert r["referenced_data_file"] is None


def test_delete_files_point_at_the_deleted_row(table):
    con, _ = table
    assert _columns(con, "delete_files") == FILES_TABLE_COLUMNS
    (row,) = _rows(con, "SELECT * FROM db.t.delete_files")
    assert row["content"] == 1  # position deletes
    assert row["partition"] == {"p": "a"} and row["record_count"] == 1
    deletes = pq.ParquetFile(row["file_path"]).read().to_pylist()
    (target,) = {d["file_path"] for d in deletes}
    assert row["referenced_data_file"] == target
    # the row deleted is id 1: position 0 of the file holding ids 1 and 2
    assert pq.ParquetFile(target).read().column("id").to_pylist()[deletes[0]["pos"]] == 1
    all_files = {r["file_path"] for r in _rows(con, "SELECT file_path FROM db.t.files")}
    data = {r["file_path"] for r in _rows(con, "SELECT file_path FROM db.t.data_files")}
    assert all_files == data | {row["file_path"]} and target in data


def test_entries_give_the_sequence_number_of_the_adding_commit(table):
    con, location = table
    assert _columns(con, "entries") == [
        "status",
        "snapshot_id",
        "sequence_number",
        "file_sequence_number",
        "data_file",
        "readable_metrics",
    ]
    snaps = _metadata(location)["snapshots"]
    seq = {s["snapshot-id"]: s["sequence-number"] for s in snaps}
    rows = _rows(con, "SELECT * FROM db.t.entries")
    assert len(rows) == 4
    for r in rows:
        assert r["status"] == 1  # every file is ADDED in the manifest that holds it
        assert r["sequence_number"] == r["file_sequence_number"] == seq[r["snapshot_id"]]
    by_snapshot = sorted(
        (seq[r["snapshot_id"]], r["data_file"]["content"], r["data_file"]["record_count"])
        for r in rows
    )
    assert by_snapshot == [(1, 0, 1), (1, 0, 2), (2, 0, 1), (3, 1, 1)]
    assert list(rows[0]["data_file"]) == FILE_COLUMNS


def test_metadata_tables_time_travel(table):
    con, location = table
    first, second, _ = (s["snapshot-id"] for s in _metadata(location)["snapshots"])
    assert con.execute(f"SELECT count(*) FROM db.t.files VERSION AS OF {first}").fetchall() == [
        (2,)
    ]
    assert con.execute(
        f"SELECT count(*) FROM db.t.manifests VERSION AS OF {second}"
    ).fetchall() == [(2,)]
    assert con.execute(
        f"SELECT count(*) FROM db.t.delete_files VERSION AS OF {second}"
    ).fetchall() == [(0,)]


def test_unpartitioned_tables_have_no_partition_column(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.u (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.u VALUES (1)")
    names = [d[0] for d in con.execute("SELECT * FROM db.u.files").description]
    assert names == [c for c in FILES_TABLE_COLUMNS if c != "partition"]
    (summaries,) = con.execute("SELECT partition_summaries FROM db.u.manifests").fetchall()[0]
    assert summaries == []


def test_empty_table_has_empty_file_tables(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.e (id BIGINT) USING iceberg")
    for name in ("snapshots", "history", "refs", "manifests", "files", "entries"):
        assert con.execute(f"SELECT count(*) FROM db.e.{name}").fetchall() == [(0,)], name
    assert con.execute("SELECT count(*) FROM db.e.metadata_log_entries").fetchall() == [(1,)]


def test_unknown_metadata_table_is_a_missing_table(table):
    """Every metadata table of Iceberg 1.10 exists; any other suffix names no table."""
    con, _ = table
    with pytest.raises(NoSuchTableError, match="`db`.`t`.`partition` cannot"):
        con.execute("SELECT * FROM db.t.partition")


def test_entries_show_files_removed_by_the_current_snapshot(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.d (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)")
    con.execute("INSERT INTO db.d VALUES (1, 'a'), (2, 'b')")
    con.execute("DELETE FROM db.d WHERE p = 'b'")  # drops the whole file of partition b
    statuses = sorted(r[0] for r in con.execute("SELECT status FROM db.d.entries").fetchall())
    assert statuses == [0, 2]


def _manifest_list(path: str) -> list[dict]:
    with open(path, "rb") as f:
        return list(fastavro.reader(f))


def test_partitions_count_files_and_deletes_per_partition(table):
    """Partition a: the file of ids 1, 2 and the delete of id 1 (snapshot 3); partition b: the
    files of ids 3 (snapshot 1) and 4 (snapshot 2); sizes from the files on disk."""
    con, location = table
    assert _columns(con, "partitions") == [
        "partition",
        "spec_id",
        "record_count",
        "file_count",
        "total_data_file_size_in_bytes",
        "position_delete_record_count",
        "position_delete_file_count",
        "equality_delete_record_count",
        "equality_delete_file_count",
        "last_updated_at",
        "last_updated_snapshot_id",
    ]
    snaps = _metadata(location)["snapshots"]
    on_disk = _parquet(location)
    data = {
        p: [f for f in files if not f.endswith("-deletes.parquet")] for p, files in on_disk.items()
    }
    rows = {r["partition"]["p"]: r for r in _rows(con, "SELECT * FROM db.t.partitions")}
    assert set(rows) == {"a", "b"}
    a, b = rows["a"], rows["b"]
    assert (
        a["record_count"],
        a["file_count"],
        a["position_delete_record_count"],
        a["position_delete_file_count"],
        a["equality_delete_file_count"],
    ) == (2, 1, 1, 1, 0)
    assert (b["record_count"], b["file_count"], b["position_delete_file_count"]) == (2, 2, 0)
    for name, row in rows.items():
        assert row["total_data_file_size_in_bytes"] == sum(
            os.path.getsize(f) for f in data[f"p={name}"]
        )
        assert row["spec_id"] == 0
    assert (a["last_updated_snapshot_id"], _ms(a["last_updated_at"])) == (
        snaps[2]["snapshot-id"],
        snaps[2]["timestamp-ms"],
    )
    assert (b["last_updated_snapshot_id"], _ms(b["last_updated_at"])) == (
        snaps[1]["snapshot-id"],
        snaps[1]["timestamp-ms"],
    )
    first = snaps[0]["snapshot-id"]
    past = _rows(con, f"SELECT * FROM db.t.partitions VERSION AS OF {first}")
    assert sorted((r["partition"]["p"], r["record_count"]) for r in past) == [("a", 2), ("b", 1)]


def test_position_deletes_list_each_deleted_position(table):
    con, _ = table
    assert _columns(con, "position_deletes") == [
        "file_path",
        "pos",
        "row",
        "partition",
        "spec_id",
        "delete_file_path",
    ]  # v2: no offsets
    (delete,) = _rows(con, "SELECT file_path FROM db.t.delete_files")
    written = pq.ParquetFile(delete["file_path"]).read().to_pylist()
    rows = _rows(con, "SELECT * FROM db.t.position_deletes")
    assert [(r["file_path"], r["pos"]) for r in rows] == [
        (d["file_path"], d["pos"]) for d in written
    ]
    assert all(
        r["row"] is None
        and r["partition"] == {"p": "a"}
        and r["spec_id"] == 0
        and r["delete_file_path"] == delete["file_path"]
        for r in rows
    )


def test_position_deletes_of_deletion_vectors(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.v (id BIGINT) USING iceberg TBLPROPERTIES"
        " ('format-version'='3', 'write.delete.mode'='merge-on-read')"
    )
    con.execute("INSERT INTO db.v SELECT id FROM range(10)")
    con.execute("DELETE FROM db.v WHERE id IN (2, 7)")
    (dv,) = _rows(con, "SELECT * FROM db.v.delete_files")
    assert dv["file_format"] == "PUFFIN"
    rows = _rows(con, "SELECT * FROM db.v.position_deletes ORDER BY pos")
    assert list(rows[0]) == [
        "file_path",
        "pos",
        "row",
        "spec_id",
        "delete_file_path",
        "content_offset",
        "content_size_in_bytes",
    ]
    data = pq.ParquetFile(dv["referenced_data_file"]).read().column("id").to_pylist()
    assert [data[r["pos"]] for r in rows] == [2, 7]
    assert {
        (r["file_path"], r["delete_file_path"], r["content_offset"], r["content_size_in_bytes"])
        for r in rows
    } == {
        (
            dv["referenced_data_file"],
            dv["file_path"],
            dv["content_offset"],
            dv["content_size_in_bytes"],
        )
    }


def test_all_tables_cover_every_snapshot(tmp_path):
    """After an overwrite, the files it removed are gone from files but stay in all_files;
    all_manifests lists each snapshot's manifest list, all_entries every entry of them."""
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.o (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.o VALUES (1), (2)")
    con.execute("INSERT INTO db.o VALUES (3)")
    con.execute("INSERT OVERWRITE db.o SELECT id FROM db.o WHERE id > 1")
    live = {r[0] for r in con.execute("SELECT file_path FROM db.o.files").fetchall()}
    every = [r[0] for r in con.execute("SELECT file_path FROM db.o.all_data_files").fetchall()]
    on_disk = {str(p) for p in (tmp_path / "db" / "o" / "data").rglob("*.parquet")}
    assert set(every) == on_disk and live < on_disk
    snaps = _metadata(tmp_path / "db" / "o")["snapshots"]
    expected = sorted(
        (m["manifest_path"], s["snapshot-id"])
        for s in snaps
        for m in _manifest_list(s["manifest-list"])
    )
    got = con.execute("SELECT path, reference_snapshot_id FROM db.o.all_manifests").fetchall()
    assert sorted(got) == expected
    assert [d[0] for d in con.execute("SELECT * FROM db.o.all_manifests").description][-1] == (
        "reference_snapshot_id"
    )
    statuses = con.execute(
        "SELECT status, count(*) FROM db.o.all_entries GROUP BY status ORDER BY status"
    ).fetchall()
    assert dict(statuses)[2] >= 1  # the overwrite's DELETED entries
    for name in ("all_files", "all_data_files", "all_delete_files", "all_entries", "all_manifests"):
        with pytest.raises(
            icesql.ProgrammingError, match=f"cannot select a snapshot of db.o.{name}"
        ):
            con.execute(f"SELECT * FROM db.o.{name} VERSION AS OF {snaps[0]['snapshot-id']}")


def test_readable_metrics_decode_the_bounds_by_column_name(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.r (id BIGINT, s STRING, st STRUCT<b: DOUBLE, a: DATE>,"
        " d DECIMAL(9, 2)) USING iceberg"
    )
    con.execute(
        "INSERT INTO db.r VALUES (5, 'x', named_struct('b', 1.5, 'a', DATE '2024-01-02'),"
        " 1.25), (9, NULL, NULL, 3.50)"
    )
    cur = con.execute("SELECT readable_metrics, lower_bounds, null_value_counts FROM db.r.files")
    metrics, lower, nulls = cur.fetchone()
    assert list(metrics) == ["d", "id", "s", "st.a", "st.b"]  # full names, sorted
    assert metrics["id"]["lower_bound"] == struct.unpack("<q", lower[1])[0] == 5
    assert metrics["id"]["upper_bound"] == 9
    assert metrics["s"]["null_value_count"] == nulls[2] == 1
    assert metrics["st.b"]["lower_bound"] == 1.5 and metrics["st.b"]["nan_value_count"] == 0
    assert str(metrics["st.a"]["lower_bound"]) == "2024-01-02"
    assert str(metrics["d"]["upper_bound"]) == "3.50"
    entries = con.execute("SELECT readable_metrics.id.value_count FROM db.r.entries").fetchall()
    assert entries == [(2,)]


def test_position_delete_files_that_store_rows_show_them(tmp_path):
    """A writer may store the deleted row beside file_path and pos (field id 2147483544,
    a struct of the table's columns): position_deletes shows it, matched by field id (a
    column the file lacks is NULL), and NULL for files that do not store rows."""
    import pyarrow as pa

    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.w (id BIGINT, s STRING) USING iceberg TBLPROPERTIES"
        " ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    con.execute("INSERT INTO db.w VALUES (1, 'a'), (2, 'b')")
    con.execute("INSERT INTO db.w VALUES (3, 'c'), (4, 'd')")
    con.execute("DELETE FROM db.w WHERE id = 1")
    (path,) = con.execute("SELECT file_path FROM db.w.delete_files").fetchone()
    written = pq.read_table(path)
    row = pa.array(
        [{"ident": 1}],
        pa.struct([pa.field("ident", pa.int64(), metadata={b"PARQUET:field_id": b"1"})]),
    )  # renamed in the file: matched by id
    field = pa.field("row", row.type, metadata={b"PARQUET:field_id": b"2147483544"})
    pq.write_table(written.append_column(field, row), path)
    con.execute("DELETE FROM db.w WHERE id = 3")  # a second delete file, without rows
    got = con.execute("SELECT pos, row FROM db.w.position_deletes ORDER BY row.id").fetchall()
    assert got == [(0, None), (0, {"id": 1, "s": None})]
    assert con.execute("SELECT count(*) FROM db.w").fetchone()[0] == 2  # reads still apply it


def test_new_metadata_tables_of_an_empty_table_are_empty(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.e (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)"
        " TBLPROPERTIES ('format-version'='3')"
    )
    for name in (
        "partitions",
        "position_deletes",
        "all_entries",
        "all_files",
        "all_data_files",
        "all_delete_files",
        "all_manifests",
    ):
        cur = con.execute(f"SELECT * FROM db.e.{name}")
        assert cur.fetchall() == [], name
    names = [d[0] for d in con.execute("SELECT * FROM db.e.position_deletes").description]
    assert names[-2:] == ["content_offset", "content_size_in_bytes"]  # a v3 table's columns
