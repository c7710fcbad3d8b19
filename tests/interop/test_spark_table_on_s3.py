"""A Spark-written table copied to a bucket reads identically (issue 16).

Spark cannot write to S3 here (no hadoop-aws jars), so Spark writes the table in its local
warehouse and Iceberg's own ``rewrite_table_path`` procedure (Iceberg 1.7+) stages a copy of
its metadata with every ``source_prefix`` path replaced by an ``s3://`` ``target_prefix`` and
lists the files to copy (source,target pairs). The test copies exactly those files into a
bucket on the local S3 server, opens the bucket with icesql and compares with what Spark reads
from the local original.

The Iceberg runtime here (1.10.2) has three bugs in that procedure, all fixed upstream after
1.10.2 (apache/iceberg#15155, #15616, #14351) and all reproduced on this machine:

* one commit's delete manifest holding several position delete files: the reused manifest-entry
  object goes into the rewrite set once, so only one of them is rewritten and the file list
  names staging files that were never written (#15155);
* a delete file listed in two manifests (a later merge-on-read DELETE/UPDATE on the same data
  file replaces its deletes and carries the old ones as EXISTING/DELETED entries): it is
  rewritten twice and the second write fails with "File already exists" (#15616);
* a v3 deletion vector: "Content offset is required for DV" (#14351).

So the v2 history below has each DELETE/UPDATE touch one data file of its own (one position
delete file per commit, never replaced), and the v3 case with deletion vectors is an expected
failure that turns into a failure of its own once the runtime is fixed (strict xfail).
Iceberg 1.10.2 also keeps a rewritten delete file's old ``file_size_in_bytes`` (#15470).
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from py4j.protocol import Py4JJavaError
from spark_support import assert_same_rows, snapshot_ids

import icesql
from icesql.io import FileIO

NAMESPACE = "s3copy"


def _local_path(location: str) -> Path:
    """A local path from Spark's ``file:/...`` / ``file:///...`` / plain form."""
    for prefix in ("file://", "file:"):
        if location.startswith(prefix):
            location = location[len(prefix) :]
            break
    return Path(location)


def _stored_location(warehouse: str, table: str) -> str:
    """The table's ``location`` exactly as Spark wrote it into its current metadata file."""
    metadata = Path(warehouse) / NAMESPACE / table / "metadata"
    latest = max(metadata.glob("v*.metadata.json"), key=lambda p: int(p.name[1:].split(".")[0]))
    return json.loads(latest.read_text())["location"]


def _copy_to_bucket(spark, warehouse: str, table: str, target: str, staging: Path, io: FileIO):
    """Run ``rewrite_table_path`` and copy every listed file to its target; returns the
    procedure's output row and the copy plan."""
    source = _stored_location(warehouse, table)
    row = spark.sql(
        f"CALL local.system.rewrite_table_path(table => '{NAMESPACE}.{table}',"
        f" source_prefix => '{source}', target_prefix => '{target}',"
        f" staging_location => '{staging}')"
    ).collect()[0]
    with open(_local_path(row.file_list_location), newline="") as f:
        plan = [(src, dst) for src, dst in csv.reader(f)]
    for src, dst in plan:
        assert dst.startswith(target + "/"), (src, dst)
        io.write_bytes(dst, _local_path(src).read_bytes())
    return row, plan


def _fill_v2(spark, name: str) -> None:
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, cat STRING, ts TIMESTAMP, amount DOUBLE) USING iceberg"
        " PARTITIONED BY (cat, days(ts))"
        " TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read',"
        " 'write.update.mode' = 'merge-on-read')"
    )
    spark.sql(
        f"INSERT INTO {name} SELECT id, CASE WHEN id % 3 = 0 THEN 'a' WHEN id % 3 = 1 THEN 'b' END,"
        " TIMESTAMP '2024-03-01 00:00:00' + make_interval(0, 0, 0, CAST(id % 4 AS INT)), id * 1.5"
        " FROM range(0, 60)"
    )
    spark.sql(
        f"INSERT INTO {name} SELECT id, 'c', TIMESTAMP '2024-03-10 12:00:00', id / 4.0"
        " FROM range(60, 80)"
    )
    # One data file each (see the module's note): partition (a, 2024-03-01), then (c, 2024-03-10).
    spark.sql(f"DELETE FROM {name} WHERE cat = 'a' AND id % 12 = 0 AND id > 20")
    spark.sql(f"UPDATE {name} SET amount = -amount WHERE cat = 'c' AND id > 70")
    spark.sql(f"ALTER TABLE {name} ADD COLUMN note STRING")
    spark.sql(f"ALTER TABLE {name} RENAME COLUMN amount TO value")
    spark.sql(f"INSERT INTO {name} VALUES (100, 'a', TIMESTAMP '2024-03-02 08:00:00', 9.5, 'late')")


