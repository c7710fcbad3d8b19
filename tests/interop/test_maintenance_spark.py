"""expire_snapshots and remove_orphan_files on twin tables: Spark makes the same history in two
tables (v2 and v3; merge-on-read deletes, copy-on-write updates, a branch, a tag, a statistics
file), icesql runs the procedure on one twin and Spark on the other. The outputs match, Spark
reads both twins alike at every ref, their refs, snapshot counts and live files agree, and the
files left on disk match in kind and count. Then the roles swap: Spark maintains the table
icesql maintained and icesql Spark's, with the same outcome.
"""

from __future__ import annotations

import collections
import os
import random
import time

import pytest
from maintenance_support import (
    assert_every_reached_file_exists,
    local,
    random_expiry,
    random_history,
)
from spark_support import assert_same_rows, table_location

pytestmark = pytest.mark.spark

NS = "maintenance_twins"
FUTURE = "TIMESTAMP '2100-01-01 00:00:00'"
HISTORY = [
    "INSERT INTO {t} VALUES (1, 'a'), (2, 'a'), (3, 'b')",
    "INSERT INTO {t} VALUES (4, 'b'), (5, 'c')",
    "DELETE FROM {t} WHERE id = 1",  # merge-on-read: a position delete file or a DV
    "UPDATE {t} SET id = 30 WHERE id = 3",  # copy-on-write
    "ALTER TABLE {t} CREATE TAG t1",
    "ALTER TABLE {t} CREATE BRANCH b",
    "INSERT INTO {t}.branch_b VALUES (10, 'a')",
    "DELETE FROM {t}.branch_b WHERE id = 2",
    "CALL system.compute_table_stats('{t}')",  # a Puffin statistics file for main's head
    "INSERT INTO {t} VALUES (6, 'c')",
    "DELETE FROM {t} WHERE part = 'c'",  # a whole partition: metadata only
    "INSERT INTO {t} VALUES (7, 'd')",
]
MORE = [
    "ALTER TABLE {t} DROP TAG t1",
    "INSERT INTO {t} VALUES (8, 'a')",
    "DELETE FROM {t} WHERE id = 8",
    "INSERT INTO {t}.branch_b VALUES (11, 'b')",
    "ALTER TABLE {t} DROP BRANCH b",
    "ALTER TABLE {t} ADD COLUMN s STRING",
    "INSERT OVERWRITE {t} SELECT id, part, 'z' FROM {t}",  # every data and delete file goes
    "ALTER TABLE {t} CREATE BRANCH c RETAIN 7 DAYS WITH SNAPSHOT RETENTION 2 SNAPSHOTS",
    "INSERT INTO {t}.branch_c VALUES (20, 'f', 'q')",
    "INSERT INTO {t}.branch_c VALUES (21, 'f', 'q')",
    "INSERT INTO {t} VALUES (9, 'a', 'x')",
]
EXPIRE_FIRST = (
    f"CALL system.expire_snapshots(table => '{{t}}', older_than => {FUTURE}, retain_last => 2)"
)
EXPIRE_SECOND = (
    f"CALL system.expire_snapshots(table => '{{t}}', older_than => {FUTURE},"
    " clean_expired_metadata => true)"
)
FILES = "SELECT content, file_format, record_count, partition FROM {t}.files"


def _create(spark, version: int, name: str) -> tuple[str, str]:
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NS}")
    tables = []
    for suffix in ("i", "s"):
        t = f"{NS}.{name}{version}_{suffix}"
        spark.sql(f"DROP TABLE IF EXISTS {t}")
        spark.sql(
            f"CREATE TABLE {t} (id BIGINT, part STRING) USING iceberg PARTITIONED BY (part)"
            f" TBLPROPERTIES ('format-version'='{version}', 'write.delete.mode'='merge-on-read',"
            " 'write.update.mode'='copy-on-write')"
        )
        tables.append(t)
    return tables[0], tables[1]


