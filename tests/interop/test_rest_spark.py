"""Spark 3.5's Iceberg ``RESTCatalog`` and icesql commit to the same tables through
``icesql serve`` (issue #17): the shared session's catalog ``rest`` is the session-wide server
``spark_rest`` (``tests/conftest.py``); icesql connects with ``catalog="rest"``.

* Spark creates, writes (merge-on-read DELETE / UPDATE / MERGE, CTAS, ALTER) and icesql reads
  exactly Spark's rows at every snapshot; icesql writes and Spark reads exactly icesql's rows.
* Concurrency: Spark and three icesql processes commit to one table at once: every acknowledged
  commit is present, failed ones left nothing, and history is one line.
* Crash: a server process killed with SIGKILL during a stream of commits and restarted on the
  same database: the table is at an acknowledged snapshot, nothing acknowledged is lost.

Spark's table cache is off for ``rest`` (``cache-enabled=false``), so no ``REFRESH`` is needed
after another writer commits. Without HttpClient 5 for Spark (Debian's jars, see
``spark_support.relocated_httpclient_jar``) the Spark tests are skipped.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import spark_support
from rest_support import drain
from spark_support import assert_same_rows, snapshot_ids

import icesql

pytestmark = pytest.mark.server  # icesql serve, the session's or a process of the test's own

needs_rest_spark = pytest.mark.skipif(
    not spark_support.spark_rest_catalog_available(),
    reason="Spark's RESTCatalog needs HttpClient 5 (apt-get install libhttpclient5-java"
    " libhttpcore5-java) or $ICESQL_SPARK_JARS",
)

MOR = (
    "'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read',"
    " 'write.merge.mode' = 'merge-on-read'"
)


def _connect(uri: str) -> icesql.Connection:
    return icesql.connect(catalog="rest", uri=uri, name="rest")


def _same(spark, con, query: str, table: str) -> list:
    """``query`` with ``{t}`` as ``rest.<table>`` in Spark and ``<table>`` in icesql: same rows."""
    expected = spark.sql(query.format(t=f"rest.{table}")).collect()
    actual = con.execute(query.format(t=table)).fetchall()
    assert_same_rows(expected, actual, ordered=False, context=query.format(t=table))
    return expected


def _icesql_snapshot_ids(con, table: str) -> list[int]:
    query = f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at"
    return [r[0] for r in con.execute(query).fetchall()]


def _assert_linear(con, table: str) -> list[int]:
    """The table's history is one line (each snapshot's parent the one before); its ids."""
    history = con.execute(
        f"SELECT snapshot_id, parent_id FROM {table}.history ORDER BY made_current_at"
    ).fetchall()
    assert [parent for _, parent in history] == [None] + [s for s, _ in history[:-1]]
    return [s for s, _ in history]


@needs_rest_spark
def test_spark_links_the_patched_httpclient(spark):
    """The method added to HttpClient 5.2 loads and verifies in Spark's JVM, relocated."""
    jvm = spark._jvm
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    shaded = "org.apache.iceberg.shaded.org.apache.hc.client5.http"
    builder = jvm.java.lang.Class.forName(
        f"{shaded}.impl.io.PoolingHttpClientConnectionManagerBuilder", True, loader
    )
    strategy = jvm.java.lang.Class.forName(f"{shaded}.ssl.TlsSocketStrategy", True, loader)
    assert strategy.isInterface()
    parameters = spark.sparkContext._gateway.new_array(jvm.java.lang.Class, 1)
    parameters[0] = strategy
    method = builder.getMethod("setTlsSocketStrategy", parameters)
    assert method.getReturnType().getName() == builder.getName()


