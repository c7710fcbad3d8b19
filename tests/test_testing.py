"""icesql.testing: each helper's verdict on a clean and a dirty snapshot of the same table,
the expected counts computed by DuckDB over the table's rows; failures are AssertionErrors
whose message carries the rows and the SQL; a check that cannot run raises the engine's error."""

from __future__ import annotations

from datetime import timedelta

import pytest
from data_checks_support import Shop, duck_count, make_shop, rows_of

import icesql
from icesql import testing
from icesql.testing import (
    CheckFailure,
    CountFailure,
    DataChecks,
    DiffFailure,
    FreshnessFailure,
    RowsFailure,
    SchemaFailure,
    format_table,
    parse_age,
)


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Shop:
    return make_shop(str(tmp_path_factory.mktemp("shop")))


@pytest.fixture(scope="module")
def con(shop: Shop):
    connection = icesql.connect(shop.warehouse)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def orders(shop: Shop):
    return rows_of(shop.warehouse, "db.orders")


@pytest.fixture(scope="module")
def customers(shop: Shop):
    return rows_of(shop.warehouse, "db.customers")


def _fails(kind: type[CheckFailure], call, *args, **kwargs) -> CheckFailure:
    with pytest.raises(kind) as info:
        call(*args, **kwargs)
    assert isinstance(info.value, AssertionError)
    return info.value


def test_not_null_counts_the_rows_duckdb_counts(con, shop, orders) -> None:
    expected = duck_count("SELECT count(*) FROM o WHERE customer_id IS NULL", o=orders)
    failure = _fails(RowsFailure, testing.assert_not_null, con, "db.orders", "customer_id")
    assert failure.sample.count == expected == 1
    assert f"{expected} row breaks the check" in str(failure)
    assert "customer_id IS NULL" in str(failure)
    DataChecks(con, ref=shop.clean_snapshot).assert_not_null("db.orders", ["id", "customer_id"])


def test_unique_shows_each_duplicated_key(con, shop, orders) -> None:
    expected = duck_count(
        "SELECT count(*) FROM (SELECT id FROM o GROUP BY id HAVING count(*) > 1)", o=orders
    )
    failure = _fails(RowsFailure, testing.assert_unique, con, "db.orders", "id")
    assert failure.sample.count == expected == 1
    assert failure.sample.rows == [(3, 2)]
    testing.assert_unique(con, "db.orders", ["id", "customer_id"])  # (3, 9) vs (3, NULL)
    DataChecks(con, ref=shop.clean_snapshot).assert_unique("db.orders", "id")


def test_accepted_values_and_relationship(con, shop, orders, customers) -> None:
    bad_status = duck_count(
        "SELECT count(*) FROM o WHERE status NOT IN ('new', 'shipped')", o=orders
    )
    failure = _fails(
        RowsFailure, testing.assert_accepted_values, con, "db.orders", "status", ["new", "shipped"]
    )
    assert failure.sample.count == bad_status == 1
    assert "lost" in str(failure)
    orphans = duck_count(
        "SELECT count(*) FROM o WHERE customer_id IS NOT NULL AND customer_id"
        " NOT IN (SELECT id FROM c)",
        o=orders,
        c=customers,
    )
    failure = _fails(
        RowsFailure,
        testing.assert_relationship,
        con,
        "db.orders",
        "customer_id",
        "db.customers",
        "id",
    )
    assert failure.sample.count == orphans == 1
    checks = DataChecks(con, ref=shop.clean_snapshot)
    checks.assert_accepted_values("db.orders", "status", ["new", "shipped"])
    # the pin applies to every reference: a snapshot id of orders is no version of customers
    with pytest.raises(icesql.ProgrammingError, match="not found in table"):
        checks.assert_relationship("db.orders", "customer_id", "db.customers", "id")


def test_row_count_ranges(con, orders) -> None:
    n = orders.num_rows
    testing.assert_row_count(con, "db.orders", min=n, max=n)
    testing.assert_row_count(con, "db.orders", min=1)
    failure = _fails(CountFailure, testing.assert_row_count, con, "db.orders", max=n - 1)
    assert failure.count == n
    assert f"expected at most {n - 1} rows, got {n}" in str(failure)
    testing.assert_row_count(con, "db.orders", min=0, max=0, where="amount > 100")


def test_no_rows_shows_an_aligned_table_then_the_sql(con, orders) -> None:
    sql = "SELECT id, status, amount FROM db.orders WHERE amount < 0"
    failure = _fails(RowsFailure, testing.assert_no_rows, con, sql)
    text = str(failure)
    assert text.index("id | status | amount") < text.index("SQL:") < text.index(sql)
    assert "3  | lost   | -1.00" in text
    assert failure.sample.count == duck_count("SELECT count(*) FROM o WHERE amount < 0", o=orders)


def test_failures_show_the_first_rows_but_count_all(con) -> None:
    sql = "SELECT id FROM range(25)"
    failure = _fails(RowsFailure, testing.assert_no_rows, con, sql)
    assert failure.sample.count == 25 and len(failure.sample.rows) == testing.SHOWN_ROWS
    assert "25 rows break the check" in str(failure)
    assert "... and 15 more rows" in str(failure)


