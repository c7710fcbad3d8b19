"""Data checks on Spark-written tables give Spark's verdicts: the plugin's SQL and TOML checks
and the ``icesql.testing`` helpers, run by pytest's ``pytester`` against tables Spark wrote
(partitioned v2 with position deletes, v3 with a deletion vector), fail exactly where the same
checks written as Spark SQL queries (rows returned = broken) return rows, with the same number
of offending rows."""

from __future__ import annotations

import json
import re

import pytest
import spark_support

pytest_plugins = ["pytester"]

NS = "dq_spark"

# Spark writes the rows, then deletes the rows marked "deleted" (merge-on-read), so a check
# that forgot the delete files would see them: customer 4's country, order 5's orphan key
SPARK_SETUP = [
    f"CREATE NAMESPACE IF NOT EXISTS {NS}",
    f"DROP TABLE IF EXISTS {NS}.customers",
    f"DROP TABLE IF EXISTS {NS}.orders",
    f"""CREATE TABLE {NS}.customers (id BIGINT, name STRING, country STRING) USING iceberg
        TBLPROPERTIES ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')""",
    f"""INSERT INTO {NS}.customers VALUES (1, 'ann', 'DE'), (2, 'bob', 'FR'), (3, NULL, 'FR'),
        (2, 'bea', 'FR'), (4, 'deleted', 'XX'), (5, 'eve', 'DE')""",
    f"DELETE FROM {NS}.customers WHERE id = 4",
    f"""CREATE TABLE {NS}.orders (id BIGINT, customer_id BIGINT, status STRING,
        amount DECIMAL(10, 2), day DATE) USING iceberg
        PARTITIONED BY (days(day), bucket(4, id))
        TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')""",
    f"""INSERT INTO {NS}.orders VALUES
        (1, 1, 'new', 10.00, DATE '2024-01-01'), (2, 2, 'shipped', 5.00, DATE '2024-01-02'),
        (3, 9, 'lost', -1.00, DATE '2024-01-02'), (3, NULL, 'new', 2.00, DATE '2024-01-03'),
        (5, 7, 'new', 1.00, DATE '2024-01-03'), (6, 1, NULL, 3.00, DATE '2024-01-04')""",
    f"DELETE FROM {NS}.orders WHERE id = 5",
    f"""INSERT INTO {NS}.orders VALUES (7, 2, 'returned', 4.00, DATE '2024-01-05'),
        (8, 5, 'new', NULL, DATE '2024-01-05'), (9, 1, 'shipped', 250.00, DATE '2024-01-05'),
        (10, 8, 'lost', 7.00, DATE '2024-01-05')""",
]

SQL_CHECKS = f"""\
-- name: negative_amounts
SELECT id, amount FROM {NS}.orders WHERE amount < 0;

-- name: busy_days
SELECT day, count(*) AS n FROM {NS}.orders GROUP BY day HAVING count(*) > 2;

-- name: customers_without_orders
SELECT c.id, c.name FROM {NS}.customers c LEFT JOIN {NS}.orders o ON o.customer_id = c.id
WHERE o.id IS NULL;

-- name: huge_amounts
SELECT * FROM {NS}.orders WHERE amount > 1000;

-- name: two_countries
-- expect: 2 rows
SELECT DISTINCT country FROM {NS}.customers;
"""

TOML_CHECKS = f"""\
[tables."{NS}.orders"]
not_null = ["id", "customer_id", "status", "day"]
unique = ["id", ["customer_id", "day"]]
accepted_values = {{ status = ["new", "shipped", "returned"] }}
relationships = {{ customer_id = "{NS}.customers.id" }}
row_count = {{ min = 1, max = 5 }}
expression = ["amount >= 0", "amount < 100"]

[tables."{NS}.customers"]
not_null = ["id", "name"]
unique = ["id"]
accepted_values = {{ country = ["DE", "FR"] }}
row_count = {{ min = 1, max = 10 }}
"""

