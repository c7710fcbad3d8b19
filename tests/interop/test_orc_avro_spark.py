"""ORC and Avro tables: icesql reads what Spark writes in those formats, and writes them so
that Spark reads icesql's table as it reads its own twin.

Spark's ``collect()`` is the reference answer, compared row by row (``assert_same_query``).
Each table lives in namespace ``fmt_*`` of the shared warehouse.
"""

from __future__ import annotations

import glob
import os

import pytest
from spark_support import assert_same_query, assert_same_rows, table_location

pytestmark = pytest.mark.spark

MOR = (
    "'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read',"
    " 'write.merge.mode' = 'merge-on-read'"
)
COLUMNS = (
    "id INT, cat STRING, v DOUBLE, n INT, dec DECIMAL(10,2), d DATE, ts TIMESTAMP,"
    " tsn TIMESTAMP_NTZ, b BINARY, flag BOOLEAN, st STRUCT<a: INT, b: STRING>,"
    " arr ARRAY<INT>, m MAP<STRING, INT>, mi MAP<INT, STRING>"
)


def _rows(start: int, count: int) -> str:
    out = []
    for i in range(start, start + count):
        if i % 7 == 3:
            out.append(
                f"({i}, 'c{i % 3}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
                " NULL, NULL, NULL, NULL)"
            )
            continue
        out.append(
            f"({i}, 'c{i % 3}', {i * 1.5}, {i * 10}, {i}.25, DATE '2024-01-01' + {i},"
            f" TIMESTAMP '2024-01-02 03:04:05.123456' + INTERVAL {i} HOURS,"
            f" TIMESTAMP_NTZ '1969-12-31 23:59:59.5' + INTERVAL {i} MINUTES,"
            f" X'0A{i % 256:02X}', {str(i % 2 == 0).lower()}, named_struct('a', {i}, 'b', 's{i}'),"
            f" array({i}, NULL, {i + 1}), map('k{i}', {i}), map({i}, 'v{i}'))"
        )
    return ", ".join(out)


def _check(spark, con, table: str) -> None:
    for query in (
        f"SELECT * FROM {table}",
        f"SELECT count(*) FROM {table}",
        f"SELECT cat, count(*), sum(v), min(id), max(ts) FROM {table} GROUP BY cat",
        f"SELECT id, st.b, arr, m FROM {table} WHERE n > 50 AND cat <> 'c1'",
        f"SELECT id FROM {table} WHERE id BETWEEN 3 AND 30",
    ):
        assert_same_query(spark, con, query, ordered=False)
    # metadata columns: _pos is the row's position in its file, whatever the format
    spark_rows = spark.sql(f"SELECT _file, _pos, _spec_id, id FROM {table}").collect()
    ice_rows = con.execute(f"SELECT _file, _pos, _spec_id, id FROM {table}").fetchall()
    assert_same_rows(spark_rows, ice_rows, ordered=False, context=f"{table} metadata columns")


def _create(spark, table: str, fmt: str, version: int, extra: str = "") -> None:
    ns = table.split(".")[0]
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{ns}")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} ({COLUMNS}) USING iceberg PARTITIONED BY (cat)"
        f" TBLPROPERTIES ('format-version' = '{version}', 'write.format.default' = '{fmt}',"
        f" {MOR}{extra})"
    )


def _files(spark, table: str, ext: str) -> list[str]:
    return glob.glob(
        os.path.join(table_location(spark, table).removeprefix("file:"), "data", "**", f"*.{ext}"),
        recursive=True,
    )


