"""Progress around a run: DuckDB asked to track its progress, and told to the connection's
listeners (``icesql.progress``) with the files it reads itself.

DuckDB's own progress is followed for every query (a join of ``range``s reads no file, yet
runs for seconds), the files it reads counting as done in proportion to it.

Only while a listener is registered: DuckDB's progress tracking costs the query time, and a
connection nobody watches pays nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from icesql.engine.run import Attempt, Runner, Take

if TYPE_CHECKING:
    import duckdb

    from icesql.engine.to_duckdb import Translated

__all__ = ["watched"]

_T = TypeVar("_T")
_PROGRESS_SETUP = ("SET enable_progress_bar = true", "SET enable_progress_bar_print = false")


def watched(tried: Attempt[_T]) -> Attempt[_T]:
    """``tried`` with DuckDB's progress on and its native reads reported, while the
    connection has progress listeners (never for an EXPLAIN, which reads nothing)."""

    def watching(
        runner: Runner, cursor: duckdb.DuckDBPyConnection, translated: Translated, take: Take[_T]
    ) -> _T:
        progress = runner.progress
        if not progress.active or translated.explain:
            return tried(runner, cursor, translated, take)
        for statement in _PROGRESS_SETUP:
            cursor.execute(statement)
        progress.duck_query(cursor)
        for files, size in translated.native_files.values():
            progress.duck_read(cursor, files, size)
        try:
            return tried(runner, cursor, translated, take)
        except BaseException:
            progress.forget(cursor)  # before the run closes the cursor
            raise

    return watching
