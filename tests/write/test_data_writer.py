"""Data files: rolling at the target size, compression, metrics modes end to end, sorting,
routing (column_metrics itself: test_column_metrics.py)."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

import icesql
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.spec.transforms import Bucket
from icesql.spec.types import IntegerType, LongType, StringType
from icesql.spec.values import from_bytes

T = ("db", "t")


def _data_files(con):
    table = con.catalog.load_table(T)
    snap = table.metadata.current_snapshot()
    out = []
    for m in read_manifest_list(table.io, snap.manifest_list, snap):
        out += [e.data_file for e in read_manifest(table.io, m)]
    return out


def _values(n: int) -> str:
    return ", ".join(f"({i}, 'value number {i:06d} with some padding text')" for i in range(n))


def test_files_roll_over_at_the_target_size(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg"
        " TBLPROPERTIES ('write.target-file-size-bytes'='8000')"
    )
    con.execute(f"INSERT INTO db.t VALUES {_values(5000)}")
    files = _data_files(con)
    assert len(files) >= 3
    assert sum(f.record_count for f in files) == 5000
    sizes = sorted(f.file_size_in_bytes for f in files)
    assert all(size < 2 * 8000 for size in sizes)
    assert all(size >= 8000 for size in sizes[1:])  # only the last file may be smaller
    assert con.execute("SELECT count(*), count(DISTINCT id) FROM db.t").fetchone() == (5000, 5000)


def test_default_is_one_file_and_zstd(con):
    con.execute("CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg")
    con.execute(f"INSERT INTO db.t VALUES {_values(1000)}")
    (f,) = _data_files(con)
    meta = pq.read_metadata(f.file_path)
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert meta.schema.to_arrow_schema().field("id").metadata[b"PARQUET:field_id"] == b"1"


@pytest.mark.parametrize(
    "codec, expected", [("gzip", "GZIP"), ("snappy", "SNAPPY"), ("uncompressed", "UNCOMPRESSED")]
)
def test_compression_codec_property(con, codec, expected):
    con.execute(
        f"CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('write.parquet.compression-codec'='{codec}')"
    )
    con.execute("INSERT INTO db.t VALUES (1), (2)")
    (f,) = _data_files(con)
    assert pq.read_metadata(f.file_path).row_group(0).column(0).compression == expected


def test_bad_codec_names_the_property(con):
    with pytest.raises(icesql.ProgrammingError, match="write.parquet.compression-codec"):
        con.execute(
            "CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('write.parquet.compression-codec'='zip')"
        )


def test_metrics_modes(con):
    con.execute(
        "CREATE TABLE db.t (a BIGINT, b STRING, c STRING, d STRING) USING iceberg TBLPROPERTIES ("
        "'write.metadata.metrics.default'='truncate(4)',"
        " 'write.metadata.metrics.column.a'='none',"
        " 'write.metadata.metrics.column.b'='counts',"
        " 'write.metadata.metrics.column.d'='full')"
    )
    con.execute(
        "INSERT INTO db.t VALUES (1, 'bbbbbbbb', 'cccccccc', 'dddddddd'), (2, NULL, 'c', 'd')"
    )
    (f,) = _data_files(con)
    assert 1 not in f.value_counts and 1 not in f.column_sizes and 1 not in f.lower_bounds
    assert f.value_counts[2] == 2 and f.null_value_counts[2] == 1 and 2 not in f.lower_bounds
    assert f.lower_bounds[3] == b"c" and f.upper_bounds[3] == b"cccd"
    assert f.lower_bounds[4] == b"d" and f.upper_bounds[4] == b"dddddddd"


def test_more_than_100_columns_keep_metrics_for_the_first_100(con):
    cols = ", ".join(f"c{i} INT" for i in range(105))
    con.execute(f"CREATE TABLE db.t ({cols}) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (" + ", ".join(str(i) for i in range(105)) + ")")
    (f,) = _data_files(con)
    assert 100 in f.lower_bounds and 101 not in f.lower_bounds and 105 not in f.value_counts


def test_sorted_tables_write_sorted_files(con):
    con.execute("CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg")
    con.execute("ALTER TABLE db.t WRITE ORDERED BY s DESC NULLS LAST, id")
    con.execute("INSERT INTO db.t VALUES (1, 'b'), (2, NULL), (3, 'c'), (4, 'a'), (0, 'c')")
    (f,) = _data_files(con)
    assert f.sort_order_id == 1
    rows = pq.read_table(f.file_path).to_pylist()
    assert [(r["id"], r["s"]) for r in rows] == [(0, "c"), (3, "c"), (1, "b"), (4, "a"), (2, None)]


def test_rows_land_in_their_bucket(con):
    con.execute(
        "CREATE TABLE db.t (id INT, s STRING) USING iceberg PARTITIONED BY (bucket(16, id), bucket(8, s))"
    )
    ids = list(range(-20, 20))
    con.execute("INSERT INTO db.t VALUES " + ", ".join(f"({i}, 'k{i}')" for i in ids))
    files = _data_files(con)
    assert sum(f.record_count for f in files) == len(ids)
    for f in files:
        for row in pq.read_table(f.file_path).to_pylist():
            assert f.partition == (
                Bucket(16).apply(IntegerType(), row["id"]),
                Bucket(8).apply(StringType(), row["s"]),
            )
    # the spec's published example: bucket[16] of 34 is murmur3 of the long 34 -> 2017239379
    assert Bucket(2**31 - 1).apply(LongType(), 34) == 2017239379


def test_bounds_decode_to_the_extremes(con):
    con.execute("CREATE TABLE db.t (id BIGINT, d DOUBLE) USING iceberg")
    con.execute(
        "INSERT INTO db.t VALUES (5, -0.0D), (-7, CAST('NaN' AS DOUBLE)), (9, 0.0D), (NULL, NULL)"
    )
    (f,) = _data_files(con)
    assert from_bytes(LongType(), f.lower_bounds[1]) == -7
    assert from_bytes(LongType(), f.upper_bounds[1]) == 9
    assert f.null_value_counts == {1: 1, 2: 1} and f.nan_value_counts == {2: 1}


def test_insert_select_streams_from_an_iceberg_table(con):
    con.execute("CREATE TABLE db.src (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.src VALUES " + ", ".join(f"({i})" for i in range(3000)))
    con.execute("CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg")
    cur = con.execute(
        "INSERT INTO db.t SELECT id * 2, CAST(id AS STRING) FROM db.src WHERE id % 3 = 0"
    )
    assert cur.rowcount == 1000
    cur = con.execute("INSERT INTO db.t SELECT * FROM db.t")  # reads the snapshot it started on
    assert cur.rowcount == 1000
    assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchone() == (
        2000,
        2 * 2 * sum(range(0, 3000, 3)),
    )


def test_row_lineage_columns_are_written_with_reserved_ids_and_read_back(con):
    """v3: moved rows keep ``_row_id`` (and unchanged ones their sequence number); nulls
    are inherited from the file's first_row_id and data sequence number on read."""
    import pyarrow as pa

    from icesql.write.commit import commit
    from icesql.write.data_writer import DataWriter, WriteTarget
    from icesql.write.snapshot import Change

    con.execute("CREATE TABLE db.t (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.t VALUES (1), (2)")  # row ids 0, 1 at sequence number 1
    table = con.catalog.load_table(T)
    target = WriteTarget.for_table(table, row_lineage=True)
    assert [f.name for f in target.write_schema.fields] == [
        "id",
        "_row_id",
        "_last_updated_sequence_number",
    ]
    writer = DataWriter(target)
    writer.write(
        pa.record_batch(
            [pa.array([10, 20, 30], pa.int32()), pa.array([7, None, 1]), pa.array([1, None, None])],
            schema=writer.arrow_schema,
        )
    )
    (written,) = writer.close()
    ids = [f.metadata[b"PARQUET:field_id"] for f in pq.read_schema(written.file_path)]
    assert ids == [b"1", b"2147483540", b"2147483539"]
    assert written.value_counts[2147483540] == 3 and written.null_value_counts[2147483539] == 2
    commit(con.catalog, table, Change(operation="append", added_files=(written,)))
    rows = con.execute(
        "SELECT id, _row_id, _last_updated_sequence_number FROM db.t ORDER BY id"
    ).fetchall()
    # the new file's first_row_id is 2 (next-row-id), its data sequence number 2
    assert rows == [(1, 0, 1), (2, 1, 1), (10, 7, 1), (20, 3, 2), (30, 1, 2)]


