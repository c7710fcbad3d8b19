"""icesql.pytest_plugin, run by pytest's own pytester: collection of SQL and TOML check files,
pass / fail / error outcomes (the expected verdicts counted by DuckDB over the table's rows),
the failure text, --icesql-as-of and --icesql-ref, ini keys, fixtures, JUnit XML and xdist."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from data_checks_support import Shop, duck_count, make_shop, rows_of

pytest_plugins = ["pytester"]

SQL_CHECKS = """\
-- name: no_negative_amounts
SELECT id, status, amount FROM db.orders WHERE amount < 0;

-- name: known_statuses
-- mark: slow
SELECT * FROM db.orders WHERE status NOT IN ('new', 'shipped');

-- expect: 2 rows
SELECT * FROM db.customers;

-- name: missing_table
SELECT * FROM db.nope;

-- name: bad_sql
SELEC 1;
"""

TOML_CHECKS = """\
[tables."db.orders"]
not_null = ["id", "customer_id"]
unique = ["id"]
relationships = { customer_id = "db.customers.id" }
row_count = { min = 1, max = 3 }
expression = ["amount >= 0"]

[tables."db.customers"]
unique = ["id"]
schema = { id = "bigint", name = "string" }
"""

# the checks above as DuckDB counts of offending rows over the current rows (None: no rows
# expected to break, the check holds iff the count is 0); shop rows: see data_checks_support
ORACLE = {
    "test_shop.sql::no_negative_amounts": "SELECT count(*) FROM o WHERE amount < 0",
    "test_shop.sql::known_statuses": "SELECT count(*) FROM o WHERE status NOT IN ('new', 'shipped')",
    "test_shop.sql::statement_3": "SELECT abs(count(*) - 2) FROM c",
    "shop.checks.toml::db.orders::not_null(id)": "SELECT count(*) FROM o WHERE id IS NULL",
    "shop.checks.toml::db.orders::not_null(customer_id)": "SELECT count(*) FROM o WHERE customer_id IS NULL",
    "shop.checks.toml::db.orders::unique(id)": "SELECT count(*) FROM (SELECT id FROM o GROUP BY id HAVING count(*) > 1)",
    "shop.checks.toml::db.orders::relationships(customer_id)": "SELECT count(*) FROM o WHERE customer_id NOT IN (SELECT id FROM c)",
    "shop.checks.toml::db.orders::row_count": "SELECT CASE WHEN count(*) BETWEEN 1 AND 3 THEN 0 ELSE 1 END FROM o",
    "shop.checks.toml::db.orders::expression(amount >= 0)": "SELECT count(*) FROM o WHERE NOT (amount >= 0)",
    "shop.checks.toml::db.customers::unique(id)": "SELECT count(*) FROM (SELECT id FROM c GROUP BY id HAVING count(*) > 1)",
    "shop.checks.toml::db.customers::schema": "SELECT 0",
}
ERRORS = {"test_shop.sql::missing_table", "test_shop.sql::bad_sql"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Shop:
    return make_shop(str(tmp_path_factory.mktemp("shop")))


@pytest.fixture
def project(pytester: pytest.Pytester, shop: Shop) -> pytest.Pytester:
    pytester.makefile(".sql", test_shop=SQL_CHECKS)
    pytester.path.joinpath("shop.checks.toml").write_text(TOML_CHECKS)
    pytester.makeini(f"[pytest]\nicesql_warehouse = {shop.warehouse}\nmarkers = slow\n")
    return pytester


def _outcomes(result: pytest.RunResult) -> dict[str, str]:
    """nodeid -> passed / failed / error, from ``-rA`` summary lines."""
    out = {}
    for line in result.outlines:
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR"):
            out[rest.split(" - ")[0]] = word.lower()
    return out


def _expected(shop: Shop, version: int | None = None) -> dict[str, str]:
    o = rows_of(shop.warehouse, "db.orders", version)
    c = rows_of(shop.warehouse, "db.customers")
    verdicts = {
        node: "failed" if duck_count(sql, o=o, c=c) else "passed" for node, sql in ORACLE.items()
    }
    return verdicts | dict.fromkeys(ERRORS, "error")


def test_collects_one_item_per_statement_and_declared_check(project: pytest.Pytester) -> None:
    result = project.runpytest("--collect-only", "-q", "-p", "no:cacheprovider")
    collected = {line for line in result.outlines if "::" in line}
    assert collected == set(ORACLE) | ERRORS
    slow = project.runpytest("--collect-only", "-q", "-m", "slow", "-p", "no:cacheprovider")
    assert [line for line in slow.outlines if "::" in line] == ["test_shop.sql::known_statuses"]


def test_outcomes_match_duckdb_over_the_rows(project: pytest.Pytester, shop: Shop) -> None:
    result = project.runpytest("-rA", "-p", "no:cacheprovider")
    expected = _expected(shop)
    assert _outcomes(result) == expected
    counts = {v: list(expected.values()).count(v) for v in ("passed", "failed", "error")}
    result.assert_outcomes(passed=counts["passed"], failed=counts["failed"], errors=counts["error"])
    assert counts == {"passed": 4, "failed": 7, "error": 2}


def test_failure_text_has_count_rows_and_sql(project: pytest.Pytester, shop: Shop) -> None:
    result = project.runpytest("-p", "no:cacheprovider", "-k", "no_negative_amounts")
    text = result.stdout.str()
    path = project.path / "test_shop.sql"
    result.stdout.fnmatch_lines(
        [
            f"{path}:2: no_negative_amounts: 1 row breaks the check",
            "",
            "id | status | amount",
            "---+--------+-------",
            "3  | lost   | -1.00",
            "",
            "SQL:",
            "    SELECT id, status, amount FROM db.orders WHERE amount < 0",
        ]
    )
    assert "Traceback" not in text and "pytest_plugin.py" not in text


def test_checks_that_cannot_run_are_errors_naming_file_and_line(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:cacheprovider", "-k", "missing_table or bad_sql")
    result.assert_outcomes(errors=2)
    path = project.path / "test_shop.sql"
    result.stdout.fnmatch_lines(
        [
            f"*{path}:12: check missing_table cannot run: NoSuchTableError: [[]TABLE_OR_VIEW_NOT_FOUND] The table or view `db`.`nope` cannot*",
            f"*{path}:15: check bad_sql cannot run: ProgrammingError: [[]PARSE_SYNTAX_ERROR]*",
        ]
    )


def test_malformed_check_files_are_collection_errors(pytester: pytest.Pytester, shop) -> None:
    pytester.makefile(".sql", test_bad="SELECT 1;\n-- expect: lots\nSELECT 2;")
    pytester.path.joinpath("bad.checks.toml").write_text('[tables.t]\nnot_nul = ["a"]\n')
    result = pytester.runpytest("-p", "no:cacheprovider", f"--icesql-warehouse={shop.warehouse}")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines_random(
        [
            f"*{pytester.path / 'test_bad.sql'}:2: write '-- expect: N rows', not 'lots'*",
            f"*{pytester.path / 'bad.checks.toml'}:2: unknown check 'not_nul'*",
        ]
    )


def test_as_of_reads_the_past(project: pytest.Pytester, shop: Shop) -> None:
    result = project.runpytest("-rA", "-p", "no:cacheprovider", "--icesql-as-of", shop.between)
    assert _outcomes(result) == _expected(shop, shop.clean_snapshot)


def test_ref_reads_a_snapshot_id(pytester: pytest.Pytester, shop: Shop) -> None:
    # a snapshot id belongs to one table: checks that read db.orders alone
    pytester.makefile(".sql", test_orders="SELECT * FROM db.orders WHERE amount < 0;")
    pytester.path.joinpath("o.checks.toml").write_text(
        '[tables."db.orders"]\nunique = "id"\nrow_count = { max = 2 }\n'
    )
    args = ["-rA", "-p", "no:cacheprovider", f"--icesql-warehouse={shop.warehouse}"]
    current = pytester.runpytest(*args)
    current.assert_outcomes(failed=3)
    clean = pytester.runpytest(*args, "--icesql-ref", str(shop.clean_snapshot))
    clean.assert_outcomes(passed=3)
    unknown = pytester.runpytest(*args, "--icesql-ref", "audit")  # no table has it: main is read
    unknown.assert_outcomes(failed=3, errors=1)  # and the run says the ref was never found
    unknown.stdout.fnmatch_lines(["*--icesql-ref audit: no table the checks read has*"])
    assert unknown.ret != 0


def test_ref_audits_a_branch_before_it_is_published(pytester: pytest.Pytester, tmp_path) -> None:
    """Write-audit-publish: a bad row written to branch ``audit`` of db.orders fails the
    checks under ``--icesql-ref audit`` while main passes them; db.customers, which has no such
    branch, is read at its current state (Spark's spark.wap.branch does the same)."""
    import icesql

    shop = make_shop(str(tmp_path / "own-shop"))  # this test moves refs: a shop of its own
    con = icesql.connect(shop.warehouse)
    con.execute(f"ALTER TABLE db.orders CREATE BRANCH audit AS OF VERSION {shop.clean_snapshot}")
    con.execute(f"CALL system.rollback_to_snapshot('db.orders', {shop.clean_snapshot})")
    con.execute("INSERT INTO db.orders.branch_audit VALUES (7, 99, 'new', 1.00)")
    con.close()
    pytester.makefile(
        ".sql",
        test_refs="""
        -- name: orders_have_customers
        SELECT o.id FROM db.orders o LEFT JOIN db.customers c ON o.customer_id = c.id
        WHERE c.id IS NULL;
    """,
    )
    args = ["-rA", "-p", "no:cacheprovider", f"--icesql-warehouse={shop.warehouse}"]
    pytester.runpytest(*args).assert_outcomes(passed=1)
    audited = pytester.runpytest(*args, "--icesql-ref", "audit")
    audited.assert_outcomes(failed=1)
    audited.stdout.fnmatch_lines(["*1 row*"])
    misspelt = pytester.runpytest(*args, "--icesql-ref", "nope")
    # read at main, but the run fails: nothing was audited, and the summary line says so
    misspelt.assert_outcomes(passed=1, errors=1)
    misspelt.stdout.fnmatch_lines(["*no table the checks read has a branch or tag 'nope'*"])
    misspelt.stdout.fnmatch_lines(["*= 1 passed, 1 error in *"])
    assert misspelt.ret == pytest.ExitCode.TESTS_FAILED


def test_fixtures_share_one_connection_closed_at_the_end(
    pytester: pytest.Pytester, shop: Shop
) -> None:
    pytester.makeconftest("""
        import json, pytest
        seen = {}
        @pytest.fixture(autouse=True)
        def _keep(icesql_connection):
            seen["con"] = icesql_connection
        def pytest_unconfigure(config):
            open("closed.json", "w").write(json.dumps(seen["con"].closed))
    """)
    pytester.makepyfile(
        test_py_checks="""
        import pytest
        from icesql.testing import DataChecks, RowsFailure

        def test_fixture_pins(icesql, icesql_connection):
            assert isinstance(icesql, DataChecks) and icesql.connection is icesql_connection
            icesql.assert_unique("db.orders", "id")

        def test_failure(icesql):
            with pytest.raises(RowsFailure, match="1 row breaks"):
                icesql.assert_not_null("db.orders", "customer_id")
    """
    )
    pytester.makeini("[pytest]\nicesql_warehouse = wh\n")
    (pytester.path / "wh").symlink_to(shop.warehouse)  # ini paths are relative to the ini file
    result = pytester.runpytest("-p", "no:cacheprovider", "--icesql-ref", str(shop.clean_snapshot))
    result.assert_outcomes(passed=1, failed=1)  # the clean snapshot has no NULL customer
    result.stdout.fnmatch_lines(["*DID NOT RAISE*"])
    assert (pytester.path / "closed.json").read_text() == "true"


def test_a_failing_helper_shows_the_tests_line_not_icesqls_frames(
    pytester: pytest.Pytester, shop: Shop
) -> None:
    pytester.makepyfile(
        test_helper="""
        def test_customers_are_set(icesql):
            icesql.assert_not_null("db.orders", "customer_id")

        def test_module_form(icesql_connection):
            from icesql.testing import assert_not_null
            assert_not_null(icesql_connection, "db.orders", "customer_id")
    """
    )
    pytester.makeini("[pytest]\nicesql_warehouse = wh\n")
    (pytester.path / "wh").symlink_to(shop.warehouse)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tb=long")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert 'icesql.assert_not_null("db.orders", "customer_id")' in out
    assert "1 row breaks the check" in out
    assert "icesql/testing.py" not in out and "_raise(" not in out


def test_junit_xml_carries_rows_and_errors(project: pytest.Pytester) -> None:
    project.runpytest("-p", "no:cacheprovider", "--junitxml=out.xml")
    all_cases = list(ET.parse(project.path / "out.xml").iter("testcase"))
    cases = {case.get("name"): case for case in all_cases}
    failure = cases["no_negative_amounts"].find("failure")
    assert failure is not None
    assert "1 row breaks the check" in failure.get("message")
    assert "3  | lost   | -1.00" in failure.text and "WHERE amount < 0" in failure.text
    error = cases["missing_table"].find("error")
    assert error is not None and "test_shop.sql:12" in error.get("message")
    passing = [c for c in all_cases if not list(c)]  # no failure / error / skipped child
    assert len(passing) == 4 and len(all_cases) == 13


@pytest.mark.slow
def test_runs_under_xdist(project: pytest.Pytester, shop: Shop) -> None:
    result = project.runpytest_subprocess("-rA", "-p", "no:cacheprovider", "-p", "xdist", "-n", "2")
    outcomes = {node.split("] ", 1)[-1]: v for node, v in _outcomes(result).items()}
    assert outcomes == _expected(shop)


def test_costs_nothing_to_a_run_that_does_not_use_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
        import sys
        def test_nothing_heavy_loaded():
            loaded = [m for m in ("duckdb", "sqlglot", "icesql.testing", "icesql.dbapi")
                      if m in sys.modules]
            assert "icesql.pytest_plugin" in sys.modules and loaded == []
    """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert sys.modules.get("icesql.pytest_plugin") is not None


@pytest.mark.slow
def test_the_example_project_runs_and_catches_a_bad_row(pytester: pytest.Pytester) -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "data_checks"
    shutil.copytree(
        example,
        pytester.path,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("warehouse", "__pycache__", ".pytest_cache"),
    )
    args = ["-rA", "-p", "no:cacheprovider"]
    # in subprocesses: an in-process run unloads the modules it imported, which the example's
    # conftest would import again next to the copies other code still holds
    clean = pytester.runpytest_subprocess(*args)
    clean.assert_outcomes(passed=23)
    insert = "INSERT INTO shop.orders VALUES (5, 42, 'lost', -3.00, current_timestamp())"
    subprocess.run(
        [sys.executable, "-c", f"import icesql; icesql.connect('warehouse').execute({insert!r})"],
        cwd=pytester.path,
        check=True,
    )
    dirty = pytester.runpytest_subprocess(*args)
    failed = {node for node, verdict in _outcomes(dirty).items() if verdict == "failed"}
    assert failed == {
        "checks/test_orders.sql::amounts_are_positive",
        "checks/test_orders.sql::every_customer_known",
        "checks/shop.checks.toml::shop.orders::accepted_values(status)",
        "checks/shop.checks.toml::shop.orders::relationships(customer_id)",
        "checks/shop.checks.toml::shop.orders::expression(amount > 0)",
    }


@pytest.mark.slow
def test_the_example_write_audit_publish_flow(pytester: pytest.Pytester) -> None:
    """examples/data_checks/wap.py: a good batch is published to main, a bad one is held back
    on the audit branch while main stays as it was."""
    example = Path(__file__).resolve().parents[1] / "examples" / "data_checks"
    shutil.copytree(
        example,
        pytester.path,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("warehouse", "__pycache__", ".pytest_cache"),
    )

    def wap(rows: str) -> int:
        return subprocess.run([sys.executable, "wap.py", rows], cwd=pytester.path).returncode

    def main_ids() -> list[int]:
        import icesql

        con = icesql.connect(str(pytester.path / "warehouse"))
        ids = [r[0] for r in con.execute("SELECT id FROM shop.orders ORDER BY id").fetchall()]
        con.close()
        return ids

    assert wap("(5, 2, 'new', 19.90, current_timestamp())") == 0
    assert main_ids() == [1, 2, 3, 4, 5]
    assert wap("(6, 42, 'lost', -3.00, current_timestamp())") == 1
    assert main_ids() == [1, 2, 3, 4, 5]


def test_last_failed_reruns_only_the_failed_checks(project: pytest.Pytester, shop: Shop) -> None:
    """``pytest --lf``: the cache keeps the node ids of SQL/TOML items that failed or errored,
    and the second run selects exactly those (the cacheprovider is on in this inner run)."""
    first = project.runpytest("-rA", "-p", "cacheprovider")
    expected = _expected(shop)
    assert _outcomes(first) == expected
    assert (project.path / ".pytest_cache").is_dir()
    again = project.runpytest("-rA", "-p", "cacheprovider", "--lf")
    not_passed = {node: v for node, v in expected.items() if v != "passed"}
    assert _outcomes(again) == not_passed
    again.stdout.fnmatch_lines([f"*run-last-failure: rerun previous {len(not_passed)} failures*"])
    # the rows are fixed meanwhile (a check file edited to pass): --lf runs the rest, finds
    # nothing failing, and the next --lf falls back to every item
    project.makefile(".sql", test_shop="SELECT 1 WHERE false;\n")
    project.path.joinpath("shop.checks.toml").write_text(
        '[tables."db.customers"]\nunique = ["id"]\n'
    )
    fixed = project.runpytest("-rA", "-p", "cacheprovider", "--lf")
    fixed.assert_outcomes(passed=2)
