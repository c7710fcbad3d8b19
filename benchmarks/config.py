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
ORC = "lineitem_orc"  # v2, no deletes: the base table's rows in ORC files
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


def many_files_key(sizes: Sizes) -> int:
    """An ``l_orderkey`` in the middle of the many-small-files table (in exactly one file)."""
    middle = sizes.many_files * sizes.many_rows_per_file // 2
    return middle // LINES_PER_ORDER + 1


def many_point_query(sizes: Sizes) -> str:
    return (
        "SELECT count(*) AS n, sum(l_quantity) AS qty FROM {t}"
        f" WHERE l_orderkey = {many_files_key(sizes)}"
    )


MANY_SCAN = "SELECT count(*) AS n, sum(l_quantity) AS qty, max(l_shipdate) AS last FROM {t}"


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


def rows_out_query(sizes: Sizes) -> str:
    """Seven columns (integers, decimals, a date, strings) of a twentieth of the orders: about
    1M rows as Python tuples at the full size, as in issue 43's report."""
    return (
        "SELECT l_orderkey, l_partkey, l_quantity, l_extendedprice, l_shipdate, l_returnflag,"
        f" l_comment FROM {{t}} WHERE l_orderkey <= {sizes.rows // LINES_PER_ORDER // 20}"
    )


# ---------------------------------------------------------------------------------------------
# Data checks (issue 19): ``DATA_CHECKS`` SQL checks over the lineitem table, each one passing
# when it returns no rows, in the SQL that Spark, DuckDB and icesql all read alike. Most hold
# (as in a healthy suite); about one in twenty breaks on a few hundred rows, so verdicts and
# offending-row counts can be compared between the engines.

DATA_CHECKS = 200
_COLUMNS = (
    "l_orderkey",
    "l_partkey",
    "l_suppkey",
    "l_linenumber",
    "l_quantity",
    "l_extendedprice",
    "l_discount",
    "l_tax",
    "l_returnflag",
    "l_linestatus",
    "l_shipdate",
    "l_commitdate",
    "l_receiptdate",
    "l_shipinstruct",
    "l_shipmode",
    "l_comment",
)
_TABLE_WIDE = (
    ("returnflag_accepted", "SELECT * FROM {t} WHERE l_returnflag NOT IN ('A', 'N', 'R')"),
    ("linestatus_accepted", "SELECT * FROM {t} WHERE l_linestatus NOT IN ('F', 'O')"),
    (
        "shipmode_accepted",
        "SELECT * FROM {t} WHERE l_shipmode NOT IN"
        " ('AIR', 'FOB', 'MAIL', 'RAIL', 'REG AIR', 'SHIP', 'TRUCK')",
    ),
    ("quantity_positive", "SELECT * FROM {t} WHERE l_quantity <= 0"),
    ("discount_in_range", "SELECT * FROM {t} WHERE l_discount < 0 OR l_discount > 0.10"),
    ("received_after_shipping", "SELECT * FROM {t} WHERE l_receiptdate <= l_shipdate"),
    ("line_numbers", "SELECT * FROM {t} WHERE l_linenumber < 1 OR l_linenumber > 4"),
    (
        "order_line_unique",
        "SELECT l_orderkey, l_linenumber, count(*) AS n FROM {t}"
        " GROUP BY l_orderkey, l_linenumber HAVING count(*) > 1",
    ),
)