def _run_spark(spark, tables, steps) -> None:
    for step in steps:
        for t in tables:
            spark.sql(f"REFRESH TABLE {t}")
            spark.sql(step.format(t=t))


def _kinds(spark, table: str) -> collections.Counter:
    """The table's files on disk by kind (hidden files, such as Hadoop's .crc, left out)."""
    folder = local(table_location(spark, table))
    kinds: collections.Counter = collections.Counter()
    for _root, _, files in os.walk(folder):
        for name in files:
            if name.startswith((".", "_")):
                continue
            if name.endswith(".metadata.json"):
                kinds["metadata.json"] += 1
            elif name.startswith("snap-"):
                kinds["manifest list"] += 1
            elif name.endswith(".avro"):
                kinds["manifest"] += 1
            else:
                kinds[name.rsplit(".", 1)[-1]] += 1
    return kinds


def _compare(spark, con, ice: str, twin: str, context: str) -> None:
    for t in (ice, twin):
        spark.sql(f"REFRESH TABLE {t}")
    refs = [r.name for r in spark.sql(f"SELECT name FROM {twin}.refs").collect()]
    for query in (
        "SELECT name, type FROM {t}.refs",
        "SELECT count(*) FROM {t}.snapshots",
        FILES,
        "SELECT * FROM {t}",
    ):
        assert_same_rows(
            spark.sql(query.format(t=twin)).collect(),
            spark.sql(query.format(t=ice)).collect(),
            ordered=False,
            context=f"{query} after {context}",
        )
    for ref in refs:
        query = "SELECT * FROM {t} VERSION AS OF '" + ref + "'"
        assert_same_rows(
            spark.sql(query.format(t=twin)).collect(),
            spark.sql(query.format(t=ice)).collect(),
            ordered=False,
            context=f"Spark reading {ref} after {context}",
        )
    assert _kinds(spark, ice) == _kinds(spark, twin), f"files on disk after {context}"
    for t in (ice, twin):
        assert_every_reached_file_exists(con, t.split(".")[1], NS)


def _call_both(spark, con, ours: str, theirs: str, sql: str) -> list:
    """icesql runs ``sql`` on table ``ours``, Spark on ``theirs``; their outputs match (and
    are returned)."""
    cur = con.execute(sql.format(t=ours))
    mine = cur.fetchall()
    spark.sql(f"REFRESH TABLE {theirs}")
    frame = spark.sql(sql.format(t=theirs))
    assert [d[0] for d in cur.description] == frame.columns
    assert_same_rows(frame.collect(), mine, ordered=False, context=sql)
    return mine


@pytest.mark.parametrize("version", [2, 3])
def test_expire_snapshots_twins(spark, con, version):
    ice, twin = _create(spark, version, "e")
    _run_spark(spark, (ice, twin), HISTORY)
    _compare(spark, con, ice, twin, "the history")
    (first,) = _call_both(spark, con, ice, twin, EXPIRE_FIRST)
    assert first[0] > 0 and first[3] > 0 and first[4] > 0  # the step deleted files of each kind
    _compare(spark, con, ice, twin, EXPIRE_FIRST)
    _run_spark(spark, (ice, twin), MORE)
    # the roles swap: Spark maintains the table icesql maintained, icesql Spark's
    (second,) = _call_both(spark, con, twin, ice, EXPIRE_SECOND)
    assert second[1] > 0 and second[5] == 1  # the delete files and the statistics file went
    _compare(spark, con, ice, twin, EXPIRE_SECOND)
    _run_spark(spark, (ice, twin), ["INSERT INTO {t} VALUES (12, 'e', 'y')"])
    _compare(spark, con, ice, twin, "a write after both expired")


def _age(folder: str, seconds: float) -> None:
    then = time.time() - seconds
    for root, _, files in os.walk(folder):
        for name in files:
            os.utime(os.path.join(root, name), (then, then))


