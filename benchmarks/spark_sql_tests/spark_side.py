"""Spark 3.5's answers to a test file, taken as ``SQLQueryTestSuite`` takes them.

Each file runs in a new session of one Spark (``SparkSession.newSession()``, as the suite
does: its own settings and temporary views), with the settings the suite gives it:
``spark.sql.ansi.enabled`` false, or true for the files under ``ansi/``;
``spark.sql.datetime.java8API.enabled`` true; the run's session time zone; then the file's
``--SET`` settings. Rows are Spark's own strings (``HiveResult.hiveResultString`` of the
executed plan, through the JVM), and whether their order counts is the suite's ``isSorted``
of the analyzed plan. Errors keep Spark's error class: that of the exception, or of its cause
for a ``SparkException`` that wraps one (a failed task), as the suite's
``handleExceptions`` does.

The file's statements go through ``statements.rewrite``; a temporary view is written to an
Iceberg table in the file's namespace (``s_<file>``) and replaced by a view over that table,
and icesql's answer file records the view icesql makes over the same table. A view Iceberg
cannot hold (a ``void`` or interval column, duplicate names) stays a view in Spark, and icesql
runs the original statement.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from typing import Any

from benchmarks.spark_sql_tests import statements
from benchmarks.spark_sql_tests.answers import Answer
from benchmarks.spark_sql_tests.splitting import InputFile

__all__ = ["SparkRunner", "spark_support", "start_spark"]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOG = "local"
_SEPARATOR = "\u0000\u0001\u0000"  # between rows when they cross the JVM boundary
_UNSORTED = {"Join", "Aggregate", "Generate", "Sample", "Distinct"}
_THROUGH = {"Project", "Filter", "ResolvedHint"}  # what PhysicalOperation looks through
_MESSAGE_CHARS = 300


def spark_support() -> Any:
    """The test suite's Spark helpers (``tests/spark_support.py``: the Iceberg runtime jars and
    the session settings of SPARK.md)."""
    tests = os.path.join(REPO, "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    import spark_support as support

    if support.java_executable() is None:
        raise RuntimeError("Spark needs Java (no JAVA_HOME/bin/java or java on PATH)")
    return support


def start_spark(warehouse: str, scratch: str, master: str = "local[1]") -> Any:
    """A Spark session whose default catalog ``local`` is the hadoop catalog on
    ``warehouse``, the folder icesql opens."""
    support = spark_support()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName("icesql-spark-sql-tests")
    for key, value in support.spark_conf(warehouse, scratch).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _java_throwable(exc: BaseException) -> Any:
    return getattr(exc, "_origin", None) or getattr(exc, "java_exception", None)


def _error(spark: Any, exc: BaseException) -> tuple[str, str]:
    """(error class, first line of the message) of a failed Spark call."""
    from py4j.java_gateway import is_instance_of

    gateway = spark.sparkContext._gateway
    throwable = _java_throwable(exc)
    while throwable is not None:
        if is_instance_of(gateway, throwable, "org.apache.spark.SparkThrowable"):
            error_class = throwable.getErrorClass()
            if error_class is not None:
                return error_class, _first_line(throwable.getMessage())
        cause = throwable.getCause()
        if cause is None or not is_instance_of(
            gateway, throwable, "org.apache.spark.SparkException"
        ):
            return throwable.getClass().getName(), _first_line(throwable.getMessage())
        throwable = cause
    return type(exc).__name__, _first_line(str(exc))


def _first_line(message: str | None) -> str:
    return (message or "").strip().split("\n", 1)[0][:_MESSAGE_CHARS]


def _children(plan: Any) -> list[Any]:
    seq = plan.children()
    return [seq.apply(i) for i in range(seq.size())]


def _is_sorted(plan: Any) -> bool:
    """``SQLQueryTestHelper.getNormalizedQueryExecutionResult``'s ``isSorted``."""
    name = plan.getClass().getSimpleName()
    if name in _UNSORTED:
        return False
    if name.startswith("Describe"):
        return True
    inner = plan
    while inner.getClass().getSimpleName() in _THROUGH:
        inner = inner.child()
    if inner.getClass().getSimpleName() == "Sort" and getattr(inner, "global")():
        return True
    return any(_is_sorted(child) for child in _children(plan))


