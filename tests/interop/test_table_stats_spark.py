"""``compute_table_stats`` and ``compute_partition_stats`` against Spark 3.5 + Iceberg 1.10
(issue #45). On the same snapshot of a Spark-written table with deletes, icesql's theta
sketches are Spark's byte for byte (every column here has fewer distinct values than the
sketch's 4096 entries) and carry the same ``ndv``; Iceberg Java lists icesql's statistics file
and decodes its sketches; past 4096 distinct values the estimates agree within the sketch's
error. Partition statistics files (full and incremental computes, v2 and v3) have Spark's rows,
read back by Iceberg Java."""

from __future__ import annotations

import pytest
from spark_support import java_table

import icesql
from icesql.io import FileIO
from icesql.metadata.puffin import decompressed_blob, read_blob, read_puffin_footer
from icesql.metadata.theta_sketch import read_theta_sketch

pytestmark = pytest.mark.spark

NS = "stats"


@pytest.fixture(scope="module")
def stats_table(spark):
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    spark.sql(f"DROP TABLE IF EXISTS local.{NS}.t")
    spark.sql(
        f"""CREATE TABLE local.{NS}.t (id BIGINT, i INT, s STRING, d DECIMAL(10, 2), f FLOAT,
        x DOUBLE, b BOOLEAN, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, bin BINARY,
        arr ARRAY<INT>) USING iceberg PARTITIONED BY (bucket(2, id))
        TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')"""
    )
    spark.sql(
        f"""INSERT INTO local.{NS}.t SELECT id, CAST(id % 7 AS INT),
        CASE WHEN id % 5 = 0 THEN '' WHEN id % 5 = 1 THEN NULL ELSE concat('s', id % 11) END,
        CAST(id % 13 AS DECIMAL(10, 2)) / 4, CAST(id % 3 AS FLOAT) - 1.0,
        IF(id % 4 = 3, NULL, IF(id % 4 = 2, double('NaN'), (1 - 2 * (id % 2)) * 0.0D)),
        id % 2 = 0, date_add(DATE '2024-01-01', CAST(id % 9 AS INT)),
        TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id % 6 AS INT)),
        TIMESTAMP_NTZ '2024-01-01 00:00:00', CAST(concat('b', id % 4) AS BINARY), array(1)
        FROM range(0, 200)"""
    )
    spark.sql(f"DELETE FROM local.{NS}.t WHERE id % 7 = 3")
    spark.sql(
        f"INSERT INTO local.{NS}.t SELECT id, 0, 's', 0, 0, 0, true, NULL, NULL, NULL, NULL,"
        f" NULL FROM range(1000, 11000)"
    )
    return f"local.{NS}.t"


def _java_list(items) -> list:
    return [items.get(i) for i in range(items.size())]


def _sketches(path: str) -> dict[int, tuple[bytes, str]]:
    """Field id -> (uncompressed sketch, ndv) of a statistics file."""
    io = FileIO()
    out = {}
    for blob in read_puffin_footer(io, path).blobs:
        data = read_blob(io, path, blob.offset, blob.length)
        out[blob.fields[0]] = (
            decompressed_blob(data, blob.compression_codec, path),
            blob.properties["ndv"],
        )
    return out


def test_sketches_equal_sparks_and_java_reads_them(spark, spark_warehouse, stats_table):
    [spark_row] = spark.sql(f"CALL local.system.compute_table_stats(table => '{NS}.t')").collect()
    spark_file = spark_row[0].removeprefix("file:")
    con = icesql.connect(spark_warehouse)
    try:
        [(ice_file,)] = con.execute(
            f"CALL system.compute_table_stats(table => '{NS}.t')"
        ).fetchall()
    finally:
        con.close()
    theirs, ours = _sketches(spark_file), _sketches(ice_file)
    assert sorted(ours) == sorted(theirs) == list(range(1, 12))  # primitive columns only
    for field_id, (sketch, ndv) in theirs.items():
        if read_theta_sketch(sketch).theta == 2**63 - 1:  # exact mode: the same bytes
            assert ours[field_id] == (sketch, ndv), field_id
        else:  # id: 10,000+ distinct values, estimated; within 3 % of Spark's
            assert field_id == 1
            assert abs(int(ours[field_id][1]) - int(ndv)) <= 0.03 * int(ndv)
    assert theirs[3][1] == "12"  # 's', 's0'..'s10': the empty string is not counted, as in Java
    assert theirs[6][1] == "3"  # 0.0, -0.0 and NaN

    # Iceberg Java lists icesql's file for the snapshot and decodes each sketch
    table = java_table(spark, stats_table)
    table.refresh()
    files = _java_list(table.statisticsFiles())
    assert [f.path() for f in files] == [ice_file]
    assert files[0].snapshotId() == table.currentSnapshot().snapshotId()
    jvm = spark._jvm
    reader = jvm.org.apache.iceberg.puffin.Puffin.read(table.io().newInputFile(ice_file)).build()
    try:
        blobs = reader.fileMetadata().blobs()
        estimates = {}
        pairs = reader.readAll(blobs).iterator()
        while pairs.hasNext():
            pair = pairs.next()
            data = jvm.org.apache.iceberg.util.ByteBuffers.toByteArray(pair.second())
            memory = jvm.org.apache.iceberg.shaded.org.apache.datasketches.memory.Memory.wrap(data)
            sketch = jvm.org.apache.iceberg.shaded.org.apache.datasketches.theta.CompactSketch.wrap(
                memory
            )
            meta = pair.first()
            estimates[meta.inputFields().get(0)] = (
                int(sketch.getEstimate()),
                meta.properties().get("ndv"),
            )
    finally:
        reader.close()
    assert {k: (str(e), n) for k, (e, n) in estimates.items()} == {
        k: (v[1], v[1]) for k, v in ours.items()
    }


