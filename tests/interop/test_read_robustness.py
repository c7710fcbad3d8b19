"""Reading Spark-written tables that are large, damaged or half-updated.

Each test owns its tables in namespace ``robust`` and may damage their files on disk.
"""

from __future__ import annotations

import glob
import os

import pytest

import icesql
from icesql.scan.planner import plan_files

pytestmark = pytest.mark.spark


def _create(spark, name: str, rows: int, files: int) -> None:
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.robust")
    spark.sql(f"DROP TABLE IF EXISTS local.robust.{name}")
    spark.sql(f"CREATE TABLE local.robust.{name} (id BIGINT, s STRING) USING iceberg")
    (
        spark.range(rows)
        .selectExpr("id", "concat('row-', id) AS s")
        .repartition(files)
        .writeTo(f"local.robust.{name}")
        .append()
    )


def _data_files(con: icesql.Connection, name: str) -> list[str]:
    table = con.catalog.load_table(("robust", name))
    tasks = plan_files(table.metadata, table.metadata.current_snapshot(), table.io)
    return [t.data_file.file_path for t in tasks]


def _local(path: str) -> str:
    return path[len("file:") :] if path.startswith("file:") else path


def test_first_rows_stream_without_reading_the_whole_table(spark, spark_warehouse):
    _create(spark, "many_files", rows=800_000, files=40)
    con = icesql.connect(spark_warehouse)
    files = _data_files(con, "many_files")
    assert len(files) == 40
    # Remove the last 30 of the 40 data files: a reader that opened every file before
    # returning the first row would fail; a streaming one only notices when it gets there.
    # ``_pos`` keeps every file on icesql's Arrow stream; DuckDB reads ahead until its
    # streaming buffer (1 MiB, set by the engine) is full: 6 or 7 of these files.
    for path in files[10:]:
        os.remove(_local(path))
    cur = con.execute("SELECT id, s, _pos FROM robust.many_files")
    row = cur.fetchone()
    assert row is not None and row[1] == f"row-{row[0]}"
    with pytest.raises(icesql.OperationalError) as info:
        cur.fetchall()
    assert "data file not found" in str(info.value)
    assert any(_local(p) in str(info.value) for p in files[10:])
    # Files without deletes are read by DuckDB's own Parquet reader, which checks that every
    # file exists when the query starts: the error names a missing file all the same.
    with pytest.raises(icesql.OperationalError) as info:
        con.execute("SELECT id, s FROM robust.many_files").fetchall()
    assert "data file not found" in str(info.value)
    assert any(_local(p) in str(info.value) for p in files[10:])


def test_truncated_metadata_json_names_the_file(spark, spark_warehouse):
    _create(spark, "bad_metadata", rows=10, files=1)
    newest = max(
        glob.glob(f"{spark_warehouse}/robust/bad_metadata/metadata/v*.metadata.json"),
        key=lambda p: int(os.path.basename(p)[1:].split(".")[0]),
    )
    with open(newest, "r+b") as f:
        f.truncate(os.path.getsize(newest) // 2)
    con = icesql.connect(spark_warehouse)
    with pytest.raises(icesql.OperationalError) as info:
        con.execute("SELECT * FROM robust.bad_metadata")
    assert newest in str(info.value)


def test_truncated_manifest_names_the_file(spark, spark_warehouse):
    _create(spark, "bad_manifest", rows=10, files=1)
    manifests = [
        p
        for p in glob.glob(f"{spark_warehouse}/robust/bad_manifest/metadata/*.avro")
        if not os.path.basename(p).startswith("snap-")
    ]
    assert len(manifests) == 1
    with open(manifests[0], "r+b") as f:
        f.truncate(100)
    con = icesql.connect(spark_warehouse)
    with pytest.raises(icesql.OperationalError) as info:
        con.execute("SELECT * FROM robust.bad_manifest").fetchall()
    assert manifests[0] in str(info.value)


def test_truncated_data_file_names_the_file(spark, spark_warehouse):
    _create(spark, "bad_data", rows=1000, files=1)
    con = icesql.connect(spark_warehouse)
    (path,) = _data_files(con, "bad_data")
    with open(_local(path), "r+b") as f:
        f.truncate(50)
    with pytest.raises(icesql.OperationalError) as info:
        con.execute("SELECT sum(id) FROM robust.bad_data").fetchall()
    assert _local(path) in str(info.value)


def test_stale_or_missing_version_hint_still_finds_newest_version(spark, spark_warehouse):
    _create(spark, "hinted", rows=5, files=1)
    spark.sql("INSERT INTO local.robust.hinted VALUES (100, 'late')")
    hint = f"{spark_warehouse}/robust/hinted/metadata/version-hint.text"
    con = icesql.connect(spark_warehouse)
    expected = con.execute("SELECT count(*) FROM robust.hinted").fetchone()
    assert expected == (6,)
    with open(hint, "w") as f:
        f.write("1")
    assert (
        icesql.connect(spark_warehouse).execute("SELECT count(*) FROM robust.hinted").fetchone()
        == expected
    )
    os.remove(hint)
    assert (
        icesql.connect(spark_warehouse).execute("SELECT count(*) FROM robust.hinted").fetchone()
        == expected
    )
