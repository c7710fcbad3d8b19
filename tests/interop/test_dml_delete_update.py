"""DELETE and UPDATE in icesql give Spark's answers, and Spark reads and extends what icesql
writes.

Each script runs on two tables that Spark creates and fills identically: ``<name>_i``
changed by icesql, ``<name>_s`` by Spark (steps marked ``spark`` run in Spark on both, e.g. to
leave Spark-written delete files for icesql to merge with). After every step:

* icesql reads ``_i`` as Spark reads ``_s`` (its own result), and Spark reads ``_i``
  (``REFRESH TABLE`` first) the same way;
* Spark's ``delete_files`` metadata table of ``_i`` lists exactly the delete files icesql
  sees (so Spark accepts icesql's position delete files and DVs);
* in v3, every row keeps the same ``_row_id`` and ``_last_updated_sequence_number`` in both
  tables (row lineage preserved by copy-on-write and merge-on-read alike).

Scripts end with a Spark DELETE on both tables, on top of icesql's delete files. At the
bottom, a metadata-only DELETE racing an append, against Java's ``DeleteFiles`` that
Spark's DELETE commits.
"""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows, java_table
from table_support import append_before_commit, table_files

import icesql
from icesql.errors import CommitConflictError

pytestmark = pytest.mark.spark

NS = "dml"
MODES = ("copy-on-write", "merge-on-read")

# name -> (columns, partitioning, seed INSERTs, steps); a step is SQL with {t}, run by icesql
# on _i and Spark on _s, or ("spark", SQL) run by Spark on both.
SCRIPTS: dict[str, tuple[str, str, list[str], list]] = {
    "part": (
        "id INT, p STRING, x DOUBLE, s STRING",
        "PARTITIONED BY (p)",
        [
            "INSERT INTO {t} VALUES (1,'a',1.0,'one'),(2,'a',NULL,'two'),(3,'b',3.0,NULL),"
            "(4,'b',4.0,'four'),(5,'a',5.5,'five'),(6,NULL,6.0,'six'),(7,'c',7.0,'seven')",
            "INSERT INTO {t} VALUES (8,'a',8.0,'eight'),(9,'c',9.0,NULL),(10,'d',10.0,'ten')",
        ],
        [
            "DELETE FROM {t} WHERE id = 1",  # a single row
            "UPDATE {t} SET x = x * 2, s = upper(s) WHERE p = 'a'",  # a file with deletes
            "DELETE FROM {t} WHERE p = 'd'",  # a whole partition: metadata only
            "UPDATE {t} SET p = 'z' WHERE id = 3",  # to another partition
            "DELETE FROM {t} WHERE x IS NULL OR s = NULL",  # NULL conditions
            "UPDATE {t} SET s = 'big' WHERE NOT (x < 8)",  # NULL x stays
            "DELETE FROM {t} WHERE NOT (x > 10) AND p = 'a'",
            "DELETE FROM {t} WHERE id IN (SELECT max(id) FROM {t} WHERE p = 'c')",
            "DELETE FROM {t} WHERE p IN ('a', 'b') OR s <> 'seven'",
            ("spark", "DELETE FROM {t} WHERE id = 7"),  # Spark on top of icesql's deletes
        ],
    ),
    "flat": (
        "id BIGINT, cat STRING, amount DECIMAL(10,2), d DATE",
        "",
        [
            "INSERT INTO {t} SELECT id, CASE WHEN id % 3 = 0 THEN 'x' ELSE 'y' END,"
            " CAST(id * 1.25 AS DECIMAL(10,2)), DATE '2024-01-01' + CAST(id AS INT)"
            " FROM range(0, 40)",
            "INSERT INTO {t} SELECT id, 'z', NULL, NULL FROM range(100, 110)",
        ],
        [
            ("spark", "DELETE FROM {t} WHERE id % 7 = 0"),  # Spark-written deletes first
            "UPDATE {t} SET amount = amount + 0.555, cat = 'w' WHERE cat = 'y' AND id < 10",
            "DELETE FROM {t} WHERE cat = 'x' AND amount > 20",
            "UPDATE {t} SET d = NULL WHERE id IN (SELECT id FROM {t} WHERE id % 5 = 0)",
            "UPDATE {t} SET amount = 1 WHERE id = -1",  # nothing: an empty commit, as Spark
            "DELETE FROM {t} AS a WHERE EXISTS (SELECT 1 FROM {t} b WHERE b.id = a.id + 1 AND b.cat = 'z')",
            "DELETE FROM {t} WHERE id >= 100",  # the whole second file, by its metrics
            "DELETE FROM {t} WHERE d < DATE '2024-01-05'",
            ("spark", "DELETE FROM {t} WHERE id = 20"),
        ],
    ),
    "bucket": (
        "id INT, name STRING, ts TIMESTAMP",
        "PARTITIONED BY (bucket(3, id), days(ts))",
        [
            "INSERT INTO {t} SELECT CAST(id AS INT), concat('n', id),"
            " TIMESTAMP '2024-03-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 0, 0)"
            " FROM range(0, 60)",
        ],
        [
            "DELETE FROM {t} WHERE ts < TIMESTAMP '2024-03-02 00:00:00'",  # whole days
            "DELETE FROM {t} WHERE name LIKE 'n3%'",
            "UPDATE {t} SET id = id + 1000, name = concat(name, '!') WHERE name LIKE 'n1%'",
            "UPDATE {t} SET ts = ts + INTERVAL 1 DAY WHERE id % 3 = 0",
            "DELETE FROM {t} WHERE id % 2 = 1 AND ts >= TIMESTAMP '2024-03-03 00:00:00'",
            ("spark", "DELETE FROM {t} WHERE id = 40"),
        ],
    ),
    "nested": (
        "id INT, s STRUCT<f: INT, g: STRING, inner: STRUCT<k: BIGINT>>, tags ARRAY<STRING>,"
        " m MAP<STRING, INT>",
        "",
        [
            "INSERT INTO {t} VALUES (1, named_struct('f', 1, 'g', 'x', 'inner', named_struct('k', 10)),"
            " array('a', 'b'), map('k', 1)), (2, NULL, NULL, NULL),"
            " (3, named_struct('f', 3, 'g', NULL, 'inner', NULL), array(), map())",
        ],
        [
            "UPDATE {t} SET s.f = s.f + 1, s.inner.k = 5 WHERE id <> 3",  # a NULL struct too
            "UPDATE {t} SET tags = array('c'), m = map('z', 26) WHERE id = 3",
            "UPDATE {t} SET s = NULL WHERE s.g = 'x'",
            "DELETE FROM {t} WHERE s.f IS NULL",
            ("spark", "UPDATE {t} SET s.g = 'spark' WHERE id = 2"),
        ],
    ),
}