@pytest.mark.parametrize("fmt", ["orc", "avro"])
def test_spark_v2_table_with_position_deletes_and_evolution(spark, con, fmt):
    table = f"fmt_read.v2_{fmt}"
    _create(spark, table, fmt, 2)
    spark.sql(f"INSERT INTO {table} VALUES {_rows(0, 40)}")
    spark.sql(f"INSERT INTO {table} VALUES {_rows(40, 40)}")
    spark.sql(f"DELETE FROM {table} WHERE id % 5 = 0")
    spark.sql(f"UPDATE {table} SET v = -v WHERE id % 9 = 1")
    deletes = spark.sql(f"SELECT file_format FROM {table}.delete_files").collect()
    assert deletes and {r.file_format for r in deletes} == {fmt.upper()}
    # schema evolution: rename, add, drop, promote, then more rows in the new shape
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN v TO value")
    spark.sql(f"ALTER TABLE {table} ALTER COLUMN n TYPE BIGINT")
    spark.sql(f"ALTER TABLE {table} DROP COLUMN flag")
    spark.sql(f"ALTER TABLE {table} ADD COLUMN extra STRING")
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN value TO v")
    spark.sql(
        f"INSERT INTO {table} SELECT id + 100, cat, v, n, dec, d, ts, tsn, b, st, arr, m, mi,"
        f" 'x' || id FROM {table} WHERE id < 20"
    )
    assert _files(spark, table, fmt)
    _check(spark, con, table)


@pytest.mark.parametrize("fmt", ["orc", "avro"])
def test_spark_v3_table_with_deletion_vectors(spark, con, fmt):
    table = f"fmt_read.v3_{fmt}"
    _create(spark, table, fmt, 3)
    spark.sql(f"INSERT INTO {table} VALUES {_rows(0, 60)}")
    spark.sql(f"DELETE FROM {table} WHERE id % 4 = 1")
    spark.sql(f"DELETE FROM {table} WHERE id % 6 = 2")
    formats = {r.file_format for r in spark.sql(f"SELECT file_format FROM {table}.files").collect()}
    assert formats == {fmt.upper(), "PUFFIN"}
    _check(spark, con, table)
    # row lineage by the spec: first_row_id of the file + the row's position. Spark 3.5 with
    # Iceberg 1.10 answers 0 for every ORC row (its ORC reader does not fill row lineage), so
    # the spec's rule is the reference here
    first = dict(con.execute(f"SELECT file_path, first_row_id FROM {table}.files").fetchall())
    rows = con.execute(f"SELECT _file, _pos, _row_id, _last_updated_sequence_number FROM {table}")
    lineage = rows.fetchall()
    assert lineage and all(first[f] is not None for f, *_ in lineage)
    assert [(r, s) for _, _, r, s in lineage] == [(first[f] + p, 1) for f, p, _, _ in lineage]


def test_table_mixing_three_formats(spark, con):
    table = "fmt_read.mixed"
    _create(spark, table, "parquet", 2)
    spark.sql(f"INSERT INTO {table} VALUES {_rows(0, 30)}")
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.format.default' = 'orc')")
    spark.sql(f"INSERT INTO {table} VALUES {_rows(30, 30)}")
    spark.sql(f"DELETE FROM {table} WHERE id % 5 = 0")  # ORC position deletes
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.format.default' = 'avro')")
    spark.sql(f"INSERT INTO {table} VALUES {_rows(60, 30)}")
    spark.sql(f"DELETE FROM {table} WHERE id % 7 = 1")  # Avro position deletes
    formats = spark.sql(
        f"SELECT content, file_format, count(*) FROM {table}.files GROUP BY 1, 2"
    ).collect()
    assert {r.file_format for r in formats if r.content == 0} == {"PARQUET", "ORC", "AVRO"}
    assert {r.file_format for r in formats if r.content == 1} >= {"ORC", "AVRO"}
    _check(spark, con, table)


