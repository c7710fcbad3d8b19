"""The health report of Spark-written tables: its numbers are Spark's own metadata tables',
deletion vectors of a v3 table are counted apart, and the advised CALL is Spark SQL that Spark
runs, after which the advice is gone."""

from __future__ import annotations

import pytest

import icesql

NS = "health"


def _spark_table(spark, name: str, version: int) -> None:
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    spark.sql(f"DROP TABLE IF EXISTS local.{NS}.{name}")
    spark.sql(
        f"CREATE TABLE local.{NS}.{name} (id BIGINT, p INT, s STRING) USING iceberg"
        f" PARTITIONED BY (p) TBLPROPERTIES ('format-version'='{version}',"
        " 'write.delete.mode'='merge-on-read')"
    )
    for i in range(6):
        spark.sql(
            f"INSERT INTO local.{NS}.{name} SELECT id, CAST(id % 2 AS INT), 's'"
            f" FROM range({i * 50}, {i * 50 + 50})"
        )
    spark.sql(f"DELETE FROM local.{NS}.{name} WHERE id < 50 AND id % 10 < 4")


def _spark_rows(spark, sql: str) -> list[dict]:
    return [r.asDict(recursive=True) for r in spark.sql(sql).collect()]


@pytest.mark.parametrize("version", [2, 3])
def test_health_of_a_spark_table_is_sparks_metadata(spark, spark_warehouse, version):
    name = f"t{version}"
    _spark_table(spark, name, version)
    with icesql.connect(spark_warehouse) as con:
        h = con.health(f"{NS}.{name}")
    table = f"local.{NS}.{name}"
    (files,) = _spark_rows(
        spark,
        f"SELECT count(*) AS n, sum(file_size_in_bytes) AS b, sum(record_count) AS r"
        f" FROM {table}.files WHERE content = 0",
    )
    assert (h.files.files, h.files.bytes, h.files.records) == (files["n"], files["b"], files["r"])
    expected = {
        f"p={row['partition']['p']}": (
            row["record_count"],
            row["file_count"],
            row["total_data_file_size_in_bytes"],
            row["position_delete_record_count"],
            row["position_delete_file_count"],
        )
        for row in _spark_rows(spark, f"SELECT * FROM {table}.partitions")
    }
    got = {
        p.partition: (
            p.records,
            p.data_files,
            p.bytes,
            p.position_deleted_records,
            p.position_delete_files + p.deletion_vectors,
        )
        for p in h.partitions
    }
    assert got == expected
    dvs = sum(p.deletion_vectors for p in h.partitions)
    assert dvs == (2 if version == 3 else 0)  # Spark wrote one DV per data file it deleted from
    manifests = _spark_rows(spark, f"SELECT path, length FROM {table}.manifests")
    assert sorted((m.path, m.length) for m in h.manifests) == sorted(
        (m["path"], m["length"]) for m in manifests
    )
    snapshots = _spark_rows(spark, f"SELECT snapshot_id, operation FROM {table}.snapshots")
    assert sorted((s.snapshot_id, s.operation) for s in h.snapshots) == sorted(
        (s["snapshot_id"], s["operation"]) for s in snapshots
    )

    (advice,) = h.advice
    assert advice.code == "small-files" and advice.preview["rewritten_data_files"] == 12
    result = spark.sql(advice.call).collect()[0].asDict()  # the advised CALL is Spark SQL
    assert result["rewritten_data_files_count"] == advice.preview["rewritten_data_files"]
    assert result["rewritten_bytes_count"] == advice.preview["rewritten_bytes"]
    with icesql.connect(spark_warehouse) as con:
        assert con.health(f"{NS}.{name}").advice == ()
