"""Sizes of the generated tables and the queries the scenarios run.

One ``Sizes`` value decides everything that depends on the row count, so the smoke mode
(a few thousand rows) exercises exactly the same code paths as the full 20M-row run, only
with fewer months and fewer small files.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass

FULL_ROWS = 20_000_000
SMOKE_ROWS = 4_000
SEED = 20261121

NAMESPACE = "bench"
BASE = "lineitem"  # v2, no deletes
POS = "lineitem_pos"  # v2, 10% of rows deleted by position delete files
DV = "lineitem_dv"  # v3, the same 10% deleted by deletion vectors
EQ = "lineitem_eq"  # v2, 1% deleted by equality deletes on (l_orderkey, l_linenumber)
MANY = "many_files"  # 10,000 small files in 100 manifests
SCRATCH = "scratch"  # namespace of INSERT targets, removed after each run

FIRST_MONTH = dt.date(1992, 1, 1)
LINES_PER_ORDER = 4


@dataclass(frozen=True)
class Sizes:
    """What to generate. ``months`` x ``files_per_month`` data files for the lineitem
    tables; ``many_files`` files spread over ``many_manifests`` manifests (one month each)."""

    rows: int
    months: int
    files_per_month: int
    many_files: int
    many_manifests: int
    many_rows_per_file: int
    seed: int = SEED

    @staticmethod
    def for_rows(rows: int, seed: int = SEED) -> Sizes:
        """The full layout (84 months x 2 files, 10,000 small files) from 1M rows up; a
        small one below, so the smoke mode takes seconds."""
        if rows >= 1_000_000:
            return Sizes(rows, 84, 2, 10_000, 100, 20, seed)
        return Sizes(rows, 12, 2, 200, 10, 5, seed)

    @property
    def files(self) -> int:
        return self.months * self.files_per_month

    def key(self) -> dict[str, int]:
        """Identifies a generated data set: regenerate when any of this changes."""
        return asdict(self)


def month_start(index: int) -> dt.date:
    """First day of the ``index``-th month after ``FIRST_MONTH``."""
    y, m = divmod(FIRST_MONTH.month - 1 + index, 12)
    return dt.date(FIRST_MONTH.year + y, m + 1, 1)


def epoch_month(day: dt.date) -> int:
    """Iceberg's ``months`` transform value: months since 1970-01."""
    return (day.year - 1970) * 12 + day.month - 1


# ---------------------------------------------------------------------------------------------
# Queries. ``{t}`` is the table: an Iceberg name for icesql, ``read_parquet([...])`` for
# DuckDB, an Arrow table for PyIceberg's result.

AGGREGATE = (
    "SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS qty,"
    " sum(l_extendedprice) AS price, avg(l_discount) AS disc"
    " FROM {t} GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"
)
AGGREGATE_COLUMNS = ("l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice", "l_discount")


def partition_window(sizes: Sizes) -> tuple[dt.date, dt.date, int]:
    """About 5% of the months, starting mid-table: (first day, end day exclusive, months)."""
    count = max(1, round(sizes.months * 0.05))
    first = sizes.months // 2
    return month_start(first), month_start(first + count), count


def partition_query(sizes: Sizes) -> str:
    lo, hi, _ = partition_window(sizes)
    return (
        "SELECT l_shipmode, count(*) AS n, sum(l_extendedprice) AS price FROM {t}"
        f" WHERE l_shipdate >= DATE '{lo}' AND l_shipdate < DATE '{hi}'"
        " GROUP BY l_shipmode ORDER BY l_shipmode"
    )


def orderkey_window(sizes: Sizes) -> tuple[int, int]:
    """A narrow range of the sorted ``l_orderkey`` (0.2% of rows, at least one order) in the
    middle of the table: with keys increasing with time it falls in one or two files."""
    orders = sizes.rows // LINES_PER_ORDER
    lo = orders // 2 + 1
    return lo, lo + max(1, orders // 500)


def orderkey_query(sizes: Sizes) -> str:
    lo, hi = orderkey_window(sizes)
    return (
        "SELECT count(*) AS n, sum(l_quantity) AS qty FROM {t}"
        f" WHERE l_orderkey >= {lo} AND l_orderkey < {hi}"
    )


STREAM_COUNT = (
    "SELECT count(*) AS n FROM {t}"
    " WHERE l_comment <> '' AND l_shipinstruct <> '' AND l_extendedprice >= 0"
)
STREAM_COLUMNS = ("l_comment", "l_shipinstruct", "l_extendedprice")


def python_rows(sizes: Sizes) -> int:
    """Rows of the Python-data scenarios: half the table (10M at the full size)."""
    return sizes.rows // 2


def frame_query(sizes: Sizes) -> str:
    """Every column of the first half of the orders (``python_rows`` rows): a DataFrame of
    10M rows at the full size."""
    return f"SELECT * FROM {{t}} WHERE l_orderkey <= {sizes.rows // LINES_PER_ORDER // 2}"
