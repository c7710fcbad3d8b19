"""Every metadata table of Iceberg 1.10, read by icesql with ``SELECT *``, equals Spark's row
for row and column for column (names, Spark types, values; snapshot ids and file paths
included, since both engines read the same table files), on Spark-written tables that cover
the types, the partition transforms, schema and partition evolution, position deletes,
deletion vectors, overwrites, branches and tags; and time travel on them where Spark allows it.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
import spark_support

from .spark_tables import PARTITIONED_TABLES
from .test_read_deletes import _commit_equality_delete

NS = "mdt"

METADATA_TABLES = (
    "entries",
    "files",
    "data_files",
    "delete_files",
    "manifests",
    "partitions",
    "history",
    "snapshots",
    "refs",
    "metadata_log_entries",
    "position_deletes",
    "all_entries",
    "all_files",
    "all_data_files",
    "all_delete_files",
    "all_manifests",
)

SETUP = [
    f"CREATE NAMESPACE IF NOT EXISTS {NS}",
    # v2, merge-on-read: position delete files; evolution of schema and partitioning; refs
    f"""CREATE TABLE {NS}.v2 (id BIGINT, s STRING, d DECIMAL(10, 2), ts TIMESTAMP, f DOUBLE,
        b BOOLEAN, dt DATE, bin BINARY) USING iceberg PARTITIONED BY (bucket(4, id), days(ts))
        TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read',
                       'write.update.mode' = 'merge-on-read')""",
    f"""INSERT INTO {NS}.v2 VALUES
        (1, 'a', 1.50, TIMESTAMP '2024-01-01 10:00:00', 1.0, true, DATE '2024-01-01', X'01'),
        (2, 'bb', 2.50, TIMESTAMP '2024-01-02 10:00:00', double('NaN'), false, NULL, NULL),
        (3, NULL, NULL, TIMESTAMP '2024-01-02 11:00:00', NULL, NULL, DATE '1969-12-31', X'')""",
    f"""INSERT INTO {NS}.v2 VALUES (4, 'dddd', 4.00, TIMESTAMP '2024-01-03 00:00:00', -1.0, true,
        DATE '2024-01-03', X'FF00')""",
    f"DELETE FROM {NS}.v2 WHERE id = 2",
    f"ALTER TABLE {NS}.v2 CREATE TAG t1",
    f"ALTER TABLE {NS}.v2 ADD COLUMN extra INT",
    f"ALTER TABLE {NS}.v2 RENAME COLUMN b TO flag",
    f"ALTER TABLE {NS}.v2 DROP COLUMN bin",
    f"ALTER TABLE {NS}.v2 ADD PARTITION FIELD truncate(2, s)",
    f"""INSERT INTO {NS}.v2 VALUES (5, 'eeeee', 5.00, TIMESTAMP '2024-01-04 00:00:00', 5.0, false,
        DATE '2024-01-04', 7)""",
    f"ALTER TABLE {NS}.v2 CREATE BRANCH b1",
    f"""INSERT INTO {NS}.v2.branch_b1 VALUES (6, 'ff', 6.00, TIMESTAMP '2024-01-05 00:00:00', 6.0,
        true, DATE '2024-01-05', 8)""",
    f"UPDATE {NS}.v2 SET d = 9.99 WHERE id = 4",
    # v3, merge-on-read: deletion vectors (the second DELETE of a file replaces its DV)
    f"""CREATE TABLE {NS}.v3 (id INT, cat STRING, day DATE, v FLOAT, ntz TIMESTAMP_NTZ)
        USING iceberg PARTITIONED BY (cat, months(day))
        TBLPROPERTIES ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')""",
    f"""INSERT INTO {NS}.v3 VALUES (1, 'x', DATE '2024-01-01', 1.0, TIMESTAMP_NTZ '2024-01-01 01:02:03'),
        (2, 'x', DATE '2024-01-15', 2.0, NULL), (3, 'y', DATE '2024-02-01', 3.0, NULL)""",
    f"DELETE FROM {NS}.v3 WHERE id = 2",
    f"DELETE FROM {NS}.v3 WHERE id = 1",
    f"INSERT INTO {NS}.v3 VALUES (4, 'y', DATE '2024-03-01', float('NaN'), NULL)",
    f"ALTER TABLE {NS}.v3 CREATE BRANCH b2 RETAIN 7 DAYS WITH SNAPSHOT RETENTION 2 SNAPSHOTS",
    f"DELETE FROM {NS}.v3.branch_b2 WHERE id = 3",
    # nested columns (readable_metrics of struct fields, list elements, map keys and values)
    f"""CREATE TABLE {NS}.nested (id INT, st STRUCT<a: INT, b: STRING>, arr ARRAY<INT>,
        m MAP<STRING, INT>, h TIMESTAMP) USING iceberg PARTITIONED BY (truncate(10, id), hours(h))
        TBLPROPERTIES ('format-version' = '2')""",
    f"""INSERT INTO {NS}.nested VALUES
        (1, named_struct('a', 1, 'b', 'x'), array(1, 2), map('k', 1), TIMESTAMP '2024-01-01 10:30:00'),
        (12, NULL, array(), NULL, TIMESTAMP '2024-01-01 11:00:00'),
        (13, named_struct('a', NULL, 'b', 'y'), NULL, map('a', NULL), NULL)""",
    # v1, unpartitioned, overwritten: DELETED entries, manifests without sequence numbers
    f"""CREATE TABLE {NS}.v1 (id INT, name STRING) USING iceberg
        TBLPROPERTIES ('format-version' = '1')""",
    f"INSERT INTO {NS}.v1 VALUES (1, 'a'), (2, 'b')",
    f"INSERT INTO {NS}.v1 VALUES (3, 'c')",
    f"INSERT OVERWRITE {NS}.v1 SELECT * FROM {NS}.v1 WHERE id <> 2",
    # equality deletes (committed through the Java API below: Spark SQL never writes them)
    f"""CREATE TABLE {NS}.eq (id INT, cat STRING) USING iceberg PARTITIONED BY (cat)
        TBLPROPERTIES ('format-version' = '2')""",
    f"INSERT INTO {NS}.eq VALUES (1, 'a'), (2, 'a'), (3, 'b')",
]
TABLES = ("v2", "v3", "nested", "v1", "eq")


