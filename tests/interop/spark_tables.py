"""Spark-written fixture tables in namespace ``db`` of the shared warehouse.

:func:`create_spark_tables` runs once per test session (fixture ``spark_tables``) and returns
the facts tests need (:class:`SparkTables`): snapshot ids, commit timestamps, refs.

Tables (all ``USING iceberg``, format v2 unless named otherwise):

* ``db.all_types`` — every Spark-expressible Iceberg primitive, one ``c_<type>`` column each,
  rows with NULLs, NaN, ±inf, extreme values, pre-1970 dates/timestamps, unicode, ''.
* ``db.nested`` — struct, array, array of struct, map, struct in struct; NULL at every level.
* ``db.part_<transform>`` — the same rows (:data:`PART_ROWS`) under one partition spec each.
* ``db.history`` — four INSERT snapshots on main, tag ``t1``, branch ``b1`` with its own commit.
* ``db.small_v1`` / ``db.small_v3`` — the same small table in format v1 and format v3.
* ``db.with_deletes`` — v2 merge-on-read after a DELETE: has a position delete file.
* ``db.with_dvs`` — v3 merge-on-read after a DELETE: has a deletion vector (Puffin).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time

NAMESPACE = "db"

ALL_TYPES_DDL = """
CREATE TABLE db.all_types (
    id INT,
    c_bool BOOLEAN,
    c_int INT,
    c_long BIGINT,
    c_float FLOAT,
    c_double DOUBLE,
    c_dec9 DECIMAL(9, 2),
    c_dec18 DECIMAL(18, 6),
    c_dec38 DECIMAL(38, 10),
    c_date DATE,
    c_ts TIMESTAMP,
    c_ts_ntz TIMESTAMP_NTZ,
    c_string STRING,
    c_binary BINARY
) USING iceberg TBLPROPERTIES ('format-version' = '2')
"""


def _all_types_row(
    id_, bool_, int_, long_, float_, double_, dec9, dec18, dec38, date, ts, ts_ntz, string, binary
) -> str:
    """One VALUES tuple; every argument is SQL text (or None for NULL)."""

    def typed(value, sql_type):
        return f"CAST(NULL AS {sql_type})" if value is None else f"CAST({value} AS {sql_type})"

    parts = [
        str(id_),
        typed(bool_, "BOOLEAN"),
        typed(int_, "INT"),
        typed(long_, "BIGINT"),
        typed(float_, "FLOAT"),
        typed(double_, "DOUBLE"),
        typed(dec9, "DECIMAL(9,2)"),
        typed(dec18, "DECIMAL(18,6)"),
        typed(dec38, "DECIMAL(38,10)"),
        typed(date, "DATE"),
        typed(ts, "TIMESTAMP"),
        typed(ts_ntz, "TIMESTAMP_NTZ"),
        typed(string, "STRING"),
        typed(binary, "BINARY"),
    ]
    return "(" + ", ".join(parts) + ")"


ALL_TYPES_ROWS = [
    _all_types_row(
        1,
        "true",
        "1",
        "100",
        "1.5",
        "2.25",
        "'12.34'",
        "'123.456789'",
        "'1234567890.0123456789'",
        "'2024-01-15'",
        "'2024-01-15 10:30:00.123456'",
        "'2024-01-15 10:30:00.123456'",
        "'hello'",
        "X'0102'",
    ),
    _all_types_row(2, *[None] * 13),
    _all_types_row(
        3,
        "false",
        "-1",
        "-100",
        "'NaN'",
        "'NaN'",
        "'-12.34'",
        "'-0.000001'",
        "'-0.0000000001'",
        "'1969-12-31'",
        "'1969-12-31 23:59:59.999999'",
        "'1969-12-31 23:59:59.999999'",
        "'ünïcödé ✓'",
        "X''",
    ),
    _all_types_row(
        4,
        "true",
        "2147483647",
        "9223372036854775807",
        "'Infinity'",
        "'Infinity'",
        "'9999999.99'",
        "'999999999999.999999'",
        "'9999999999999999999999999999.9999999999'",
        "'9999-12-31'",
        "'9999-12-31 23:59:59.999999'",
        "'9999-12-31 23:59:59.999999'",
        "'日本語'",
        "X'FF00FE'",
    ),
    _all_types_row(
        5,
        "false",
        "-2147483648",
        "-9223372036854775808",
        "'-Infinity'",
        "'-Infinity'",
        "'-9999999.99'",
        "'-999999999999.999999'",
        "'-9999999999999999999999999999.9999999999'",
        "'0001-01-01'",
        "'0001-01-02 00:00:00'",
        "'0001-01-02 00:00:00'",
        "''",
        None,
    ),
    _all_types_row(
        6,
        "true",
        "0",
        "0",
        "'-0.0'",
        "'3.4028234663852886E38'",
        "'0.01'",
        "'0.000001'",
        "'0.0000000001'",
        "'1900-02-28'",
        "'1900-02-28 12:34:56'",
        "'1900-02-28 12:34:56'",
        "'O\\'Reilly'",
        "X'00'",
    ),
    _all_types_row(
        7,
        None,
        "42",
        "-1234567890123",
        "'0.1'",
        "'1E-300'",
        "'100.00'",
        "'-42.5'",
        "'0'",
        "'1970-01-01'",
        "'1970-01-01 00:00:00'",
        "'1970-01-01 00:00:00'",
        "'  padded  '",
        "X'CAFEBABE'",
    ),
]

NESTED_DDL = """
CREATE TABLE db.nested (
    id INT,
    st STRUCT<a: INT, b: STRING>,
    arr ARRAY<INT>,
    arr_st ARRAY<STRUCT<x: INT, y: STRING>>,
    m MAP<STRING, INT>,
    deep STRUCT<inner: STRUCT<p: INT, q: STRING>, r: DOUBLE>
) USING iceberg TBLPROPERTIES ('format-version' = '2')
"""

NESTED_INSERT = """
INSERT INTO db.nested VALUES
  (1, named_struct('a', 1, 'b', 'one'), array(1, 2, 3),
      array(named_struct('x', 1, 'y', 'a'), named_struct('x', 2, 'y', 'b')),
      map('k', 1, 'z', 26), named_struct('inner', named_struct('p', 10, 'q', 'ten'), 'r', 1.5)),
  (2, NULL, NULL, NULL, NULL, NULL),
  (3, named_struct('a', CAST(NULL AS INT), 'b', CAST(NULL AS STRING)), array(CAST(NULL AS INT), 5),
      array(CAST(NULL AS STRUCT<x: INT, y: STRING>), named_struct('x', CAST(NULL AS INT), 'y', 'n')),
      map('k', CAST(NULL AS INT)),
      named_struct('inner', CAST(NULL AS STRUCT<p: INT, q: STRING>), 'r', CAST(NULL AS DOUBLE))),
  (4, named_struct('a', -4, 'b', 'ünï'), array(), array(), map(),
      named_struct('inner', named_struct('p', CAST(NULL AS INT), 'q', '日本'), 'r', -0.5)),
  (5, named_struct('a', 5, 'b', ''), array(-1), array(named_struct('x', 50, 'y', 'z')),
      map('k', 5, 'a', 1, 'b', 2), named_struct('inner', named_struct('p', 50, 'q', ''), 'r', 5.0))
