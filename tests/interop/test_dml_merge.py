"""MERGE INTO, icesql against Spark: the same scripts on identical tables, same commits, same
final rows.

Each case creates two identical targets with Spark (several files, some rows already
deleted by a merge-on-read DELETE) and one source, runs the script in icesql on one target
and in Spark on the other, then compares: after each step, the snapshot each side committed
(``_same_commit``: one snapshot, its operation and summary counts); at the end, Spark's
view of icesql's table equals Spark's table, icesql reads both identically, and a statement
Spark refuses icesql refuses too, leaving the table unchanged. Cases cover v2 and v3,
copy-on-write and merge-on-read, partitioned and unpartitioned targets, every clause kind
Spark 3.5 accepts, and MERGEs that change nothing (Spark still commits an empty snapshot).
"""

from __future__ import annotations

import itertools

import pytest
from spark_support import assert_same_rows

import icesql

COLUMNS = "id, cat, v, amount, ts"
ROWS = [
    "(1, 'a', 10, 1.50, TIMESTAMP '2024-01-01 00:00:00')",
    "(2, 'a', 20, 2.50, TIMESTAMP '2024-01-02 00:00:00')",
    "(3, 'b', 30, NULL, TIMESTAMP '2024-02-01 00:00:00')",
    "(4, 'b', NULL, 4.00, NULL)",
    "(5, 'c', 50, 5.25, TIMESTAMP '2024-03-01 12:00:00')",
    "(6, NULL, 60, 6.00, TIMESTAMP '2024-03-02 00:00:00')",
    "(7, 'c', 70, 7.75, TIMESTAMP '2024-03-03 00:00:00')",
]
SOURCE = [
    "(2, 'a', 200, 22.00, 'u')",
    "(3, 'b', 300, NULL, 'd')",
    "(5, 'x', NULL, 55.50, 'u')",
    "(8, 'b', 800, 8.80, 'i')",
    "(9, NULL, 900, 9.90, 'i')",
    "(10, 'c', NULL, NULL, 'd')",
]

# {t}: the target, {s}: the source table (id, cat, v, amount, op)
SCRIPTS = {
    "upsert_star": [
        "MERGE INTO {t} t USING (SELECT id, cat, v, amount, TIMESTAMP '2025-01-01 00:00:00' AS ts"
        " FROM {s}) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
    ],
    "all_clauses": [
        "MERGE INTO {t} AS t USING {s} AS s ON t.id = s.id"
        " WHEN MATCHED AND s.op = 'd' THEN DELETE"
        " WHEN MATCHED AND s.op = 'u' THEN UPDATE SET t.v = s.v, amount = t.amount + s.amount"
        " WHEN NOT MATCHED AND s.op = 'i' THEN INSERT (id, cat, v) VALUES (s.id, s.cat, s.v)"
        " WHEN NOT MATCHED BY SOURCE AND t.v > 60 THEN DELETE"
        " WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = coalesce(t.v, 0) - 1",
    ],
    "insert_only": [
        "MERGE INTO {t} t USING {s} s ON t.id = s.id"
        " WHEN NOT MATCHED THEN INSERT (id, cat, v, amount, ts)"
        " VALUES (s.id, upper(s.cat), s.v * 2, s.amount, TIMESTAMP '2025-06-01 00:00:00')",
        # ids 3, 8, 9, 10 match but take no action: a copy-on-write Spark rewrites their files
        "MERGE INTO {t} t USING {s} s ON t.id = s.id WHEN MATCHED AND s.op = 'u' THEN UPDATE SET v = s.v",
    ],
    "delete_matched_then_sequence": [
        "MERGE INTO {t} t USING {s} s ON t.id = s.id WHEN MATCHED THEN DELETE",
        "MERGE INTO {t} t USING (SELECT * FROM {s} WHERE op = 'i') s ON t.id = s.id + 100"
        " WHEN NOT MATCHED THEN INSERT (id, cat, v, amount, ts) VALUES (s.id + 100, s.cat, s.v, s.amount, NULL)",
        "MERGE INTO {t} t USING (SELECT 108 AS id, 'z' AS cat) s ON t.id = s.id AND t.cat = 'b'"
        " WHEN MATCHED THEN UPDATE SET cat = s.cat",
    ],
    "by_source_only": [
        "MERGE INTO {t} t USING (SELECT * FROM {s} WHERE cat = 'a') s ON t.id = s.id"
        " WHEN NOT MATCHED BY SOURCE AND t.cat = 'c' THEN DELETE"
        " WHEN NOT MATCHED BY SOURCE THEN UPDATE SET amount = 0",
    ],
    "values_source_and_partition_move": [
        "MERGE INTO {t} t USING (SELECT * FROM VALUES (1, 'b'), (7, 'a'), (11, 'q') AS v(id, cat)) s ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET cat = s.cat"
        " WHEN NOT MATCHED THEN INSERT (id, cat, v, amount, ts) VALUES (s.id, s.cat, 0, 0, NULL)",
    ],
    "changes_nothing": [  # each commits an empty snapshot, as Spark does
        "MERGE INTO {t} t USING {s} s ON t.id = s.id + 1000 WHEN MATCHED THEN UPDATE SET v = 0",
        # rows match, no clause applies (copy-on-write Spark rewrites their files anyway)
        "MERGE INTO {t} t USING {s} s ON t.id = s.id WHEN MATCHED AND s.v < 0 THEN DELETE"
        " WHEN NOT MATCHED BY SOURCE AND t.id < 0 THEN UPDATE SET v = 0",
        # an insert-only MERGE is an append for Spark: an empty one too
        "MERGE INTO {t} t USING (SELECT * FROM {s} WHERE id < 4) s ON t.id = s.id"
        " WHEN NOT MATCHED THEN INSERT (id, cat) VALUES (s.id, s.cat)",
    ],
}

