"""Spark reads commits that remove data files and add or replace deletion vectors.

The commit core is exercised directly (the DML statements build on it): a v3 table written
by icesql loses a data file, gains a DV, then has that DV replaced by a merged one. Spark
must see exactly icesql's rows after each step, list the same live delete files, and be able
to delete on top of icesql's DV (it merges with it).
"""

from __future__ import annotations

from spark_support import assert_same_rows

import icesql
from icesql.metadata.puffin import write_deletion_vector_puffin
from icesql.scan.planner import plan_files
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.write.commit import commit
from icesql.write.snapshot import Change, operation_for


def _dv(table, data_file, positions, name):
    path = f"{table.metadata.location}/data/{name}"
    [(offset, length, card)] = write_deletion_vector_puffin(
        table.io, path, [(data_file.file_path, positions)]
    )
    return DataFile(
        file_path=path,
        file_format="PUFFIN",
        partition=data_file.partition,
        record_count=card,
        file_size_in_bytes=table.io.size(path),
        content=POSITION_DELETES,
        referenced_data_file=data_file.file_path,
        content_offset=offset,
        content_size_in_bytes=length,
        spec_id=data_file.spec_id,
    )


def _same(spark, con, table):
    spark.sql(f"REFRESH TABLE {table}")
    expected = spark.sql(f"SELECT id, p FROM {table}").collect()
    assert_same_rows(expected, con.execute(f"SELECT id, p FROM {table}").fetchall(), ordered=False)
    return sorted(r[0] for r in expected)


def test_spark_reads_removed_files_and_replaced_dvs(spark, spark_warehouse):
    table = "core_rows.t"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS core_rows")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    con = icesql.connect(spark_warehouse)
    try:
        con.execute(
            f"CREATE TABLE {table} (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)"
            " TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')"
        )
        con.execute(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'b'), (5, 'c')")
        t = con.catalog.load_table(("core_rows", "t"))
        files = {
            f.partition: f
            for f in (
                task.data_file
                for task in plan_files(t.metadata, t.metadata.current_snapshot(), t.io)
            )
        }

        t = commit(con.catalog, t, Change(operation="delete", removed_files=(files[("c",)],)))
        assert _same(spark, con, table) == [1, 2, 3, 4]

        first = _dv(t, files[("b",)], [0], "dv1.puffin")
        t = commit(
            con.catalog, t, Change(operation=operation_for([first], []), added_files=(first,))
        )
        assert _same(spark, con, table) == [1, 2, 4]

        merged = _dv(t, files[("a",)], [1], "dv2.puffin")
        both = _dv(t, files[("b",)], [0, 1], "dv3.puffin")
        t = commit(
            con.catalog,
            t,
            Change(operation="delete", added_files=(merged, both), removed_files=(first,)),
        )
        assert _same(spark, con, table) == [1]
        live = spark.sql(f"SELECT file_path, record_count FROM {table}.delete_files").collect()
        assert sorted((r.file_path.rsplit("/", 1)[-1], r.record_count) for r in live) == [
            ("dv2.puffin", 1),
            ("dv3.puffin", 2),
        ]
        snap = spark.sql(
            f"SELECT operation, summary FROM {table}.snapshots ORDER BY committed_at"
        ).collect()
        assert [s.operation for s in snap] == ["append", "delete", "delete", "delete"]
        assert snap[-1].summary["removed-dvs"] == "1" and snap[-1].summary["added-dvs"] == "2"

        spark.sql(f"INSERT INTO {table} VALUES (6, 'a')")
        spark.sql(f"DELETE FROM {table} WHERE id = 1")  # merges with icesql's DV on that file
        assert _same(spark, con, table) == [6]
    finally:
        con.close()
