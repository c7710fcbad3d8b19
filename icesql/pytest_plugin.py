"""The pytest plugin: Iceberg tables as a test suite (``pytest --icesql-warehouse W``).

Registered through the ``pytest11`` entry point, so installing icesql is all it takes. It adds

* options and ini keys naming the catalog: ``--icesql-warehouse`` / ``icesql_warehouse``,
  ``--icesql-catalog`` / ``icesql_catalog``, ``--icesql-uri`` / ``icesql_uri``,
  ``--icesql-config`` / ``icesql_config`` (a ``.pyiceberg.yaml`` or ``spark-defaults.conf``);
* ``--icesql-ref REF`` / ``--icesql-as-of TIMESTAMP``: every table reference of every check
  reads that branch, tag or snapshot id, or the snapshot current at that time (the audit step of
  write-audit-publish), by adding ``VERSION AS OF`` / ``TIMESTAMP AS OF`` to the parsed SQL;
* fixtures ``icesql_connection`` (one connection per session, closed at the end) and ``icesql``
  (:class:`icesql.testing.DataChecks` bound to it, pinned as the options say);
* collection of ``test_*.sql`` files (one item per statement, passing on no rows) and
  ``*.checks.toml`` files (one item per declared check).

A check that cannot run (missing table, bad SQL) is reported as an error naming the file and
line, never as a pass. Nothing heavy is imported until a check or fixture is used, so a pytest
run that does not use the plugin pays for a few option definitions only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from icesql.checks.sql_files import SqlCheck
    from icesql.checks.toml_files import TomlCheck
    from icesql.dbapi import Connection
    from icesql.testing import CheckFailure, DataChecks

_SETTINGS = ("warehouse", "catalog", "uri", "config")
_OPENER = pytest.StashKey["_Opener"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("icesql", "icesql data checks over Iceberg tables")
    helps = {
        "warehouse": "warehouse folder or URL of the catalog the checks read",
        "catalog": "catalog type (hadoop, sql, rest, glue); inferred from the uri when left out",
        "uri": "catalog URI (sqlite:///catalog.db, http://host:8181)",
        "config": "catalog configuration file: .pyiceberg.yaml or spark-defaults.conf",
    }
    for key, text in helps.items():
        group.addoption(f"--icesql-{key}", dest=f"icesql_{key}", default=None, help=text)
        parser.addini(f"icesql_{key}", text, default=None)
    group.addoption(
        "--icesql-ref",
        dest="icesql_ref",
        default=None,
        metavar="REF",
        help="read every table of every check at this branch, tag or snapshot id"
        " (tables without the branch or tag read their current state)",
    )
    group.addoption(
        "--icesql-engine",
        dest="icesql_engine",
        default=None,
        choices=("local", "spark", "auto"),
        help="where the checks' queries run: local (default), spark or auto",
    )
    group.addoption(
        "--icesql-spark",
        dest="icesql_spark",
        default=None,
        metavar="MASTER",
        help="the Spark of --icesql-engine spark|auto: a master URL (local[4],"
        " spark://host:7077) or sc://host:port (default: the active session)",
    )
    group.addoption(
        "--icesql-as-of",
        dest="icesql_as_of",
        default=None,
        metavar="TIMESTAMP",
        help="read every table of every check as it was at this time",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_OPENER] = _Opener(config)
    config.addinivalue_line("markers", "icesql: a data check collected from a .sql or .toml file")


def pytest_sessionfinish(session: pytest.Session) -> None:
    opener = session.config.stash.get(_OPENER, None)
    if opener is None:
        return
    checks = opener._checks
    ref = session.config.getoption("icesql_ref")
    if checks is not None and ref and not str(ref).isdigit() and not checks.ref_found:
        # tables without the ref read main (as Spark's spark.wap.branch): a ref no table had
        # is a misspelt one, and the run must not pass as if it had audited it
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"--icesql-ref {ref}: no table the checks read has a branch or tag {ref!r}"
        if reporter is not None:
            reporter.write_line(f"ERROR: {message}", red=True)
            # counted in the summary line too, which would otherwise end "N passed" in green
            error = pytest.CollectReport(f"--icesql-ref {ref}", "failed", message, [])
            reporter.stats.setdefault("error", []).append(error)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    opener.close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    name = file_path.name
    if name.startswith("test_") and name.endswith(".sql"):
        return SqlCheckFile.from_parent(parent, path=file_path)
    if name.endswith(".checks.toml"):
        return TomlCheckFile.from_parent(parent, path=file_path)
    return None


# -- fixtures --------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def icesql_connection(pytestconfig: pytest.Config) -> Connection:
    """The session's connection to the catalogs the ``--icesql-*`` options or ini keys name.

    One per session, opened on first use (a run without checks opens none) and closed when
    the session ends, so every test reads through the same caches.

    Args:
        pytestconfig: pytest's configuration, holding the options.

    Returns:
        An :class:`icesql.Connection`; the tests share it, so a test that writes should
        write only tables of its own.

    The example of the ``icesql`` fixture below uses both.
    """
    return pytestconfig.stash[_OPENER].connection()


@pytest.fixture(scope="session")
def icesql(pytestconfig: pytest.Config) -> DataChecks:
    """Assertion helpers (``icesql.testing``) over the session's connection.

    Every table reference of every check reads the ``--icesql-ref`` / ``--icesql-as-of``
    version when one is given, so the same checks audit a branch before it is published.

    Args:
        pytestconfig: pytest's configuration, holding the options.

    Returns:
        An :class:`icesql.testing.DataChecks` bound to ``icesql_connection``; its failures
        show the offending rows and the SQL.

    >>> import pathlib, subprocess, sys, tempfile, textwrap
    >>> with tempfile.TemporaryDirectory() as root:
    ...     _ = pathlib.Path(root, "test_keys.py").write_text(textwrap.dedent('''
    ...         def test_ids_are_unique(icesql, icesql_connection):
    ...             icesql_connection.execute("CREATE TABLE db.t (id bigint) USING iceberg")
    ...             icesql_connection.execute("INSERT INTO db.t VALUES (1), (1)")
    ...             icesql.assert_unique("db.t", "id")
    ...     '''))
    ...     pathlib.Path(root, "warehouse").mkdir()
    ...     run = subprocess.run(
    ...         [sys.executable, "-m", "pytest", "-q", "--tb=line", "-rN", "-p", "no:cacheprovider",
    ...          "--icesql-warehouse", str(pathlib.Path(root, "warehouse")), root],
    ...         capture_output=True, text=True, cwd=root)
    >>> print(run.stdout)
    F...
    ...RowsFailure: unique(id) on db.t: 1 value occurs more than once
    1 failed in ...
    """
    return pytestconfig.stash[_OPENER].checks()


class _Opener:
    """Opens the session's one connection on first use (so runs without checks open none)."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self._connection: Connection | None = None
        self._checks: DataChecks | None = None

    def setting(self, key: str) -> str | None:
        value = self.config.getoption(f"icesql_{key}")
        if value is not None:
            return value
        value = self.config.getini(f"icesql_{key}")
        if not value:
            return None
        if key in ("warehouse", "config") and "://" not in value and self.config.inipath:
            value = str(self.config.inipath.parent / os.path.expanduser(value))  # ini-relative
        return value

    def connection(self) -> Connection:
        if self._connection is None:
            import icesql

            settings = {k: self.setting(k) for k in _SETTINGS}
            kwargs: dict[str, Any] = {
                k: settings[k] for k in ("warehouse", "catalog", "uri") if settings[k] is not None
            }
            config = settings["config"]
            if config is not None:
                kind = "pyiceberg_config" if config.endswith((".yaml", ".yml")) else "spark_conf"
                kwargs[kind] = config
            engine = self.config.getoption("icesql_engine")
            if engine is not None:
                kwargs["engine"] = engine
                kwargs["spark"] = self.config.getoption("icesql_spark")
            self._connection = icesql.connect(**kwargs)
        return self._connection

    def checks(self) -> DataChecks:
        if self._checks is None:
            from icesql.testing import DataChecks

            self._checks = DataChecks(
                self.connection(),
                ref=self.config.getoption("icesql_ref"),
                as_of=self.config.getoption("icesql_as_of"),
            )
        return self._checks

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
            self._checks = None


