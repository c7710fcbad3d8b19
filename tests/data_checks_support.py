"""A small shop warehouse for the data-check tests: ``db.customers`` and ``db.orders``, whose
first snapshot is clean and whose second adds rows that break the usual checks. The oracle
helpers answer the same questions with DuckDB over the rows, independently of icesql.testing."""

from __future__ import annotations

import time
from dataclasses import dataclass

import duckdb
import pyarrow as pa

import icesql


@dataclass
class Shop:
    warehouse: str
    clean_snapshot: int  # orders: two good rows
    dirty_snapshot: int  # orders: plus a duplicate id, a NULL customer, a bad status, a -1
    between: str  # a timestamp after the clean commit, before the dirty one (UTC)


def make_shop(warehouse: str) -> Shop:
    con = icesql.connect(warehouse, create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.customers (id bigint, name string) USING iceberg")
    con.execute("INSERT INTO db.customers VALUES (1, 'ann'), (2, 'bob')")
    con.execute(
        "CREATE TABLE db.orders (id bigint, customer_id bigint, status string,"
        " amount decimal(10,2)) USING iceberg"
    )
    con.execute("INSERT INTO db.orders VALUES (1, 1, 'new', 10.50), (2, 2, 'shipped', 3.00)")
    clean, committed = con.execute(
        "SELECT snapshot_id, committed_at FROM db.orders.snapshots"
    ).fetchone()
    time.sleep(0.02)
    con.execute("INSERT INTO db.orders VALUES (3, 9, 'lost', -1.00), (3, NULL, 'new', 2.00)")
    dirty = con.execute(
        "SELECT snapshot_id FROM db.orders.snapshots ORDER BY committed_at DESC LIMIT 1"
    ).fetchone()[0]
    con.close()
    between = committed.strftime("%Y-%m-%d %H:%M:%S.%f")
    return Shop(warehouse, clean, dirty, between)


def rows_of(warehouse: str, table: str, version: int | None = None) -> pa.Table:
    """A table's rows, read once through plain ``SELECT *``."""
    con = icesql.connect(warehouse)
    at = f" VERSION AS OF {version}" if version is not None else ""
    rows = con.execute(f"SELECT * FROM {table}{at}").fetch_arrow_table()
    con.close()
    return rows


def duck_count(sql: str, **tables: pa.Table) -> int:
    """``sql`` (a count) run by DuckDB over Arrow tables bound to the given names."""
    db = duckdb.connect()
    for name, table in tables.items():
        db.register(name, table)
    return db.execute(sql).fetchone()[0]
