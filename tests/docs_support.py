"""Running documentation code and examples as a user would: a fresh interpreter, a folder of
its own, the icesql under test on its path, and a Spark-like warehouse when a block needs one.

``connect(create=True)`` (a missing warehouse folder is an error unless asked to create it)
lands in parallel with the pages that use it. Until it does, :func:`python_env` puts a
``sitecustomize`` on the path that gives ``connect`` that behaviour, so the documented code
runs the same before and after; once ``connect`` has a ``create`` parameter the shim does
nothing, and it can go.
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

_SHIM = '''
"""Test shim (tests/docs_support.py): connect(create=...) before icesql has it."""
import functools
import inspect
import os

import icesql.dbapi as _dbapi
from icesql.errors import OperationalError

if "create" not in inspect.signature(_dbapi.connect).parameters:
    _connect = _dbapi.connect

    @functools.wraps(_connect)
    def connect(warehouse=None, *args, create=False, **kwargs):
        if warehouse is not None and "://" not in str(warehouse):
            if create:
                os.makedirs(warehouse, exist_ok=True)
            elif not os.path.exists(warehouse):
                raise OperationalError(
                    f"the warehouse folder {os.path.abspath(warehouse)} does not exist"
                    " (connect(..., create=True) makes a new one)"
                )
        return _connect(warehouse, *args, **kwargs)

    _dbapi.connect = connect
    import icesql

    icesql.connect = connect
'''


def python_env(folder: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a subprocess that runs documented code: the icesql under test
    first on ``PYTHONPATH``, after the ``connect(create=...)`` shim written into ``folder``."""
    shim = folder / ".docs-shim"
    shim.mkdir(parents=True, exist_ok=True)
    (shim / "sitecustomize.py").write_text(_SHIM, encoding="utf-8")
    paths = [str(shim), str(PACKAGE_ROOT)]
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
    path.mkdir(parents=True, exist_ok=True)  # connect() before and after create= lands
    with icesql.connect(str(path)) as con:
        con.execute(
            "CREATE TABLE db.sales (id BIGINT, region STRING, amount DECIMAL(10,2), day DATE)"
            " USING iceberg PARTITIONED BY (region)"
        )
        con.execute(
            "INSERT INTO db.sales VALUES (1, 'eu', 10.50, DATE '2024-01-02'),"
            " (2, 'us', 20.00, DATE '2024-01-03')"
        )
        con.execute("INSERT INTO db.sales VALUES (3, 'eu', 7.25, DATE '2023-12-31')")