@pytest.fixture(scope="module")
def md_tables(spark, spark_warehouse: str) -> dict[str, list[int]]:
    """The tables, once per module; their snapshot ids in commit order."""
    for table in TABLES:
        spark.sql(f"DROP TABLE IF EXISTS {NS}.{table}")
    for statement in SETUP:
        spark.sql(statement)
    _commit_equality_delete(
        spark, f"{NS}.eq", {"id": (1, pa.array([2, 9], pa.int32()))}, [1], partition_path="cat=a"
    )
    return {
        t: [
            r[0]
            for r in spark.sql(
                f"SELECT snapshot_id FROM {NS}.{t}.snapshots ORDER BY committed_at"
            ).collect()
        ]
        for t in TABLES
    }


@pytest.fixture(scope="module")
def md_con(md_tables, spark_warehouse: str):
    import icesql

    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def _assert_same(spark, con, sql: str, spark_sql: str | None = None) -> None:
    expected = spark.sql(spark_sql or sql)
    cursor = con.execute(sql)
    columns = [(f.name, f.dataType.simpleString()) for f in expected.schema.fields]
    assert [(d[0], str(d[1]).lower()) for d in cursor.description] == columns, sql
    spark_support.assert_same_rows(
        expected.collect(), cursor.fetchall(), ordered=False, context=sql
    )


@pytest.mark.parametrize("name", METADATA_TABLES)
@pytest.mark.parametrize("table", TABLES)
def test_select_star_equals_sparks(spark, md_con, table: str, name: str) -> None:
    _assert_same(spark, md_con, f"SELECT * FROM {NS}.{table}.{name}")


# the session's shared fixture tables (spark_tables.py): every Spark-expressible primitive type,
# nested types, every transform on its own, history with refs, v1 / v3, deletes and DVs
SHARED = (
    "all_types",
    "nested",
    "history",
    "small_v1",
    "small_v3",
    "with_deletes",
    "with_dvs",
    *PARTITIONED_TABLES,
)


