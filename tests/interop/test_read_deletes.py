"""icesql applies the row-level deletes Spark and the Iceberg Java API commit.

Spark's ``collect()`` is the reference answer for every query, compared row by row. Tables
live in namespaces ``del_*`` of the shared warehouse:

* ``del_v2`` — format v2 merge-on-read, after DELETE / UPDATE / MERGE in several partitions,
  with file-scoped and partition-scoped position delete files, then upgraded to v3 (a DV
  must then replace the older position delete files of its data file);
* ``del_v3`` — format v3, deletion vectors rewritten by repeated deletes of the same files;
* ``del_eq`` — equality delete files written here (Parquet with field ids) and committed
  through the Java API in Spark's JVM (``newRowDelta().addDeletes``), as Flink would;
* ``del_bad`` — damaged or missing delete files: clear errors naming the file.
"""

from __future__ import annotations

import glob
import os
import uuid
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from spark_support import (
    assert_same_query,
    assert_same_rows,
    java_table,
    snapshot_ids,
    table_location,
)

import icesql
import icesql.scan.delete_loaders as delete_loaders

pytestmark = pytest.mark.spark

MOR = (
    "'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read',"
    " 'write.merge.mode' = 'merge-on-read'"
)


def _check(spark, con, query: str) -> list:
    """Spark's rows, equal to icesql's with the deletes applied inside DuckDB and with
    every file through the Arrow stream."""
    expected = assert_same_query(spark, con, query, ordered=False)
    con.execute("SET icesql.scan.nativeParquet = false")
    try:
        streamed = con.execute(query).fetchall()
    finally:
        con.execute("SET icesql.scan.nativeParquet = true")
    assert_same_rows(expected, streamed, ordered=False, context=f"{query} (Arrow stream)")
    return expected


def _queries(table: str) -> list[str]:
    return [
        f"SELECT * FROM {table}",
        f"SELECT count(*) FROM {table}",
        f"SELECT cat, count(*), sum(v), min(id), max(id) FROM {table} GROUP BY cat",
        f"SELECT id FROM {table} WHERE cat = 'b'",
        f"SELECT id, v FROM {table} WHERE v > 100",
        f"SELECT t1.id FROM {table} t1 JOIN {table} t2 ON t1.id = t2.id + 1",
    ]


# --- position deletes (v2) and deletion vectors (v3) -------------------------------------


def _create_events(spark, table: str, version: int, extra_props: str = "") -> None:
    ns = table.split(".")[0]
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{ns}")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} (id INT, cat STRING, v DOUBLE, note STRING) USING iceberg"
        f" PARTITIONED BY (cat, bucket(2, id))"
        f" TBLPROPERTIES ('format-version' = '{version}', {MOR}{extra_props})"
    )
    for start in (0, 40):  # two commits: two data files per partition
        spark.sql(
            f"INSERT INTO {table} SELECT CAST(id AS INT), element_at(array('a', 'b', 'c'),"
            f" CAST(id % 3 + 1 AS INT)), id * 1.5, IF(id % 4 = 0, NULL, concat('n', id))"
            f" FROM range({start}, {start + 40})"
        )


def _change(spark, table: str) -> None:
    spark.sql(f"DELETE FROM {table} WHERE cat = 'a' AND id % 4 = 0")
    spark.sql(f"UPDATE {table} SET v = v + 100 WHERE cat = 'b' AND id < 30")
    spark.sql(
        f"MERGE INTO {table} t USING (SELECT CAST(id AS INT) AS id, id % 2 AS del"
        f" FROM range(60, 90, 3)) s ON t.id = s.id"
        f" WHEN MATCHED AND s.del = 1 THEN DELETE"
        f" WHEN MATCHED THEN UPDATE SET t.v = -t.v"
        f" WHEN NOT MATCHED THEN INSERT (id, cat, v, note) VALUES (s.id, 'c', 0.0, 'new')"
    )
    spark.sql(f"DELETE FROM {table} WHERE id IN (1, 2, 50, 77)")
    spark.sql(f"DELETE FROM {table} WHERE note IS NULL AND cat = 'c'")


