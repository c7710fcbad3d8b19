"""Spark's wrapping integer arithmetic, for a query DuckDB refused with an overflow.

Spark wraps an integer overflow around where DuckDB raises. Only a rerun types the integer
operators (``icesql.sql.spark.overflow``), so queries that do not overflow pay nothing: the
query is run again on the same cursor, over the same registered reads (so the same
snapshot), when DuckDB raised the overflow while binding or starting it (``rerun``), or
while making its first batch (``stream``, and ``icesql.engine.tuple_rows`` for tuples).
Once rows were delivered a later overflow stays an error: a rerun would deliver them twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

import duckdb

from icesql._lazy import lazy_module
from icesql.engine.run import BATCH_ROWS, Attempt, Ran, Runner, Take, bound_relation
from icesql.engine.to_duckdb import Translated, duckdb_statement
from icesql.errors import DataError
from icesql.sql.bound_query import bind_query
from icesql.sql.translate import (
    clean_duckdb_message,
    duckdb_errors,
    integer_overflow,
    mark_int_parameters,
    to_duckdb_sql,
    wrapping_integers,
)

if TYPE_CHECKING:
    import pyarrow as pa
else:  # Arrow loads with the first result read as a stream
    pa = lazy_module("pyarrow")

__all__ = ["TOO_LATE", "rerun", "stream", "wrapping"]

_T = TypeVar("_T")
TOO_LATE = (
    "(Spark wraps integer overflow around; icesql reruns such a query with wrapping arithmetic"
    " only when the overflow comes before the first rows are returned: order the rows, or"
    " CAST to BIGINT)"
)


def wrapping(translated: Translated) -> Translated:
    """``translated`` with Spark's wrapping integer arithmetic, over the same reads."""
    planned, params = translated.planned, translated.params
    statement = duckdb_statement(planned).copy()  # a kept query's stays as it was planned
    with wrapping_integers():
        bind_query(statement, planned.sources)  # records the operands' types on the nodes
        mark_int_parameters(statement, params)
        sql, values = to_duckdb_sql(statement, params, translated.source_trees())
    return translated.with_sql(sql, tuple(values))


def rerun(tried: Attempt[_T]) -> Attempt[_T]:
    """``tried``, run again with wrapping arithmetic when DuckDB raises an overflow while it
    binds or starts the query (an EXPLAIN is never rerun)."""

    def overflowing(
        runner: Runner, cursor: duckdb.DuckDBPyConnection, translated: Translated, take: Take[_T]
    ) -> _T:
        try:
            return tried(runner, cursor, translated, take)
        except duckdb.Error as e:
            if translated.explain or not integer_overflow(e):
                raise
        return tried(runner, cursor, wrapping(translated), take)

    return overflowing


def stream(runner: Runner, ran: Ran, reader: pa.RecordBatchReader) -> pa.RecordBatchReader:
    """``reader``, rerun with wrapping arithmetic when its first batch overflows (a streamed
    projection fails only when it is read)."""
    scans = list(ran.translated.planned.scans.values())

    def batches() -> Iterable[pa.RecordBatch]:
        try:
            first = reader.read_next_batch()
        except StopIteration:
            return
        except (duckdb.Error, pa.ArrowException, OSError) as e:
            if not integer_overflow(e):
                raise
            with duckdb_errors(scans):
                relation = bound_relation(runner, ran.cursor, wrapping(ran.translated))
                again = relation.to_arrow_reader(BATCH_ROWS)
            if again.schema != reader.schema:
                raise
            yield from again
            return
        yield first
        try:
            yield from reader
        except (duckdb.Error, pa.ArrowException, OSError) as e:
            if not integer_overflow(e) or any(scan.error for scan in scans):
                raise
            raise DataError(f"{clean_duckdb_message(str(e))} {TOO_LATE}") from None

    return pa.RecordBatchReader.from_batches(reader.schema, batches())