@needs_rest_spark
def test_spark_writes_through_the_server_and_icesql_reads_every_snapshot(spark, spark_rest):
    spark.sql("CREATE NAMESPACE rest.sw")
    for name, version in (("v2", 2), ("v3", 3)):
        t = f"rest.sw.{name}"
        spark.sql(
            f"CREATE TABLE {t} (id BIGINT, ts TIMESTAMP, s STRING) USING iceberg"
            f" PARTITIONED BY (days(ts), bucket(4, id))"
            f" TBLPROPERTIES ('format-version' = '{version}', {MOR})"
        )
        spark.sql(
            f"INSERT INTO {t} VALUES (1, TIMESTAMP '2024-01-01 10:00:00', 'a'),"
            " (2, TIMESTAMP '2024-01-01 11:00:00', 'b'), (3, TIMESTAMP '2024-01-02 00:00:00', 'c'),"
            " (4, TIMESTAMP '2024-01-02 09:30:00', NULL), (5, TIMESTAMP '2024-01-03 23:59:59', 'e')"
        )
        spark.sql(f"INSERT INTO {t} SELECT id + 10, ts + INTERVAL 1 DAY, s FROM {t}")
        spark.sql(f"DELETE FROM {t} WHERE id IN (2, 13)")
        spark.sql(f"UPDATE {t} SET s = concat(s, '!') WHERE id % 3 = 0")
        spark.sql(
            f"MERGE INTO {t} t USING (SELECT * FROM VALUES (1L, 'm'), (4L, NULL), (20L, 'new')"
            " AS src(id, s)) src ON t.id = src.id"
            " WHEN MATCHED AND src.s IS NULL THEN DELETE"
            " WHEN MATCHED THEN UPDATE SET s = src.s"
            " WHEN NOT MATCHED THEN INSERT (id, ts, s)"
            " VALUES (src.id, TIMESTAMP '2024-03-01 00:00:00', src.s)"
        )
        spark.sql(f"ALTER TABLE {t} ADD COLUMN n INT")
        spark.sql(f"ALTER TABLE {t} RENAME COLUMN s TO label")
        spark.sql(f"INSERT INTO {t} VALUES (30, TIMESTAMP '2024-01-02 00:00:00', 'z', 7)")
    spark.sql(
        "CREATE TABLE rest.sw.ctas USING iceberg PARTITIONED BY (bucket(2, id))"
        " AS SELECT id, label, n FROM rest.sw.v3 WHERE id < 20"
    )
    # merge-on-read through the server: position deletes in v2, deletion vectors in v3
    delete_files = "SELECT file_format FROM rest.sw.{}.delete_files"
    formats = {
        name: {r.file_format for r in spark.sql(delete_files.format(name)).collect()}
        for name in ("v2", "v3")
    }
    assert formats == {"v2": {"PARQUET"}, "v3": {"PUFFIN"}}

    con = _connect(spark_rest.uri)
    tables = sorted(t for _, t, _ in con.execute("SHOW TABLES IN sw").fetchall())
    assert tables == ["ctas", "v2", "v3"]
    for name in ("v2", "v3", "ctas"):
        table = f"sw.{name}"
        ids = snapshot_ids(spark, f"rest.{table}")
        assert _icesql_snapshot_ids(con, table) == ids
        assert len(ids) == (1 if name == "ctas" else 6)  # ALTERs add none
        for snapshot_id in ids:
            _same(spark, con, f"SELECT * FROM {{t}} VERSION AS OF {snapshot_id}", table)
        rows = _same(spark, con, "SELECT * FROM {t}", table)
        assert rows
    con.close()


ICESQL_STEPS = [
    "INSERT INTO {t} VALUES (1, DATE '2024-01-15', 'a'), (2, DATE '2024-02-01', 'b'),"
    " (3, DATE '2024-02-29', NULL), (4, DATE '2023-12-31', 'd')",
    "INSERT INTO {t} SELECT id + 10, d, s FROM {t}",
    "DELETE FROM {t} WHERE id IN (2, 14)",
    "UPDATE {t} SET s = 'u' WHERE s IS NULL OR id = 11",
    "MERGE INTO {t} AS t"
    " USING (SELECT * FROM (VALUES (1, 'm'), (12, NULL), (40, 'n')) AS v(id, s)) AS v"
    " ON t.id = v.id WHEN MATCHED AND v.s IS NULL THEN DELETE WHEN MATCHED THEN UPDATE SET s = v.s"
    " WHEN NOT MATCHED THEN INSERT (id, d, s) VALUES (v.id, DATE '2024-05-05', v.s)",
    "ALTER TABLE {t} ADD COLUMN n INT",
    "UPDATE {t} SET n = CAST(id AS INT) * 2 WHERE id > 10",
    "INSERT INTO {t} VALUES (50, DATE '2024-06-30', 'x', 5)",
]


