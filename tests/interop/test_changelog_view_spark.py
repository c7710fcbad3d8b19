"""``create_changelog_view`` against Spark 3.5 + Iceberg 1.10 (issue #45): the same CALL on
the same Spark-written copy-on-write history gives the same output row and the same view rows
(carry-overs removed, net changes, update images, snapshot and timestamp ranges, a compaction
left out); histories with delete files are refused by both."""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows

import icesql

pytestmark = pytest.mark.spark

NS = "changes"
T = f"{NS}.cow"


@pytest.fixture(scope="module")
def history(spark) -> list[int]:
    """A copy-on-write history (inserts, an update, a delete, a compaction, a row deleted and
    inserted back); its snapshot ids, oldest first."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    spark.sql(f"DROP TABLE IF EXISTS local.{T}")
    spark.sql(
        f"CREATE TABLE local.{T} (id INT, data STRING, part STRING) USING iceberg"
        " PARTITIONED BY (part) TBLPROPERTIES ('format-version' = '2')"
    )
    for step in (
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y'), (3, 'c', 'y')",
        "INSERT INTO {t} VALUES (4, 'd', 'y')",
        "UPDATE {t} SET data = 'bb' WHERE id = 2",
        "DELETE FROM {t} WHERE id = 4",
        "CALL local.system.rewrite_data_files(table => '{n}', options => map('rewrite-all', 'true'))",
        "DELETE FROM {t} WHERE id = 1",
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (5, 'e', 'x')",
    ):
        spark.sql(step.format(t=f"local.{T}", n=T))
    return [
        r[0]
        for r in spark.sql(
            f"SELECT snapshot_id FROM local.{T}.snapshots ORDER BY committed_at"
        ).collect()
    ]


@pytest.fixture(scope="module")
def con(history, spark_warehouse):
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def _both(spark, con, args: str, view: str) -> None:
    spark_out = [
        tuple(r) for r in spark.sql(f"CALL local.system.create_changelog_view({args})").collect()
    ]
    ice_out = con.execute(f"CALL system.create_changelog_view({args})").fetchall()
    assert ice_out == spark_out
    query = f"SELECT * FROM {view}"
    expected = spark.sql(query)
    got = con.execute(query)
    assert [d[0] for d in got.description] == expected.columns
    try:
        assert_same_rows(expected.collect(), got.fetchall(), ordered=False, context=args)
    finally:
        spark.catalog.dropTempView(view)  # the session is shared


@pytest.mark.parametrize(
    "args, view",
    [
        ("table => '{t}'", "cow_changes"),
        ("table => '{t}', changelog_view => 'net', net_changes => true", "net"),
        ("table => '{t}', changelog_view => 'upd', identifier_columns => array('id')", "upd"),
        (
            "table => '{t}', changelog_view => 'upd2', compute_updates => true,"
            " identifier_columns => array('id', 'part')",
            "upd2",
        ),
        (
            "table => '{t}', changelog_view => 'ranged',"
            " options => map('start-snapshot-id', '{s1}', 'end-snapshot-id', '{s3}')",
            "ranged",
        ),
    ],
)
def test_the_view_has_sparks_rows(spark, con, history, args, view):
    _both(spark, con, args.format(t=T, s1=history[1], s3=history[3]), view)


def test_timestamp_ranges_resolve_as_spark(spark, con, history):
    times = {
        r[0]: r[1]
        for r in spark.sql(
            f"SELECT snapshot_id, unix_millis(committed_at) FROM local.{T}.snapshots"
        ).collect()
    }
    start, end = times[history[1]], times[history[4]] + 1
    for options in (
        f"'start-timestamp', '{start}', 'end-timestamp', '{end}'",
        f"'start-timestamp', '{start - 1}'",
        f"'end-timestamp', '{times[history[0]]}'",
    ):
        _both(
            spark, con, f"table => '{T}', changelog_view => 'ts', options => map({options})", "ts"
        )


def test_a_history_with_delete_files_is_refused_by_both(spark, con):
    name = f"{NS}.mor"
    spark.sql(f"DROP TABLE IF EXISTS local.{name}")
    spark.sql(
        f"CREATE TABLE local.{name} (id INT) USING iceberg"
        " TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')"
    )
    spark.sql(f"INSERT INTO local.{name} SELECT /*+ COALESCE(1) */ CAST(id AS INT) FROM range(4)")
    spark.sql(f"DELETE FROM local.{name} WHERE id = 1")
    with pytest.raises(Exception, match="Delete files are currently not supported"):
        # Spark plans the scan when the view is read
        spark.sql(f"CALL local.system.create_changelog_view(table => '{name}')").collect()
        spark.sql("SELECT * FROM mor_changes").collect()
    spark.catalog.dropTempView("mor_changes")
    with pytest.raises(icesql.NotSupportedError, match="Delete files are currently not supported"):
        con.execute(f"CALL system.create_changelog_view(table => '{name}')")