ERRORS = {
    "column_aliases": "MERGE INTO {t} t USING (VALUES (1, 'b')) AS s(id, cat) ON t.id = s.id"
    " WHEN MATCHED THEN DELETE",
    "ambiguous_match": "MERGE INTO {t} t USING (SELECT id % 2 AS k FROM {s}) s ON t.id % 2 = s.k"
    " WHEN MATCHED THEN UPDATE SET v = 1",
}

CODES = {
    "ambiguous_match": "MERGE_CARDINALITY_VIOLATION",
    "column_aliases": "COLUMN_ALIASES_IS_NOT_ALLOWED",
}

LAYOUTS = [  # (format version, mode, partitioned); copy-on-write ones next to each other
    (2, "copy-on-write", True),
    (3, "copy-on-write", False),
    (2, "merge-on-read", True),
    (3, "merge-on-read", False),
    (3, "merge-on-read", True),
]

_names = itertools.count()


def _create(spark, table, version, mode, partitioned):
    part = "PARTITIONED BY (cat)" if partitioned else ""
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, cat STRING, v INT, amount DECIMAL(10,2), ts TIMESTAMP)"
        f" USING iceberg {part} TBLPROPERTIES ('format-version'='{version}',"
        f" 'write.delete.mode'='{mode}', 'write.update.mode'='{mode}', 'write.merge.mode'='{mode}')"
    )
    spark.sql(f"INSERT INTO {table} VALUES {', '.join(ROWS[:4])}")
    spark.sql(f"INSERT INTO {table} VALUES {', '.join(ROWS[4:])}")
    spark.sql(f"DELETE FROM {table} WHERE id = 4")  # a file with deletes already


def _tables(spark, version, mode, partitioned):
    n = next(_names)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS merge_ice")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS merge_spark")
    ours, theirs, source = f"merge_ice.t{n}", f"merge_spark.t{n}", f"merge_spark.s{n}"
    _create(spark, ours, version, mode, partitioned)
    _create(spark, theirs, version, mode, partitioned)
    spark.sql(f"DROP TABLE IF EXISTS {source}")
    spark.sql(
        f"CREATE TABLE {source} (id BIGINT, cat STRING, v INT, amount DECIMAL(10,2), op STRING) USING iceberg"
    )
    spark.sql(f"INSERT INTO {source} VALUES {', '.join(SOURCE)}")
    return ours, theirs, source


# Snapshot summary counts compared after each step. Merge-on-read: all of them. Each data
# file holding a removed row gets one position delete file (v2, file granularity) or one
# DV (v3) absorbing its earlier deletes, in both engines; the counts of written data files
# depend on how the writer splits its output (Spark: one file per partition and task), and
# equal icesql's one file per partition for these few rows, clustered by partition.
COUNTS = (
    "added-data-files",
    "deleted-data-files",
    "added-delete-files",
    "removed-delete-files",
    "added-position-delete-files",
    "removed-position-delete-files",
    "added-dvs",
    "removed-dvs",
    "added-records",
    "deleted-records",
    "added-position-deletes",
    "removed-position-deletes",
    "changed-partition-count",
    "total-records",
    "total-data-files",
    "total-delete-files",
    "total-position-deletes",
)
# Copy-on-write: Spark rewrites every file holding a target row the ON condition matched
# (its ReplaceData reads whole files, found by the join), copying rows no clause changes;
# icesql rewrites only files that lose or change a row. Data files rewritten, records
# copied, and the delete files removed with those data files may differ (Spark's can only
# be more, never fewer); the rows, net record change and remaining counts must be equal.
REWRITE_DEPENDENT = (
    "added-data-files",
    "deleted-data-files",
    "added-records",
    "deleted-records",
    "removed-delete-files",
    "removed-position-delete-files",
    "removed-dvs",
    "removed-position-deletes",
    "changed-partition-count",
    "total-data-files",
    "total-delete-files",
    "total-position-deletes",
)