@needs_rest_spark
def test_icesql_writes_through_the_server_and_spark_reads_them(spark, spark_rest):
    con = _connect(spark_rest.uri)
    con.execute("CREATE NAMESPACE iw")
    con.execute(
        "CREATE TABLE iw.mine (id BIGINT, d DATE, s STRING) USING iceberg"
        f" PARTITIONED BY (months(d)) TBLPROPERTIES ({MOR})"
    )
    spark.sql(
        "CREATE TABLE rest.iw.sparks (id BIGINT, d DATE, s STRING) USING iceberg"
        f" PARTITIONED BY (bucket(2, id)) TBLPROPERTIES ('format-version' = '3', {MOR})"
    )
    for name in ("mine", "sparks"):
        table = f"iw.{name}"
        for step in ICESQL_STEPS:
            con.execute(step.format(t=table))
            _same(spark, con, "SELECT * FROM {t}", table)
        assert snapshot_ids(spark, f"rest.{table}") == _icesql_snapshot_ids(con, table)
        assert len(_assert_linear(con, table)) == len(ICESQL_STEPS) - 1  # ALTER adds no snapshot
    con.execute("ALTER TABLE iw.mine RENAME COLUMN s TO label")
    assert [c.name for c in spark.table("rest.iw.mine").schema] == ["id", "d", "label", "n"]
    _same(spark, con, "SELECT id, label FROM {t} WHERE label IS NOT NULL", "iw.mine")
    con.close()


def _rows(spark, con, query: str, table: str) -> set[tuple]:
    """``_same``'s rows as a set of tuples (for exact expectations)."""
    return {tuple(r) for r in _same(spark, con, query, table)}


@needs_rest_spark
def test_spark_branches_and_tags_through_the_server_and_icesql_reads_each_ref(spark, spark_rest):
    t, table = "rest.refs.t", "refs.t"
    spark.sql("CREATE NAMESPACE rest.refs")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, s STRING) USING iceberg TBLPROPERTIES ({MOR})")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"ALTER TABLE {t} CREATE TAG v1")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH b")
    spark.sql(f"INSERT INTO {t}.branch_b VALUES (3, 'on b')")
    spark.sql(f"DELETE FROM {t}.branch_b WHERE id = 1")
    spark.sql(f"INSERT INTO {t} VALUES (4, 'main')")
    spark.sql(f"ALTER TABLE {t} CREATE TAG v2 RETAIN 30 DAYS")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit AS OF VERSION {snapshot_ids(spark, t)[0]}")

    con = _connect(spark_rest.uri)
    refs = "SELECT name, type, snapshot_id, max_reference_age_in_ms FROM {t}.refs"
    assert {r[0] for r in _same(spark, con, refs, table)} == {"main", "b", "v1", "v2", "audit"}
    main, v1 = {(1, "a"), (2, "b"), (4, "main")}, {(1, "a"), (2, "b")}
    assert _rows(spark, con, "SELECT * FROM {t}", table) == main
    assert _rows(spark, con, "SELECT * FROM {t}.branch_b", table) == {(2, "b"), (3, "on b")}
    assert _rows(spark, con, "SELECT * FROM {t}.tag_v1", table) == v1
    assert _rows(spark, con, "SELECT * FROM {t} VERSION AS OF 'v2'", table) == main
    assert _rows(spark, con, "SELECT * FROM {t}.branch_audit", table) == v1
    # icesql writes to Spark's branch through the server; Spark reads it, main is untouched
    con.execute(f"INSERT INTO {table}.branch_b VALUES (5, 'icesql on b')")
    con.execute(f"DELETE FROM {table}.branch_b WHERE id = 2")
    assert _rows(spark, con, "SELECT * FROM {t}.branch_b", table) == {
        (3, "on b"),
        (5, "icesql on b"),
    }
    assert _rows(spark, con, "SELECT * FROM {t}", table) == main
    spark.sql(f"ALTER TABLE {t} DROP TAG v1")
    assert "v1" not in {r[0] for r in _same(spark, con, refs, table)}
    con.close()


