"""Run one statement in a child process that kills itself at a crash point
(``icesql.faults``), and take stock of a table's files before and after."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

import icesql

CHILD = """
import json, sys
import icesql
con = icesql.connect(**json.loads(sys.argv[1]))
for sql in json.loads(sys.argv[2]):
    con.execute(sql)
"""


def run_killed(connect: dict[str, Any], statements: list[str], point: str) -> int:
    """Run ``statements`` in a child with ``ICESQL_FAULT=point``; its return code."""
    env = {**os.environ, "ICESQL_FAULT": point}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(connect), json.dumps(statements)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, (point, statements, proc.returncode, proc.stderr)
    return proc.returncode


def all_files(folder: str) -> set[str]:
    """Every file under ``folder`` (hidden ones too), as absolute paths."""
    return {os.path.join(r, f) for r, _, fs in os.walk(folder) for f in fs}


def table_location(con: icesql.Connection, name: str) -> str:
    table = con.catalog.load_table(tuple(name.split(".")))
    return table.metadata.location.removeprefix("file:")


def current_snapshot(con: icesql.Connection, name: str) -> int | None:
    return con.catalog.load_table(tuple(name.split("."))).metadata.current_snapshot_id


def orphans(con: icesql.Connection, name: str, dry_run: bool) -> set[str]:
    """``remove_orphan_files`` with ``older_than`` in the future: every unreferenced file."""
    con.execute("SET spark.testing = true")
    rows = con.execute(
        f"CALL system.remove_orphan_files(table => '{name}',"
        f" older_than => current_timestamp() + INTERVAL 1 MINUTE, dry_run => {str(dry_run).lower()})"
    ).fetchall()
    return {p.removeprefix("file:") for (p,) in rows}
