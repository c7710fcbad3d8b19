"""The results table (stdout) and the same rows as JSON.

Every scenario gets a row, whatever happened: a figure with pass/miss, or the status
``not supported yet`` / ``error`` with the engine's own message, so a missing capability is
visible and never turned into a number.
"""

from __future__ import annotations

import json
import platform
from dataclasses import asdict, dataclass, field
from typing import Any

PASS = "pass"
MISS = "miss"
NOT_SUPPORTED = "not supported yet"
ERROR = "error"
INFO = "info"  # measured, but no target applies at this size


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


def environment() -> dict[str, Any]:
    import duckdb
    import pyarrow

    env: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": __import__("os").cpu_count(),
        "duckdb": duckdb.__version__,
        "pyarrow": pyarrow.__version__,
    }
    try:
        import pyiceberg

        env["pyiceberg"] = pyiceberg.__version__
    except ImportError:
        env["pyiceberg"] = None
    return env


def write_json(path: str, rows: list[Row], meta: dict[str, Any]) -> None:
    with open(path, "w") as f:
        json.dump(
            {**meta, "environment": environment(), "results": [asdict(r) for r in rows]},
            f,
            indent=1,
        )