@needs_rest_spark
def test_spark_replaces_tables_as_select_through_the_server(spark, spark_rest):
    """RTAS: ``REPLACE TABLE ... AS SELECT`` and ``CREATE OR REPLACE TABLE ... AS SELECT``
    (a staged create, or a replace commit that keeps the history) through the server."""
    spark.sql("CREATE NAMESPACE rest.rtas")
    spark.sql("CREATE TABLE rest.rtas.src (id BIGINT, s STRING) USING iceberg")
    spark.sql("INSERT INTO rest.rtas.src VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    spark.sql(
        "CREATE TABLE rest.rtas.t USING iceberg AS SELECT id, s FROM rest.rtas.src WHERE id < 3"
    )
    spark.sql(
        "REPLACE TABLE rest.rtas.t USING iceberg PARTITIONED BY (s)"
        " AS SELECT s, id * 10 AS x FROM rest.rtas.src"
    )
    spark.sql(
        "CREATE OR REPLACE TABLE rest.rtas.fresh USING iceberg"
        " TBLPROPERTIES ('format-version' = '3') AS SELECT id FROM rest.rtas.src WHERE id > 1"
    )
    spark.sql("CREATE OR REPLACE TABLE rest.rtas.fresh USING iceberg AS SELECT 'z' AS z")

    con = _connect(spark_rest.uri)
    assert _rows(spark, con, "SELECT * FROM {t}", "rtas.t") == {("a", 10), ("b", 20), (None, 30)}
    assert [c.name for c in spark.table("rest.rtas.t").schema] == ["s", "x"]
    assert con.execute("SELECT * FROM rtas.t LIMIT 0").description[1][0] == "x"
    ids = snapshot_ids(spark, "rest.rtas.t")
    assert _icesql_snapshot_ids(con, "rtas.t") == ids and len(ids) == 2  # the history is kept
    assert _rows(spark, con, f"SELECT * FROM {{t}} VERSION AS OF {ids[0]}", "rtas.t") == {
        (1, "a"),
        (2, "b"),
    }
    assert _rows(spark, con, "SELECT * FROM {t}", "rtas.fresh") == {("z",)}
    spec = "SELECT spec_id, count(*) FROM {t}.files GROUP BY spec_id"
    assert len(_same(spark, con, spec, "rtas.t")) == 1
    # icesql's own CREATE OR REPLACE ... AS SELECT through the server; Spark reads it
    con.execute("CREATE OR REPLACE TABLE rtas.t USING iceberg AS SELECT id FROM rtas.src")
    assert _rows(spark, con, "SELECT * FROM {t}", "rtas.t") == {(1,), (2,), (3,)}
    assert len(snapshot_ids(spark, "rest.rtas.t")) == 3
    con.close()


# --------------------------------------------------------------------------------------------
# Concurrency
# --------------------------------------------------------------------------------------------