PY_CHECKS = f"""\
from icesql import testing

def test_helper_no_rows(icesql):
    icesql.assert_no_rows("SELECT * FROM {NS}.orders WHERE day > DATE '2024-01-04'")

def test_helper_not_null(icesql):
    icesql.assert_not_null("{NS}.orders", ["customer_id", "status"])

def test_helper_unique(icesql_connection):
    testing.assert_unique(icesql_connection, "{NS}.customers", "id")

def test_helper_accepted_values(icesql):
    icesql.assert_accepted_values("{NS}.customers", "country", ["DE", "FR"])

def test_helper_relationship(icesql_connection):
    testing.assert_relationship(icesql_connection, "{NS}.orders", "customer_id",
                                "{NS}.customers", "id")

def test_helper_row_count(icesql):
    icesql.assert_row_count("{NS}.orders", min=8, where="amount IS NOT NULL")

def test_helper_same_rows(icesql):
    icesql.assert_same_rows("SELECT customer_id FROM {NS}.orders",
                            "SELECT id FROM {NS}.customers")
"""

ORD, CUS = f"{NS}.orders", f"{NS}.customers"

# node id -> (how icesql's verdict is judged, the Spark SQL query). "rows": the check fails
# iff the query returns rows, and icesql reports that many offending rows (for unique: keys);
# "count": the query returns the count a range check judges; "expect": exactly that many rows
# pass; "diff": the two EXCEPT ALL queries, rows only in A and only in B
SPARK_CHECKS: dict[str, tuple[str, object]] = {
    "test_dq.sql::negative_amounts": ("rows", f"SELECT id, amount FROM {ORD} WHERE amount < 0"),
    "test_dq.sql::busy_days": ("rows", f"SELECT day FROM {ORD} GROUP BY day HAVING count(*) > 2"),
    "test_dq.sql::customers_without_orders": (
        "rows",
        f"SELECT c.id FROM {CUS} c LEFT ANTI JOIN {ORD} o ON o.customer_id = c.id",
    ),
    "test_dq.sql::huge_amounts": ("rows", f"SELECT * FROM {ORD} WHERE amount > 1000"),
    "test_dq.sql::two_countries": ("expect", (2, f"SELECT DISTINCT country FROM {CUS}")),
    **{
        f"dq.checks.toml::{ORD}::not_null({c})": ("rows", f"SELECT * FROM {ORD} WHERE {c} IS NULL")
        for c in ("id", "customer_id", "status", "day")
    },
    f"dq.checks.toml::{ORD}::unique(id)": (
        "rows",
        f"SELECT id FROM {ORD} WHERE id IS NOT NULL GROUP BY id HAVING count(*) > 1",
    ),
    f"dq.checks.toml::{ORD}::unique(customer_id,day)": (
        "rows",
        f"SELECT customer_id, day FROM {ORD} WHERE customer_id IS NOT NULL"
        " AND day IS NOT NULL GROUP BY customer_id, day HAVING count(*) > 1",
    ),
    f"dq.checks.toml::{ORD}::accepted_values(status)": (
        "rows",
        f"SELECT * FROM {ORD} WHERE status NOT IN ('new', 'shipped', 'returned')",
    ),
    f"dq.checks.toml::{ORD}::relationships(customer_id)": (
        "rows",
        f"SELECT o.* FROM {ORD} o LEFT ANTI JOIN {CUS} c ON o.customer_id = c.id"
        " WHERE o.customer_id IS NOT NULL",
    ),
    f"dq.checks.toml::{ORD}::row_count": ("count", (1, 5, f"SELECT count(*) FROM {ORD}")),
    f"dq.checks.toml::{ORD}::expression(amount >= 0)": (
        "rows",
        f"SELECT * FROM {ORD} WHERE NOT (amount >= 0)",
    ),
    f"dq.checks.toml::{ORD}::expression(amount < 100)": (
        "rows",
        f"SELECT * FROM {ORD} WHERE NOT (amount < 100)",
    ),
    **{
        f"dq.checks.toml::{CUS}::not_null({c})": ("rows", f"SELECT * FROM {CUS} WHERE {c} IS NULL")
        for c in ("id", "name")
    },
    f"dq.checks.toml::{CUS}::unique(id)": (
        "rows",
        f"SELECT id FROM {CUS} WHERE id IS NOT NULL GROUP BY id HAVING count(*) > 1",
    ),
    f"dq.checks.toml::{CUS}::accepted_values(country)": (
        "rows",
        f"SELECT * FROM {CUS} WHERE country NOT IN ('DE', 'FR')",
    ),
    f"dq.checks.toml::{CUS}::row_count": ("count", (1, 10, f"SELECT count(*) FROM {CUS}")),
    "test_py_dq.py::test_helper_no_rows": (
        "rows",
        f"SELECT * FROM {ORD} WHERE day > DATE '2024-01-04'",
    ),
    "test_py_dq.py::test_helper_not_null": (
        "rows",
        f"SELECT * FROM {ORD} WHERE customer_id IS NULL OR status IS NULL",
    ),
    "test_py_dq.py::test_helper_unique": (
        "rows",
        f"SELECT id FROM {CUS} WHERE id IS NOT NULL GROUP BY id HAVING count(*) > 1",
    ),
    "test_py_dq.py::test_helper_accepted_values": (
        "rows",
        f"SELECT * FROM {CUS} WHERE country NOT IN ('DE', 'FR')",
    ),
    "test_py_dq.py::test_helper_relationship": (
        "rows",
        f"SELECT o.* FROM {ORD} o LEFT ANTI JOIN {CUS} c ON o.customer_id = c.id"
        " WHERE o.customer_id IS NOT NULL",
    ),
    "test_py_dq.py::test_helper_row_count": (
        "count",
        (8, None, f"SELECT count(*) FROM {ORD} WHERE amount IS NOT NULL"),
    ),
    "test_py_dq.py::test_helper_same_rows": (
        "diff",
        (
            f"SELECT customer_id FROM {ORD} EXCEPT ALL SELECT id FROM {CUS}",
            f"SELECT id FROM {CUS} EXCEPT ALL SELECT customer_id FROM {ORD}",
        ),
    ),
}