def test_schema_lists_each_difference(con) -> None:
    testing.assert_schema(con, "db.orders", {"id": "bigint", "amount": "decimal(10, 2)"})
    failure = _fails(
        SchemaFailure,
        testing.assert_schema,
        con,
        "db.orders",
        {"id": "int", "gone": "string", "status": "string"},
        exact=True,
    )
    assert sorted(failure.problems) == [
        ("amount", "(none)", "decimal(10,2)"),
        ("customer_id", "(none)", "bigint"),
        ("gone", "string", "(missing)"),
        ("id", "int", "bigint"),
    ]


def test_same_rows_shows_rows_only_in_each(con, shop) -> None:
    a = "SELECT id, status FROM db.orders"
    testing.assert_same_rows(con, a, "SELECT id, status FROM db.orders ORDER BY id DESC")
    b = f"SELECT id, status FROM db.orders VERSION AS OF {shop.clean_snapshot} UNION ALL SELECT 7, 'x'"
    failure = _fails(DiffFailure, testing.assert_same_rows, con, a, b)
    assert failure.only_a.count == 2 and failure.only_b.count == 1
    assert "2 row(s) only in A" in str(failure) and "lost" in str(failure)
    assert "1 row(s) only in B" in str(failure)


def test_changes_between_snapshots(con, shop) -> None:
    old = rows_of(shop.warehouse, "db.orders", shop.clean_snapshot)
    new = rows_of(shop.warehouse, "db.orders", shop.dirty_snapshot)
    added = duck_count(
        "SELECT count(*) FROM (SELECT * FROM n EXCEPT ALL SELECT * FROM o)", n=new, o=old
    )
    delta = testing.changes(con, "db.orders", shop.clean_snapshot, shop.dirty_snapshot)
    assert delta.added.num_rows == added == 2 and delta.removed.num_rows == 0
    assert sorted(delta.added.column("status").to_pylist()) == ["lost", "new"]
    back = testing.changes(con, "db.orders", shop.dirty_snapshot, shop.clean_snapshot)
    assert back.removed.num_rows == 2 and back.added.num_rows == 0
    assert not testing.changes(con, "db.orders", shop.dirty_snapshot)


def test_grew_and_no_rows_removed(con, shop) -> None:
    testing.assert_grew(con, "db.orders", since=shop.clean_snapshot)
    failure = _fails(CountFailure, testing.assert_grew, con, "db.orders", shop.dirty_snapshot)
    assert "expected more than 4 rows, got 4" in str(failure)
    testing.assert_no_rows_removed(con, "db.orders", since=shop.clean_snapshot)
    failure = _fails(
        RowsFailure,
        testing.assert_no_rows_removed,
        con,
        "db.orders",
        shop.dirty_snapshot,
        shop.clean_snapshot,
    )
    assert failure.sample.count == 2


def test_deleted_rows_are_removed_changes(tmp_path) -> None:
    shop = make_shop(str(tmp_path))
    con = icesql.connect(shop.warehouse)
    con.execute("DELETE FROM db.orders WHERE amount < 0")
    failure = _fails(
        RowsFailure, testing.assert_no_rows_removed, con, "db.orders", shop.dirty_snapshot
    )
    assert failure.sample.rows == [(3, 9, "lost", pytest.approx(-1))]
    assert testing.changes(con, "db.orders", shop.dirty_snapshot).removed.num_rows == 1
    con.close()


def test_freshness_of_the_snapshot_and_of_a_column(tmp_path) -> None:
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.events (id bigint, at timestamp, day date) USING iceberg")
    con.execute("INSERT INTO db.events VALUES (1, current_timestamp(), DATE'2001-01-01')")
    testing.assert_fresh(con, "db.events", "1h")
    testing.assert_fresh(con, "db.events", timedelta(hours=1), column="at")
    failure = _fails(FreshnessFailure, testing.assert_fresh, con, "db.events", "30d", "day")
    assert failure.age > timedelta(days=365) and "2001-01-01" in str(failure)
    stale = _fails(FreshnessFailure, DataChecks(con).assert_fresh, "db.events", 0)
    assert stale.newest is not None
    con.close()


def test_checks_that_cannot_run_raise_errors_not_failures(con) -> None:
    with pytest.raises(icesql.ProgrammingError, match="`db`.`nope`"):
        testing.assert_no_rows(con, "SELECT * FROM db.nope")
    with pytest.raises(icesql.ProgrammingError, match="PARSE_SYNTAX_ERROR"):
        testing.assert_no_rows(con, "SELEC 1")
    with pytest.raises(icesql.ProgrammingError, match="unknown data check"):
        DataChecks(con).failure("nothing")


def test_pinned_reads_use_time_travel(con, shop) -> None:
    pinned = DataChecks(con, as_of=shop.between)
    pinned.assert_no_rows("SELECT * FROM db.orders WHERE amount < 0")
    assert pinned.sample("SELECT count(*) FROM db.orders").rows == [(2,)]
    with pytest.raises(RowsFailure):
        DataChecks(con).assert_no_rows("SELECT * FROM db.orders WHERE amount < 0")


def test_format_table_and_ages() -> None:
    assert format_table(["a", "long_name"], [(1, None), (22, "x" * 50)], 3).splitlines() == [
        "a  | long_name",
        "---+" + "-" * 41,
        "1  | NULL",
        "22 | " + "x" * 37 + "...",
        "... and 1 more row",
    ]
    assert parse_age("1d12h") == timedelta(days=1, hours=12)
    assert parse_age("90m") == parse_age(5400) == timedelta(minutes=90)
    with pytest.raises(ValueError, match="not an age"):
        parse_age("soon")
