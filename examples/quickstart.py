"""icesql in one minute: create an Iceberg warehouse, write to it, query it, time travel.

Runs with only icesql's runtime dependencies; the warehouse goes to a temporary folder
(pass a folder as the first argument to keep it, then point Spark's `type=hadoop` catalog
or `icesql <folder>` at it).
"""

from __future__ import annotations

import sys
import tempfile

import icesql


def show(cur: icesql.Cursor) -> None:
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    widths = [max(len(str(v)) for v in [n, *(r[i] for r in rows)]) for i, n in enumerate(names)]
    print("  " + " | ".join(n.ljust(w) for n, w in zip(names, widths)))
    for row in rows:
        print("  " + " | ".join(str(v).ljust(w) for v, w in zip(row, widths)))


def main(warehouse: str) -> None:
    con = icesql.connect(warehouse, create=True)
    con.execute("CREATE NAMESPACE IF NOT EXISTS shop")
    con.execute(
        "CREATE TABLE shop.orders (id BIGINT NOT NULL, region STRING, amount DECIMAL(10,2),"
        " ordered_at TIMESTAMP) USING iceberg PARTITIONED BY (days(ordered_at), region)"
    )
    con.execute(
        "INSERT INTO shop.orders VALUES"
        " (1, 'eu', 10.50, TIMESTAMP '2024-03-01 09:00:00'),"
        " (2, 'us', 99.99, TIMESTAMP '2024-03-01 17:30:00'),"
        " (3, 'eu', 5.00, TIMESTAMP '2024-03-02 08:15:00')"
    )
    first = con.execute(
        "SELECT snapshot_id FROM shop.orders.snapshots ORDER BY committed_at"
    ).fetchone()[0]
    con.execute(
        "INSERT INTO shop.orders SELECT id + 10, region, amount * 2, ordered_at"
        " FROM shop.orders WHERE region = ?",
        ("eu",),
    )

    print(f"warehouse: {warehouse}")
    print("\nrevenue by region, now:")
    show(
        con.execute(
            "SELECT region, count(*) AS orders, sum(amount) AS revenue FROM shop.orders"
            " GROUP BY region ORDER BY region"
        )
    )
    print(f"\nthe same, VERSION AS OF {first} (the first snapshot):")
    show(
        con.execute(
            f"SELECT region, count(*) AS orders, sum(amount) AS revenue"
            f" FROM shop.orders VERSION AS OF {first} GROUP BY region ORDER BY region"
        )
    )
    print("\nsnapshots:")
    show(
        con.execute(
            "SELECT snapshot_id, operation, summary['added-records'] AS added"
            " FROM shop.orders.snapshots ORDER BY committed_at"
        )
    )
    con.close()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory(prefix="icesql-quickstart-") as folder:
            main(folder)