@pytest.mark.parametrize("granularity", ["file", "partition"])
def test_v2_position_deletes_after_delete_update_merge(spark, con, granularity):
    table = f"del_v2.events_{granularity}"
    _create_events(spark, table, 2, f", 'write.delete.granularity' = '{granularity}'")
    _change(spark, table)
    deletes = spark.sql(f"SELECT count(*) AS n FROM {table}.delete_files").collect()[0].n
    assert deletes >= 3, f"Spark wrote {deletes} delete files"
    for query in _queries(table):
        _check(spark, con, query)
    for snapshot_id in snapshot_ids(spark, table):  # every intermediate state
        _check(spark, con, f"SELECT * FROM {table} VERSION AS OF {snapshot_id}")


def test_upgrade_to_v3_dv_replaces_position_delete_files(spark, con):
    table = "del_v2.upgraded"
    _create_events(spark, table, 2, ", 'write.delete.granularity' = 'partition'")
    _change(spark, table)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('format-version' = '3')")
    spark.sql(f"DELETE FROM {table} WHERE id % 5 = 0")
    spark.sql(f"UPDATE {table} SET note = 'upd' WHERE id % 7 = 0")
    formats = {
        r.file_format for r in spark.sql(f"SELECT file_format FROM {table}.delete_files").collect()
    }
    assert formats == {"PARQUET", "PUFFIN"}, formats  # both kinds live at once
    for query in _queries(table):
        _check(spark, con, query)


def test_v3_deletion_vectors_after_repeated_deletes(spark, con):
    table = "del_v3.events"
    _create_events(spark, table, 3)
    for sql in (
        f"DELETE FROM {table} WHERE id % 5 = 0",
        f"DELETE FROM {table} WHERE id % 7 = 0",  # the same files: DVs merged and replaced
        f"UPDATE {table} SET v = 0 WHERE id % 3 = 1",
        f"DELETE FROM {table} WHERE cat = 'c' AND id > 60",
    ):
        spark.sql(sql)
        for query in _queries(table)[:3]:
            _check(spark, con, query)
    kinds = spark.sql(f"SELECT DISTINCT file_format FROM {table}.delete_files").collect()
    assert [r.file_format for r in kinds] == ["PUFFIN"]
    for snapshot_id in snapshot_ids(spark, table):
        _check(spark, con, f"SELECT * FROM {table} VERSION AS OF {snapshot_id}")


def test_each_delete_file_is_read_once_per_scan(spark, con, monkeypatch):
    table = "del_v2.events_partition"
    if not spark.catalog.tableExists(f"local.{table}"):
        pytest.skip("needs the table of test_v2_position_deletes_after_delete_update_merge")
    reads: Counter[str] = Counter()

    def counted(name: str, path_arg: int):  # every way the loader opens a delete file
        original = getattr(delete_loaders, name)

        def counting(*args, **kwargs):
            reads[args[path_arg]] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(delete_loaders, name, counting)

    counted("read_data_file", 1)  # (ctx, path, ...): equality deletes
    counted("_open_position_file", 1)  # (io, path, ...): position deletes
    con.execute(f"SELECT * FROM {table}").fetchall()
    assert reads, "no delete file was read"
    assert max(reads.values()) == 1, reads


# --- equality deletes committed through the Java API -------------------------------------


def _commit_equality_delete(
    spark,
    table: str,
    columns: dict[str, tuple[int, pa.Array]],
    equality_ids: list[int],
    partition_path: str | None = None,
    spec_id: int | None = None,
) -> str:
    """Write an equality delete Parquet file (Iceberg field ids) and commit it with a
    RowDelta through the Java API, with metrics computed by Iceberg from the file."""
    location = table_location(spark, table)
    local = location.removeprefix("file:")
    path = os.path.join(local, "data", f"eq-delete-{uuid.uuid4().hex}.parquet")
    fields = [
        pa.field(name, array.type, metadata={b"PARQUET:field_id": str(fid).encode()})
        for name, (fid, array) in columns.items()
    ]
    pq.write_table(
        pa.Table.from_arrays([a for _, a in columns.values()], schema=pa.schema(fields)), path
    )
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    conf = spark._jsc.hadoopConfiguration()
    jtable = java_table(spark, table)
    spec = jtable.spec() if spec_id is None else jtable.specs().get(spec_id)
    ids = gateway.new_array(gateway.jvm.int, len(equality_ids))
    for i, fid in enumerate(equality_ids):
        ids[i] = fid
    input_file = jvm.org.apache.iceberg.hadoop.HadoopInputFile.fromLocation(path, conf)
    metrics = jvm.org.apache.iceberg.parquet.ParquetUtil.fileMetrics(
        input_file, jvm.org.apache.iceberg.MetricsConfig.getDefault()
    )
    builder = (
        jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(spec)
        .ofEqualityDeletes(ids)
        .withPath(path)
        .withFormat(jvm.org.apache.iceberg.FileFormat.PARQUET)
        .withFileSizeInBytes(os.path.getsize(path))
        .withMetrics(metrics)
    )
    if partition_path is not None:
        builder = builder.withPartitionPath(partition_path)
    jtable.newRowDelta().addDeletes(builder.build()).commit()
    spark.sql(f"REFRESH TABLE {table}")
    return path