class SparkRunner:
    """Runs test files in one Spark over the hadoop catalog on ``warehouse``."""

    def __init__(self, spark: Any, warehouse: str, time_zone: str = "UTC"):
        self.spark = spark
        self.warehouse = warehouse
        self.time_zone = time_zone
        self._builtins_made = False

    def _fresh_namespace(self, session: Any, name: str) -> None:
        shutil.rmtree(os.path.join(self.warehouse, name), ignore_errors=True)
        session.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.{name}")

    def make_builtin_tables(self) -> None:
        """The suite's built-in tables as Iceberg tables (``statements.BUILTIN_TABLES``)."""
        session = self.spark.newSession()
        self._fresh_namespace(session, statements.DATA_NAMESPACE)
        for name, query in statements.BUILTIN_TABLES.items():
            table = f"{CATALOG}.{statements.DATA_NAMESPACE}.{name}"
            session.sql(f"CREATE TABLE {table} USING iceberg AS {query}")
        self._builtins_made = True

    def session_settings(self, test_file: InputFile) -> list[tuple[str, str]]:
        """The settings a file runs under, in order (module docstring)."""
        ansi = "true" if test_file.name.startswith("ansi/") else "false"
        return [
            ("spark.sql.ansi.enabled", ansi),
            ("spark.sql.datetime.java8API.enabled", "true"),
            ("spark.sql.session.timeZone", self.time_zone),
            *test_file.settings,
        ]

    def answer(self, session: Any, sql: str) -> Answer:
        """Spark's answer to one statement."""
        jvm = self.spark.sparkContext._jvm
        try:
            frame = session.sql(sql)
            execution = frame._jdf.queryExecution()
            ordered = _is_sorted(execution.analyzed())
            schema = frame._jdf.schema()
            types = [f.dataType().catalogString() for f in schema.fields()]
            seq = jvm.org.apache.spark.sql.execution.HiveResult.hiveResultString(
                execution.executedPlan()
            )
            rows = seq.mkString(_SEPARATOR).split(_SEPARATOR) if seq.size() else []
            return Answer(sql, True, rows=list(rows), sorted=ordered, types=types)
        except Exception as exc:  # every failure is an answer: Spark raises here
            error_class, message = _error(self.spark, exc)
            return Answer(sql, False, error_class=error_class, error=message)

    def _materialize(self, session: Any, view: str, ns: str, index: int) -> Answer | str:
        """Write temporary view ``view`` to an Iceberg table and point the view at it; the
        statement icesql runs then, or why the view could not be written."""
        stem = view.strip("`").lower().replace("`", "")
        table = f"{CATALOG}.{ns}.`{stem}__{index}`"
        made = self.answer(session, f"CREATE TABLE {table} USING iceberg AS SELECT * FROM {view}")
        if not made.ok:
            return f"kept as a view: {made.error_class}: {made.error}"
        over = f"CREATE OR REPLACE TEMPORARY VIEW {view} AS SELECT * FROM {table}"
        replaced = self.answer(session, over)
        if not replaced.ok:
            session.sql(f"DROP TABLE IF EXISTS {table}")
            return f"kept as a view: {replaced.error_class}: {replaced.error}"
        return over

    def run_file(
        self, test_file: InputFile, progress: Callable[[str], None] | None = None
    ) -> list[Answer]:
        """Spark's answers to every statement of ``test_file``, in order."""
        session = self.spark.newSession()
        for key, value in self.session_settings(test_file):
            session.sql(f"SET {key}={value}")
        ns = statements.namespace(test_file.name, "s")
        self._fresh_namespace(session, ns)
        session.sql(f"USE {CATALOG}.{ns}")
        builtins = statements.builtin_tables_read(test_file.queries)
        if builtins and not self._builtins_made:
            self.make_builtin_tables()
        for name in builtins:
            session.sql(statements.builtin_view(name, CATALOG))
        answers = []
        for index, query in enumerate(test_file.queries):
            if progress:
                progress(query)
            sql = statements.rewrite(query)
            answer = self.answer(session, sql)
            view = statements.temp_view_name(sql)
            if answer.ok and view is not None:
                made = self._materialize(session, view, ns, index)
                if made.startswith("CREATE"):
                    answer.setup = made
                else:
                    answer.note = made
            answers.append(answer)
        return answers

    def spark_version(self) -> str:
        return str(self.spark.version)


def session_conf(spark: Any) -> Mapping[str, str]:
    """The Spark settings that matter to a reader of the answers."""
    conf = spark.sparkContext.getConf()
    return {"master": conf.get("spark.master"), "version": str(spark.version)}