def _write_partitioned(
    tmp_path, name: str, partitioned: str = "PARTITIONED BY (bucket(3, id))"
) -> list:
    """Files of a bucketed, rolling INSERT (several files per partition, several partitions)."""
    with icesql.connect(str(tmp_path / name), create=True) as c:
        c.execute(
            f"CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg {partitioned}"
            " TBLPROPERTIES ('write.target-file-size-bytes'='6000',"
            " 'write.parquet.row-group-size-bytes'='2000')"
        )
        c.execute(f"INSERT INTO db.t VALUES {_values(6000)}")
        assert c.execute("SELECT count(*), sum(id) FROM db.t").fetchone() == (6000, 17997000)
        return sorted(
            (
                (
                    f.partition,
                    f.record_count,
                    f.file_size_in_bytes,
                    f.split_offsets,
                    f.value_counts,
                    f.null_value_counts,
                    f.lower_bounds,
                    f.upper_bounds,
                    f.column_sizes,
                )
                for f in _data_files(c)
            ),  # fmt: skip
            key=repr,
        )


@pytest.mark.slow
def test_threaded_writes_cut_files_as_a_sequential_writer_does(tmp_path, monkeypatch):
    """Row groups written on the pool give the files (rows, sizes, row groups, metrics) that
    writing each row group before taking the next rows gives."""
    from icesql.write.parquet import ParquetDataWriter

    threaded = _write_partitioned(tmp_path, "threaded")
    assert len({f[0] for f in threaded}) == 3 and len(threaded) >= 9
    assert any(len(f[3]) > 1 for f in threaded)  # several row groups per file
    monkeypatch.setattr(
        ParquetDataWriter, "submit", lambda self, batch, executor: self.write(batch)
    )
    assert _write_partitioned(tmp_path, "sequential") == threaded