# One icesql writer process: waits for the start file, then commits its own rows (writer w,
# i = 0, 1, ...) one INSERT at a time and every third step deletes one of its acknowledged rows;
# prints one JSON line per statement: {"op", "i", "ok", "error", "t0", "t1"} (t: start, end).
WRITER = """
import json, os, sys, time
import icesql
from icesql.catalog.base import CommitStateUnknownError
uri, table, start = sys.argv[1], sys.argv[2], sys.argv[5]
writer, steps = int(sys.argv[3]), int(sys.argv[4])
con = icesql.connect(catalog="rest", uri=uri, name="rest")
while not os.path.exists(start):
    time.sleep(0.01)
present = []
for i in range(steps):
    if i % 3 == 2 and present:
        op, key, sql = "delete", present[0], f"DELETE FROM {table} WHERE writer = ? AND i = ?"
    else:
        op, key, sql = "insert", i, f"INSERT INTO {table} VALUES (?, ?)"
    t0 = time.time()
    try:
        con.execute(sql, [writer, key])
        outcome = {"ok": True, "error": None}
        present.remove(key) if op == "delete" else present.append(key)
    except CommitStateUnknownError as e:
        outcome = {"ok": None, "error": repr(e)}
    except icesql.Error as e:
        outcome = {"ok": False, "error": type(e).__name__ + ": " + str(e)}
    print(json.dumps({"op": op, "i": key, **outcome, "t0": t0, "t1": time.time()}), flush=True)
"""


def _expected_rows(writer: int, log: list[dict]) -> set[tuple[int, int]]:
    rows: set[tuple[int, int]] = set()
    for entry in log:
        assert entry["ok"] is not None, f"unknown commit outcome: {entry}"
        if entry["ok"]:
            (rows.add if entry["op"] == "insert" else rows.remove)((writer, entry["i"]))
    return rows


@needs_rest_spark
def test_spark_and_icesql_processes_commit_to_one_table_at_once(spark, spark_rest, tmp_path):
    table, steps, spark_steps, writers = "cc.t", 12, 6, (1, 2, 3)
    spark.sql("CREATE NAMESPACE rest.cc")
    spark.sql(
        f"CREATE TABLE rest.{table} (writer INT, i INT) USING iceberg TBLPROPERTIES ({MOR},"
        " 'commit.retry.num-retries' = '20', 'commit.retry.min-wait-ms' = '20',"
        " 'commit.retry.max-wait-ms' = '500')"
    )
    start = tmp_path / "go"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), spark_rest.uri, table, str(w), str(steps), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in writers
    ]
    time.sleep(2)  # let the processes import icesql and wait at the start line
    start.touch()
    spark_log: list[dict] = []
    for i in range(spark_steps):  # Spark is writer 0, with the same pattern of inserts and deletes
        present = sorted(_expected_rows(0, spark_log))
        if i % 3 == 2 and present:
            op, key = "delete", present[0][1]
            sql = f"DELETE FROM rest.{table} WHERE writer = 0 AND i = {key}"
        else:
            op, key, sql = "insert", i, f"INSERT INTO rest.{table} VALUES (0, {i})"
        t0 = time.time()
        try:
            spark.sql(sql)
            ok = True
        except Exception as e:
            assert "CommitFailedException" in str(e) or "ValidationException" in str(e), str(e)
            ok = False
        spark_log.append({"op": op, "i": key, "ok": ok, "t0": t0, "t1": time.time()})
    logs = {0: spark_log}
    for w, proc in zip(writers, procs):
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        logs[w] = [json.loads(line) for line in out.splitlines()]
        assert len(logs[w]) == steps
    for log in logs.values():  # each process committed while Spark did
        assert log[0]["t0"] < spark_log[-1]["t1"] and spark_log[0]["t0"] < log[-1]["t1"]
    failures = [e for log in logs.values() for e in log if e["ok"] is False]
    for entry in failures:  # a failed commit failed as a lost race, never anything else
        assert entry.get("error") is None or "CommitConflictError" in entry["error"], entry

    expected = set().union(*(_expected_rows(w, log) for w, log in logs.items()))
    acknowledged = sum(e["ok"] is True for log in logs.values() for e in log)
    con = _connect(spark_rest.uri)
    assert set(con.execute(f"SELECT writer, i FROM {table}").fetchall()) == expected
    _same(spark, con, "SELECT writer, i FROM {t}", table)
    history = _assert_linear(con, table)
    assert len(history) == acknowledged  # one snapshot per acknowledged commit, no more
    assert snapshot_ids(spark, f"rest.{table}") == history
    con.close()


# --------------------------------------------------------------------------------------------
# Crash
# --------------------------------------------------------------------------------------------