def _ints(values):
    return pa.array(values, pa.int32())


@pytest.fixture(scope="module")
def eq_table(spark):
    """del_eq.t (id 1, cat 2, name 3, k2 4), partitioned by cat, with equality deletes."""
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.del_eq")
    spark.sql("DROP TABLE IF EXISTS del_eq.t")
    spark.sql(
        "CREATE TABLE del_eq.t (id INT, cat STRING, name STRING, k2 INT) USING iceberg"
        " PARTITIONED BY (cat) TBLPROPERTIES ('format-version' = '2')"
    )
    spark.sql(
        "INSERT INTO del_eq.t SELECT IF(id % 10 = 9, NULL, CAST(id AS INT)),"
        " IF(id % 2 = 0, 'a', 'b'), IF(id % 3 = 0, NULL, concat('n', id)), CAST(id % 4 AS INT)"
        " FROM range(0, 30)"
    )
    return "del_eq.t"


def test_equality_delete_in_one_partition_with_null_key(spark, con, eq_table):
    before = spark.sql(f"SELECT count(*) AS n FROM {eq_table}").collect()[0].n
    # ids 2, 4 and NULL, only in partition cat=a (id 3 is in cat=b: not deleted)
    _commit_equality_delete(
        spark, eq_table, {"id": (1, _ints([2, 4, 3, None]))}, [1], partition_path="cat=a"
    )
    rows = _check(spark, con, f"SELECT * FROM {eq_table}")
    assert len(rows) < before
    _check(spark, con, f"SELECT count(*) FROM {eq_table}")
    _check(spark, con, f"SELECT name FROM {eq_table} WHERE cat = 'a'")  # id not projected


def test_equality_delete_on_two_columns_matches_nulls(spark, con, eq_table):
    # (id 6, name NULL) deletes row 6; (id 8, name 'n8') deletes row 8; (id 10, 'zz') nothing
    _commit_equality_delete(
        spark,
        eq_table,
        {"id": (1, _ints([6, 8, 10])), "name": (3, pa.array([None, "n8", "zz"]))},
        [1, 3],
        partition_path="cat=a",
    )
    _check(spark, con, f"SELECT * FROM {eq_table}")
    _check(spark, con, f"SELECT k2 FROM {eq_table} WHERE cat = 'a'")


def test_equality_delete_with_extra_columns_is_not_pruned_by_them(spark, con):
    """Flink writes whole rows into equality deletes; only ``equality_ids`` match. Metrics of
    the other columns must not prune the delete file (apache/iceberg#4311)."""
    table = "del_eq.flink"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.del_eq")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} (id INT, name STRING) USING iceberg"
        " TBLPROPERTIES ('format-version' = '2')"
    )
    spark.sql(f"INSERT INTO {table} VALUES (11, 'n11'), (12, 'n12'), (13, 'n13')")
    # extra column values that differ from the rows deleted
    _commit_equality_delete(
        spark, table, {"id": (1, _ints([11, 13])), "name": (2, pa.array(["zzz", "zzz"]))}, [1]
    )
    rows = _check(spark, con, f"SELECT * FROM {table}")
    assert [tuple(r) for r in rows] == [(12, "n12")]
    # Spark 3.5 / Iceberg 1.10 prunes the delete file by its `name` bounds and returns the
    # deleted row 11 here; icesql follows the spec: a filter only narrows the rows above
    for where in ("name = 'n11'", "name < 'n2'", "name IN ('n11', 'n13')"):
        query = f"SELECT * FROM {table} WHERE {where}"
        actual = con.execute(query).fetchall()
        want = [r for r in rows if _matches(where, r.name)]
        assert_same_rows(want, actual, ordered=False, context=query)