@pytest.mark.slow
def test_unpartitioned_threaded_writes_cut_files_as_a_sequential_writer_does(tmp_path, monkeypatch):
    """Several row groups of one file encode at once; the files are still the sequential
    writer's, and each file but the last reached the target size."""
    from icesql.write.parquet import ParquetDataWriter

    threaded = _write_partitioned(tmp_path, "threaded", partitioned="")
    assert len(threaded) >= 3 and any(len(f[3]) > 2 for f in threaded)
    sizes = sorted(f[2] for f in threaded)
    assert all(size >= 6000 for size in sizes[1:])
    monkeypatch.setattr(
        ParquetDataWriter, "submit", lambda self, batch, executor: self.write(batch)
    )
    assert _write_partitioned(tmp_path, "sequential", partitioned="") == threaded


@pytest.mark.slow
def test_an_unpartitioned_insert_encodes_row_groups_of_one_file_at_once(con, monkeypatch):
    """The first two row groups of the one file meet at a barrier: a writer that waited for
    the first before submitting the second would never pass it (BrokenBarrierError)."""
    import itertools
    import threading

    from icesql.write.parquet import ParquetDataWriter

    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg"
        " TBLPROPERTIES ('write.parquet.row-group-size-bytes'='2000')"
    )
    barrier = threading.Barrier(2, timeout=30)
    encode = ParquetDataWriter._encode_row_group
    calls = itertools.count()

    def meeting(self, table, first):
        if next(calls) < 2:  # the pool runs row groups in the order they were submitted
            barrier.wait()
        return encode(self, table, first)

    monkeypatch.setattr(ParquetDataWriter, "_encode_row_group", meeting)
    con.execute(f"INSERT INTO db.t VALUES {_values(5000)}")
    (f,) = _data_files(con)
    assert len(f.split_offsets) > 2 and f.record_count == 5000
    assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchone() == (5000, 12497500)


def test_the_partitions_of_an_insert_encode_side_by_side_at_close(con, monkeypatch):
    """Partitions smaller than a row group are all submitted at close before any is waited
    for: the first two meet at a barrier, which a writer that flushed and finished one
    partition before the next would never pass (BrokenBarrierError)."""
    import itertools
    import threading

    from icesql.write.parquet import ParquetDataWriter

    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (bucket(4, id))"
    )
    barrier = threading.Barrier(2, timeout=30)
    encode = ParquetDataWriter._encode_row_group
    calls = itertools.count()

    def meeting(self, table, first):
        if next(calls) < 2:
            barrier.wait()
        return encode(self, table, first)

    monkeypatch.setattr(ParquetDataWriter, "_encode_row_group", meeting)
    con.execute(f"INSERT INTO db.t VALUES {_values(1000)}")
    files = _data_files(con)
    assert len(files) == 4 and sum(f.record_count for f in files) == 1000
    assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchone() == (1000, 499500)


