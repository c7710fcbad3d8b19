"""Concurrent writers through the file-system catalog: no lost commits, a linear history.

Four processes each run 25 INSERTs into one table at the same time. Every commit that
loses the race for ``v<N+1>.metadata.json`` re-reads the table and re-applies its append,
so all 100 commits land, each on top of the previous one. The table allows more retries
than the default (4) because four writers hammering one table lose races constantly; a
Spark user would raise ``commit.retry.num-retries`` the same way.
"""

from __future__ import annotations

import multiprocessing
import os

import icesql

WRITERS = 4
INSERTS = 25


def _writer(warehouse: str, worker: int) -> int:
    con = icesql.connect(warehouse)
    try:
        for i in range(INSERTS):
            con.execute("INSERT INTO db.t VALUES (?, ?, ?)", [worker, i, f"w{worker}-{i}"])
    finally:
        con.close()
    return worker


def test_four_processes_commit_100_appends(tmp_path):
    warehouse = str(tmp_path)
    con = icesql.connect(warehouse)
    con.execute(
        "CREATE TABLE db.t (worker INT, i INT, s STRING) USING iceberg PARTITIONED BY (worker)"
        " TBLPROPERTIES ('commit.retry.num-retries'='50', 'commit.retry.min-wait-ms'='5',"
        " 'commit.retry.max-wait-ms'='200')"
    )
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WRITERS) as pool:
        done = pool.starmap(_writer, [(warehouse, w) for w in range(WRITERS)])
    assert sorted(done) == list(range(WRITERS))

    table = con.catalog.load_table(("db", "t"))
    md = table.metadata
    total = WRITERS * INSERTS
    assert con.catalog.current_version(("db", "t"))[0] == 1 + total
    rows = con.execute("SELECT worker, i, s FROM db.t").fetchall()
    assert sorted(rows) == sorted((w, i, f"w{w}-{i}") for w in range(WRITERS) for i in range(INSERTS))

    # a linear history: every snapshot's parent is the one before it
    chain = list(md.ancestors_of(md.current_snapshot_id))
    assert len(chain) == len(md.snapshots) == total
    assert [s.sequence_number for s in reversed(chain)] == list(range(1, total + 1))
    assert [e.snapshot_id for e in md.snapshot_log] == [s.snapshot_id for s in reversed(chain)]
    assert md.current_snapshot().summary["total-records"] == str(total)
    # failed attempts left no manifest lists behind: one per snapshot
    names = os.listdir(tmp_path / "db" / "t" / "metadata")
    assert len([n for n in names if n.startswith("snap-")]) == total
    # each append wrote its manifest once and reused it on every retry
    assert len([n for n in names if n.endswith("-m0.avro")]) == total
    con.close()
