"""Spark reads a branch icesql committed to (``Change.branch``; no SQL surface yet)."""

from __future__ import annotations

import pyarrow as pa
from spark_support import assert_same_rows

from icesql.expressions.tree import equal
from icesql.scan.planner import plan_files
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.snapshot import Change, SnapshotOperation, operation_for
from icesql.write.validation import Validation


def _files(table, ids):
    writer = DataWriter(WriteTarget.for_table(table))
    writer.write(pa.record_batch([pa.array(ids, pa.int64())], names=["id"]))
    return tuple(writer.close())


def test_spark_reads_the_branch_icesql_appended_to_and_deleted_from(spark, con):
    ns = "w_branch_commits"
    con.execute(f"DROP NAMESPACE IF EXISTS {ns} CASCADE")
    con.execute(f"CREATE NAMESPACE {ns}")
    con.execute(
        f"CREATE TABLE {ns}.t (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='2')"
    )
    con.execute(f"INSERT INTO {ns}.t VALUES (1), (2)")
    spark.sql(f"REFRESH TABLE {ns}.t")
    spark.sql(f"ALTER TABLE {ns}.t CREATE BRANCH b")  # Spark makes the branch
    con.execute(f"INSERT INTO {ns}.t VALUES (10)")  # main moves on

    ident = (ns, "t")
    table = con.catalog.load_table(ident)
    fork = table.metadata.snapshot_for_ref("b").snapshot_id
    table = commit(
        con.catalog, table, Change(SnapshotOperation.APPEND, _files(table, [3, 4]), branch="b")
    )
    # copy-on-write DELETE FROM t.branch_b WHERE id = 1: the file of ids 1, 2 is rewritten
    md = table.metadata
    read = md.snapshot_for_ref("b").snapshot_id
    files = [t.data_file for t in plan_files(md, md.snapshot_for_ref("b"), table.io)]
    holding_1 = tuple(f for f in files if _holds(f.file_path, 1))
    added = _files(table, [2])
    table = commit(
        con.catalog,
        table,
        Change(
            operation_for(added, holding_1),
            added,
            holding_1,
            validation=Validation(read, equal("id", 1)),
            branch="b",
        ),
    )
    md = table.metadata
    assert md.snapshot_for_ref("b").parent_snapshot_id == read
    assert md.snapshot_by_id(read).parent_snapshot_id == fork

    spark.sql(f"REFRESH TABLE {ns}.t")
    ours = con.execute(f"SELECT id FROM {ns}.t.branch_b").fetchall()
    assert sorted(r[0] for r in ours) == [2, 3, 4]
    assert_same_rows(
        spark.sql(f"SELECT id FROM {ns}.t.branch_b").collect(),
        ours,
        ordered=False,
        context="Spark reading t.branch_b",
    )
    assert_same_rows(
        spark.sql(f"SELECT id FROM {ns}.t VERSION AS OF 'b'").collect(),
        ours,
        ordered=False,
        context="Spark reading VERSION AS OF 'b'",
    )
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {ns}.t").collect()) == [1, 2, 10]


def _holds(path: str, value: int) -> bool:
    import pyarrow.parquet as pq

    return value in pq.read_table(path, columns=["id"]).column("id").to_pylist()
