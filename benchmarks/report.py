"""The results table (stdout) and the same rows as JSON.

Every scenario gets a row, whatever happened: a figure with pass/miss, or the status
``not supported yet`` / ``error`` with the engine's own message, so a missing capability is
visible and never turned into a number.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from dataclasses import asdict, dataclass, field
from typing import Any

PASS = "pass"
MISS = "miss"
NOT_SUPPORTED = "not supported yet"
ERROR = "error"
INFO = "info"  # measured, but no target applies at this size
NOT_MEASURED = "not measured"  # a further target whose other side did not run (not set up...)


@dataclass
class Row:
    scenario: str
    description: str
    target: str
    status: str
    icesql_s: float | None = None
    baseline: str = ""
    baseline_s: float | None = None
    ratio: float | None = None
    icesql_rss_mb: float | None = None
    baseline_rss_mb: float | None = None
    pyiceberg_s: float | None = None
    notes: list[str] = field(default_factory=list)
    runs: dict[str, list[float]] = field(default_factory=dict)
    error: str | None = None
    peers: dict[str, dict[str, Any]] = field(default_factory=dict)  # benchmarks.peers, by name
    # further targets judged on the same runs (the table's columns carry the first one):
    # {"target", "side", "factor", "seconds", "ratio", "status", "reason"}, also printed as notes
    targets: list[dict[str, Any]] = field(default_factory=list)
    # CPU seconds over the timed span / (wall seconds x cores), by side ("icesql", "baseline")
    cpu: dict[str, dict[str, float]] = field(default_factory=dict)


def _num(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _mb(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"


COLUMNS = (
    "scenario",
    "icesql s",
    "baseline",
    "baseline s",
    "ratio",
    "target",
    "result",
    "icesql RSS MB",
    "baseline RSS MB",
    "PyIceberg s",
)


def table_lines(rows: list[Row]) -> list[str]:
    """A plain-text table, then one line per note or error under it."""
    cells = [
        (
            r.scenario,
            _num(r.icesql_s),
            r.baseline,
            _num(r.baseline_s),
            _num(r.ratio, 2) + ("x" if r.ratio else ""),
            r.target,
            r.status,
            _mb(r.icesql_rss_mb),
            _mb(r.baseline_rss_mb),
            _num(r.pyiceberg_s),
        )
        for r in rows
    ]
    widths = [max(len(str(c[i])) for c in [COLUMNS, *cells]) for i in range(len(COLUMNS))]
    fmt = " | ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*COLUMNS), "-+-".join("-" * w for w in widths)]
    out += [fmt.format(*c) for c in cells]
    out.append("")
    for r in rows:
        for note in ([r.error] if r.error else []) + r.notes:
            out.append(f"  {r.scenario}: {note}")
    return out


# The distributions whose versions a figure depends on: icesql's runtime dependencies and the
# peers measured beside it.
VERSIONED = ("duckdb", "sqlglot", "pyarrow", "fastavro", "numpy", "mmh3", "pyroaring", "fsspec")
PEERS = ("pyiceberg", "pyinstrument")


def environment() -> dict[str, Any]:
    """The machine and the versions the figures were measured with (None: not installed)."""
    from importlib import metadata

    def version(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    env: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "icesql_commit": _commit(),
    }
    env.update({dist: version(dist) for dist in (*VERSIONED, *PEERS)})
    return env


def versions_line(env: dict[str, Any]) -> str:
    """One line naming the Python and dependency versions of a run, for the printed table."""
    parts = [f"Python {env['python']}"] + [f"{d} {env[d]}" for d in VERSIONED if env.get(d)]
    if env.get("icesql_commit"):
        parts.append(f"icesql {env['icesql_commit']}")
    return "versions: " + ", ".join(parts)


def _commit() -> str | None:
    """The icesql checkout's commit (with '+changes' when its tree differs), if it is one."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(
            ["git", "-C", root, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+changes" if dirty else "")


def write_json(path: str, rows: list[Row], meta: dict[str, Any]) -> None:
    with open(path, "w") as f:
        json.dump(
            {**meta, "results": [asdict(r) for r in rows]},
            f,
            indent=1,
        )
