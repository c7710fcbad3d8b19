"""Running documentation code and examples as a user would: a fresh interpreter, a folder of
its own, the icesql under test on its path, and a Spark-like warehouse when a block needs one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import icesql

# the checkout whose icesql the tests import, so subprocesses run that code too
PACKAGE_ROOT = Path(icesql.__file__).resolve().parents[1]


def python_env(folder: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a subprocess that runs documented code in ``folder``: the icesql
    under test first on ``PYTHONPATH``."""
    paths = [str(PACKAGE_ROOT)]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), **(extra or {})}


def run_python(
    args: Sequence[str],
    cwd: Path,
    timeout: float = 300,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in ``cwd`` with :func:`python_env`, output captured as text."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=python_env(cwd, env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def make_sample_warehouse(path: Path) -> None:
    """A warehouse as a Spark job leaves one: ``db.sales`` (id, region, amount, day),
    partitioned by region, written in two commits."""
    with icesql.connect(str(path), create=True) as con:
        con.execute(
            "CREATE TABLE db.sales (id BIGINT, region STRING, amount DECIMAL(10,2), day DATE)"
            " USING iceberg PARTITIONED BY (region)"
        )
        con.execute(
            "INSERT INTO db.sales VALUES (1, 'eu', 10.50, DATE '2024-01-02'),"
            " (2, 'us', 20.00, DATE '2024-01-03')"
        )
        con.execute("INSERT INTO db.sales VALUES (3, 'eu', 7.25, DATE '2023-12-31')")
