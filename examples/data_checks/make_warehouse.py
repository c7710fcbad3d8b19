"""The example's warehouse: a small shop (customers, orders in two commits) in ``warehouse/``.

``conftest.py`` builds it before the first run; ``python make_warehouse.py [FOLDER]`` builds it
by hand (a folder that already holds the tables is left as it is).
"""

from __future__ import annotations

import sys
from pathlib import Path

import icesql

HERE = Path(__file__).resolve().parent


def build(warehouse: str | Path = HERE / "warehouse") -> None:
    """Create the shop's tables and rows, unless the warehouse already has them."""
    con = icesql.connect(str(warehouse), create=True)
    try:
        con.execute("CREATE NAMESPACE IF NOT EXISTS shop")
        if con.execute("SHOW TABLES IN shop").fetchall():
            return
        con.execute(
            "CREATE TABLE shop.customers (id BIGINT, name STRING, country STRING) USING iceberg"
        )
        con.execute(
            "INSERT INTO shop.customers VALUES (1, 'Ada', 'UK'), (2, 'Grace', 'US'),"
            " (3, 'Linus', 'FI')"
        )
        con.execute(
            "CREATE TABLE shop.orders (id BIGINT, customer_id BIGINT, status STRING,"
            " amount DECIMAL(10,2), ordered_at TIMESTAMP) USING iceberg"
            " PARTITIONED BY (days(ordered_at))"
        )
        con.execute(
            "INSERT INTO shop.orders VALUES"
            " (1, 1, 'shipped', 25.00, TIMESTAMP'2024-05-01 10:00:00'),"
            " (2, 2, 'new', 12.50, TIMESTAMP'2024-05-02 11:30:00')"
        )
        con.execute(
            "INSERT INTO shop.orders VALUES"
            " (3, 3, 'new', 8.00, current_timestamp()),"
            " (4, 1, 'cancelled', 40.00, current_timestamp())"
        )
    finally:
        con.close()


if __name__ == "__main__":
    build(sys.argv[1] if len(sys.argv) > 1 else HERE / "warehouse")