def _matches(where: str, name: str) -> bool:
    return {
        "name = 'n11'": name == "n11",
        "name < 'n2'": name < "n2",
        "name IN ('n11', 'n13')": name in ("n11", "n13"),
    }[where]


def test_reinserted_key_survives_older_equality_delete(spark, con, eq_table):
    spark.sql(f"INSERT INTO {eq_table} VALUES (2, 'a', 'again', 7), (NULL, 'a', 'null again', 7)")
    rows = _check(spark, con, f"SELECT * FROM {eq_table} WHERE k2 = 7")
    assert len(rows) == 2


def test_dropped_delete_column_is_still_applied(spark, con, eq_table):
    _commit_equality_delete(spark, eq_table, {"k2": (4, _ints([3]))}, [4], partition_path="cat=b")
    expected = spark.sql(f"SELECT id, cat, name FROM {eq_table}").collect()
    _check(spark, con, f"SELECT * FROM {eq_table}")
    spark.sql(f"ALTER TABLE {eq_table} DROP COLUMN k2")
    # Spark 3.5 / Iceberg 1.10 itself fails here (NullPointerException in
    # DeleteFileIndex.canContainEqDeletesForFile): the reference is its answer from before
    actual = con.execute(f"SELECT * FROM {eq_table}").fetchall()
    assert_same_rows(expected, actual, ordered=False, context="after DROP COLUMN k2")
    count = con.execute(f"SELECT count(*) FROM {eq_table}").fetchall()
    assert count == [(len(expected),)]


def test_global_equality_delete_from_unpartitioned_spec(spark, con):
    table = "del_eq.g"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.del_eq")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, cat STRING) USING iceberg"
        " TBLPROPERTIES ('format-version' = '2')"
    )
    spark.sql(f"INSERT INTO {table} SELECT id, IF(id % 2 = 0, 'a', 'b') FROM range(0, 10)")
    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD cat")  # spec 1; spec 0 unpartitioned
    spark.sql(f"INSERT INTO {table} SELECT id, IF(id % 2 = 0, 'a', 'b') FROM range(0, 10)")
    _commit_equality_delete(spark, table, {"id": (1, pa.array([1, 2, 3]))}, [1], spec_id=0)
    rows = _check(spark, con, f"SELECT * FROM {table}")
    assert len(rows) == 14  # ids 1-3 gone from both specs' files
    spark.sql(f"INSERT INTO {table} VALUES (2, 'a'), (3, 'x')")
    _check(spark, con, f"SELECT * FROM {table}")
    _check(spark, con, f"SELECT cat, count(*) FROM {table} WHERE id < 5 GROUP BY cat")


def test_equality_deletes_on_typed_columns_with_deletion_vectors(spark, con):
    """v3: DVs and equality deletes together; keys of date, timestamp, decimal and string."""
    import datetime as dt
    from decimal import Decimal

    table = "del_eq.typed"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.del_eq")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} (id INT, d DATE, ts TIMESTAMP, dec DECIMAL(10, 2), s STRING)"
        f" USING iceberg PARTITIONED BY (months(d))"
        f" TBLPROPERTIES ('format-version' = '3', {MOR})"
    )
    spark.sql(
        f"INSERT INTO {table} SELECT CAST(id AS INT), date_add(DATE'2024-01-25', CAST(id AS INT)),"
        " timestamp_seconds(1700000000 + id * 3600), CAST(id * 1.25 AS DECIMAL(10, 2)),"
        " IF(id % 5 = 0, NULL, concat('s', id)) FROM range(0, 20)"
    )
    spark.sql(f"DELETE FROM {table} WHERE id IN (1, 2)")  # a DV
    utc = dt.UTC
    # one delete file per month partition (the path holds months since 1970)
    _commit_equality_delete(
        spark,
        table,
        {
            "d": (2, pa.array([dt.date(2024, 1, 28), dt.date(2024, 1, 29)], pa.date32())),
            "dec": (4, pa.array([Decimal("3.75"), Decimal("999.00")], pa.decimal128(10, 2))),
        },
        [2, 4],
        partition_path="d_month=648",
    )
    _commit_equality_delete(
        spark,
        table,
        {
            "ts": (
                3,
                pa.array(
                    [dt.datetime.fromtimestamp(1700000000 + 10 * 3600, utc)],
                    pa.timestamp("us", tz="UTC"),
                ),
            ),
            "s": (5, pa.array([None], pa.string())),
        },
        [3, 5],
        partition_path="d_month=649",
    )
    rows = _check(spark, con, f"SELECT * FROM {table}")
    assert 3 not in {r.id for r in rows} and 10 not in {r.id for r in rows}
    _check(spark, con, f"SELECT count(*), sum(dec) FROM {table}")
    _check(spark, con, f"SELECT id, _pos FROM {table} WHERE d > DATE'2024-02-01'")