def test_remove_orphan_files_twins(spark, con):
    ice, twin = _create(spark, 2, "o")
    _run_spark(
        spark,
        (ice, twin),
        HISTORY[:4]
        + ["ALTER TABLE {t} CREATE BRANCH b", "INSERT INTO {t}.branch_b VALUES (10, 'a')"],
    )
    for t in (ice, twin):
        folder = local(table_location(spark, t))
        for name in (
            "data/part=a/junk.parquet",
            "data/junk.parquet",
            "metadata/stray-m0.avro",
            "other/x.txt",
        ):
            os.makedirs(os.path.dirname(f"{folder}/{name}"), exist_ok=True)
            with open(f"{folder}/{name}", "wb") as f:
                f.write(b"junk")
        _age(folder, 10 * 24 * 3600)  # every file, the table's own too, is a candidate
    sql = (
        "CALL system.remove_orphan_files(table => '{t}', older_than => TIMESTAMP '"
        + time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() - 2 * 24 * 3600))
        + "'{extra})"
    )
    outputs = {}
    for extra in (", dry_run => true", ""):
        mine = con.execute(sql.format(t=ice, extra=extra)).fetchall()
        theirs = spark.sql(sql.format(t=twin, extra=extra)).collect()
        outputs[extra] = [
            sorted(local(p).removeprefix(local(table_location(spark, t))) for (p,) in rows)
            for t, rows in ((ice, mine), (twin, theirs))
        ]
        assert outputs[extra][0] == outputs[extra][1], extra
    assert outputs[""][0] == [
        "/data/junk.parquet",
        "/data/part=a/junk.parquet",
        "/metadata/stray-m0.avro",
        "/other/x.txt",
    ]
    _compare(spark, con, ice, twin, "remove_orphan_files")


def _spark_reads(spark, table: str) -> dict[str, list]:
    spark.sql(f"REFRESH TABLE {table}")
    refs = [r.name for r in spark.sql(f"SELECT name FROM {table}.refs").collect()]
    return {
        ref: spark.sql(f"SELECT * FROM {table} VERSION AS OF '{ref}'").collect() for ref in refs
    }


@pytest.mark.parametrize("seed", [10, 17, 18])  # v2 deletes; v3 DVs, branches; 4 refs
def test_random_histories_expired_by_icesql_read_alike_in_spark(spark, con, seed):
    """The property test's histories (tests/statements/procedures/test_expire_property.py),
    checked by Spark: every ref reads the same before and after icesql's expiry."""
    rng = random.Random(seed)
    table = f"{NS}.r{seed}"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NS}")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    random_history(con, rng, table)
    before = _spark_reads(spark, table)
    call = random_expiry(con, rng, table)
    con.execute(call).fetchall()
    after = _spark_reads(spark, table)
    assert sorted(after) == sorted(before), call
    for ref, rows in before.items():
        assert_same_rows(rows, after[ref], ordered=False, context=f"{ref} after {call}")
    assert_every_reached_file_exists(con, f"r{seed}", NS)
    # Spark and icesql agree on what in the table icesql wrote is an orphan (nothing), every
    # file of it made old
    _age(local(table_location(spark, table)), 10 * 24 * 3600)
    two_days_ago = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() - 2 * 24 * 3600))
    orphans = (
        f"CALL system.remove_orphan_files(table => '{table}', dry_run => true,"
        f" older_than => TIMESTAMP '{two_days_ago}')"
    )
    theirs = sorted(local(r[0]) for r in spark.sql(orphans).collect())
    mine = sorted(local(r[0]) for r in con.execute(orphans).fetchall())
    assert mine == theirs == [], call
    # Spark expires what icesql kept; icesql reads what Spark left
    spark.sql(
        f"CALL system.expire_snapshots(table => '{table}', older_than => TIMESTAMP"
        " '2100-01-01 00:00:00', retain_last => 1)"
    )
    for ref, rows in _spark_reads(spark, table).items():
        mine = con.execute(f"SELECT * FROM {table} VERSION AS OF '{ref}'").fetchall()
        assert_same_rows(
            rows, mine, ordered=False, context=f"icesql reading {ref} after Spark expired"
        )
    assert_every_reached_file_exists(con, f"r{seed}", NS)
