"""icesql's answers to a test file, beside Spark's, over the same Iceberg tables.

Each file gets a fresh ``icesql.connect(spark_conf=...)`` on the warehouse Spark wrote (the
catalog settings Spark has, and the session time zone), and a namespace of its own (``i_<file>``, emptied first) for the
file's own ``CREATE TABLE`` / ``INSERT``. The settings Spark ran the file under that are not
Spark 3.5's defaults (``spark.sql.ansi.enabled=true`` under ``ansi/``, the file's ``--SET``)
are SET first; when icesql refuses one, no query of the file runs and each is answered by
that refusal (icesql cannot answer them as asked). The same holds within a file: after a
``SET key=value`` icesql refuses, each statement up to the next SET of that key that icesql
takes (or a ``RESET``) is answered by the refusal, since Spark answered it under that value.
Spark's answer to a temporary view it wrote
to a table names the view icesql makes over that table (``Answer.setup``); every other
statement runs as Spark ran it.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Sequence

import icesql
from benchmarks.spark_sql_tests import statements
from benchmarks.spark_sql_tests.answers import Answer
from benchmarks.spark_sql_tests.hive_format import format_rows
from benchmarks.spark_sql_tests.splitting import InputFile

__all__ = ["answer", "file_settings", "run_file", "spark_conf"]

_MESSAGE_CHARS = 300
_SET = re.compile(r"^\s*SET\s+([\w.]+)\s*=\s*(.*?)\s*;?\s*$", re.IGNORECASE | re.DOTALL)
_RESET = re.compile(r"^\s*RESET\s*;?\s*$", re.IGNORECASE)


def file_settings(test_file: InputFile) -> list[tuple[str, str]]:
    """What icesql is SET to before a file's queries (module docstring)."""
    ansi = [("spark.sql.ansi.enabled", "true")] if test_file.name.startswith("ansi/") else []
    return [*ansi, *test_file.settings]


def spark_conf(warehouse: str, time_zone: str) -> dict[str, str]:
    """The Spark settings icesql opens the warehouse with: Spark's own catalog settings
    (``spark_side``), so the session time zone reaches icesql as a Spark pipeline sets it."""
    return {
        "spark.sql.catalog.local": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.local.type": "hadoop",
        "spark.sql.catalog.local.warehouse": warehouse,
        "spark.sql.defaultCatalog": "local",
        "spark.sql.session.timeZone": time_zone,
    }


def _error(exc: BaseException, sql: str) -> Answer:
    message = (str(exc).strip().split("\n", 1) or [""])[0][:_MESSAGE_CHARS]
    refused = isinstance(exc, icesql.NotSupportedError)
    return Answer(sql, False, error_class=type(exc).__name__, error=message, refused=refused)


def answer(con: icesql.Connection, sql: str, time_zone: str, hints: Sequence[str]) -> Answer:
    """icesql's answer to one statement, its rows formatted as Spark's (``hive_format``)."""
    try:
        cursor = con.execute(sql)
        if cursor.description is None:
            return Answer(sql, True)
        table = cursor.fetch_arrow_table()
        rows = ["\t".join(cells) for cells in format_rows(table, time_zone, hints)]
        types = [str(d[1]) for d in cursor.description]
        return Answer(sql, True, rows=rows, types=types)
    except Exception as exc:  # every failure is an answer: icesql raises here
        return _error(exc, sql)


def _under_refused(sql: str, refusal: Answer) -> Answer:
    """The answer to a statement Spark ran under a setting icesql refused to take."""
    note = f"under {refusal.sql.strip().rstrip(';')}, refused: {refusal.error}"
    return Answer(sql, False, error_class=refusal.error_class, error=note, refused=True)


def run_file(
    warehouse: str,
    test_file: InputFile,
    spark_answers: Sequence[Answer],
    time_zone: str = "UTC",
    progress: Callable[[str], None] | None = None,
) -> list[Answer]:
    """icesql's answer to each statement Spark answered, in order."""
    ns = statements.namespace(test_file.name, "i")
    shutil.rmtree(os.path.join(warehouse, ns), ignore_errors=True)
    con = icesql.connect(spark_conf=spark_conf(warehouse, time_zone))
    try:
        con.execute(f"CREATE NAMESPACE {ns}")
        con.execute(f"USE {ns}")
        for key, value in file_settings(test_file):
            refusal = answer(con, f"SET {key}={value}", time_zone, ())
            if not refusal.ok:
                note = f"SET {key}={value} refused: {refusal.error_class}: {refusal.error}"
                return [
                    Answer(a.sql, False, error_class=refusal.error_class, error=note, refused=True)
                    for a in spark_answers
                ]
        for name in statements.builtin_tables_read(test_file.queries):
            con.execute(statements.builtin_view(name))
        answers = []
        refused: dict[str, Answer] = {}  # key -> the refusal of its SET, still in force
        for spark_answer in spark_answers:
            sql = spark_answer.setup or spark_answer.sql
            if progress:
                progress(sql)
            mine = answer(con, sql, time_zone, spark_answer.types)
            if spark_answer.setup:
                mine.setup = sql
            setting = _SET.match(sql)
            if _RESET.match(sql):
                refused.clear()
            elif setting and mine.ok:
                refused.pop(setting.group(1).lower(), None)
            elif refused and not setting and not spark_answer.setup:
                mine = _under_refused(sql, next(iter(refused.values())))
            if setting and not mine.ok and mine.refused:
                refused[setting.group(1).lower()] = mine
            answers.append(mine)
        return answers
    finally:
        con.close()
