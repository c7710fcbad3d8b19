"""Shared by the fuzz tests of ``tests/reliability/``: hypothesis settings sized for CI (or for a
long run with ``ICESQL_SOAK=1``), and a row normaliser so icesql's and DuckDB's rows compare.

CI runs are reproducible: examples are derandomized (drawn from a fixed seed per test) and no
example database is kept between runs.
"""

from __future__ import annotations

import datetime as dt
import math
import os
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, settings

SOAK = os.environ.get("ICESQL_SOAK", "") not in ("", "0")
SOAK_FACTOR = 50


def fuzz_settings(examples: int) -> settings:
    """Settings of one fuzz target: ``examples`` examples in CI, 50 times more when soaking
    (then randomized, so each soak run explores new inputs)."""
    return settings(
        max_examples=examples * SOAK_FACTOR if SOAK else examples,
        deadline=None,
        derandomize=not SOAK,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )


def normal(value: Any) -> Any:
    """One comparable form per value: instants in UTC, NaN equal to itself, decimals exact."""
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else value + 0.0  # -0.0 == 0.0 anyway
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return ("ts", value.isoformat())
    if isinstance(value, Decimal):
        return ("dec", str(value.normalize()) if value == value else "NaN")
    if isinstance(value, (list, tuple)):
        return tuple(normal(v) for v in value)
    return value


def normal_rows(rows: list[tuple], ordered: bool = False) -> list[tuple]:
    """Rows in comparable form; sorted unless the query's order is part of the answer."""
    out = [tuple(normal(v) for v in row) for row in rows]
    return out if ordered else sorted(out, key=repr)
