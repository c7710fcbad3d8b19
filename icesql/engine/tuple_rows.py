"""A query's rows fetched by DuckDB itself, as Python tuples, with no Arrow in between.

A query that reads no table and no Python object (``SELECT 1``, ``SELECT current_date()``)
and whose every column has a type DuckDB turns into the same Python values as Arrow's
``to_pylist`` does (``_TYPE_CODES``) is run with DuckDB's own fetch: such a statement never
imports pyarrow and numpy (whose import is much of the work of an ``icesql -c "SELECT 1"``).
Asking for Arrow (``Result.reader``: ``fetch_arrow_table``, ``df``) takes the rows not yet
fetched from the same DuckDB result, so a query runs once whichever way it is read.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

import duckdb

from icesql.engine import overflow
from icesql.engine.run import BATCH_ROWS, Ran, Runner
from icesql.errors import DataError
from icesql.sql.translate import clean_duckdb_message, duckdb_errors, integer_overflow

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["DuckRows", "plain_description", "take_rows"]

# DuckDB type id -> the type code Cursor.description reports for the Arrow type DuckDB
# exports it as (icesql.dbapi_types.type_code); DECIMAL is handled apart. Left out, so read
# through Arrow: TIMESTAMP WITH TIME ZONE (DuckDB's datetimes carry ZoneInfo('Etc/UTC'),
# Arrow's ZoneInfo('UTC')), intervals, nested types (maps differ), HUGEINT, unsigned integers.
_TYPE_CODES = {
    "boolean": "BOOLEAN",
    "tinyint": "TINYINT",
    "smallint": "SMALLINT",
    "integer": "INT",
    "bigint": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "varchar": "STRING",
    "blob": "BINARY",
    "date": "DATE",
    "timestamp": "TIMESTAMP_NTZ",
    "null": "VOID",
}


def plain_description(description: list[tuple] | None) -> list[tuple] | None:
    """The DB-API description of a DuckDB result whose columns are all plain (``_TYPE_CODES``,
    decimals), as the Arrow path describes them; None when one is not."""
    if description is None:
        return None
    out = []
    for name, duck_type, *_ in description:
        kind = duck_type.id
        if kind == "decimal":
            params = dict(duck_type.children)
            precision, scale = params["precision"], params["scale"]
            out.append((name, f"DECIMAL({precision},{scale})", None, None, precision, scale, True))
        elif kind in _TYPE_CODES:
            out.append((name, _TYPE_CODES[kind], None, None, None, None, True))
        else:
            return None
    return out


class DuckRows:
    """The rows of a query executed on ``cursor`` (``description``: its plain description),
    fetched as tuples. ``rerun`` executes the query again on ``cursor`` with Spark's wrapping
    integer arithmetic, for an overflow raised before the first rows (as
    ``icesql.engine.overflow.stream`` does for a stream); ``arrow`` does the same for the Arrow
    stream of a result no row of which was fetched yet."""

    def __init__(
        self,
        cursor: duckdb.DuckDBPyConnection,
        description: list[tuple],
        rerun: Callable[[], None],
        arrow: Callable[[pa.RecordBatchReader], pa.RecordBatchReader],
        batch_rows: int,
    ):
        self.cursor = cursor
        self.description = description
        self._rerun = rerun
        self._arrow = arrow
        self._batch_rows = batch_rows
        self._started = False  # rows were delivered: a later overflow is an error

    def fetch(self, n: int | None) -> list[tuple]:
        """Up to ``n`` rows (all of the rest with None)."""
        if n is not None and n <= 0:
            return []
        with duckdb_errors([]):
            try:
                rows = self._fetch(n)
            except duckdb.Error as e:
                if not integer_overflow(e):
                    raise
                if self._started:
                    raise DataError(f"{clean_duckdb_message(str(e))} {overflow.TOO_LATE}") from None
                self._rerun()
                if plain_description(self.cursor.description) != self.description:
                    raise
                rows = self._fetch(n)
        self._started = self._started or bool(rows)
        return rows

    def _fetch(self, n: int | None) -> list[tuple]:
        return self.cursor.fetchall() if n is None else self.cursor.fetchmany(n)

    def to_reader(self) -> pa.RecordBatchReader:
        """The rows not fetched yet as an Arrow stream, from the same DuckDB result."""
        with warnings.catch_warnings():  # DuckDB's note that a DB-API result is copied
            warnings.simplefilter("ignore")
            with duckdb_errors([]):
                reader = self.cursor.to_arrow_reader(self._batch_rows)
        return reader if self._started else self._arrow(reader)


def take_rows(runner: Runner, ran: Ran) -> DuckRows | None:
    """The bound query executed on its cursor for DuckDB to fetch as tuples, when every
    column is of a plain type; else None (its rows are read through Arrow). An overflow while
    it executes reaches the run's overflow rerun (``icesql.engine.overflow.rerun``)."""
    description = plain_description(ran.relation.description)
    if description is None:
        return None
    cursor, translated = ran.cursor, ran.translated
    cursor.execute(translated.sql, list(translated.values))

    def rerun() -> None:
        again = overflow.wrapping(translated)
        runner.with_functions(again.sql)
        cursor.execute(again.sql, list(again.values))

    return DuckRows(
        cursor, description, rerun, lambda reader: overflow.stream(runner, ran, reader), BATCH_ROWS
    )
