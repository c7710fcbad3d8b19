"""rewrite_data_files racing a Spark DELETE on the same partition loses nothing.

icesql plans a compaction of some files of a partition; just before its commit, Spark
deletes a row (merge-on-read position deletes, file- or partition-scoped). A delete of a
file the rewrite leaves alone does not conflict (Java's ``RewriteFiles`` validation looks at
deletes that may apply to the rewritten files only): the rewrite commits on top of it and
the deleted row stays deleted. A delete of a rewritten file fails the rewrite cleanly —
nothing of it is committed, and a second rewrite then compacts the table. Spark reads the
expected rows after every step."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import CommitConflictError

NS = "rwrace"


def _create(spark, name: str, granularity: str) -> str:
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    spark.sql(f"DROP TABLE IF EXISTS local.{NS}.{name}")
    spark.sql(
        f"CREATE TABLE local.{NS}.{name} (id BIGINT, p INT) USING iceberg PARTITIONED BY (p)"
        " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',"
        f" 'write.delete.granularity'='{granularity}')"
    )
    for ids in ((0, 1), (2, 3), (200, 201)):  # three files of partition 0
        spark.sql(f"INSERT INTO local.{NS}.{name} VALUES ({ids[0]}, 0), ({ids[1]}, 0)")
    return f"{NS}.{name}"


def _ids(spark, table: str) -> list[int]:
    spark.sql(f"REFRESH TABLE local.{table}")
    return sorted(r[0] for r in spark.sql(f"SELECT id FROM local.{table}").collect())


def _spark_before_commit(con, monkeypatch, spark, statement: str) -> None:
    """Spark runs ``statement`` once, just before icesql's next commit attempt."""
    real, pending = con.catalog.commit_table, [statement]

    def commit_table(table, metadata):
        if pending:
            spark.sql(pending.pop())
        return real(table, metadata)

    monkeypatch.setattr(con.catalog, "commit_table", commit_table)


@pytest.mark.parametrize("granularity", ["file", "partition"])
def test_delete_of_another_file_in_the_partition_does_not_conflict(
    spark, spark_warehouse, monkeypatch, granularity
):
    table = _create(spark, f"other_{granularity}", granularity)
    con = icesql.connect(spark_warehouse)
    try:
        _spark_before_commit(con, monkeypatch, spark, f"DELETE FROM local.{table} WHERE id = 200")
        [out] = con.execute(
            f"CALL system.rewrite_data_files(table => '{table}', where => 'id < 100',"
            " options => map('rewrite-all', 'true'))"
        ).fetchall()
        assert out[:2] == (2, 1)  # the two files of ids < 100 became one
        md = con.catalog.load_table(tuple(table.split("."))).metadata
        current = md.current_snapshot()
        assert current.summary["operation"] == "replace"
        assert md.snapshot_by_id(current.parent_snapshot_id).summary["operation"] == "delete"
        assert con.execute(f"SELECT id FROM {table} ORDER BY id").fetchall() == [
            (0,),
            (1,),
            (2,),
            (3,),
            (201,),
        ]
    finally:
        con.close()
    assert _ids(spark, table) == [0, 1, 2, 3, 201]
    spark.sql(f"REFRESH TABLE local.{table}")
    deletes = spark.sql(f"SELECT count(*) FROM local.{table}.delete_files").collect()[0][0]
    assert deletes == 1  # Spark's delete file for the untouched file stays live


def test_delete_of_a_rewritten_file_fails_the_rewrite_cleanly(spark, spark_warehouse, monkeypatch):
    table = _create(spark, "same", "file")
    con = icesql.connect(spark_warehouse)
    try:
        identifier = tuple(table.split("."))
        _spark_before_commit(con, monkeypatch, spark, f"DELETE FROM local.{table} WHERE id = 2")
        with pytest.raises(CommitConflictError, match="delete file"):
            con.execute(
                f"CALL system.rewrite_data_files(table => '{table}', options => map('rewrite-all', 'true'))"
            )
        md = con.catalog.load_table(identifier).metadata
        assert md.current_snapshot().summary["operation"] == "delete"  # nothing of the rewrite
        assert _ids(spark, table) == [0, 1, 3, 200, 201]
        # retried, the rewrite compacts everything with the delete applied
        [out] = con.execute(
            f"CALL system.rewrite_data_files(table => '{table}', options => map('rewrite-all', 'true'))"
        ).fetchall()
        assert out[:2] == (3, 1)
    finally:
        con.close()
    assert _ids(spark, table) == [0, 1, 3, 200, 201]
    # Spark's twin: the same delete, then Spark's rewrite. A v2 position delete file naming
    # one data file by its file_path bounds only (no referenced_data_file) is not removed by
    # Spark 1.10's rewrite: it stays, dangling, in both twins
    twin = _create(spark, "same_twin", "file")
    spark.sql(f"DELETE FROM local.{twin} WHERE id = 2")
    [spark_out] = spark.sql(
        f"CALL local.system.rewrite_data_files(table => '{twin}', options => map('rewrite-all', 'true'))"
    ).collect()
    assert tuple(spark_out)[:2] == out[:2]
    for t in (table, twin):
        spark.sql(f"REFRESH TABLE local.{t}")
        assert spark.sql(f"SELECT count(*) FROM local.{t}.delete_files").collect()[0][0] == 1, t
    assert _ids(spark, twin) == [0, 1, 3, 200, 201]