"""

# Rows shared by every partitioned table: negative ids and values, pre-1970 dates and timestamps,
# NULL in every partition source column, strings shorter than the truncate width, unicode.
PART_COLUMNS = "id INT, s STRING, n INT, d DATE, ts TIMESTAMP"
PART_ROWS = """
  (1, 'apple', 5, DATE '2024-01-15', TIMESTAMP '2024-01-15 10:30:00'),
  (2, 'apricot', 15, DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59'),
  (3, 'banana', -5, DATE '1969-12-31', TIMESTAMP '1969-12-31 23:00:00'),
  (4, 'blueberry', -15, DATE '1960-06-01', TIMESTAMP '1960-06-01 00:00:01'),
  (5, 'cherry', 0, DATE '1970-01-01', TIMESTAMP '1970-01-01 00:00:00'),
  (-6, 'ch', -10, DATE '1900-01-01', TIMESTAMP '1900-01-01 12:00:00'),
  (7, '', 99, DATE '2000-12-31', TIMESTAMP '2000-12-31 23:59:59.999999'),
  (8, NULL, NULL, NULL, NULL),
  (9, 'ünïcödé ✓', -1, DATE '1969-01-01', TIMESTAMP '1969-12-31 23:59:59.999999'),
  (10, '日本語', 10, DATE '2024-01-16', TIMESTAMP '2024-01-15 11:00:00'),
  (-11, 'apple', 5, DATE '2024-01-15', TIMESTAMP '2024-01-15 10:45:00'),
  (12, 'date', -100, DATE '1583-10-15', TIMESTAMP '1583-10-15 06:07:08')
"""

# table name -> PARTITIONED BY clause
PARTITIONED_TABLES = {
    "part_identity_int": "n",
    "part_identity_string": "s",
    "part_identity_date": "d",
    "part_bucket": "bucket(8, id)",
    "part_truncate_string": "truncate(3, s)",
    "part_truncate_int": "truncate(10, n)",
    "part_years": "years(ts)",
    "part_months": "months(ts)",
    "part_days": "days(ts)",
    "part_hours": "hours(ts)",
    "part_two_fields": "days(ts), bucket(4, id)",
}

SMALL_COLUMNS = "id INT, s STRING, x DOUBLE"
SMALL_ROWS = ["(1, 'a', 1.5), (2, 'b', NULL)", "(3, NULL, -2.0), (4, 'dd', 4.25)"]


@dataclasses.dataclass(frozen=True)
class Snapshot:
    snapshot_id: int
    committed_at: dt.datetime  # UTC-aware, millisecond precision (Iceberg's timestamp-ms)

    @property
    def timestamp_sql(self) -> str:
        """The commit time as a Spark/ISO literal in UTC, e.g. '2026-01-02 03:04:05.678'."""
        return self.committed_at.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


@dataclasses.dataclass(frozen=True)
class SparkTables:
    """What the fixture tables hold that a test cannot know in advance."""

    warehouse: str
    # db.history: main's snapshots oldest first; every one is an INSERT of HISTORY_ROWS[i].
    history_main: tuple[Snapshot, ...]
    history_tag_t1: int  # snapshot id tag t1 points at (== history_main[1].snapshot_id)
    history_branch_b1: int  # head of branch b1: its own commit on top of history_main[1]
    # A UTC literal strictly between history_main[1] and history_main[2]'s commits.
    history_between_2_and_3: str
    with_deletes_snapshot: int  # the DELETE snapshot of db.with_deletes
    tables: tuple[str, ...]  # every fixture table, "db.<name>"


HISTORY_ROWS = [
    "(1, 'a'), (2, 'b')",
    "(3, 'c')",
    "(4, 'd'), (5, 'e')",
    "(6, 'f')",
]
HISTORY_BRANCH_ROWS = "(100, 'branch')"
HISTORY_TAG_INDEX = 1  # t1 and b1 start at history_main[1]


def _snapshots(spark, table: str) -> list[Snapshot]:
    rows = spark.sql(
        f"SELECT snapshot_id, committed_at FROM {table}.snapshots ORDER BY committed_at"
    ).collect()
    return [Snapshot(row.snapshot_id, row.committed_at.replace(tzinfo=dt.UTC)) for row in rows]


def _current_snapshot(spark, table: str) -> int:
    row = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0]
    return row.snapshot_id


def _create_history(spark) -> tuple[tuple[Snapshot, ...], int, int, str]:
    spark.sql(
        "CREATE TABLE db.history (id INT, v STRING) USING iceberg "
        "TBLPROPERTIES ('format-version' = '2')"
    )
    for rows in HISTORY_ROWS:
        spark.sql(f"INSERT INTO db.history VALUES {rows}")
        time.sleep(0.01)  # commits at distinct milliseconds, so TIMESTAMP AS OF is exact
    main = tuple(_snapshots(spark, "db.history"))
    assert len(main) == len(HISTORY_ROWS), main
    base = main[HISTORY_TAG_INDEX].snapshot_id
    spark.sql(f"ALTER TABLE db.history CREATE TAG t1 AS OF VERSION {base}")
    spark.sql(f"ALTER TABLE db.history CREATE BRANCH b1 AS OF VERSION {base}")
    spark.sql(f"INSERT INTO db.history.branch_b1 VALUES {HISTORY_BRANCH_ROWS}")
    branch_head = (
        spark.sql("SELECT snapshot_id FROM db.history.refs WHERE name = 'b1'")
        .collect()[0]
        .snapshot_id
    )
    assert branch_head not in {s.snapshot_id for s in main}
    second, third = main[HISTORY_TAG_INDEX].committed_at, main[HISTORY_TAG_INDEX + 1].committed_at
    assert third - second >= dt.timedelta(milliseconds=2), (second, third)
    middle = second + (third - second) / 2
    between = middle.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return main, base, branch_head, between


def _create_with_deletes(spark, table: str, version: int) -> int:
    spark.sql(
        f"CREATE TABLE {table} (id INT, s STRING) USING iceberg TBLPROPERTIES ("
        f"'format-version' = '{version}', 'write.delete.mode' = 'merge-on-read', "
        "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')"
    )
    values = ", ".join(f"({i}, 'row{i}')" for i in range(1, 11))
    spark.sql(f"INSERT INTO {table} VALUES {values}")
    spark.sql(f"DELETE FROM {table} WHERE id IN (2, 5)")
    deletes = spark.sql(f"SELECT count(*) AS n FROM {table}.delete_files").collect()[0].n
    assert deletes >= 1, f"{table}: DELETE wrote no delete file"
    return _current_snapshot(spark, table)


def create_spark_tables(spark, warehouse: str) -> SparkTables:
    """Create every fixture table through Spark SQL (about 20-40 s on two cores)."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NAMESPACE}")
    spark.sql(ALL_TYPES_DDL)
    spark.sql("INSERT INTO db.all_types VALUES " + ",\n".join(ALL_TYPES_ROWS))
    spark.sql(NESTED_DDL)
    spark.sql(NESTED_INSERT)
    spark.sql(
        f"CREATE OR REPLACE TEMPORARY VIEW part_source AS SELECT * FROM VALUES {PART_ROWS} "
        "AS t(id, s, n, d, ts)"
    )
    for name, spec in PARTITIONED_TABLES.items():
        spark.sql(
            f"CREATE TABLE db.{name} ({PART_COLUMNS}) USING iceberg PARTITIONED BY ({spec}) "
            "TBLPROPERTIES ('format-version' = '2')"
        )
        spark.sql(f"INSERT INTO db.{name} SELECT * FROM part_source")
    spark.catalog.dropTempView("part_source")
    for version in (1, 3):
        spark.sql(
            f"CREATE TABLE db.small_v{version} ({SMALL_COLUMNS}) USING iceberg "
            f"TBLPROPERTIES ('format-version' = '{version}')"
        )
        for rows in SMALL_ROWS:
            spark.sql(f"INSERT INTO db.small_v{version} VALUES {rows}")
    main, tag, branch, between = _create_history(spark)
    with_deletes = _create_with_deletes(spark, "db.with_deletes", 2)
    _create_with_deletes(spark, "db.with_dvs", 3)
    tables = tuple(
        f"{NAMESPACE}.{row.tableName}" for row in spark.sql(f"SHOW TABLES IN {NAMESPACE}").collect()
    )
    return SparkTables(
        warehouse=warehouse,
        history_main=main,
        history_tag_t1=tag,
        history_branch_b1=branch,
        history_between_2_and_3=between,
        with_deletes_snapshot=with_deletes,
        tables=tables,
    )