@pytest.mark.parametrize("table", SHARED)
def test_shared_fixture_tables_equal_sparks(spark, spark_tables, icesql_connection, table) -> None:
    for name in METADATA_TABLES:
        _assert_same(spark, icesql_connection, f"SELECT * FROM db.{table}.{name}")


TRAVELLING = (
    "entries",
    "files",
    "data_files",
    "delete_files",
    "manifests",
    "partitions",
    "position_deletes",
    "snapshots",
    "history",
    "refs",
    "metadata_log_entries",
)


@pytest.mark.parametrize("name", TRAVELLING)
def test_time_travel_equals_sparks(spark, md_tables, md_con, name: str) -> None:
    """A tag (before the schema and partition evolution), snapshot ids (before a DV was
    replaced; an overwritten v1 table), a timestamp and a branch: the one-snapshot tables show
    that snapshot, the history tables the whole table, as in Spark."""
    first_v3 = md_tables["v3"][1]
    committed = spark.sql(
        f"SELECT committed_at FROM {NS}.v3.snapshots WHERE snapshot_id = {first_v3}"
    ).collect()[0][0]
    b2 = spark.sql(f"SELECT snapshot_id FROM {NS}.v3.refs WHERE name = 'b2'").collect()[0][0]
    for sql in (
        f"SELECT * FROM {NS}.v2.{name} VERSION AS OF 't1'",
        f"SELECT * FROM {NS}.v3.{name} VERSION AS OF {first_v3}",
        f"SELECT * FROM {NS}.v3.{name} TIMESTAMP AS OF '{committed:%Y-%m-%d %H:%M:%S.%f}'",
        f"SELECT * FROM {NS}.v1.{name} FOR SYSTEM_VERSION AS OF {md_tables['v1'][0]}",
    ):
        _assert_same(spark, md_con, sql)
    # Spark 3.5 + Iceberg 1.10 fail on a partitioned table's metadata table read at a branch
    # by name ("Cannot find source column for partition field"); at its snapshot id they work
    _assert_same(
        spark,
        md_con,
        f"SELECT * FROM {NS}.v3.{name} VERSION AS OF 'b2'",
        f"SELECT * FROM {NS}.v3.{name} VERSION AS OF {b2}",
    )


@pytest.mark.parametrize("name", [n for n in METADATA_TABLES if n.startswith("all_")])
def test_all_tables_refuse_time_travel_as_spark_does(spark, md_tables, md_con, name) -> None:
    import icesql

    sql = f"SELECT * FROM {NS}.v2.{name} VERSION AS OF 't1'"
    with pytest.raises(Exception, match="Cannot select snapshot"):
        spark.sql(sql).collect()
    with pytest.raises(icesql.ProgrammingError, match=f"cannot select a snapshot of .*{name}"):
        md_con.execute(sql)


def test_the_tables_cover_what_they_claim(md_con) -> None:
    """Guards the fixture: deletes, DVs, replaced DVs, DELETED entries, refs and evolution
    are really there, so the comparisons above compare them."""

    def one(sql: str) -> object:
        return md_con.execute(sql).fetchone()[0]

    assert one(f"SELECT count(*) FROM {NS}.v2.delete_files WHERE file_format = 'PARQUET'") >= 1
    assert one(f"SELECT count(*) FROM {NS}.v2.position_deletes") >= 1
    assert one(f"SELECT count(DISTINCT spec_id) FROM {NS}.v2.files") == 2
    assert one(f"SELECT count(*) FROM {NS}.v3.all_delete_files WHERE file_format = 'PUFFIN'") >= 2
    assert one(f"SELECT count(*) FROM {NS}.v3.position_deletes") >= 1
    assert one(f"SELECT count(*) FROM {NS}.v1.all_entries WHERE status = 2") >= 1
    assert one(f"SELECT count(*) FROM {NS}.v2.refs") == 3
    assert one(f"SELECT sum(equality_delete_file_count) FROM {NS}.eq.partitions") == 1
    assert (
        one(
            f"SELECT readable_metrics.`st.b`.upper_bound FROM {NS}.nested.files"
            " WHERE readable_metrics.id.lower_bound = 13"
        )
        == "y"
    )