def test_equality_deletes_pruned_by_key_ranges_per_data_file(spark, con, spark_warehouse):
    from icesql.scan.planner import plan_files

    table = "del_eq.ranges"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.del_eq")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, s STRING) USING iceberg"
        " TBLPROPERTIES ('format-version' = '2')"
    )
    spark.sql(f"INSERT INTO {table} SELECT id, concat('a', id) FROM range(0, 100)")
    spark.sql(f"INSERT INTO {table} SELECT id, concat('b', id) FROM range(100, 200)")
    spark.sql(f"INSERT INTO {table} VALUES (NULL, 'null id')")
    ids = pa.int64()
    _commit_equality_delete(spark, table, {"id": (1, pa.array([160, 170], ids))}, [1])
    _commit_equality_delete(spark, table, {"id": (1, pa.array([20], ids))}, [1])
    _commit_equality_delete(spark, table, {"id": (1, pa.array([5, 150], ids))}, [1])
    _commit_equality_delete(spark, table, {"id": (1, pa.array([None, 300], ids))}, [1])
    rows = _check(spark, con, f"SELECT * FROM {table}")
    assert len(rows) == 200 - 5
    t = icesql.connect(spark_warehouse).engine.catalog.load_table(("del_eq", "ranges"))
    tasks = list(plan_files(t.metadata, t.metadata.current_snapshot(), t.io))
    # a file of ids only meets the deletes whose key range overlaps its own (at most its
    # own single-range delete and [5, 150]); the NULL-only file keeps every delete
    for task in tasks:
        n = len(task.delete_files)
        assert n <= 2 if task.data_file.record_count > 1 else n == 4, (task.data_file, n)


# --- bad input ---------------------------------------------------------------------------


def _bad_table(spark, name: str, version: int, props: str = "") -> str:
    table = f"del_bad.{name}"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.del_bad")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} (id INT) USING iceberg"
        f" TBLPROPERTIES ('format-version' = '{version}', {MOR}{props})"
    )
    spark.sql(f"INSERT INTO {table} SELECT CAST(id AS INT) FROM range(0, 100)")
    spark.sql(f"DELETE FROM {table} WHERE id % 10 = 0")
    return table


def test_deletion_vector_with_bad_checksum_names_the_file(spark, con):
    table = _bad_table(spark, "bad_dv", 3)
    row = spark.sql(
        f"SELECT file_path, content_offset, content_size_in_bytes FROM {table}.delete_files"
    ).collect()[0]
    path = row.file_path.removeprefix("file:")
    with open(path, "r+b") as f:  # flip a byte of the bitmap, past length and magic
        f.seek(row.content_offset + 8 + 4)
        byte = f.read(1)
        f.seek(row.content_offset + 8 + 4)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(icesql.OperationalError) as caught:
        con.execute(f"SELECT * FROM {table}").fetchall()
    message = str(caught.value)
    assert os.path.basename(path) in message and "checksum" in message, message


@pytest.mark.parametrize("granularity", ["file", "partition"])
def test_missing_position_delete_file_names_the_file(spark, con, granularity):
    props = f", 'write.delete.granularity' = '{granularity}'"
    table = _bad_table(spark, f"missing_pos_{granularity}", 2, props)
    location = table_location(spark, table).removeprefix("file:")
    files = [
        r.file_path for r in spark.sql(f"SELECT file_path FROM {table}.delete_files").collect()
    ]
    assert files
    for f in files:
        os.remove(f.removeprefix("file:"))
    assert not glob.glob(os.path.join(location, "data", "*deletes*"))
    with pytest.raises(icesql.OperationalError) as caught:
        con.execute(f"SELECT * FROM {table}").fetchall()
    message = str(caught.value)
    assert any(os.path.basename(f) in message for f in files), message
    assert "delete file" in message, message