def _props(version: int, mode: str, extra: str = "") -> str:
    return (
        f"'format-version'='{version}', 'write.delete.mode'='{mode}',"
        f" 'write.update.mode'='{mode}'{extra}"
    )


def _create(spark, name: str, version: int, mode: str, extra: str = "") -> tuple[str, str]:
    columns, partitioning, seeds, _ = SCRIPTS[name]
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NS}")
    tables = []
    for suffix in ("i", "s"):
        t = f"{NS}.{name}_v{version}_{mode[0]}_{suffix}"
        spark.sql(f"DROP TABLE IF EXISTS {t}")
        spark.sql(
            f"CREATE TABLE {t} ({columns}) USING iceberg {partitioning}"
            f" TBLPROPERTIES ({_props(version, mode, extra)})"
        )
        for seed in seeds:
            spark.sql(seed.format(t=t))
        tables.append(t)
    return tables[0], tables[1]


def _compare(spark, con, ice: str, twin: str, version: int, step: str) -> None:
    spark.sql(f"REFRESH TABLE {ice}")
    expected = spark.sql(f"SELECT * FROM {twin}").collect()
    assert_same_rows(
        expected,
        con.execute(f"SELECT * FROM {ice}").fetchall(),
        ordered=False,
        context=f"icesql reads {ice} after {step}",
    )
    assert_same_rows(
        expected,
        spark.sql(f"SELECT * FROM {ice}").collect(),
        ordered=False,
        context=f"Spark reads {ice} after {step}",
    )
    listing = "SELECT content, file_path, file_format, record_count, referenced_data_file,"
    listing += " content_offset, content_size_in_bytes FROM {}.delete_files"
    assert_same_rows(
        spark.sql(listing.format(ice)).collect(),
        con.execute(listing.format(ice)).fetchall(),
        ordered=False,
        context=f"delete files of {ice} after {step}",
    )
    if version >= 3:
        lineage = "SELECT id, _row_id, _last_updated_sequence_number FROM {}"
        assert_same_rows(
            spark.sql(lineage.format(twin)).collect(),
            spark.sql(lineage.format(ice)).collect(),
            ordered=False,
            context=f"row lineage of {ice} after {step}",
        )