def test_row_groups_are_full_but_the_last_when_batches_do_not_divide_them(con):
    """Rows short of a row group stay buffered for the next one: a 64k-row batch does not
    end in a small row group of its own (which also kept the next full row group from
    encoding beside the one before)."""
    import pyarrow as pa

    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg"
        " TBLPROPERTIES ('write.parquet.row-group-size-bytes'='100000')"
    )
    data = pa.table({"id": pa.array(range(190_000), pa.int64())})  # 8 Arrow bytes a row
    con.register("data", data)
    con.execute("INSERT INTO db.t SELECT * FROM data")
    (f,) = _data_files(con)
    meta = pq.read_metadata(f.file_path)
    rows = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert rows == [12_500] * 15 + [2_500]
    assert len(f.split_offsets) == 16
    assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchone() == (190_000, 18049905000)


@pytest.mark.slow
def test_a_failed_row_group_write_fails_the_insert_and_leaves_no_file(con, monkeypatch):
    from icesql.write.parquet import ParquetDataWriter

    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg"
        " TBLPROPERTIES ('write.target-file-size-bytes'='8000',"
        " 'write.parquet.row-group-size-bytes'='2000')"
    )
    con.execute("INSERT INTO db.t VALUES (0, 'kept')")
    written = ParquetDataWriter._encode_row_group
    calls = []

    def failing(self, table, first):
        calls.append(self.path)
        if len(set(calls)) == 3:
            raise icesql.OperationalError(f"cannot write data file {self.path}: disk full")
        return written(self, table, first)

    monkeypatch.setattr(ParquetDataWriter, "_encode_row_group", failing)
    with pytest.raises(icesql.OperationalError, match="disk full"):
        con.execute(f"INSERT INTO db.t VALUES {_values(5000)}")
    assert len(calls) > 3  # the failure came from the pool after other files were written
    table = con.catalog.load_table(T)
    data = table.io.listdir(f"{table.metadata.location}/data")
    assert len(data) == 1, data  # only the committed file
    assert con.execute("SELECT * FROM db.t").fetchall() == [(0, "kept")]


@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_dictionary_encoded_strings_write_the_rows_and_bounds_of_plain_ones(con, fmt):
    """Batches whose strings are dictionary-encoded (copy-on-write hands them so), mixed
    with plain ones in one partition, and a partition column dictionary-encoded too: the
    same rows and bounds as plain strings; an unused dictionary value is no bound."""
    import pyarrow as pa

    from icesql.write.data_writer import DataWriter, WriteTarget

    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING, p STRING) USING iceberg PARTITIONED BY (p)"
        f" TBLPROPERTIES ('write.format.default' = '{fmt}')"
    )
    writer = DataWriter(WriteTarget.for_table(con.catalog.load_table(T)))

    def encoded(indices, values):
        return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(values))

    writer.write(
        pa.RecordBatch.from_arrays(
            [
                pa.array([1, 2, 3, 4]),
                encoded([0, 1, 2, 1], ["a", "bb", "zz", "unused"]),
                encoded([0, 0, 1, 1], ["x", "y"]),
            ],
            names=["id", "s", "p"],
        )
    )
    writer.write(
        pa.RecordBatch.from_arrays(
            [pa.array([5]), pa.array(["c"]), pa.array(["x"])], names=["id", "s", "p"]
        )
    )
    files = sorted(writer.close(), key=lambda f: f.partition)
    assert [f.partition for f in files] == [("x",), ("y",)]
    assert [(f.record_count, f.lower_bounds[2], f.upper_bounds[2]) for f in files] == [
        (3, b"a", b"c"),
        (2, b"bb", b"zz"),
    ]
    import pyarrow.orc

    reader = (
        (lambda path: pq.ParquetFile(path).read()) if fmt == "parquet" else pyarrow.orc.read_table
    )
    read = pa.concat_tables([reader(f.file_path) for f in files])
    assert sorted(zip(read.column("id").to_pylist(), read.column("s").to_pylist())) == [
        (1, "a"),
        (2, "bb"),
        (3, "zz"),
        (4, "bb"),
        (5, "c"),
    ]