def test_a_table_without_snapshots_gives_no_row(spark, spark_warehouse):
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    spark.sql(f"DROP TABLE IF EXISTS local.{NS}.empty")
    spark.sql(f"CREATE TABLE local.{NS}.empty (id BIGINT) USING iceberg")
    assert spark.sql(f"CALL local.system.compute_table_stats('{NS}.empty')").collect() == []
    con = icesql.connect(spark_warehouse)
    try:
        assert con.execute(f"CALL system.compute_table_stats('{NS}.empty')").fetchall() == []
    finally:
        con.close()


def _java_partition_stats(spark, table_name: str, path: str) -> list[tuple]:
    """The rows of a partition statistics file as Iceberg Java reads them."""
    jvm = spark._jvm
    table = java_table(spark, table_name)
    table.refresh()
    handler = jvm.org.apache.iceberg.PartitionStatsHandler
    schema = handler.schema(
        jvm.org.apache.iceberg.Partitioning.partitionType(table),
        jvm.org.apache.iceberg.TableUtil.formatVersion(table),
    )
    anything = jvm.java.lang.Class.forName("java.lang.Object")
    rows = []
    it = handler.readPartitionStatsFile(schema, table.io().newInputFile(path)).iterator()
    while it.hasNext():
        stats = it.next()
        values = [stats.get(i, anything) for i in range(1, stats.size())]
        rows.append((stats.partition().toString(), *values))
    return rows


@pytest.mark.parametrize("version", [2, 3])
def test_partition_stats_equal_sparks(spark, spark_warehouse, version):
    names = [f"local.{NS}.p{version}_{who}" for who in ("spark", "ice")]
    for name in names:
        spark.sql(f"DROP TABLE IF EXISTS {name}")
        spark.sql(
            f"CREATE TABLE {name} (id BIGINT, cat STRING, ts TIMESTAMP) USING iceberg"
            f" PARTITIONED BY (cat, days(ts)) TBLPROPERTIES ('format-version' = '{version}',"
            " 'write.delete.mode' = 'merge-on-read')"
        )
        spark.sql(
            f"INSERT INTO {name} VALUES (1, 'a', TIMESTAMP '2024-01-01 10:00:00'),"
            " (2, 'a', TIMESTAMP '2024-01-01 11:00:00'), (3, 'b', TIMESTAMP '2024-01-02 00:00:00'),"
            " (4, NULL, NULL)"
        )
        spark.sql(f"DELETE FROM {name} WHERE id = 1")
        spark.sql(f"ALTER TABLE {name} ADD PARTITION FIELD bucket(2, id)")
        spark.sql(f"INSERT INTO {name} VALUES (5, 'b', TIMESTAMP '2024-01-02 05:00:00')")
    con = icesql.connect(spark_warehouse)
    try:
        for step in ("full", "incremental", "again"):
            if step == "incremental":
                for name in names:
                    spark.sql(f"DELETE FROM {name} WHERE cat = 'b' AND id = 3")
                    spark.sql(f"INSERT INTO {name} VALUES (6, 'c', NULL)")
            [(theirs,)] = spark.sql(
                f"CALL local.system.compute_partition_stats('{names[0].split('.', 1)[1]}')"
            ).collect()
            [(ours,)] = con.execute(
                f"CALL system.compute_partition_stats('{names[1].split('.', 1)[1]}')"
            ).fetchall()
            spark_rows = _java_partition_stats(spark, names[0], theirs)
            ice_rows = _java_partition_stats(spark, names[1], ours)

            # snapshot ids and times differ between the twins: compare which snapshot, by order
            def ordinal(name, rows):
                ids = [
                    r[0]
                    for r in spark.sql(
                        f"SELECT snapshot_id FROM {name}.snapshots ORDER BY committed_at"
                    ).collect()
                ]
                return [
                    (*r[:10], ids.index(r[11]) if r[11] is not None else None, r[12]) for r in rows
                ]

            assert ordinal(names[1], ice_rows) == ordinal(names[0], spark_rows), step
            assert ours.endswith(".parquet") and "/metadata/partition-stats-" in ours
            table = java_table(spark, names[1])
            table.refresh()
            files = _java_list(table.partitionStatisticsFiles())
            assert ours in [f.path() for f in files]
    finally:
        con.close()
