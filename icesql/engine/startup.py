"""A DuckDB database opened on a thread while the rest of icesql loads.

``duckdb.connect`` takes a noticeable while, and lets go of the GIL while it builds the
database. The ``icesql`` command has nothing to run until the engine is loaded (sqlglot,
DuckDB's Python package and the statements take longer to import than the database takes to
open), so it starts the database first (``start``) and the first engine made afterwards
takes it (``take``) instead of opening its own: the opening overlaps the imports.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["discard", "start", "take"]

_lock = threading.Lock()
_thread: threading.Thread | None = None
_opened: list[Any] = []  # the database, once opened and not yet taken


def start() -> None:
    """Open an in-memory DuckDB database on a thread, unless one is opening or unclaimed."""
    global _thread
    import duckdb  # here: importing it on the thread contends for the GIL with the engine's

    with _lock:
        if _thread is None and not _opened:
            _thread = threading.Thread(
                target=_open, args=(duckdb,), name="icesql-duckdb-start", daemon=True
            )
            _thread.start()


def take() -> Any | None:
    """The database ``start`` opened (waiting for it), or None: none was started, it was
    taken already, or it failed (the engine then opens its own, and reports its error)."""
    global _thread
    with _lock:
        thread, _thread = _thread, None
    if thread is not None:
        thread.join()
    with _lock:
        return _opened.pop() if _opened else None


def discard() -> None:
    """Close the database ``start`` opened if no engine took it (the connection failed
    first), so that a caller who goes on (a test, a program running the shell's ``main``)
    is not left holding it."""
    database = take()
    if database is not None:
        database.close()


def _open(duckdb: Any) -> None:
    try:
        database = duckdb.connect(":memory:")
    except Exception:  # the engine's own connect says what is wrong
        return
    with _lock:
        _opened.append(database)
