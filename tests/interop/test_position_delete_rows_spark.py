"""The ``row`` column of ``position_deletes`` against Spark: for a position delete file
that stores the deleted rows (written by hand here: Spark writes none by default) and one
that does not, icesql's ``SELECT *`` equals Spark's, row for row."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq

import icesql
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.write.commit import commit
from icesql.write.snapshot import Change, SnapshotOperation

NS = "pdrows"


def _ids(field_id: int) -> dict[bytes, bytes]:
    return {b"PARQUET:field_id": str(field_id).encode()}


def test_position_deletes_row_matches_spark(spark, spark_warehouse):
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    spark.sql(f"DROP TABLE IF EXISTS local.{NS}.t")
    spark.sql(
        f"CREATE TABLE local.{NS}.t (id BIGINT, s STRING, p INT) USING iceberg PARTITIONED BY (p)"
        " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql(f"INSERT INTO local.{NS}.t VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0)")
    spark.sql(f"INSERT INTO local.{NS}.t VALUES (4, 'd', 1), (5, 'e', 1)")
    spark.sql(f"DELETE FROM local.{NS}.t WHERE id = 4")  # Spark's file: no rows stored
    con = icesql.connect(spark_warehouse)
    try:
        table = con.catalog.load_table((NS, "t"))
        [(data_path,)] = con.execute(
            f"SELECT file_path FROM {NS}.t.files WHERE partition.p = 0"
        ).fetchall()
        row_type = pa.struct([
            pa.field("id", pa.int64(), metadata=_ids(1)), pa.field("s", pa.string(), metadata=_ids(2)),
            pa.field("p", pa.int32(), metadata=_ids(3)),
        ])  # fmt: skip
        rows = pa.table([
            pa.array([data_path, data_path]), pa.array([0, 2], pa.int64()),
            pa.array([{"id": 1, "s": "a", "p": 0}, {"id": 3, "s": "c", "p": 0}], row_type),
        ], schema=pa.schema([
            pa.field("file_path", pa.string(), False, metadata=_ids(2147483546)),
            pa.field("pos", pa.int64(), False, metadata=_ids(2147483545)),
            pa.field("row", row_type, metadata=_ids(2147483544)),
        ]))  # fmt: skip
        path = f"{table.metadata.location}/data/p=0/hand-deletes-with-rows.parquet"
        pq.write_table(rows, path.removeprefix("file:"))
        delete = DataFile(
            content=POSITION_DELETES,
            file_path=path,
            file_format="PARQUET",
            partition=(0,),
            record_count=2,
            file_size_in_bytes=os.path.getsize(path.removeprefix("file:")),
            spec_id=0,
        )
        commit(
            con.catalog, table, Change(operation=SnapshotOperation.DELETE, added_files=(delete,))
        )
        ice = con.execute(f"SELECT * FROM {NS}.t.position_deletes").fetchall()
        ice_rows = con.execute(f"SELECT id FROM {NS}.t ORDER BY id").fetchall()
    finally:
        con.close()
    spark.sql(f"REFRESH TABLE local.{NS}.t")
    spark_pd = [
        r.asDict(recursive=True)
        for r in spark.sql(f"SELECT * FROM local.{NS}.t.position_deletes").collect()
    ]
    names = list(spark_pd[0])
    ice_pd = [dict(zip(names, r, strict=True)) for r in ice]
    key = lambda r: (r["delete_file_path"], r["pos"])  # noqa: E731
    assert sorted(ice_pd, key=key) == sorted(spark_pd, key=key)
    assert [r["row"] for r in sorted(spark_pd, key=key) if r["row"] is not None] == [
        {"id": 1, "s": "a", "p": 0},
        {"id": 3, "s": "c", "p": 0},
    ]
    assert ice_rows == [(2,), (5,)]
    assert sorted(r[0] for r in spark.sql(f"SELECT id FROM local.{NS}.t").collect()) == [2, 5]
