"""Checks in Python: the ``icesql`` fixture holds the helpers of ``icesql.testing``."""

from __future__ import annotations


def test_revenue_matches_the_per_customer_rollup(icesql) -> None:
    icesql.assert_same_rows(
        "SELECT sum(amount) FROM shop.orders",
        "SELECT sum(total) FROM (SELECT customer_id, sum(amount) AS total FROM shop.orders"
        " GROUP BY customer_id)",
    )


def test_the_last_commit_only_added_rows(icesql, icesql_connection) -> None:
    first = icesql_connection.execute(
        "SELECT snapshot_id FROM shop.orders.snapshots ORDER BY committed_at LIMIT 1"
    ).fetchone()[0]
    icesql.assert_grew("shop.orders", since=first)
    icesql.assert_no_rows_removed("shop.orders", since=first)
    added = icesql.changes("shop.orders", first)
    assert added.removed.num_rows == 0 and added.added.num_rows >= 1


def test_recent_orders_are_not_cancelled_in_bulk(icesql) -> None:
    icesql.assert_row_count("shop.orders", max=1, where="status = 'cancelled'")