def _snapshots(con, table):
    return con.catalog.load_table(tuple(table.split("."))).metadata.snapshots


def _counts(summary, keys=COUNTS):
    return {k: int(summary.get(k, 0)) for k in keys}


def _same_commit(con, ours, theirs, before, mode, step):
    """Each side committed one snapshot; same operation and summary counts (COUNTS)."""
    mine, spark_made = (_snapshots(con, t)[n:] for t, n in zip((ours, theirs), before))
    assert len(mine) == len(spark_made) == 1, f"{step}: icesql made {mine}, Spark {spark_made}"
    a, b = mine[0].summary, spark_made[0].summary
    assert a["operation"] == b["operation"], (
        f"{step}: operation {a['operation']} (Spark {b['operation']})"
    )
    if mode == "merge-on-read":
        assert _counts(a) == _counts(b), step
        return
    exact = [k for k in COUNTS if k not in REWRITE_DEPENDENT]
    assert _counts(a, exact) == _counts(b, exact), step
    gone = (
        "deleted-data-files",
        "deleted-records",
        "removed-delete-files",
        "removed-position-deletes",
    )
    assert all(_counts(a)[k] <= _counts(b)[k] for k in gone), (
        f"{step}: icesql {_counts(a)}, Spark {_counts(b)}"
    )
    net = _counts(a)["added-records"] - _counts(a)["deleted-records"]
    assert net == _counts(b)["added-records"] - _counts(b)["deleted-records"], step


def _rows(spark, table):
    spark.sql(f"REFRESH TABLE {table}")
    return spark.sql(f"SELECT {COLUMNS} FROM {table}").collect()


@pytest.fixture(scope="module")
def con(spark_warehouse):
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def _layout_id(layout):
    return f"v{layout[0]}-{layout[1]}-{'part' if layout[2] else 'flat'}"


# every script in three layouts, rotating, so that each layout meets most scripts and each
# script meets both modes (layouts i, i+2, i+4 always include one of two adjacent ones)
CASES = [
    pytest.param(
        script,
        LAYOUTS[(i + k) % len(LAYOUTS)],
        id=f"{script}-{_layout_id(LAYOUTS[(i + k) % len(LAYOUTS)])}",
    )
    for i, script in enumerate(sorted(SCRIPTS))
    for k in (0, 2, 4)
]


@pytest.mark.parametrize("script, layout", CASES)
def test_merge_matches_spark(spark, con, script, layout):
    ours, theirs, source = _tables(spark, *layout)
    for statement in SCRIPTS[script]:
        before = [len(_snapshots(con, t)) for t in (ours, theirs)]
        con.execute(statement.format(t=ours, s=source))
        spark.sql(statement.format(t=theirs, s=source))
        _same_commit(con, ours, theirs, before, layout[1], f"{script}: {statement[:60]}...")
    expected = _rows(spark, theirs)
    assert_same_rows(
        expected, _rows(spark, ours), ordered=False, context=f"{script}: Spark reads icesql's table"
    )
    assert_same_rows(
        expected,
        con.execute(f"SELECT {COLUMNS} FROM {ours}").fetchall(),
        ordered=False,
        context=f"{script}: icesql reads its table",
    )
    # Spark can keep changing what icesql wrote
    spark.sql(f"DELETE FROM {ours} WHERE id = 1")
    spark.sql(f"DELETE FROM {theirs} WHERE id = 1")
    assert_same_rows(
        _rows(spark, theirs),
        con.execute(f"SELECT {COLUMNS} FROM {ours}").fetchall(),
        ordered=False,
        context=f"{script}: after a Spark DELETE on top",
    )


@pytest.mark.parametrize("layout", [LAYOUTS[2], LAYOUTS[1]], ids=["v2-mor", "v3-cow"])
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_merge_errors_like_spark_and_changes_nothing(spark, con, case, layout):
    ours, theirs, source = _tables(spark, *layout)
    statement = ERRORS[case]
    with pytest.raises(Exception) as spark_error:
        spark.sql(statement.format(t=theirs, s=source)).collect()
    before = con.catalog.load_table(tuple(ours.split("."))).metadata_location
    with pytest.raises(icesql.Error) as ours_error:
        con.execute(statement.format(t=ours, s=source))
    code = CODES[case]
    assert code in str(spark_error.value)
    assert code in str(ours_error.value)
    assert con.catalog.load_table(tuple(ours.split("."))).metadata_location == before