@pytest.mark.parametrize("fmt", ["orc", "avro"])
def test_icesql_writes_table_format_spark_reads_like_its_twin(spark, con, fmt):
    ns = f"fmt_write_{fmt}"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{ns}")
    statements = [
        f"INSERT INTO {{t}} VALUES {_rows(0, 40)}",
        f"INSERT INTO {{t}} VALUES {_rows(40, 20)}",
        "DELETE FROM {t} WHERE id % 5 = 0",
        "UPDATE {t} SET v = v + 1, st = named_struct('a', -1, 'b', 'u') WHERE id % 3 = 1",
        "MERGE INTO {t} t USING (SELECT id, cat FROM {t} WHERE id < 12) s ON t.id = s.id"
        " WHEN MATCHED AND s.id % 2 = 0 THEN DELETE"
        " WHEN MATCHED THEN UPDATE SET cat = 'merged'",
    ]
    for name in ("t", "twin"):
        spark.sql(f"DROP TABLE IF EXISTS {ns}.{name}")
    create = (
        f"CREATE TABLE {{t}} ({COLUMNS}) USING iceberg PARTITIONED BY (cat)"
        f" TBLPROPERTIES ('format-version' = '2', 'write.format.default' = '{fmt}', {MOR})"
    )
    con.execute(create.format(t=f"{ns}.t"))
    spark.sql(create.format(t=f"{ns}.twin"))
    for sql in statements:
        con.execute(sql.format(t=f"{ns}.t"))
        spark.sql(sql.format(t=f"{ns}.twin"))
    spark.sql(f"REFRESH TABLE {ns}.t")
    mine = spark.sql(f"SELECT * FROM {ns}.t").collect()
    twin = spark.sql(f"SELECT * FROM {ns}.twin").collect()
    assert_same_rows(twin, mine, ordered=False, context=f"Spark reads icesql's {fmt} table")
    files = spark.sql(f"SELECT content, file_format FROM {ns}.t.files").collect()
    assert {r.file_format for r in files} == {fmt.upper()}
    assert {r.content for r in files} == {0, 1}  # data and position delete files
    # Spark plans with the metrics icesql wrote: a filter on them returns the same rows
    for where in ("id > 30", "n < 100", "cat = 'c2'", "st.a = -1"):
        assert_same_rows(
            spark.sql(f"SELECT id FROM {ns}.twin WHERE {where}").collect(),
            spark.sql(f"SELECT id FROM {ns}.t WHERE {where}").collect(),
            ordered=False,
            context=where,
        )
    assert_same_query(spark, con, f"SELECT * FROM {ns}.t", ordered=False)


def test_pyiceberg_reads_icesql_orc_table(spark, con, spark_warehouse):
    from pyiceberg.table import StaticTable

    ns = "fmt_pyiceberg"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{ns}")
    spark.sql(f"DROP TABLE IF EXISTS {ns}.t")
    con.execute(
        f"CREATE TABLE {ns}.t (id INT, s STRING, d DOUBLE, ts TIMESTAMP) USING iceberg"
        " TBLPROPERTIES ('write.format.default' = 'orc', 'format-version' = '2',"
        " 'write.delete.mode' = 'merge-on-read')"
    )
    values = ", ".join(
        f"({i}, 's{i}', {i / 2}, TIMESTAMP '2024-01-01 00:{i:02d}:00')" for i in range(50)
    )
    con.execute(f"INSERT INTO {ns}.t VALUES {values}")
    con.execute(f"DELETE FROM {ns}.t WHERE id % 4 = 0")
    location = table_location(spark, f"{ns}.t").removeprefix("file:")
    metadata = sorted(glob.glob(f"{location}/metadata/*.metadata.json"))[-1]
    read = StaticTable.from_metadata(metadata).scan().to_arrow().sort_by("id")
    expected = con.execute(f"SELECT id, s, d, ts FROM {ns}.t ORDER BY id").fetchall()
    assert_same_rows(
        expected,
        [tuple(r.values()) for r in read.to_pylist()],
        ordered=True,
        context="PyIceberg reads icesql's ORC table",
    )
    spark.sql(f"REFRESH TABLE {ns}.t")
    assert_same_query(spark, con, f"SELECT * FROM {ns}.t", ordered=False)
