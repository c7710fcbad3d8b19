"""add_files twins and DESCRIBE of metadata tables against Spark.

Spark's ``add_files`` and icesql's import the same folder of Parquet files (hive-style
partition folders, files without field ids) into twin tables: the outputs, the rows Spark
reads and the ``files`` metadata tables agree. ``DESCRIBE [TABLE EXTENDED] t.<metadata
table>`` gives Spark's column names, types and comments."""

from __future__ import annotations

import datetime as dt
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import icesql
from icesql.sql.tables import METADATA_TABLES

NS = "addf"


def _source(root) -> str:
    for p in (0, 1):
        folder = root / f"p={p}"
        folder.mkdir(parents=True)
        for k in range(2):
            pq.write_table(
                pa.table({
                    "s": ["a" * 20, None, f"z{k}"],
                    "id": pa.array([p * 100 + k * 10 + i for i in range(3)], pa.int64()),
                    "dt": [dt.date(2024, 1, 1 + p + k)] * 3, "x": [1.5, -2.25, None],
                    "n": pa.array([1, 2, 3], pa.int32()),
                }),
                folder / f"part-{k}.parquet",
            )  # fmt: skip
        (folder / "_SUCCESS").write_text("")
    return str(root)


def _files(spark, table: str) -> list[dict]:
    spark.sql(f"REFRESH TABLE local.{NS}.{table}")
    rows = spark.sql(f"SELECT * FROM local.{NS}.{table}.files").collect()
    return sorted((r.asDict(recursive=True) for r in rows), key=lambda r: r["file_path"])


def _rows(spark, table: str) -> list[tuple]:
    spark.sql(f"REFRESH TABLE local.{NS}.{table}")
    return sorted(tuple(r) for r in spark.sql(f"SELECT * FROM local.{NS}.{table}").collect())


@pytest.mark.parametrize("partitioned", [True, False])
def test_add_files_twins(spark, spark_warehouse, tmp_path, partitioned):
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    if partitioned:
        folder, spec = _source(tmp_path / "src"), " PARTITIONED BY (p)"
        columns = "id BIGINT, s STRING, x DOUBLE, dt DATE, n INT, p INT"
    else:
        folder, spec = _source(tmp_path / "src") + "/p=1", ""
        columns = "id BIGINT, s STRING, x DOUBLE, dt DATE, n INT"
    names = [f"t{int(partitioned)}_spark", f"t{int(partitioned)}_ice"]
    for n in names:
        spark.sql(f"DROP TABLE IF EXISTS local.{NS}.{n}")
        spark.sql(f"CREATE TABLE local.{NS}.{n} ({columns}) USING iceberg{spec}")
    call = "CALL {cat}system.add_files(table => '{ns}.{t}', source_table => '`parquet`.`{f}`')"
    [spark_out] = spark.sql(call.format(cat="local.", ns=NS, t=names[0], f=folder)).collect()
    con = icesql.connect(spark_warehouse)
    try:
        ice_out = con.execute(call.format(cat="", ns=NS, t=names[1], f=folder)).fetchall()
        props = con.catalog.load_table((NS, names[1])).metadata.properties
    finally:
        con.close()
    assert ice_out == [tuple(spark_out)]
    assert _rows(spark, names[0]) == _rows(spark, names[1])
    assert len(_rows(spark, names[1])) == (12 if partitioned else 6)
    spark_props = dict(
        (r[0], r[1]) for r in spark.sql(f"SHOW TBLPROPERTIES local.{NS}.{names[0]}").collect()
    )
    assert json.loads(props["schema.name-mapping.default"]) == json.loads(
        spark_props["schema.name-mapping.default"]
    )
    ice_files, spark_files = _files(spark, names[1]), _files(spark, names[0])
    assert [f["file_path"] for f in ice_files] == [f["file_path"] for f in spark_files]
    for ice_file, spark_file in zip(ice_files, spark_files, strict=True):
        differ = {k: (v, spark_file[k]) for k, v in ice_file.items() if v != spark_file[k]}
        assert not differ, f"{ice_file['file_path']}: (icesql, Spark) {differ}"
    # a filter on a bound prunes the same in both
    for n in names:
        assert spark.sql(f"SELECT count(*) FROM local.{NS}.{n} WHERE id >= 110").collect()[0][
            0
        ] == (3 if partitioned else 3)


def _describe(rows) -> list[tuple]:
    return [tuple(r) for r in rows]


def test_describe_metadata_tables_as_spark(spark, spark_warehouse):
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    spark.sql(f"DROP TABLE IF EXISTS local.{NS}.d")
    spark.sql(
        f"CREATE TABLE local.{NS}.d (id BIGINT, s STRING, ts TIMESTAMP, m DECIMAL(9, 2),"
        " st STRUCT<a: INT, b: STRING>, p INT) USING iceberg PARTITIONED BY (p)"
        " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql(
        f"INSERT INTO local.{NS}.d VALUES (1, 'a', TIMESTAMP '2024-01-01 00:00:00', 1.25,"
        " named_struct('a', 1, 'b', 'x'), 0), (2, 'b', NULL, NULL, NULL, 1)"
    )
    spark.sql(f"DELETE FROM local.{NS}.d WHERE id = 1")
    con = icesql.connect(spark_warehouse)
    try:
        for name in sorted(METADATA_TABLES):
            spark_rows = _describe(spark.sql(f"DESCRIBE local.{NS}.d.{name}").collect())
            ice_rows = con.execute(f"DESCRIBE {NS}.d.{name}").fetchall()
            assert ice_rows == spark_rows, name
        for name in ("snapshots", "files", "position_deletes"):
            spark_rows = _describe(
                spark.sql(f"DESCRIBE TABLE EXTENDED local.{NS}.d.{name}").collect()
            )
            ice_rows = con.execute(f"DESCRIBE TABLE EXTENDED {NS}.d.{name}").fetchall()
            assert ice_rows == spark_rows, name
    finally:
        con.close()
