"""icesql's procedures give Spark's outputs and leave tables Spark reads as its own twins.

One script runs on two tables Spark creates and seeds identically (v2 and v3): icesql runs each
``CALL`` (and DDL/DML step) on ``p_i``, Spark on ``p_s``; steps marked ``spark`` run in Spark on
both (so icesql's procedures also work on branches and staged snapshots Spark made). Snapshot
ids differ between twins, so a step names snapshots by position (``{snap:N}``: the N-th
snapshot committed, ``{ts:N}``: a timestamp one millisecond after it, ``{ref:b}``: the head of ref b) and
outputs are compared with each snapshot id replaced by its position. After every step Spark
reads both twins alike at every ref, and their ``refs`` and ``snapshots`` agree (ids aside).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from spark_support import assert_same_rows

pytestmark = pytest.mark.spark

NS = "procedure_twins"
REFS = "SELECT name, type FROM {t}.refs"
SNAPSHOTS = (
    "SELECT operation, summary['added-records'], summary['total-records'],"
    " summary['published-wap-id'], summary['wap.id'] FROM {t}.snapshots"
)

STEPS: list = [
    "CALL system.rollback_to_snapshot('{t}', {snap:0})",
    "CALL system.set_current_snapshot(table => '{t}', snapshot_id => {snap:2})",
    "CALL system.rollback_to_timestamp('{t}', {ts:1})",
    "CALL system.ancestors_of('{t}')",
    "ALTER TABLE {t} CREATE BRANCH b",
    "INSERT INTO {t}.branch_b VALUES (10)",
    "CALL system.cherrypick_snapshot('{t}', {ref:b})",  # a fast-forward
    "INSERT INTO {t} VALUES (11)",
    "INSERT INTO {t}.branch_b VALUES (12)",
    "CALL system.cherrypick_snapshot(snapshot_id => {ref:b}, table => '{t}')",  # re-applied
    "CALL system.fast_forward('{t}', 'c', 'main')",
    ("spark", "ALTER TABLE {t} CREATE TAG t1 AS OF VERSION {snap:2}"),
    "CALL system.ancestors_of('{t}', {ref:b})",
    ("spark", "ALTER TABLE {t} SET TBLPROPERTIES ('write.wap.enabled' = 'true')"),
    ("spark", "INSERT INTO {t}.branch_c VALUES (20)"),
    "CALL system.fast_forward('{t}', 'main', 'c')",  # a branch Spark wrote
    "CALL system.set_current_snapshot(table => '{t}', ref => 't1')",
    ("spark-wap", "INSERT INTO {t} VALUES (21)"),  # staged by Spark under wap id w1
    "INSERT INTO {t} VALUES (22)",
    "CALL system.publish_changes('{t}', 'w1')",
]


def _create(spark, version: int) -> tuple[str, str]:
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NS}")
    names = []
    for suffix in ("i", "s"):
        t = f"{NS}.p{version}_{suffix}"
        spark.sql(f"DROP TABLE IF EXISTS {t}")
        spark.sql(
            f"CREATE TABLE {t} (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='{version}')"
        )
        for i in range(3):
            spark.sql(f"INSERT INTO {t} VALUES ({i})")
        names.append(t)
    return names[0], names[1]


def _snapshots(con, table: str) -> list:
    md = con.catalog.load_table(tuple(table.split("."))).metadata
    return sorted(md.snapshots, key=lambda s: (s.sequence_number, s.timestamp_ms)), md


def _resolve(con, table: str, step: str) -> str:
    snapshots, md = _snapshots(con, table)

    def value(m: re.Match) -> str:
        kind, arg = m.group(1), m.group(2)
        if kind == "snap":
            return str(snapshots[int(arg)].snapshot_id)
        if kind == "ts":  # Spark's CALL takes literals only
            moment = dt.datetime.fromtimestamp(
                (snapshots[int(arg)].timestamp_ms + 1) / 1000, dt.UTC
            )
            return f"TIMESTAMP '{moment:%Y-%m-%d %H:%M:%S.%f}'"
        return str(md.refs[arg].snapshot_id)

    return re.sub(r"\{(snap|ts|ref):(\w+)\}", value, step).replace("{t}", table)


def _positions(con, table: str, rows) -> list[tuple]:
    snapshots, _ = _snapshots(con, table)
    index = {s.snapshot_id: f"#{i}" for i, s in enumerate(snapshots)}
    stamps = {s.timestamp_ms: f"@{i}" for i, s in enumerate(snapshots)}
    return [
        tuple(index.get(v, stamps.get(v, v)) if isinstance(v, int) else v for v in row)
        for row in rows
    ]


def _compare(spark, ice: str, twin: str, step: str) -> None:
    spark.sql(f"REFRESH TABLE {ice}")
    refs = spark.sql(REFS.format(t=twin)).collect()
    for query in (REFS, SNAPSHOTS, "SELECT * FROM {t}"):
        assert_same_rows(
            spark.sql(query.format(t=twin)).collect(),
            spark.sql(query.format(t=ice)).collect(),
            ordered=False,
            context=f"{query} after: {step}",
        )
    for ref, _ in refs:
        query = "SELECT * FROM {t} VERSION AS OF '" + ref + "'"
        assert_same_rows(
            spark.sql(query.format(t=twin)).collect(),
            spark.sql(query.format(t=ice)).collect(),
            ordered=False,
            context=f"Spark reading ref {ref} after: {step}",
        )


@pytest.mark.parametrize("version", [2, 3])
def test_procedure_script_matches_spark(spark, con, version):
    ice, twin = _create(spark, version)
    try:
        for step in STEPS:
            if isinstance(step, tuple):
                kind, sql = step
                for t in (ice, twin):
                    spark.sql(f"REFRESH TABLE {t}")
                    if kind == "spark-wap":
                        spark.conf.set("spark.wap.id", "w1")
                    spark.sql(_resolve(con, t, sql))
                    spark.conf.unset("spark.wap.id")
                _compare(spark, ice, twin, str(step))
                continue
            ours = con.execute(_resolve(con, ice, step))
            ours_rows = ours.fetchall() if ours.description else []
            spark.sql(f"REFRESH TABLE {twin}")
            theirs = spark.sql(_resolve(con, twin, step))
            if step.startswith("CALL"):
                assert [d[0] for d in ours.description] == theirs.columns, step
                assert _positions(con, ice, ours_rows) == _positions(
                    con, twin, [tuple(r) for r in theirs.collect()]
                ), step
            _compare(spark, ice, twin, step)
    finally:
        spark.conf.unset("spark.wap.id")
