"""Spark and icesql take turns writing one table; after every turn both see the same rows.

Turns: Spark INSERT, icesql INSERT, Spark merge-on-read DELETE, icesql INSERT, Spark ALTER +
INSERT, icesql ALTER + INSERT. The DELETE leaves delete files (v2 position deletes, v3
deletion vectors). icesql's INSERT after it must carry those delete manifests forward
untouched, or the deleted rows would come back in Spark: that is what the turn after the
DELETE proves, through Spark's eyes. Where icesql cannot read delete files yet (it raises
``NotSupportedError`` until the deletes issue lands), the comparison for the turns that
follow the DELETE is done by Spark alone; the history and row counts are still checked.
"""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows

import icesql


def _same(spark, con, table: str, step: str, expected_count: int) -> None:
    spark.sql(f"REFRESH TABLE {table}")
    spark_rows = spark.sql(f"SELECT * FROM {table}").collect()
    assert len(spark_rows) == expected_count, f"{step}: Spark sees {len(spark_rows)} rows"
    try:
        ours = con.execute(f"SELECT * FROM {table}").fetchall()
    except icesql.NotSupportedError:
        return  # delete files not readable by icesql yet: Spark is the judge (module docstring)
    assert_same_rows(spark_rows, ours, ordered=False, context=f"after {step}")


@pytest.mark.parametrize("version", [2, 3])
def test_spark_and_icesql_take_turns(spark, con, version):
    ns = f"w_turns_v{version}"
    table = f"{ns}.t"
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ns}")
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, s STRING, ts TIMESTAMP) USING iceberg"
        f" PARTITIONED BY (bucket(4, id)) TBLPROPERTIES ('format-version'='{version}',"
        " 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')"
    )
    spark.sql(
        f"INSERT INTO {table} VALUES (1, 'spark', TIMESTAMP '2024-01-01 00:00:00'), (2, 'spark', NULL)"
    )
    _same(spark, con, table, "Spark INSERT", 2)

    con.execute(
        f"INSERT INTO {table} VALUES (3, 'icesql', TIMESTAMP '2024-01-02 00:00:00'), (4, 'icesql', NULL)"
    )
    _same(spark, con, table, "icesql INSERT", 4)

    spark.sql(f"DELETE FROM {table} WHERE id IN (1, 3)")
    deletes = spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0]
    assert deletes >= 1, "the merge-on-read DELETE wrote no delete file"
    _same(spark, con, table, "Spark DELETE", 2)

    con.execute(f"INSERT INTO {table} VALUES (5, 'icesql', NULL), (1, 'again', NULL)")
    _same(spark, con, table, "icesql INSERT on top of delete files", 4)
    spark.sql(f"REFRESH TABLE {table}")
    assert spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0] == deletes
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect()) == [1, 2, 4, 5]

    spark.sql(f"ALTER TABLE {table} ADD COLUMN n INT")
    spark.sql(f"INSERT INTO {table} VALUES (6, 'spark', NULL, 60)")
    _same(spark, con, table, "Spark ALTER + INSERT", 5)

    con.execute(f"ALTER TABLE {table} ADD COLUMN tag STRING AFTER s")
    con.execute(f"ALTER TABLE {table} ALTER COLUMN n TYPE BIGINT")
    con.execute(f"ALTER TABLE {table} ADD PARTITION FIELD days(ts)")
    con.execute(
        f"INSERT INTO {table} VALUES (7, 'icesql', 'new', TIMESTAMP '2024-03-01 12:00:00', 70)"
    )
    _same(spark, con, table, "icesql ALTER + INSERT", 6)
    spark.sql(f"REFRESH TABLE {table}")
    assert [f.name for f in spark.table(table).schema.fields] == ["id", "s", "tag", "ts", "n"]
    assert spark.sql(f"SELECT tag, n FROM {table} WHERE id = 7").collect()[0] == ("new", 70)

    # Spark keeps writing the table as its own after icesql's schema and spec changes
    spark.sql(
        f"INSERT INTO {table} VALUES (8, 'spark', 'last', TIMESTAMP '2024-03-02 00:00:00', 80)"
    )
    _same(spark, con, table, "Spark INSERT after icesql's ALTER", 7)

    history = spark.sql(
        f"SELECT h.snapshot_id, h.parent_id, s.operation FROM {table}.history h"
        f" JOIN {table}.snapshots s ON h.snapshot_id = s.snapshot_id ORDER BY h.made_current_at"
    ).collect()
    assert [r.operation for r in history] == [
        "append",
        "append",
        "delete",
        "append",
        "append",
        "append",
        "append",
    ]
    assert all(history[i].parent_id == history[i - 1].snapshot_id for i in range(1, len(history)))
    md = con.catalog.load_table((ns, "t")).metadata
    assert [s.sequence_number for s in md.snapshots] == list(range(1, 8))
    if version == 3:
        lineage = spark.sql(f"SELECT id, _row_id FROM {table} ORDER BY _row_id").collect()
        ids = [r._row_id for r in lineage]
        assert len(set(ids)) == len(ids) and None not in ids
        assert md.next_row_id >= max(ids) + 1
