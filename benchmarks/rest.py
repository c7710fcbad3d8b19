"""``icesql serve`` in the benchmarks: a server process over a SQLite catalog, writer processes
that commit through it (or straight to the same SQL catalog: the floor, no HTTP), and a tiny
table with a long history for load latency.

Each writer is its own process (``python -m benchmarks.rest writer '<json>'``): it connects,
says ``ready``, waits for the start file and then commits single-row INSERTs one by one, so
imports and connecting are outside the measured time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOG = "rest"  # the catalog_name of the SQL catalog's rows, the server's --name
NAMESPACE = "bench_rest"
# contended appends to the SQL catalog directly retry the compare-and-swap; through the server
# they queue on its per-table lock instead. Short waits, many retries: the floor is measured,
# not icesql's default back-off (100 ms doubling)
RETRY_PROPERTIES = (
    "'commit.retry.num-retries' = '200', 'commit.retry.min-wait-ms' = '5',"
    " 'commit.retry.max-wait-ms' = '100'"
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


class Server:
    """``icesql serve`` on a free port of 127.0.0.1, as a separate process."""

    def __init__(self, db_uri: str, warehouse: str) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "icesql.shell",
                "serve",
                "--warehouse",
                warehouse,
                "--uri",
                db_uri,
                "--name",
                CATALOG,
                "--port",
                "0",
            ],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=_env(),
            cwd=REPO,
        )
        assert self.proc.stderr is not None
        banner = self.proc.stderr.readline()
        if not banner.startswith("icesql serve: http://"):
            self.proc.kill()
            raise RuntimeError(f"icesql serve did not start: {banner}{self.proc.stderr.read()}")
        self.uri = banner.split()[2]
        self.requests = 0
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        """Reads the per-request log (a full pipe would stall the server); counts lines."""
        assert self.proc.stderr is not None
        for _ in self.proc.stderr:
            self.requests += 1

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


SPARK_UNAVAILABLE = "Spark's RESTCatalog is not available here"


def spark_support() -> Any:
    """The test suite's Spark helpers (``tests/spark_support.py``: the Iceberg runtime and the
    relocated HttpClient 5 jars, the session settings), when Spark can use the REST catalog."""
    tests = os.path.join(REPO, "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    import spark_support as support

    if support.java_executable() is None or not support.spark_rest_catalog_available():
        raise RuntimeError(
            f"{SPARK_UNAVAILABLE} (needs java and HttpClient 5: apt-get install"
            " libhttpclient5-java libhttpcore5-java, or $ICESQL_SPARK_JARS)"
        )
    return support


def connect(via: str, db_uri: str, warehouse: str, server_uri: str | None) -> Any:
    """icesql on the table: through the server (``rest``) or on the SQL catalog (``sql``)."""
    import icesql

    if via == "rest":
        return icesql.connect(catalog="rest", uri=server_uri, name=CATALOG)
    return icesql.connect(catalog="sql", uri=db_uri, warehouse=warehouse, name=CATALOG)


def fresh_catalog(folder: str) -> tuple[str, str]:
    """An empty SQLite catalog and warehouse in ``folder``: (db uri, warehouse)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return f"sqlite:///{os.path.join(folder, 'catalog.db')}", os.path.join(folder, "warehouse")


def run_writers(
    via: str,
    db_uri: str,
    warehouse: str,
    server_uri: str | None,
    table: str,
    writers: int,
    commits: int,
    folder: str,
) -> tuple[float, list[dict[str, Any]]]:
    """``writers`` processes committing ``commits`` INSERTs each into ``table``, started at
    once: the wall seconds from the start signal to the last commit, and each one's report."""
    start = os.path.join(folder, "go")
    procs = []
    for w in range(writers):
        request = {
            "via": via,
            "db_uri": db_uri,
            "warehouse": warehouse,
            "server_uri": server_uri,
            "table": table,
            "writer": w,
            "commits": commits,
            "start": start,
        }
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "benchmarks.rest", "writer", json.dumps(request)],
                stdout=subprocess.PIPE,
                text=True,
                env=_env(),
                cwd=REPO,
            )
        )
    try:
        for p in procs:
            assert p.stdout is not None
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"writer did not start: {line}{p.stdout.read()}")
        began = time.perf_counter()
        open(start, "w").close()
        reports = []
        for p in procs:
            assert p.stdout is not None
            out = p.stdout.read()
            p.wait()
            reports.append(json.loads(out.strip().splitlines()[-1]))
        seconds = time.perf_counter() - began
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return seconds, reports


def writer(request: dict[str, Any]) -> None:
    """One writer process (see the module's docstring); prints ``ready``, then its report."""
    import icesql

    con = connect(request["via"], request["db_uri"], request["warehouse"], request["server_uri"])
    con.execute(f"SELECT count(*) FROM {request['table']}").fetchall()  # warm: load, DuckDB
    print("ready", flush=True)
    while not os.path.exists(request["start"]):
        time.sleep(0.001)
    ok, failed, errors = 0, 0, []
    began = time.perf_counter()
    for i in range(request["commits"]):
        try:
            con.execute(f"INSERT INTO {request['table']} VALUES (?, ?)", [request["writer"], i])
            ok += 1
        except icesql.Error as e:
            failed += 1
            errors.append(f"{type(e).__name__}: {e}"[:300])
    seconds = time.perf_counter() - began
    print(json.dumps({"ok": ok, "failed": failed, "errors": errors[:3], "seconds": seconds}))


def build_history(folder: str, snapshots: int, log: Callable[[str], None]) -> dict[str, Any]:
    """A one-row table whose metadata holds ``snapshots`` snapshots (each an INSERT OVERWRITE
    of its single row), made once in ``folder`` on the SQL catalog directly and kept."""
    marker = os.path.join(folder, "history.json")
    if os.path.exists(marker):
        with open(marker) as f:
            info = json.load(f)
        if info.get("snapshots") == snapshots:
            return info
    db_uri, warehouse = fresh_catalog(folder)
    table = f"{NAMESPACE}.history"
    log(f"generating a table with {snapshots} snapshots for the REST scenarios ...")
    started = time.perf_counter()
    con = connect("sql", db_uri, warehouse, None)
    con.execute(f"CREATE NAMESPACE {NAMESPACE}")
    con.execute(
        f"CREATE TABLE {table} (id BIGINT, label STRING) USING iceberg TBLPROPERTIES"
        " ('write.metadata.delete-after-commit.enabled' = 'true',"
        " 'write.metadata.previous-versions-max' = '5')"
    )
    for i in range(snapshots):
        con.execute(f"INSERT OVERWRITE {table} VALUES (?, ?)", [i, f"row {i}"])
    count = con.execute(f"SELECT count(*) FROM {table}.snapshots").fetchone()[0]
    con.close()
    if count != snapshots:
        raise RuntimeError(f"history table has {count} snapshots, expected {snapshots}")
    info = {
        "snapshots": snapshots,
        "db_uri": db_uri,
        "warehouse": warehouse,
        "table": table,
        "seconds": round(time.perf_counter() - started, 1),
    }
    with open(marker, "w") as f:
        json.dump(info, f)
    log(f"  {snapshots} snapshots in {info['seconds']} s")
    return info


if __name__ == "__main__":
    if sys.argv[1:2] == ["writer"]:
        writer(json.loads(sys.argv[2]))
    else:
        raise SystemExit("usage: python -m benchmarks.rest writer '<json>'")