# -- collected checks ------------------------------------------------------------------------
class _CheckFile(pytest.File):
    """A check file; an unreadable one is a collection error naming the file and line."""

    def read(self, text: str) -> list[Any]:
        raise NotImplementedError

    def checks(self) -> list[Any]:
        from icesql.checks import CheckFileError

        try:
            return self.read(self.path.read_text(encoding="utf-8"))
        except CheckFileError as e:
            raise self.CollectError(f"{self.path}:{e.line}: {e.reason}") from None


def _item(parent: pytest.Collector, kind: type[_CheckItem], name: str, check: Any) -> pytest.Item:
    item = kind.from_parent(parent, name=name, check=check)
    for mark in check.marks:
        item.add_marker(mark)
    return item


class SqlCheckFile(_CheckFile):
    """A ``test_*.sql`` file: one item per statement."""

    def read(self, text: str) -> list[SqlCheck]:
        from icesql.checks.sql_files import read_sql_checks

        return read_sql_checks(text)

    def collect(self) -> Iterator[pytest.Item]:
        for check in self.checks():
            yield _item(self, SqlCheckItem, check.name, check)


class TomlCheckFile(_CheckFile):
    """A ``*.checks.toml`` file: one collector per table, one item per declared check.

    The table is a collector of its own, not part of the item's name: pytest parses a node id
    at ``::`` (``shop.checks.toml::db.orders::unique(id)``), and ``--lf`` / ``--ff`` match the
    ids they cached only against nodes whose structure parses back the same way."""

    def read(self, text: str) -> list[TomlCheck]:
        from icesql.checks.toml_files import read_toml_checks

        return read_toml_checks(text)

    def collect(self) -> Iterator[pytest.Collector]:
        tables: dict[str, list[TomlCheck]] = {}
        for check in self.checks():
            tables.setdefault(check.table, []).append(check)
        for table, declared in tables.items():
            yield TomlTable.from_parent(self, name=table, checks=declared)