# the offending-row figure of each failure kind's message (RowsFailure, unique's keys,
# CountFailure, DiffFailure)
_ROWS = re.compile(r": (\d+) (?:rows? breaks?|values? occurs?)")
_COUNT = re.compile(r"expected .* rows, got (\d+)")
_DIFF = re.compile(r": (\d+) row\(s\) only in A, (\d+) only in B")


def _spark_verdict(spark, kind: str, query: object) -> tuple[str, object]:
    """(passed | failed, the offending figure) as Spark's own queries answer the check."""
    if kind == "rows":
        n = spark.sql(str(query)).count()
        return ("failed" if n else "passed"), n
    if kind == "expect":
        want, sql = query  # type: ignore[misc]
        n = spark.sql(sql).count()
        return ("passed" if n == want else "failed"), n
    if kind == "count":
        low, high, sql = query  # type: ignore[misc]
        n = spark.sql(sql).collect()[0][0]
        ok = (low is None or n >= low) and (high is None or n <= high)
        return ("passed" if ok else "failed"), n
    a, b = (spark.sql(q).count() for q in query)  # type: ignore[union-attr]
    return ("failed" if a or b else "passed"), (a, b)


# a conftest for the inner run: every item's outcome and failure text, by node id
RECORDER = """
import json
seen = {}

def pytest_runtest_logreport(report):
    if report.failed:
        kind = "failed" if report.when == "call" else "error"
        seen.setdefault(report.nodeid, (kind, report.longreprtext))
    elif report.when == "call":
        seen.setdefault(report.nodeid, ("passed", ""))

def pytest_sessionfinish(session):
    with open("outcomes.json", "w") as f:
        json.dump(seen, f)
"""


