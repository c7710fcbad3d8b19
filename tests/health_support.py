"""Tables with planted maintenance problems for the health tests, made by icesql's own DML."""

from __future__ import annotations


def small_files_table(con, name="db.t", version=2, inserts=6):
    """``inserts`` appends of 100 rows over partitions p = 0, 1 (small files, two per append),
    merge-on-read deletes and updates."""
    con.execute(
        f"CREATE TABLE {name} (id BIGINT, p INT, s STRING) USING iceberg PARTITIONED BY (p)"
        f" TBLPROPERTIES ('format-version'='{version}', 'write.delete.mode'='merge-on-read',"
        " 'write.update.mode'='merge-on-read')"
    )
    for i in range(inserts):
        con.execute(
            f"INSERT INTO {name} SELECT id, CAST(id % 2 AS INT), concat('s', CAST(id AS STRING))"
            f" FROM range({i * 100}, {i * 100 + 100}) t(id)"
        )
