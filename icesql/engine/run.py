"""The run stage: a translated query handed to DuckDB on a cursor of its own.

``run`` opens the cursor, sets it up and registers what the query reads by name; ``attempt``
binds the SQL on it and hands the relation to ``take`` (what the caller needs of it: an
Arrow stream, tuples, a plan text). What goes around a run is a wrapper of ``attempt``, not
a branch in it: the overflow rerun (``icesql.engine.overflow``), progress
(``icesql.engine.watch``); the tuple fast path is a ``take`` (``icesql.engine.tuple_rows``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from sqlglot import exp

from icesql.errors import Error
from icesql.sql.spark_errors import Relation, unresolved_name
from icesql.sql.translate import duckdb_errors

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from icesql.engine.plan import Planned
    from icesql.engine.to_duckdb import Translated
    from icesql.progress import ProgressTracker
    from icesql.sql.bound_query import TableSource

__all__ = ["BATCH_ROWS", "Attempt", "Ran", "Runner", "attempt", "bound_relation", "run"]

BATCH_ROWS = 64 * 1024  # rows per batch of a query's Arrow stream
_T = TypeVar("_T")


class Runner(Protocol):
    """What running asks of the connection (``icesql.engine.Engine`` is one)."""

    progress: ProgressTracker

    @property
    def search_path(self) -> tuple[str, ...]:
        """The current catalog and namespace, as Spark names them in errors."""
        ...

    def duck_cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor of the connection's database, which ``interrupt`` reaches."""
        ...

    def with_functions(self, sql: str) -> None:
        """Register the Python functions ``sql`` calls, before it runs."""
        ...


@dataclass(frozen=True)
class Ran:
    """A query bound by DuckDB on its cursor: what a ``take`` reads the rows from."""

    translated: Translated
    cursor: duckdb.DuckDBPyConnection
    relation: duckdb.DuckDBPyRelation


Take = Callable[[Ran], _T]
Attempt = Callable[["Runner", "duckdb.DuckDBPyConnection", "Translated", Take[_T]], _T]


def bound_relation(
    runner: Runner, cursor: duckdb.DuckDBPyConnection, translated: Translated
) -> duckdb.DuckDBPyRelation:
    """DuckDB's relation of ``translated``'s SQL on ``cursor`` (not executed yet)."""
    runner.with_functions(translated.sql)
    sql, values = translated.sql, list(translated.values)
    return cursor.sql(sql, params=values) if values else cursor.sql(sql)


def attempt(
    runner: Runner, cursor: duckdb.DuckDBPyConnection, translated: Translated, take: Take[_T]
) -> _T:
    """Bind the query on ``cursor`` and ``take`` what the caller needs of it. Bound, the
    keep-masks the scans built while DuckDB bound are handed over whole (``KeepMask.settle``)."""
    relation = bound_relation(runner, cursor, translated)
    if not translated.explain:
        for scan in translated.planned.scans.values():
            scan.settle()
    return take(Ran(translated, cursor, relation))


def run(
    runner: Runner, translated: Translated, take: Take[_T], tried: Attempt[_T] = attempt
) -> tuple[duckdb.DuckDBPyConnection, _T]:
    """Open a cursor, set it up, register the query's views on it and ``tried`` the query
    (DuckDB's errors translated). On failure the cursor is closed; the plan's scans stay
    the caller's to release."""
    cursor = runner.duck_cursor()
    try:
        for statement in translated.setup:
            cursor.execute(statement)
        for name, obj in translated.views.items():
            cursor.register(name, obj)
        planned = translated.planned
        with duckdb_errors(
            list(planned.scans.values()),
            functools.partial(_spark_terms, planned, runner),
        ):
            return cursor, tried(runner, cursor, translated, take)
    except Error:
        cursor.close()
        raise


def _spark_terms(planned: Planned, runner: Runner, message: str) -> Error | None:
    return spark_terms(
        planned.statement,
        planned.sources,
        planned.metadata_views,
        planned.qualifiers,
        runner.search_path,
        message,
    )


def spark_terms(
    statement: exp.Expr,
    sources: Mapping[str, TableSource],
    metadata_views: Mapping[str, pa.Table],
    qualifiers: Mapping[str, tuple[str, ...]],
    search_path: tuple[str, ...],
    message: str,
) -> Error | None:
    """DuckDB's error of a name that resolves to nothing, as Spark says it of the query as
    written (None: DuckDB's message stands), from what the statement was bound over (its
    views' columns, and how the query names each view). Only a failed query pays for it."""
    columns = {v: tuple(f.name for f in s.schema.fields) for v, s in sources.items()}
    columns.update((v, tuple(t.column_names)) for v, t in metadata_views.items())
    aliases = {t.name: t.alias_or_name for t in statement.find_all(exp.Table)}
    relations = {
        view: Relation(qualifiers.get(view) or (aliases.get(view, view),), names)
        for view, names in columns.items()
    }
    return unresolved_name(message, statement, relations, search_path)
