"""Mixed concurrent workloads: N writer processes run random INSERT / DELETE / UPDATE /
MERGE / INSERT OVERWRITE / ALTER ADD COLUMN / rewrite_data_files / expire_snapshots on one
table (tests/workload_support.py) — in one variant the shared Spark session writes too (INSERT /
DELETE / UPDATE / MERGE, in a thread) — and the outcome is checked against what they were told:

* every acknowledged statement's commits, and no failed statement's, are in the log;
* the committed snapshots form one line: sequence numbers 1 apart, each the parent of the
  next, the last one current, and every snapshot the table still keeps is one of them;
* no orphan file is left (failed statements cleaned up), every file the table reaches exists;
* the final rows equal a model: the acknowledged statements replayed in commit order
  (serializable isolation, the default, promises exactly that);
* statements fail only as lost races (``CommitConflictError``), for inserts because a column
  was added after the writer read the schema, or by scanning a snapshot whose files a
  concurrent ``expire_snapshots`` deleted — never otherwise (``_expected_failure``).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from crash_support import orphans
from maintenance_support import assert_every_reached_file_exists
from workload_support import apply, statement, with_columns

import icesql
from icesql.metadata.table_metadata import parse_table_metadata

pytestmark = pytest.mark.slow

WORKER = str(Path(__file__).parent.parent / "workload_support.py")
SEED_ROWS = [(i, 0, i % 4) for i in range(1, 9)]


def run_workload(
    connect: dict,
    version: int,
    mode: str,
    workers: int,
    statements: int,
    seed: int,
    spark: Any = None,
    spark_statements: int = 0,
) -> dict:
    """Create ``db.t`` and run ``workers`` writers on it (and ``spark_statements`` through
    ``spark``, a session over the same warehouse, in a thread beside them); returns the
    figures checked."""
    con = icesql.connect(**connect)
    con.execute("CREATE NAMESPACE IF NOT EXISTS db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT, v BIGINT, p INT) USING iceberg PARTITIONED BY (p)"
        f" TBLPROPERTIES ('format-version' = '{version}', 'write.delete.mode' = '{mode}',"
        f" 'write.update.mode' = '{mode}', 'write.merge.mode' = '{mode}',"
        " 'commit.retry.num-retries' = '30', 'commit.retry.min-wait-ms' = '20',"
        " 'write.metadata.previous-versions-max' = '10000')"  # old versions stay reachable
    )
    con.execute("INSERT INTO db.t VALUES " + ", ".join(f"({i}, {v}, {p})" for i, v, p in SEED_ROWS))
    seed_snapshot = con.catalog.load_table(("db", "t")).metadata.current_snapshot_id
    con.close()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                WORKER,
                json.dumps(
                    {
                        "connect": connect,
                        "worker": w,
                        "workers": workers,
                        "statements": statements,
                        "seed": seed * 100 + w,
                    }
                ),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "ICESQL_FAULT"},
        )
        for w in range(workers)
    ]
    log: list[dict] = []
    spark_log: list[dict] = []
    thread = None
    if spark is not None:
        thread = threading.Thread(
            target=spark_writer, args=(spark, connect, workers, spark_statements, seed, spark_log)
        )
        thread.start()
    for proc in procs:
        out, err = proc.communicate(timeout=1200)
        assert proc.returncode == 0, err[-3000:]
        entries = [json.loads(line) for line in out.splitlines()]
        assert len(entries) == statements
        log += entries
    if thread is not None:
        thread.join(timeout=1200)
        assert not thread.is_alive() and len(spark_log) == spark_statements
        log += spark_commits(connect, spark_log)
    return check(connect, log, seed_snapshot)


SPARK_OPS = ("insert", "delete", "update", "merge")


def spark_writer(
    spark: Any, connect: dict, workers: int, statements: int, seed: int, log: list[dict]
) -> None:
    """Spark as writer number ``workers``: random INSERT / DELETE / UPDATE / MERGE, each
    after a REFRESH (the session's catalog caches tables) with the table's current columns;
    notes each statement's start and end time, its snapshot is found afterwards
    (``spark_commits``)."""
    rng = random.Random(seed * 100 + workers)
    con = icesql.connect(**connect)
    try:
        for step in range(statements):
            entry = statement(rng, workers, step, workers + 1, statements)
            while entry["op"] not in SPARK_OPS:
                entry = statement(rng, workers, step, workers + 1, statements)
            columns = [f.name for f in con.catalog.load_table(("db", "t")).metadata.schema().fields]
            entry["sql"] = with_columns(entry["sql"], columns)
            entry["engine"], entry["start"] = "spark", time.time()
            try:
                spark.sql("REFRESH TABLE db.t")
                spark.sql(entry["sql"]).collect()
                entry["ok"] = True
            except Exception as e:
                entry["ok"], entry["error"] = False, f"{type(e).__name__}: {e}"[:3000]
            entry["end"] = entry["t"] = time.time()
            log.append(entry)
    finally:
        con.close()


def spark_commits(connect: dict, log: list[dict]) -> list[dict]:
    """Give each Spark statement the snapshot it committed: every snapshot any version of the
    table ever held (old metadata files stay: previous-versions-max) that Spark wrote (its
    summary names the Spark application) and whose timestamp falls in the statement's run;
    statements run one at a time, so that is one statement's at most."""
    con = icesql.connect(**connect)
    table = con.catalog.load_table(("db", "t"))
    folder = table.metadata.location.removeprefix("file:") + "/metadata"
    con.close()
    seen = {}
    for name in os.listdir(folder):
        if name.endswith(".metadata.json"):
            md = parse_table_metadata(Path(folder, name).read_bytes())
            seen.update((s.snapshot_id, s) for s in md.snapshots if "spark.app.id" in s.summary)
    for entry in log:
        entry["commits"] = [
            [s.snapshot_id, s.parent_snapshot_id, s.sequence_number]
            for s in seen.values()
            if entry["start"] * 1000 - 1 <= s.timestamp_ms <= entry["end"] * 1000 + 1
        ]
    claimed = sum(len(e["commits"]) for e in log)
    assert claimed == len(seen), (claimed, len(seen))  # no Spark snapshot outside a statement
    return log


def _expected_spark_failure(entry: dict) -> bool:
    """Spark's lost races: its optimistic commit out of retries (``CommitFailedException``),
    its serializable validation finding a conflicting concurrent commit
    (``ValidationException``), its INSERT analysed against a schema a column was since added
    to, or a scan of a snapshot whose files a concurrent ``expire_snapshots`` deleted."""
    error = entry["error"]
    return (
        "CommitFailedException" in error
        or "ValidationException" in error
        or "INCOMPATIBLE_DATA_FOR_TABLE" in error
        or "ARITY" in error
        or (
            ("FileNotFoundException" in error or "NotFoundException" in error)
            and entry["op"] in ("delete", "update", "merge")
        )
    )


def _expected_failure(entry: dict) -> bool:
    """A lost race; an insert that read the schema before a column was added; or a statement
    that scanned a snapshot whose files a concurrent ``expire_snapshots(older_than => now)``
    had just deleted (Iceberg Java has the same race: expiring snapshots others still read).
    Never an ``expire_snapshots`` itself: two at once must both succeed."""
    if entry.get("engine") == "spark":
        return _expected_spark_failure(entry)
    error = entry["error"]
    return (
        entry.get("lost_race", False)
        or "INCOMPATIBLE_DATA_FOR_TABLE" in error
        or "ARITY" in error
        or (
            error.startswith("OperationalError")
            and "file not found" in error
            and entry["op"] in ("delete", "update", "merge", "rewrite", "overwrite")
        )
    )


def check(connect: dict, log: list[dict], seed_snapshot: int) -> dict:
    """The invariants of the module docstring; returns counts for the report."""
    for entry in log:
        if not entry["ok"]:
            assert _expected_failure(entry), (entry["error"], entry["sql"])
            assert entry["commits"] == [], entry  # a failed statement left no snapshot
    commits = sorted((c[2], c[0], c[1], e["op"]) for e in log for c in e["commits"])
    parent = seed_snapshot
    con = icesql.connect(**connect)
    table = con.catalog.load_table(("db", "t"))
    first = table.metadata.snapshot_by_id(seed_snapshot)
    base_seq = first.sequence_number if first is not None else commits[0][0] - 1 if commits else 0
    for n, (seq, sid, parent_id, op) in enumerate(commits, 1):
        assert parent_id == parent, (op, sid, parent_id, parent)  # linear: one line
        if table.metadata.format_version >= 2:
            assert seq == base_seq + n, (op, seq, base_seq + n)
        parent = sid
    assert table.metadata.current_snapshot_id == parent  # the last commit is current
    committed = {c[1] for c in commits} | {seed_snapshot}
    assert {s.snapshot_id for s in table.metadata.snapshots} <= committed
    rows = list(SEED_ROWS)
    order = sorted((c[2], e) for e in log if e["ok"] for c in e["commits"][:1])
    for _, entry in order:
        rows = apply(rows, entry)
    actual = sorted(tuple(r) for r in con.execute("SELECT id, v, p FROM db.t").fetchall())
    assert actual == sorted(rows)
    # failed statements left no files behind, and nothing the table reaches is missing
    left = orphans(con, "db.t", dry_run=True)
    assert left == set(), sorted(left)
    assert_every_reached_file_exists(con)
    con.close()
    spark_entries = [e for e in log if e.get("engine") == "spark"]
    return {
        "statements": len(log),
        "acknowledged": sum(e["ok"] for e in log),
        "commits": len(commits),
        "rows": len(actual),
        "spark_statements": len(spark_entries),
        "spark_acknowledged": sum(e["ok"] for e in spark_entries),
        "failed": sorted(
            f"{e.get('engine', 'icesql')} {e['op']}: {e['error'][:90]}" for e in log if not e["ok"]
        ),
    }


def _variants(soak: bool) -> list[tuple[int, str, int, int]]:
    """(format version, delete mode, writers, statements each)."""
    if soak:
        return [
            (v, m, n, 40)
            for v in (2, 3)
            for m in ("copy-on-write", "merge-on-read")
            for n in (2, 4, 8)
        ]
    return [(2, "copy-on-write", 2, 10), (3, "merge-on-read", 3, 8)]


def test_mixed_writers_lose_nothing_and_serialize(tmp_path, soak):
    totals: list[dict] = []
    for n, (version, mode, workers, statements) in enumerate(_variants(soak)):
        (tmp_path / f"w{n}").mkdir()  # a new warehouse: every worker opens it
        connect = {"warehouse": str(tmp_path / f"w{n}")}
        figures = run_workload(connect, version, mode, workers, statements, seed=n)
        assert figures["acknowledged"] > 0
        totals.append(figures)
    print("mixed workload:", totals)


def test_mixed_writers_through_the_sql_catalog(tmp_path, soak):
    connect = {
        "catalog": "sql",
        "uri": f"sqlite:///{tmp_path / 'c.db'}",
        "warehouse": str(tmp_path / "w"),
        "name": "local",
    }
    figures = run_workload(connect, 2, "merge-on-read", 4 if soak else 2, 40 if soak else 8, seed=7)
    assert figures["acknowledged"] > 0


def _drop(connect: dict) -> None:
    con = icesql.connect(**connect)
    con.execute("DROP TABLE IF EXISTS db.t")
    con.close()


def _assert_spark_reads_the_same(spark: Any, connect: dict) -> None:
    """Spark reads the rows icesql reads (which equal the model); then the table goes."""
    con = icesql.connect(**connect)
    ours = sorted(con.execute("SELECT id, v, p FROM db.t").fetchall())
    spark.sql("REFRESH TABLE local.db.t")
    theirs = sorted(tuple(r) for r in spark.sql("SELECT id, v, p FROM local.db.t").collect())
    assert theirs == ours
    con.close()
    _drop(connect)


@pytest.mark.spark
def test_spark_reads_what_the_mixed_writers_left(spark, spark_warehouse):
    connect = {"warehouse": spark_warehouse}
    _drop(connect)
    run_workload(connect, 2, "merge-on-read", 3, 8, seed=11)
    _assert_spark_reads_the_same(spark, connect)


@pytest.mark.spark
def test_spark_writes_among_the_mixed_writers(spark, spark_warehouse, soak):
    """Spark (in this process, its hadoop catalog over the same warehouse) runs its share of
    INSERT / DELETE / UPDATE / MERGE while icesql writers run theirs: every invariant holds
    with its acknowledged commits in the log, its lost races leave no trace, and Spark reads
    the rows the model says."""
    connect = {"warehouse": spark_warehouse}
    _drop(connect)
    workers, each, spark_statements = (4, 30, 40) if soak else (2, 6, 12)
    figures = run_workload(
        connect,
        2,
        "merge-on-read",
        workers,
        each,
        seed=23,
        spark=spark,
        spark_statements=spark_statements,
    )
    assert figures["acknowledged"] > 0 and figures["spark_acknowledged"] > 0
    print("mixed workload with Spark:", figures)
    _assert_spark_reads_the_same(spark, connect)