def _icesql_verdicts(outcomes: dict[str, list[str]]) -> dict[str, tuple[str, object]]:
    """node id -> (passed | failed | error, the offending figure its failure text gives)."""
    out: dict[str, tuple[str, object]] = {}
    for node, (verdict, text) in outcomes.items():
        figure: object = text if verdict == "error" else None
        if verdict == "failed":
            if m := _DIFF.search(text):
                figure = (int(m.group(1)), int(m.group(2)))
            elif m := _ROWS.search(text) or _COUNT.search(text):
                figure = int(m.group(1))
        out[node] = (verdict, figure)
    return out


@pytest.fixture(scope="module")
def spark_dq_tables(spark, spark_warehouse: str) -> str:
    for statement in SPARK_SETUP:
        spark.sql(statement)
    return spark_warehouse


# with --icesql-engine spark the checks' queries run on Spark (a session the plugin builds in
# the inner run's own process): this inner test proves they went there
ENGINE_CHECK = f"""
def test_engine(icesql_connection, icesql):
    assert icesql_connection.execute("SELECT 1").engine == "spark"
    # spark_partition_id() is Spark's alone: the checks themselves run on Spark
    icesql.assert_no_rows("SELECT * FROM {ORD} WHERE spark_partition_id() < 0")
"""


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_checks_give_sparks_verdicts_and_counts(
    spark, spark_dq_tables: str, engine: str, pytester: pytest.Pytester
) -> None:
    pytester.makefile(".sql", test_dq=SQL_CHECKS)
    pytester.path.joinpath("dq.checks.toml").write_text(TOML_CHECKS)
    pytester.makepyfile(test_py_dq=PY_CHECKS)
    pytester.makeconftest(RECORDER)
    args = ["-p", "no:cacheprovider", f"--icesql-warehouse={spark_dq_tables}"]
    if engine == "spark":
        # a run of its own: the plugin builds its Spark session from the spark-defaults.conf
        # that also names its catalog (jars, Iceberg's catalog ``local`` on the same warehouse)
        conf = spark_support.spark_conf(spark_dq_tables, pytester.path / "spark-scratch")
        pytester.path.joinpath("spark-defaults.conf").write_text(
            "".join(f"{key} {value}\n" for key, value in conf.items())
        )
        pytester.makepyfile(test_engine_check=ENGINE_CHECK)
        args = [
            "-p",
            "no:cacheprovider",
            "--icesql-config=spark-defaults.conf",
            "--icesql-engine=spark",
            "--icesql-spark=local[1]",
        ]
    # in a process of its own: an in-process run drops the modules it imported first from
    # sys.modules when it ends, and later tests of this process then meet second copies of
    # sqlglot's and icesql's classes (ALTER TABLE ... ADD COLUMN failed after it)
    result = pytester.runpytest_subprocess(*args, timeout=600)
    ours = _icesql_verdicts(json.loads((pytester.path / "outcomes.json").read_text()))
    if engine == "spark":
        assert ours.pop("test_engine_check.py::test_engine") == ("passed", None), (
            result.stdout.str()
        )
    theirs = {
        node: _spark_verdict(spark, kind, query) for node, (kind, query) in SPARK_CHECKS.items()
    }
    assert set(ours) == set(theirs), result.stdout.str()
    verdicts = {node: v for node, (v, _) in ours.items()}
    assert verdicts == {node: v for node, (v, _) in theirs.items()}
    for node, (verdict, figure) in ours.items():
        if verdict == "failed":
            assert figure == theirs[node][1], (node, figure, theirs[node])
    # the rows were chosen to break most checks and pass some, deletes included: a check that
    # read the deleted rows would fail accepted_values(country) / relationships
    assert sum(v == "failed" for v in verdicts.values()) >= 15
    assert ours[f"dq.checks.toml::{ORD}::relationships(customer_id)"] == ("failed", 2)
    assert verdicts[f"dq.checks.toml::{CUS}::accepted_values(country)"] == "passed"
    assert verdicts["test_dq.sql::two_countries"] == "passed"