def _run(spark, con, ice: str, twin: str, version: int, steps: list) -> None:
    for step in steps:
        if isinstance(step, tuple):
            _, sql = step
            spark.sql(f"REFRESH TABLE {ice}")
            for t in (ice, twin):
                spark.sql(sql.format(t=t))
        else:
            sql = step
            con.execute(sql.format(t=ice))
            spark.sql(sql.format(t=twin))
        _compare(spark, con, ice, twin, version, sql.format(t="t"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_scripts_match_spark(spark, spark_warehouse, name, version, mode):
    ice, twin = _create(spark, name, version, mode)
    con = icesql.connect(spark_warehouse)
    try:
        _run(spark, con, ice, twin, version, SCRIPTS[name][3])
    finally:
        con.close()


def test_partition_scoped_deletes_stay_and_dvs_absorb_them(spark, spark_warehouse):
    """v2 partition-scoped position deletes written by Spark: icesql's file-scoped deletes
    leave them in place; after an upgrade to v3 icesql's DV absorbs them (spec: a DV holds
    every position delete of its data file)."""
    ice, twin = _create(
        spark, "part", 2, "merge-on-read", ", 'write.delete.granularity'='partition'"
    )
    con = icesql.connect(spark_warehouse)
    try:
        steps = [
            ("spark", "DELETE FROM {t} WHERE id IN (2, 8)"),
            "DELETE FROM {t} WHERE id = 5",
            ("spark", "ALTER TABLE {t} SET TBLPROPERTIES ('format-version'='3')"),
            "DELETE FROM {t} WHERE id = 1",
            ("spark", "DELETE FROM {t} WHERE id = 4"),
        ]
        _run(spark, con, ice, twin, 2, steps)
        formats = sorted(
            r[0] for r in con.execute(f"SELECT file_format FROM {ice}.delete_files").fetchall()
        )
        assert "PUFFIN" in formats and "PARQUET" in formats  # the partition-scoped file stays
    finally:
        con.close()


def test_not_equal_keeps_null_rows_unlike_sparks_metadata_delete(spark, spark_warehouse):
    """A deliberate difference. ``DELETE ... WHERE p <> 'c'`` must not delete rows whose p is
    NULL (the condition is NULL for them, and Spark's own SELECT agrees). Spark 1.10's
    metadata-only delete deletes them anyway when a file holds only NULLs in p: Iceberg's
    StrictMetricsEvaluator.notEq answers ROWS_MUST_MATCH for a null-only column. icesql
    deletes exactly the rows the condition is TRUE for."""
    ice, twin = _create(spark, "part", 2, "copy-on-write")
    con = icesql.connect(spark_warehouse)
    try:
        matching = spark.sql(f"SELECT id FROM {twin} WHERE p <> 'c'").collect()
        con.execute(f"DELETE FROM {ice} WHERE p <> 'c'")
        spark.sql(f"REFRESH TABLE {ice}")
        left = sorted(r.id for r in spark.sql(f"SELECT id FROM {ice}").collect())
        assert left == [6, 7, 9] and 6 not in {r.id for r in matching}  # id 6 has p NULL
        spark.sql(f"DELETE FROM {twin} WHERE p <> 'c'")
        assert sorted(r.id for r in spark.sql(f"SELECT id FROM {twin}").collect()) == [7, 9]
    finally:
        con.close()


def test_bad_statements_fail_in_both_and_change_nothing(spark, spark_warehouse):
    ice, twin = _create(spark, "part", 3, "merge-on-read")
    con = icesql.connect(spark_warehouse)
    try:
        ident = tuple(ice.split("."))
        for sql in [
            f"DELETE FROM {NS}.missing_table WHERE id = 1",
            "DELETE FROM {t} WHERE nope = 1",
            "UPDATE {t} SET nope = 1",
            "UPDATE {t} SET id = 'abc' WHERE id = 1",
            "UPDATE {t} SET x = 1, x = 2",
        ]:
            before = con.catalog.current_version(ident)
            with pytest.raises(icesql.ProgrammingError):
                con.execute(sql.format(t=ice))
            with pytest.raises(Exception):  # noqa: B017 - Spark's AnalysisException
                spark.sql(sql.format(t=twin))
            assert con.catalog.current_version(ident) == before
        _compare(spark, con, ice, twin, 3, "failed statements")
    finally:
        con.close()


# Metadata-only DELETE racing an append. Spark's DELETE commits ``SparkTable.deleteWhere``:
# Java's ``table.newDelete().deleteFromRowFilter(filter).commit()``, unvalidated (no
# isolation level; ``StreamingDelete.validate`` checks files only when asked to). The twin
# runs exactly that through the JVM with the append made between building and committing
# it; icesql's DELETE gets the same append between planning and committing.
RACES = {  # name -> (format version, condition, the same filter in Java, rows appended)
    "same-partition-v2": (
        2,
        "p = 'a'",
        ("equal", "p", "a"),
        "(20,'a',2.0,'x'), (21,'a',NULL,NULL)",
    ),
    "same-partition-v3": (3, "p = 'a'", ("equal", "p", "a"), "(20,'a',2.0,'x')"),
    "metrics": (2, "id < 100", ("lessThan", "id", 100), "(20,'z',2.0,'x'), (30,'a',3.0,'y')"),
    "split-file": (2, "id < 100", ("lessThan", "id", 100), "(50,'a',1.0,'x'), (500,'a',2.0,'y')"),
}
DELETE_COUNTS = (
    "deleted-data-files",
    "removed-delete-files",
    "removed-position-deletes",
    "removed-dvs",
    "deleted-records",
    "changed-partition-count",
    "total-records",
    "total-data-files",
    "total-delete-files",
)


@pytest.mark.parametrize("race", sorted(RACES))
def test_metadata_only_delete_races_an_append_like_spark(spark, spark_warehouse, monkeypatch, race):
    version, condition, (op, column, value), appended = RACES[race]
    ice, twin = _create(
        spark, "part", version, "merge-on-read", ", 'write.delete.isolation-level'='serializable'"
    )
    con = icesql.connect(spark_warehouse)
    try:
        for t in (ice, twin):  # files with deletes (a DV in v3) that the filter removes too
            spark.sql(f"DELETE FROM {t} WHERE id IN (2, 9)")
        append = f"INSERT INTO {{}} VALUES {appended}"
        java_filter = getattr(spark._jvm.org.apache.iceberg.expressions.Expressions, op)(
            column, value
        )
        jdelete = java_table(spark, twin).newDelete().deleteFromRowFilter(java_filter)
        con.execute(append.format(twin))
        java_error = None
        try:
            jdelete.commit()
        except Exception as e:
            java_error = str(e)

        ident = tuple(ice.split("."))
        written = append_before_commit(con, monkeypatch, spark_warehouse, append.format(ice), ident)
        if java_error is not None:
            assert "Cannot delete file where some, but not all, rows match filter" in java_error
            files = table_files(con, ident)
            with pytest.raises(CommitConflictError, match="holds rows matching"):
                con.execute(f"DELETE FROM {ice} WHERE {condition}")
            assert table_files(con, ident) == files | written[0]  # nothing of the DELETE left
        else:
            rowcount = con.execute(f"DELETE FROM {ice} WHERE {condition}").rowcount
        assert written  # the append happened
        spark.sql(f"REFRESH TABLE {twin}")
        _compare(spark, con, ice, twin, version, f"DELETE WHERE {condition} racing an append")
        mine, theirs = (
            con.catalog.load_table(tuple(t.split("."))).metadata.current_snapshot()
            for t in (ice, twin)
        )
        assert mine.operation == theirs.operation == ("append" if java_error else "delete")
        if java_error is None:
            counts = [{k: s.summary.get(k) for k in DELETE_COUNTS} for s in (mine, theirs)]
            assert counts[0] == counts[1]
            assert int(counts[0]["deleted-data-files"]) >= 2
            before = spark.sql(
                f"SELECT count(*) FROM {twin} VERSION AS OF {theirs.parent_snapshot_id}"
                f" WHERE {condition}"
            ).collect()[0][0]
            assert rowcount == before  # the rows matching when the commit landed
    finally:
        con.close()