class TomlTable(pytest.Collector):
    """The checks one ``[tables."<name>"]`` section declares."""

    def __init__(self, *, checks: list[TomlCheck], **kwargs: Any):
        super().__init__(**kwargs)
        self.checks = checks

    def collect(self) -> Iterator[pytest.Item]:
        for check in self.checks:
            yield _item(self, TomlCheckItem, check.check_name, check)

    def reportinfo(self) -> tuple[Path, int, str]:
        line = min((c.line for c in self.checks), default=1)
        return self.path, line - 1, f"icesql checks of {self.name}"


class _CheckItem(pytest.Item):
    """Runs its check in setup, so a check that cannot run is an error (never a pass or a
    failure), and judges the outcome in the test call."""

    line = 0

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.add_marker("icesql")
        self.failure: CheckFailure | None = None

    def find_failure(self, checks: DataChecks) -> CheckFailure | None:
        raise NotImplementedError

    def setup(self) -> None:
        try:
            checks = self.config.stash[_OPENER].checks()
            self.failure = self.find_failure(checks)
            return
        except Exception as e:  # any reason the check could not run: an error, never a pass
            reason = f"{type(e).__name__}: {e}"
        pytest.fail(
            f"{self.path}:{self.line}: check {self.name} cannot run: {reason}", pytrace=False
        )

    def runtest(self) -> None:
        if self.failure is not None:
            raise self.failure

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        from icesql.testing import CheckFailure

        if isinstance(excinfo.value, CheckFailure):
            return f"{self.path}:{self.line}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line - 1, f"icesql check {self.name}"


class SqlCheckItem(_CheckItem):
    """One statement of a ``test_*.sql`` file: no rows (or exactly ``expect`` rows) pass."""

    def __init__(self, *, check: SqlCheck, **kwargs: Any):
        super().__init__(**kwargs)
        self.check = check
        self.line = check.line

    def find_failure(self, checks: DataChecks) -> CheckFailure | None:
        from icesql.testing import CountFailure

        expect = self.check.expect_rows
        if expect is None:
            return checks.failure("no_rows", sql=self.check.sql, name=self.name)
        sample = checks.sample(self.check.sql)
        if sample.count == expect:
            return None
        return CountFailure(
            self.name, sample.count, f"{expect} row{'s' if expect != 1 else ''}", sample.sql, sample
        )


class TomlCheckItem(_CheckItem):
    """One declared check of a ``*.checks.toml`` file."""

    def __init__(self, *, check: TomlCheck, **kwargs: Any):
        super().__init__(**kwargs)
        self.check = check
        self.line = check.line

    def find_failure(self, checks: DataChecks) -> CheckFailure | None:
        return checks.failure(self.check.check, **self.check.arguments)
