"""Tables with planted maintenance problems, made by icesql's own DML (merge-on-read)."""

from __future__ import annotations

import pytest


def small_files_table(con, name="db.t", version=2, inserts=6):
    """``inserts`` appends of 100 rows over partitions p = 0, 1: small files, two per append."""
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


@pytest.fixture
def planted(con):
    """db.t: six appends and a merge-on-read DELETE of 40% of the first append's rows."""
    small_files_table(con)
    con.execute("DELETE FROM db.t WHERE id < 100 AND id % 10 < 4")
    return con
