"""CALL system.compute_table_stats: the statistics file registered for the snapshot (one
blob per column, ``ndv`` of the live rows), replaced by a second call, an older snapshot
read with its own rows, and Java's errors for bad arguments (Spark's answers are pinned by
tests/interop/test_table_stats_spark.py)."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import NotSupportedError, ProgrammingError
from icesql.metadata.puffin import read_puffin_footer

T = ("db", "t")


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING, d DECIMAL(6, 2), arr ARRAY<INT>)"
        " TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')"
    )
    connection.execute(
        "INSERT INTO db.t VALUES (1, 'a', 1.50, NULL), (2, 'a', NULL, array(1)),"
        " (3, 'b', 2.25, NULL), (4, NULL, 1.50, NULL)"
    )
    connection.execute("DELETE FROM db.t WHERE id = 3")
    yield connection
    connection.close()


def _call(con, args="table => 'db.t'"):
    return con.execute(f"CALL system.compute_table_stats({args})").fetchall()


def test_each_primitive_column_gets_a_blob_of_its_live_rows(con):
    [(path,)] = _call(con)
    md = con.catalog.load_table(T).metadata
    snapshot = md.current_snapshot()
    assert path.startswith(f"{md.location}/metadata/{snapshot.snapshot_id}-")
    assert path.endswith(".stats")
    [stats] = md.statistics
    assert stats.statistics_path == path and stats.snapshot_id == snapshot.snapshot_id
    ndv = {b.fields: b.properties["ndv"] for b in stats.blob_metadata}
    assert ndv == {(1,): "3", (2,): "1", (3,): "1"}  # the deleted row's 'b' and 2.25 are gone
    footer = read_puffin_footer(con.catalog.load_table(T).io, path)
    assert {b.compression_codec for b in footer.blobs} == {"zstd"}
    assert {b.sequence_number for b in footer.blobs} == {snapshot.sequence_number}
    assert stats.file_footer_size_in_bytes == footer.footer_size


def test_a_second_call_replaces_the_snapshots_statistics(con):
    _call(con)
    [(path,)] = _call(con, "table => 'db.t', columns => array('s', 's')")
    [stats] = con.catalog.load_table(T).metadata.statistics
    assert stats.statistics_path == path and [b.fields for b in stats.blob_metadata] == [(2,)]


def test_an_older_snapshot_is_read_with_its_own_rows(con):
    first = con.execute("SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at").fetchall()
    _call(con, f"table => 'db.t', snapshot_id => {first[0][0]}, columns => array('id')")
    [stats] = con.catalog.load_table(T).metadata.statistics
    assert stats.snapshot_id == first[0][0]
    assert stats.blob_metadata[0].properties["ndv"] == "4"


@pytest.mark.parametrize(
    "args, error, match",
    [
        ("table => 'db.t', columns => array('nope')", ProgrammingError, "Can't find column nope"),
        (
            "table => 'db.t', columns => array('arr')",
            ProgrammingError,
            r"non-primitive type column: arr \(list<int>\)",
        ),
        ("table => 'db.t', snapshot_id => 5", ProgrammingError, "Snapshot not found: 5"),
        ("table => 'db.t', columns => array('arr.element')", NotSupportedError, "nested column"),
        ("table => 'db.nope'", ProgrammingError, "table not found"),
    ],
)
def test_bad_arguments_change_nothing(con, args, error, match):
    with pytest.raises(error, match=match):
        _call(con, args)
    assert con.catalog.load_table(T).metadata.statistics == []


def _partition_stats(con, args="'db.p'"):
    return con.execute(f"CALL system.compute_partition_stats({args})").fetchall()


def test_partition_stats_count_each_partitions_files(tmp_path):
    import pyarrow.parquet as pq

    with icesql.connect(str(tmp_path)) as con:
        con.execute("CREATE TABLE db.p (id BIGINT, cat STRING) PARTITIONED BY (cat)")
        assert _partition_stats(con) == []  # no snapshot yet
        con.execute("INSERT INTO db.p VALUES (1, 'b'), (2, 'a'), (3, 'a'), (4, NULL)")
        [(path,)] = _partition_stats(con)
        assert "/metadata/partition-stats-" in path and path.endswith(".parquet")
        rows = pq.read_table(path).to_pylist()
        assert [
            (r["partition"]["cat"], r["data_record_count"], r["data_file_count"]) for r in rows
        ] == [
            (None, 1, 1),  # sorted by partition, NULL first
            ("a", 2, 1),
            ("b", 1, 1),
        ]
        assert {r["total_record_count"] for r in rows} == {None}
        [stats] = con.catalog.load_table(("db", "p")).metadata.partition_statistics
        assert stats.statistics_path == path
        assert _partition_stats(con) == [(path,)]  # the snapshot has one: it is kept


@pytest.mark.parametrize(
    "ddl, error, match",
    [
        ("CREATE TABLE db.p (id BIGINT)", ProgrammingError, "Table must be partitioned"),
        (
            "CREATE TABLE db.p (id BIGINT) PARTITIONED BY (id)"
            " TBLPROPERTIES ('write.format.default' = 'orc')",
            NotSupportedError,
            "partition statistics file in orc",
        ),
    ],
)
def test_partition_stats_refusals_change_nothing(tmp_path, ddl, error, match):
    with icesql.connect(str(tmp_path)) as con:
        con.execute(ddl)
        con.execute("INSERT INTO db.p VALUES (1)")
        with pytest.raises(error, match=match):
            _partition_stats(con)
        assert con.catalog.load_table(("db", "p")).metadata.partition_statistics == []
