"""Branches, tags, branch writes and write-audit-publish in icesql give Spark's tables.

One script runs on two tables Spark creates and seeds identically: icesql runs each step on
``t_i``, Spark on ``t_s`` (v2 copy-on-write, v3 merge-on-read). After every step Spark reads
both twins the same at every ref (``VERSION AS OF 'ref'``), Spark's ``refs`` metadata table
agrees (names, kinds, retention; snapshot ids aside), and so do the staged WAP snapshots.
At the end Spark's own procedures (``fast_forward``, ``publish_changes``) run on the branch and
the staged snapshot icesql made, with the same outcome as on Spark's.
"""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows

pytestmark = pytest.mark.spark

NS = "refs_twins"
REFS = "SELECT name, type, max_reference_age_in_ms, min_snapshots_to_keep, max_snapshot_age_in_ms FROM {t}.refs"
STAGED = (
    "SELECT operation, summary['wap.id'] FROM {t}.snapshots WHERE summary['wap.id'] IS NOT NULL"
)

STEPS = [
    "ALTER TABLE {t} CREATE BRANCH b RETAIN 7 DAYS WITH SNAPSHOT RETENTION 2 SNAPSHOTS 3 HOURS",
    "ALTER TABLE {t} CREATE TAG t1 RETAIN 30 MINUTES",
    "INSERT INTO {t}.branch_b VALUES (10, 'a'), (11, 'c')",
    "DELETE FROM {t}.branch_b WHERE id = 1",
    "DELETE FROM {t}.branch_b WHERE p = 'c'",  # whole files: metadata only
    "UPDATE {t}.branch_b SET id = id + 100 WHERE p = 'b'",
    "MERGE INTO {t}.branch_b x USING (SELECT 2 AS id, 'z' AS p UNION ALL SELECT 7, 'd') y"
    " ON x.id = y.id WHEN MATCHED THEN UPDATE SET p = y.p WHEN NOT MATCHED THEN INSERT *",
    "INSERT OVERWRITE {t}.branch_b PARTITION (p = 'd') VALUES (70)",
    "INSERT INTO {t} VALUES (4, 'b')",  # main moves on
    "ALTER TABLE {t} CREATE OR REPLACE TAG t1",
    "ALTER TABLE {t} CREATE BRANCH IF NOT EXISTS b",
    "ALTER TABLE {t} REPLACE BRANCH b WITH SNAPSHOT RETENTION 5 SNAPSHOTS",
    "ALTER TABLE {t} CREATE TAG t2",
    "ALTER TABLE {t} DROP TAG t2",
    "ALTER TABLE {t} SET TBLPROPERTIES ('write.wap.enabled' = 'true')",
    "SET spark.wap.branch = audit",
    "INSERT INTO {t} VALUES (5, 'a')",
    "UPDATE {t} SET p = 'q' WHERE id = 3",
    "RESET spark.wap.branch",
    "SET spark.wap.id = job1",
    "INSERT INTO {t} VALUES (6, 'e')",
    "DELETE FROM {t} WHERE id = 2 AND p = 'a'",
    "RESET spark.wap.id",
]


def _create(spark, version: int, mode: str) -> tuple[str, str]:
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NS}")
    names = []
    for suffix in ("i", "s"):
        t = f"{NS}.t{version}_{suffix}"
        spark.sql(f"DROP TABLE IF EXISTS {t}")
        spark.sql(
            f"CREATE TABLE {t} (id INT, p STRING) USING iceberg PARTITIONED BY (p) TBLPROPERTIES"
            f" ('format-version'='{version}', 'write.delete.mode'='{mode}',"
            f" 'write.update.mode'='{mode}', 'write.merge.mode'='{mode}')"
        )
        spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'a'), (3, 'b')")
        names.append(t)
    return names[0], names[1]


def _compare(spark, ice: str, twin: str, step: str) -> None:
    # Spark refuses time travel while a WAP branch is set ("Cannot override ref"): read without
    saved = {k: spark.conf.get(k, None) for k in ("spark.wap.branch", "spark.wap.id")}
    for key in saved:
        spark.conf.unset(key)
    try:
        _compare_refs(spark, ice, twin, step)
    finally:
        for key, value in saved.items():
            if value is not None:
                spark.conf.set(key, value)


def _compare_refs(spark, ice: str, twin: str, step: str) -> None:
    spark.sql(f"REFRESH TABLE {ice}")
    refs = spark.sql(REFS.format(t=twin)).collect()
    assert_same_rows(
        refs, spark.sql(REFS.format(t=ice)).collect(), ordered=False, context=f"refs after: {step}"
    )
    for ref in sorted(r[0] for r in refs):
        query = "SELECT * FROM {t} VERSION AS OF '" + ref + "'"
        assert_same_rows(
            spark.sql(query.format(t=twin)).collect(),
            spark.sql(query.format(t=ice)).collect(),
            ordered=False,
            context=f"Spark reading ref {ref} after: {step}",
        )
    assert_same_rows(
        spark.sql(STAGED.format(t=twin)).collect(),
        spark.sql(STAGED.format(t=ice)).collect(),
        ordered=False,
        context=f"staged snapshots after: {step}",
    )


@pytest.mark.parametrize(("version", "mode"), [(2, "copy-on-write"), (3, "merge-on-read")])
def test_ref_script_matches_spark(spark, con, version, mode):
    ice, twin = _create(spark, version, mode)
    try:
        for step in STEPS:
            con.execute(step.format(t=ice))
            spark.sql(step.format(t=twin))
            _compare(spark, ice, twin, step)
        assert sorted(con.execute(f"SELECT * FROM {ice}.branch_audit").fetchall()) == sorted(
            tuple(r) for r in spark.sql(f"SELECT * FROM {twin}.branch_audit").collect()
        )
        # Spark's procedures on the branch and the staged snapshot icesql made, and on its own
        for t in (ice, twin):
            spark.sql(f"REFRESH TABLE {t}")
            spark.sql(f"CALL local.system.fast_forward('{t}', 'main', 'audit')")
            spark.sql(f"CALL local.system.publish_changes('{t}', 'job1')")
        _compare(spark, ice, twin, "fast_forward + publish_changes by Spark")
        assert_same_rows(
            spark.sql(f"SELECT * FROM {twin}").collect(),
            con.execute(f"SELECT * FROM {ice}").fetchall(),
            ordered=False,
            context="icesql reading main after Spark's procedures",
        )
    finally:
        for key in ("spark.wap.branch", "spark.wap.id"):
            spark.conf.unset(key)