# --- metadata columns ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def meta_table(spark):
    """A v2 merge-on-read table with deletes and an evolved partition spec."""
    table = "del_meta.events"
    _create_events(spark, table, 2)
    _change(spark, table)
    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD truncate(2, note)")
    spark.sql(f"INSERT INTO {table} VALUES (500, 'a', 1.0, 'late'), (501, 'd', 2.0, NULL)")
    spark.sql(f"DELETE FROM {table} WHERE id = 500 OR id = 3")
    return table


@pytest.mark.parametrize(
    "query",
    [
        "SELECT _file, _pos, id FROM {t}",
        "SELECT id, _pos FROM {t} WHERE cat = 'b' AND _pos < 5",
        "SELECT _spec_id, count(*) FROM {t} GROUP BY _spec_id",
        "SELECT _partition, count(*) FROM {t} GROUP BY _partition",
        "SELECT _deleted, count(*) FROM {t} GROUP BY _deleted",
        "SELECT count(DISTINCT _file) FROM {t}",
        "SELECT *, _pos FROM {t}",
        "SELECT e.*, e._file FROM {t} e WHERE e.id < 10",
        "SELECT * FROM (SELECT _file AS f, _pos FROM {t}) WHERE _pos = 0",
        # input_file_name() is the reader's file path, as _file (issue #45)
        "SELECT input_file_name(), _file, id FROM {t} e WHERE id < 20",
        "SELECT input_file_name() AS f, count(*) FROM {t} GROUP BY 1",
        "SELECT input_file_name()",
        # the reader's split: one a file here (one row group each), -1 without a file
        "SELECT input_file_name(), input_file_block_start(), input_file_block_length(), id"
        " FROM {t} WHERE id < 20",
        "SELECT *, input_file_block_length() FROM {t}",
        "SELECT input_file_block_start(), input_file_block_length()",
    ],
)
def test_metadata_columns_match_spark(spark, con, meta_table, query):
    _check(spark, con, query.format(t=meta_table))


def test_file_block_of_several_row_groups_is_refused(spark, con):
    """A file whose split offsets name several row groups is several read splits; which of
    them Spark merges depends on its planning (the bin-packing of the whole scan and the
    cluster's parallelism), so icesql refuses and names the file."""
    table = "del_meta.row_groups"
    spark.sql(
        f"CREATE TABLE {table} (id bigint, s string) USING iceberg"
        " TBLPROPERTIES ('write.parquet.row-group-size-bytes'='20000')"
    )
    spark.sql(f"INSERT INTO {table} SELECT /*+ COALESCE(1) */ id, uuid() FROM range(20000)")
    # Java drops the offsets of a files-table row read without its file size
    (_, offsets) = spark.sql(f"SELECT file_size_in_bytes, split_offsets FROM {table}.files").first()
    assert len(offsets) > 1
    with pytest.raises(icesql.NotSupportedError, match="several read splits") as info:
        con.execute(f"SELECT input_file_block_start() FROM {table}").fetchall()
    assert f"{table.replace('.', '/')}/data/" in str(info.value)
    assert con.execute(f"SELECT count(*) FROM {table}").fetchone() == (20000,)


def test_row_lineage_columns(spark, con):
    """v3 row lineage: ``_row_id`` = first_row_id + _pos and ``_last_updated_sequence_number``
    = the file's data sequence number, unless the file stores values (rows an UPDATE moved)."""
    table = "del_v3.lineage"
    _create_events(spark, table, 3)
    spark.sql(f"DELETE FROM {table} WHERE id % 5 = 0")
    spark.sql(f"UPDATE {table} SET v = 0 WHERE id % 7 = 0")
    spark.sql(f"INSERT INTO {table} VALUES (1000, 'a', 1.0, 'x')")
    for query in (
        f"SELECT id, _row_id, _last_updated_sequence_number FROM {table}",
        f"SELECT _last_updated_sequence_number, count(*) FROM {table} GROUP BY 1",
        f"SELECT _row_id FROM {table} WHERE id < 20",
    ):
        _check(spark, con, query)
    ids = [r[0] for r in con.execute(f"SELECT _row_id FROM {table}").fetchall()]
    assert None not in ids and len(set(ids)) == len(ids)
