"""Scans larger than the memory a process may use stream or spill, or fail clearly (issue 23)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

_CHILD = textwrap.dedent("""
    import json, resource, sys
    import icesql, icesql.dbapi, icesql.engine

    def address_space():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))

    con = icesql.connect(sys.argv[1], create=True)
    con.execute("CREATE TABLE db.big (id bigint, s string)")
    # about 70 MB of rows once decoded (the Parquet files are a few MB)
    con.execute("INSERT INTO db.big SELECT id, concat(repeat('abcdefghij', 10), CAST(id AS STRING))"
                " FROM range(600000)")
    con.execute("SELECT count(*) FROM db.big").fetchall()  # DuckDB's and Arrow's threads started
    limit = address_space() + int(sys.argv[2]) * 2**20  # this much more address space, no more
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = {}
    cur = con.execute("SELECT * FROM db.big")
    rows = chars = 0
    while batch := cur.fetchmany(10000):
        rows += len(batch)
        chars += sum(len(s) for _, s in batch)
    out["scan"] = [rows, chars]
    duck = con._engine.duck  # the engine's DuckDB: its memory limit now follows RLIMIT_AS
    out["duckdb_limit"] = duck.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    for name, sql in [
        ("aggregate", "SELECT count(DISTINCT s), sum(length(s)) FROM db.big"),
        ("sort", "SELECT s FROM db.big ORDER BY s DESC"),
    ]:
        try:
            rows = con.execute(sql).fetchall()
            out[name] = [list(rows[0]), len(rows)]
        except icesql.OperationalError as e:
            out[name] = "error: " + str(e).splitlines()[0]
    print(json.dumps(out))
""")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_scan_larger_than_the_address_space_left_streams(tmp_path):
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tmp_path / "wh"), "64"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert child.returncode == 0, child.stderr[-2000:]  # no abort, no kill
    out = json.loads(child.stdout.strip().splitlines()[-1])
    expected_chars = sum(100 + len(str(i)) for i in range(600000))
    assert out["scan"] == [600000, expected_chars]  # streamed: far more than 64 MB of rows
    # DuckDB's buffer pool was cut to a share of the 64 MB left (its default is 80% of RAM), so
    # it spills to its temporary directory; what still cannot fit is DuckDB's clear error
    number, unit = out["duckdb_limit"].split()
    assert unit in ("KiB", "MiB") and (unit == "KiB" or float(number) < 64), out
    assert out["aggregate"] == [[600000, expected_chars], 1] or out["aggregate"].startswith(
        "error: Out of Memory"
    ), out
    assert out["sort"] == [[f"abcdefghij{'abcdefghij' * 9}99999"], 600000] or out[
        "sort"
    ].startswith("error: Out of Memory"), out