def _start_server(folder: Path, port: int = 0) -> tuple[subprocess.Popen, int]:
    """``icesql serve`` as a process over ``folder/catalog.db``; waits until it answers."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "icesql.shell",
            "serve",
            "--warehouse",
            str(folder / "warehouse"),
            "--uri",
            f"sqlite:///{folder / 'catalog.db'}",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stderr.readline()  # "icesql serve: http://127.0.0.1:<port> (...)"
    assert line.startswith("icesql serve: http://127.0.0.1:"), line + proc.stderr.read()
    port = int(line.split(":")[3].split()[0])
    threading.Thread(target=drain, args=(proc.stderr,), daemon=True).start()  # request log
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/config", timeout=10) as answer:
        assert answer.status == 200
    return proc, port


def _commit_until_killed(
    con, proc: subprocess.Popen, acknowledged: list[int], metadata: Path, moment: str
) -> int:
    """INSERT one new value after another until the server dies, killed with SIGKILL after two
    more acknowledged commits, at ``moment``: ``"swap"`` as soon as the server has written a new
    ``*.metadata.json`` (before or while it swaps the catalog row and answers), ``"load"`` 20 ms
    after an acknowledgement (while the client loads the table and writes its files).
    Appends the acknowledged values to ``acknowledged``; returns the one whose commit was cut off
    (it failed, or its outcome is unknown)."""
    mark = len(acknowledged) + 2

    def kill() -> None:
        while len(acknowledged) < mark:
            time.sleep(0.001)
        if moment == "swap":
            known = len(list(metadata.glob("*.metadata.json")))
            while len(list(metadata.glob("*.metadata.json"))) == known:
                time.sleep(0.0002)
        else:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)

    killer = threading.Thread(target=kill)
    killer.start()
    value = max(acknowledged, default=-1) + 1
    try:
        while True:
            con.execute("INSERT INTO s.t VALUES (?)", [value])
            acknowledged.append(value)
            value += 1
    except icesql.Error:
        pass  # the server is gone: this commit failed or its outcome is unknown
    finally:
        killer.join()
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return value


def test_a_server_killed_mid_stream_loses_no_acknowledged_commit(tmp_path):
    """Kills while a commit is being swapped and while the next one is prepared, each followed
    by a restart on the same database and port."""
    proc, port = _start_server(tmp_path)
    uri = f"http://127.0.0.1:{port}"
    con = _connect(uri)
    con.execute("CREATE NAMESPACE s")
    con.execute("CREATE TABLE s.t (i INT) USING iceberg")
    metadata = tmp_path / "warehouse" / "s" / "t" / "metadata"
    assert list(metadata.glob("*.metadata.json"))
    acknowledged: list[int] = []
    unswapped = 0
    try:
        for moment in ("swap", "load", "swap", "swap"):
            cut_off = _commit_until_killed(con, proc, acknowledged, metadata, moment)
            proc, _ = _start_server(tmp_path, port)
            con = _connect(uri)
            rows = sorted(r[0] for r in con.execute("SELECT i FROM s.t").fetchall())
            assert rows in (acknowledged, acknowledged + [cut_off])  # the cut-off one may land
            landed = rows[-1] == cut_off
            if landed:
                acknowledged.append(cut_off)
            # metadata files: the create's, one per commit in the table, and the unswapped ones
            files = len(list(metadata.glob("*.metadata.json")))
            unswapped, before = files - 1 - len(rows), unswapped
            if moment == "swap":  # the kill landed mid-commit, after the new file was written
                assert unswapped == before + (not landed)
            # one line of history, one snapshot per commit: the table is at the last acknowledged
            # snapshot (or at the cut-off commit's, which the server finished before dying)
            assert len(_assert_linear(con, "s.t")) == len(rows)
        con.execute("INSERT INTO s.t VALUES (-1)")  # and commits go on
        assert con.execute("SELECT count(*) FROM s.t").fetchone()[0] == len(acknowledged) + 1
        con.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