def _fill_v3(spark, name: str) -> None:
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, part INT, s STRING) USING iceberg PARTITIONED BY (part)"
        " TBLPROPERTIES ('format-version' = '3', 'write.delete.mode' = 'merge-on-read',"
        " 'write.update.mode' = 'merge-on-read')"
    )
    spark.sql(
        f"INSERT INTO {name} SELECT id, CAST(id % 3 AS INT), concat('s', id) FROM range(0, 50)"
    )
    spark.sql(f"DELETE FROM {name} WHERE part = 0 AND id % 4 = 0")
    spark.sql(f"UPDATE {name} SET s = upper(s) WHERE part = 1 AND id > 30")
    spark.sql(f"ALTER TABLE {name} ADD COLUMN flag BOOLEAN")
    spark.sql(f"INSERT INTO {name} VALUES (99, 2, 'new', true)")


@pytest.fixture(scope="module")
def namespace(spark):
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NAMESPACE}")
    return NAMESPACE


DV_BUG = "Iceberg 1.10.2's rewrite_table_path: 'Content offset is required for DV' (apache/iceberg#14351)"


@pytest.mark.parametrize(("table", "fill"), [("events_v2", _fill_v2), ("events_v3", _fill_v3)])
def test_spark_table_copied_to_bucket_reads_identically(
    spark, spark_warehouse, namespace, s3_server, s3_bucket, tmp_path, table, fill
):
    name = f"local.{namespace}.{table}"
    fill(spark, name)
    io = FileIO(properties=s3_server.properties)
    warehouse = f"s3://{s3_bucket}/wh"
    target = f"{warehouse}/{namespace}/{table}"
    source = _stored_location(spark_warehouse, table)
    try:
        row, plan = _copy_to_bucket(spark, spark_warehouse, table, target, tmp_path / "staging", io)
    except Py4JJavaError as error:  # only this known bug; on a fixed runtime v3 runs every check
        if table.endswith("_v3") and "Content offset is required for DV" in str(error):
            pytest.xfail(DV_BUG)
        raise

    # What was copied: every snapshot's files, metadata rewritten to point into the bucket.
    targets = [dst for _, dst in plan]
    assert len(set(targets)) == len(targets)
    assert f"{target}/metadata/{row.latest_version}" in targets
    kinds = Counter(dst.rsplit(".", 1)[-1] for dst in targets)
    assert kinds["parquet"] > 0 and kinds["avro"] > 0 and kinds["json"] > 0, kinds
    assert any(dst.endswith("-deletes.parquet") for dst in targets)
    for dst in targets:
        if not dst.startswith(f"{target}/data/") or dst.endswith("-deletes.parquet"):
            assert source.encode() not in io.read_bytes(dst), f"{dst} still names {source}"

    con = icesql.connect(warehouse, properties=s3_server.properties)
    try:
        query = f"SELECT * FROM {namespace}.{table}"
        s3_server.requests.clear()
        actual = con.execute(query).fetchall()
        assert_same_rows(
            spark.sql(f"SELECT * FROM {name}").collect(), actual, ordered=False, context=query
        )
        gets = Counter(path for method, path in s3_server.requests if method == "GET")
        fetched = {p: n for p, n in gets.items() if p.endswith(".parquet")}
        assert any(p.endswith("-deletes.parquet") for p in fetched), fetched
        assert fetched and set(fetched.values()) == {1}, fetched

        first = snapshot_ids(spark, name)[0]
        expected = spark.sql(f"SELECT * FROM {name} VERSION AS OF {first}")
        cursor = con.execute(f"{query} VERSION AS OF {first}")
        assert [d[0] for d in cursor.description] == expected.columns  # the first schema
        assert_same_rows(
            expected.collect(),
            cursor.fetchall(),
            ordered=False,
            context=f"{query} VERSION AS OF {first}",
        )

        paths = [p for (p,) in con.execute(f"SELECT file_path FROM {namespace}.{table}.files")]
        assert paths and all(p.startswith(f"{target}/data/") for p in paths), paths
        spark_files = spark.sql(f"SELECT file_path FROM {name}.files").collect()
        assert sorted(p.replace(source, target, 1) for (p,) in spark_files) == sorted(paths)
    finally:
        con.close()