def data_checks(sizes: Sizes) -> list[tuple[str, str]]:
    """(name, SQL with ``{t}`` for the table) of the ``DATA_CHECKS`` checks: one NOT NULL per
    column and the table-wide rules (full scans), one rule per month partition (pruned to
    its files), and the rest on narrow ``l_orderkey`` ranges (pruned by file metrics)."""
    checks = [(f"not_null_{c}", f"SELECT * FROM {{t}} WHERE {c} IS NULL") for c in _COLUMNS]
    checks += list(_TABLE_WIDE)
    for m in range(sizes.months):
        lo, hi = month_start(m), month_start(m + 1)
        checks.append(
            (
                f"month_{lo:%Y_%m}_tax",
                "SELECT * FROM {t} WHERE l_shipdate >= DATE"
                f" '{lo}' AND l_shipdate < DATE '{hi}' AND l_tax > 0.08",
            )
        )
    orders = sizes.rows // LINES_PER_ORDER
    rest = DATA_CHECKS - len(checks)
    width = max(1, orders // 5000)
    for k in range(rest):
        lo = 1 + (orders - width) * k // max(1, rest - 1)
        # every 20th breaks: its range's fourth lines (about width rows) are offending rows
        rule = "l_linenumber = 4" if k % 20 == 19 else "l_extendedprice <= 0"
        checks.append(
            (
                f"orders_{lo}",
                f"SELECT l_orderkey, l_linenumber, l_extendedprice"
                f" FROM {{t}} WHERE l_orderkey >= {lo} AND l_orderkey < {lo + width}"
                f" AND {rule}",
            )
        )
    return checks[:DATA_CHECKS]


# -- DML (issues 21 and 27): each statement runs on a metadata copy of the lineitem table --
# 1% of the rows, spread over every file (l_partkey is uniform in 1..200,000): the case that
# makes copy-on-write rewrite every file
DML_FILTER = "l_partkey < 2000"
_COLUMNS = [
    c.strip().split(" ")[0]
    for c in (
        "l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice,"
        " l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate,"
        " l_receiptdate, l_shipinstruct, l_shipmode, l_comment"
    ).split(",")
]


def merge_source(sizes: Sizes) -> str:
    """About 1M source rows at 20M (5%), half matching a row (their orderkeys), half new ones
    (orderkeys shifted past the table's): MERGE's usual upsert."""
    shift = sizes.rows  # past every orderkey (rows // 4 + 1 at most)
    new = ", ".join(
        f"l_orderkey + {shift} AS l_orderkey" if c == "l_orderkey" else c for c in _COLUMNS
    )
    return (
        f"SELECT * FROM {{t}} WHERE l_partkey % 40 = 0"
        f" UNION ALL SELECT {new} FROM {{t}} WHERE l_partkey % 40 = 1"
    )


def merge_source_rows(sizes: Sizes) -> str:
    """The MERGE's outcome as the rows to upsert (PyIceberg's ``upsert`` takes the new rows
    whole, not an UPDATE SET): the matched half with ``l_quantity + 1`` (its type kept), the
    new half as in :func:`merge_source`. ``{t}`` is DuckDB's ``read_parquet`` of the table."""
    return (
        f"SELECT * REPLACE (CAST(l_quantity + 1 AS DECIMAL(15, 2)) AS l_quantity) FROM {{t}}"
        f" WHERE l_partkey % 40 = 0 UNION ALL SELECT * REPLACE (l_orderkey + {sizes.rows}"
        f" AS l_orderkey) FROM {{t}} WHERE l_partkey % 40 = 1"
    )


def overwrite_month(sizes: Sizes) -> tuple[dt.date, dt.date]:
    """The month INSERT OVERWRITE rewrites: [first day, first day of the next month)."""
    lo, _, _ = partition_window(sizes)
    return lo, month_start(sizes.months // 2 + 1)


def dml_statements(sizes: Sizes) -> dict[str, tuple[str, ...]]:
    """Each DML scenario's statements: table properties and session settings first (not
    timed), then the one statement that is timed."""
    lo, month_hi = overwrite_month(sizes)
    cow = (
        "ALTER TABLE {t} SET TBLPROPERTIES ('write.delete.mode' = 'copy-on-write',"
        " 'write.update.mode' = 'copy-on-write', 'write.merge.mode' = 'copy-on-write')"
    )
    mor = (
        "ALTER TABLE {t} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read',"
        " 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')"
    )
    return {
        "dml_delete_cow": (cow, f"DELETE FROM {{t}} WHERE {DML_FILTER}"),
        "dml_delete_mor": (mor, f"DELETE FROM {{t}} WHERE {DML_FILTER}"),
        "dml_update_mor": (
            mor,
            f"UPDATE {{t}} SET l_discount = l_discount + 0.01 WHERE {DML_FILTER}",
        ),
        "dml_merge_mor": (
            mor,
            f"MERGE INTO {{t}} t USING ({merge_source(sizes)}) s"
            " ON t.l_orderkey = s.l_orderkey AND t.l_linenumber = s.l_linenumber"
            " WHEN MATCHED THEN UPDATE SET t.l_quantity = s.l_quantity + 1"
            " WHEN NOT MATCHED THEN INSERT *",
        ),
        "dml_overwrite_month": (
            "SET spark.sql.sources.partitionOverwriteMode = dynamic",
            f"INSERT OVERWRITE {{t}} SELECT * FROM {{t}} WHERE l_shipdate >= DATE '{lo}'"
            f" AND l_shipdate < DATE '{month_hi}'",
        ),
    }


# what the table holds after a DML statement: the same on every engine that ran it
DML_CHECK = (
    "SELECT count(*) AS n, sum(l_quantity) AS qty, sum(l_discount) AS disc,"
    " max(l_orderkey) AS top FROM {t}"
)
