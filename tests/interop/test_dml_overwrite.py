"""INSERT OVERWRITE and INSERT ... PARTITION against Spark 3.5 + Iceberg 1.10.

Each script is a table, a setup Spark runs on two identical copies (rows, merge-on-read
DELETEs leaving position delete files in v2 and deletion vectors in v3, partition
evolution), then steps: icesql runs each on its copy, Spark on the other. ``SET`` / ``RESET``
steps go to both sessions. After every step:

* the two copies hold the same rows, read by Spark, and icesql reads its copy the same;
* both got the same number of new snapshots, with the same operation and the same values of
  the summary keys that do not depend on how many files an engine writes per partition
  (records, removed delete files, totals, ``replace-partitions``...);
* the two copies have the same number of live delete files: those of replaced partitions
  are gone in both.

A step marked ``!`` must fail in both engines and leave both tables as they were.
"""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows

import icesql

NS = "ovw"
MODE = "spark.sql.sources.partitionOverwriteMode"
KEYS = (
    "operation",
    "replace-partitions",
    "added-records",
    "deleted-records",
    "changed-partition-count",
    "removed-delete-files",
    "removed-position-deletes",
    "removed-dvs",
    "removed-position-delete-files",
    "total-records",
    "total-delete-files",
    "total-position-deletes",
)

SCRIPTS = {
    "identity": (
        ("(id BIGINT, p STRING, q INT)", "PARTITIONED BY (p, q)"),
        [
            "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'a', 1), (3, 'a', 2), (4, 'b', 1), (5, 'b', 1),"
            " (6, 'c', 3), (7, NULL, 1)",
            "DELETE FROM {t} WHERE id IN (1, 4)",
        ],
        [
            "INSERT OVERWRITE {t} PARTITION (p = 'a') SELECT id + 100, q FROM {t} WHERE p = 'a'",
            "INSERT OVERWRITE TABLE {t} PARTITION (p = 'b', q = 1) VALUES (200)",
            "INSERT INTO {t} PARTITION (p = 'd') SELECT 300, 4",
            "INSERT INTO {t} PARTITION (q = '5') (id, p) VALUES (301, 'd'), (302, 'e')",
            "INSERT OVERWRITE {t} PARTITION (p = NULL) SELECT 400, 1",
            f"SET {MODE} = dynamic",
            "INSERT OVERWRITE {t} SELECT id + 500, 'c', 3 FROM {t} WHERE p = 'b'",
            "INSERT OVERWRITE {t} PARTITION (p = 'z') SELECT 1, 1 WHERE false",
            "INSERT OVERWRITE {t} PARTITION (p = 'a', q) VALUES (600, 2), (601, 9)",
            f"SET {MODE} = static",
            "INSERT OVERWRITE {t} PARTITION (p = 'd') SELECT 1, 2 WHERE false",
            "INSERT OVERWRITE {t} SELECT * FROM {t} WHERE id > 300",
        ],
    ),
    "transforms": (
        ("(id BIGINT, ts TIMESTAMP, s STRING)", "PARTITIONED BY (days(ts), bucket(4, id))"),
        [
            "INSERT INTO {t} VALUES (1, TIMESTAMP '2024-01-01 10:00:00', 'a'), (2, TIMESTAMP '2024-01-01 11:00:00', 'b'),"
            " (3, TIMESTAMP '2024-01-02 10:00:00', 'c'), (4, TIMESTAMP '2024-01-03 10:00:00', 'd'),"
            " (5, TIMESTAMP '2024-01-01 12:00:00', 'e')",
            "DELETE FROM {t} WHERE id IN (2, 3)",
        ],
        [
            f"SET {MODE} = dynamic",
            "INSERT OVERWRITE {t} VALUES (1, TIMESTAMP '2024-01-01 23:00:00', 'a2'), (3, TIMESTAMP '2024-01-02 00:00:00', 'c2')",
            "INSERT OVERWRITE {t} SELECT id + 10, ts, s FROM {t} WHERE id < 3",
            f"RESET {MODE}",
            "INSERT OVERWRITE {t} SELECT * FROM {t} WHERE id % 2 = 1",
        ],
    ),
    "unpartitioned": (
        ("(id BIGINT, s STRING)", ""),
        [
            "INSERT INTO {t} VALUES (1, 'x'), (2, 'y'), (3, 'z')",
            "INSERT INTO {t} VALUES (4, 'w')",
            "DELETE FROM {t} WHERE id IN (1, 4)",
        ],
        [
            f"SET {MODE} = dynamic",
            "INSERT OVERWRITE {t} SELECT id + 10, s FROM {t}",
            "INSERT OVERWRITE {t} SELECT 1, 'q' WHERE false",
            f"SET {MODE} = static",
            "INSERT OVERWRITE TABLE {t} VALUES (1, 'one'), (2, 'two')",
            "INSERT OVERWRITE {t} SELECT 1, 'q' WHERE false",
        ],
    ),
    "evolved": (
        ("(id BIGINT, p STRING, q INT)", "PARTITIONED BY (p)"),
        [
            "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 1), (4, 'c', 3), (8, 'c', 3)",
            "DELETE FROM {t} WHERE id IN (2, 8)",
            "ALTER TABLE {t} ADD PARTITION FIELD q",
            "INSERT INTO {t} VALUES (5, 'a', 1)",
        ],
        [
            # the old (c) file holds q = 3 only: removed, and its DV with it (a v2 position
            # delete file stays: older data files are still live)
            "INSERT OVERWRITE {t} PARTITION (q = 3) SELECT 7, 'c'",
            "!INSERT OVERWRITE {t} PARTITION (q = 1) SELECT 6, 'b'",  # an old file holds q = 1 and 2
            f"SET {MODE} = dynamic",
            "INSERT OVERWRITE {t} VALUES (9, 'b', 1)",  # the old spec's (b) file stays
            f"SET {MODE} = static",
            "INSERT OVERWRITE {t} PARTITION (p = 'a') SELECT 8, 1",
        ],
    ),
    "aged_deletes": (
        ("(id BIGINT, p STRING, q INT)", "PARTITIONED BY (p)"),
        [
            "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'a', 1)",
            "DELETE FROM {t} WHERE id = 2",
            "ALTER TABLE {t} ADD PARTITION FIELD q",
            "INSERT INTO {t} VALUES (5, 'b', 1)",
        ],
        [
            # removes every data file; the old spec's delete file does not match q = 1 by its
            # partition, but goes: a DV with its data file, a position delete file by age
            "INSERT OVERWRITE {t} PARTITION (q = 1) SELECT 6, 'b'",
        ],
    ),
    "bad_input": (
        ("(id BIGINT, p STRING, q INT)", "PARTITIONED BY (p, q)"),
        ["INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 2)"],
        [
            "!INSERT OVERWRITE {t} PARTITION (id = 1) SELECT 'a', 1",
            "!INSERT OVERWRITE {t} PARTITION (nope = 1) SELECT 1, 'a'",
            "!INSERT OVERWRITE {t} PARTITION (q = 'x') SELECT 1, 'a'",
            "!INSERT OVERWRITE {t} PARTITION (q = 1.5) SELECT 1, 'a'",
            "!INSERT OVERWRITE {t} PARTITION (q = 1) SELECT 1",
            "!INSERT OVERWRITE {t} PARTITION (q = 1) SELECT 1, 'a', 3",
            "!INSERT OVERWRITE {t} SELECT 1, 'a'",
            "!INSERT OVERWRITE {t} PARTITION (p = 'a') (p, id, q) SELECT 'a', 1, 2",
            "INSERT OVERWRITE {t} PARTITION (q = '2') SELECT 3, 'c'",
        ],
    ),
}


