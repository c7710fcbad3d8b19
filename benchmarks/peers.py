"""The engines users weigh against icesql (issues 21 and 27), each in a virtualenv of its own.

``python -m benchmarks.peers [name ...]`` makes the virtualenvs under ``benchmarks/.peers/``
(or the folder ``$ICESQL_BENCH_PEERS`` names, so a second checkout can use the first one's)
with the pinned releases below; ``python -m benchmarks`` then measures every peer whose
virtualenv exists on each read scenario that names a peer query, beside icesql and its
baseline. Peers stay out of icesql's own environment: their pins (an older DuckDB, another
pyarrow) would change what icesql is measured with. A peer that is not set up, or that fails,
is reported as such in the scenario's notes, never fatal to the run.

What each peer runs (:func:`benchmarks.worker.peer_query`), timed from loading the table's
metadata to the fetched Arrow result, like icesql's side (its connection is not timed, so a
peer's session is not either):

* ``duckdb_iceberg`` — DuckDB 1.5.5 ``iceberg_scan('<metadata.json>')``, the extension loaded
  from its PyPI wheel (this machine cannot download extensions at run time);
* ``polars`` — ``pl.scan_iceberg('<metadata.json>')`` (planned by polars-iceberg, polars'
  native planner) queried through ``pl.SQLContext``;
* ``daft`` — ``daft.read_iceberg`` of a PyIceberg ``StaticTable``, queried through ``daft.sql``;
* ``repark`` — ``spark.read.format("iceberg").load('<metadata.json>')`` as a temp view, then
  ``spark.sql`` (repark is a PySpark-API engine on DataFusion; it needs Python 3.12+).

On the DML scenarios the peers that write Iceberg (``DML_PEERS``) run the same statements on a
metadata copy of their own (:func:`benchmarks.worker.peer_dml`): repark through a ``hadoop``
catalog over the benchmark's warehouse, the copy registered with ``system.register_table``.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, ".peers")
ROOT_ENV = "ICESQL_BENCH_PEERS"  # another folder of peer virtualenvs (e.g. the main checkout's)


def root() -> str:
    """The folder holding the peers' virtualenvs: ``$ICESQL_BENCH_PEERS``, else ``.peers/``."""
    return os.environ.get(ROOT_ENV) or ROOT


@dataclass(frozen=True)
class Peer:
    label: str
    requirements: tuple[str, ...]
    min_python: tuple[int, int] = (3, 10)


PEERS: dict[str, Peer] = {
    "duckdb_iceberg": Peer(
        "DuckDB 1.5.5 iceberg_scan",
        (
            "duckdb==1.5.5",
            "duckdb-extension-iceberg==1.5.5",
            "duckdb-extension-avro==1.5.5",
            "pyarrow==26.0.1",
        ),
    ),
    "polars": Peer(
        "polars 2.1 scan_iceberg",
        ("polars==2.1.0", "polars-iceberg==0.1.0", "pyiceberg==0.12.0", "pyarrow==26.0.1"),
    ),
    "daft": Peer("daft 0.7.26 read_iceberg", ("daft==0.7.26", "pyiceberg==0.12.0")),
    "repark": Peer("repark 1.5.5", ("repark==1.5.5",), min_python=(3, 12)),
}
# the peers that run the DML scenarios' statements (the others only read)
DML_PEERS: tuple[str, ...] = ("repark",)


def python_for(name: str) -> str | None:
    """The interpreter of ``name``'s virtualenv, or None when it is not set up."""
    path = os.path.join(root(), name, "bin", "python")
    return path if os.path.exists(path) else None


def _version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    major, minor = out.split()
    return int(major), int(minor)


def base_python(peer: Peer) -> str | None:
    """An interpreter new enough for ``peer``: this one, else python3.N on PATH or in pyenv."""
    candidates = [sys.executable]
    for minor in range(peer.min_python[1], 15):
        candidates.append(shutil.which(f"python3.{minor}") or "")
        pyenv = os.path.expanduser(f"~/.pyenv/versions/3.{minor}*/bin/python")
        candidates += sorted(glob.glob(pyenv))
    for python in filter(None, candidates):
        version = _version(python)
        if version is not None and version >= peer.min_python:
            return python
    return None


def setup(name: str) -> str:
    """Make (or remake) ``name``'s virtualenv; returns its interpreter."""
    peer = PEERS[name]
    python = base_python(peer)
    if python is None:
        raise SystemExit(
            f"{name}: needs Python {'.'.join(map(str, peer.min_python))}+,"
            " none found on PATH or in pyenv"
        )
    target = os.path.join(root(), name)
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([python, "-m", "venv", target], check=True)
    venv_python = os.path.join(target, "bin", "python")
    subprocess.run([venv_python, "-m", "pip", "install", "-q", *peer.requirements], check=True)
    return venv_python


def main(argv: list[str]) -> int:
    names = argv or list(PEERS)
    unknown = [n for n in names if n not in PEERS]
    if unknown:
        raise SystemExit(f"unknown peer(s) {unknown}; known: {', '.join(PEERS)}")
    for name in names:
        print(f"{name}: {PEERS[name].label} -> {setup(name)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