@pytest.fixture(scope="module")
def con(spark_warehouse):
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def _snapshots(spark, table):
    rows = spark.sql(
        f"SELECT operation, summary FROM {table}.snapshots ORDER BY committed_at"
    ).collect()
    return [
        {"operation": r.operation, **{k: v for k, v in r.summary.items() if k in KEYS}}
        for r in rows
    ]


def _state(spark, table):
    spark.sql(f"REFRESH TABLE {table}")
    rows = sorted((tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()), key=repr)
    deletes = spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0]
    return rows, deletes, _snapshots(spark, table)


def _run_icesql(con, sql):
    cur = con.execute(sql)
    if cur.description:
        cur.fetchall()


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_overwrite_script_matches_spark(spark, con, name, version):
    (columns, partitioning), setup, steps = SCRIPTS[name]
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NS}")
    ours, theirs = f"{NS}.{name}_v{version}_icesql", f"{NS}.{name}_v{version}_spark"
    for table in (ours, theirs):
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        spark.sql(
            f"CREATE TABLE {table} {columns} USING iceberg {partitioning}"
            f" TBLPROPERTIES ('format-version'='{version}', 'write.delete.mode'='merge-on-read')"
        )
        for sql in setup:
            spark.sql(sql.format(t=table))
    try:
        for step in steps:
            if step.startswith(("SET ", "RESET ")):
                spark.sql(step)
                _run_icesql(con, step)
                continue
            must_fail = step.startswith("!")
            sql = step.lstrip("!")
            before = (_state(spark, ours), _state(spark, theirs))
            if must_fail:
                with pytest.raises(Exception):  # noqa: B017 - Spark raises Py4J / Analysis errors
                    spark.sql(sql.format(t=theirs))
                with pytest.raises(icesql.Error):
                    con.execute(sql.format(t=ours))
                assert (_state(spark, ours), _state(spark, theirs)) == before, (
                    f"{step} changed a table"
                )
                continue
            spark.sql(sql.format(t=theirs))
            _run_icesql(con, sql.format(t=ours))
            (our_rows, our_deletes, our_snaps), (rows, deletes, snaps) = (
                _state(spark, ours),
                _state(spark, theirs),
            )
            context = f"{name} v{version} after {sql}"
            assert_same_rows(
                rows, our_rows, ordered=False, context=context + " (Spark reading both)"
            )
            assert_same_rows(
                rows,
                con.execute(f"SELECT * FROM {ours}").fetchall(),
                ordered=False,
                context=context,
            )
            assert len(our_snaps) == len(snaps), (
                f"{context}: {len(our_snaps)} snapshots vs Spark's {len(snaps)}"
            )
            assert our_snaps[-1] == snaps[-1], (
                f"{context}: summary {our_snaps[-1]} vs Spark's {snaps[-1]}"
            )
            assert our_deletes == deletes, (
                f"{context}: {our_deletes} live delete files vs Spark's {deletes}"
            )
    finally:
        spark.sql(f"RESET {MODE}")
        con.execute(f"RESET {MODE}")
