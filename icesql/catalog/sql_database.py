"""The database behind the SQL catalog: SQLite through the standard library, any other
database through a SQLAlchemy URL.

SQLite needs nothing installed and is what PyIceberg's ``SqlCatalog`` and most local setups
use; it takes PyIceberg's URLs (``sqlite:///relative.db``, ``sqlite:////abs/path.db``), Java's
JDBC ones (``jdbc:sqlite:/path.db``, ``jdbc:sqlite:file:/path.db``) and plain file paths.
Every other URL (``postgresql+psycopg://...``, ``mysql+pymysql://...``) goes through
SQLAlchemy, the same layer PyIceberg uses, so one URL works for both clients; it is imported
only then. Statements use ``:name`` parameters, which both sqlite3 and SQLAlchemy's
``text()`` accept, so the catalog's SQL is written once.
"""

from __future__ import annotations

import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from icesql.errors import NotSupportedError, OperationalError

__all__ = ["Database", "DuplicateKeyError", "NoRowChangedError", "open_database", "sqlite_path"]

Params = Mapping[str, Any]
BUSY_TIMEOUT_S = 30.0  # how long a SQLite writer waits for another process's lock


class DuplicateKeyError(Exception):
    """An insert hit the primary key of an existing row."""


class NoRowChangedError(Exception):
    """A statement of an all-or-nothing transaction changed no row; nothing was changed."""

    def __init__(self, index: int) -> None:
        super().__init__(f"statement {index} changed no row")
        self.index = index


def _counted(index: int, count: int, each_one: bool) -> int:
    if each_one and count != 1:
        raise NoRowChangedError(index)
    return count


class Database(ABC):
    """Runs the catalog's statements; ``change`` runs several in one transaction."""

    uri: str

    @abstractmethod
    def query(self, sql: str, params: Params | None = None) -> list[tuple[Any, ...]]: ...

    @abstractmethod
    def change(self, statements: Sequence[tuple[str, Params]], each_one: bool = False) -> list[int]:
        """Run ``statements`` in one transaction; the rows each affected. With ``each_one``,
        a statement changing other than one row rolls everything back (NoRowChangedError):
        several compare-and-swaps that land together or not at all."""

    @abstractmethod
    def close(self) -> None:
        """Release the database connection."""


def sqlite_path(uri: str) -> str | None:
    """The SQLite file a URI names (``:memory:`` for an in-memory one), or None when the URI
    is not a SQLite one."""
    if uri.startswith("jdbc:sqlite:"):
        rest = uri[len("jdbc:sqlite:") :]
        return rest[len("file:") :] if rest.startswith("file:") else rest
    if uri.startswith("sqlite:"):
        rest = uri[len("sqlite:") :]
        if rest in ("", "//", "///"):
            return ":memory:"
        if not rest.startswith("///"):
            raise NotSupportedError(f"SQLite URL {uri!r} names a host; use sqlite:///path")
        return rest[3:].split("?", 1)[0]
    if "://" in uri or uri.startswith("jdbc:"):
        return None
    return uri  # a plain file path


def open_database(uri: str) -> Database:
    """The database a catalog ``uri`` names."""
    path = sqlite_path(uri)
    if path is not None:
        return _SQLite(uri, path)
    if uri.startswith("jdbc:"):
        raise NotSupportedError(
            f"cannot open {uri!r}: JDBC URLs other than jdbc:sqlite: have no Python driver;"
            " give the SQLAlchemy URL of the same database (e.g. postgresql+psycopg://...)"
        )
    return _SQLAlchemy(uri)


class _SQLite(Database):
    """One connection in autocommit mode, shared by the connection's threads under a lock;
    other processes are kept apart by SQLite's own file locks (a writer waits up to
    ``BUSY_TIMEOUT_S`` for another's transaction)."""

    def __init__(self, uri: str, path: str) -> None:
        self.uri = uri
        try:
            self._con = sqlite3.connect(
                path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as e:
            raise OperationalError(f"cannot open SQL catalog database {uri!r}: {e}") from e
        self._lock = threading.Lock()

    def query(self, sql: str, params: Params | None = None) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._con.execute(sql, dict(params or {})).fetchall()
            except sqlite3.Error as e:
                raise _error(self.uri, e) from e

    def change(self, statements: Sequence[tuple[str, Params]], each_one: bool = False) -> list[int]:
        with self._lock:
            try:
                self._con.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise _error(self.uri, e) from e
            try:
                counts = [
                    _counted(i, self._con.execute(sql, dict(params)).rowcount, each_one)
                    for i, (sql, params) in enumerate(statements)
                ]
                self._con.execute("COMMIT")
                return counts
            except BaseException as e:
                self._con.execute("ROLLBACK")
                if isinstance(e, sqlite3.IntegrityError):
                    raise DuplicateKeyError(str(e)) from e
                if isinstance(e, sqlite3.Error):
                    raise _error(self.uri, e) from e
                raise

    def close(self) -> None:
        self._con.close()


class _SQLAlchemy(Database):
    def __init__(self, uri: str) -> None:
        try:
            import sqlalchemy
        except ImportError as e:
            raise NotSupportedError(
                f"cannot open {uri!r}: SQL catalogs other than SQLite need SQLAlchemy and the"
                " database's driver (pip install sqlalchemy psycopg ...)"
            ) from e
        self.uri = uri
        self._sa = sqlalchemy
        try:
            self._engine = sqlalchemy.create_engine(uri)
        except Exception as e:
            raise OperationalError(f"cannot open SQL catalog database {uri!r}: {e}") from e

    def query(self, sql: str, params: Params | None = None) -> list[tuple[Any, ...]]:
        try:
            with self._engine.connect() as con:
                return [tuple(r) for r in con.execute(self._sa.text(sql), dict(params or {}))]
        except self._sa.exc.SQLAlchemyError as e:
            raise _error(self.uri, e) from e

    def change(self, statements: Sequence[tuple[str, Params]], each_one: bool = False) -> list[int]:
        try:
            with self._engine.begin() as con:  # an exception inside rolls back
                return [
                    _counted(i, con.execute(self._sa.text(sql), dict(p)).rowcount, each_one)
                    for i, (sql, p) in enumerate(statements)
                ]
        except self._sa.exc.IntegrityError as e:
            raise DuplicateKeyError(str(e)) from e
        except self._sa.exc.SQLAlchemyError as e:
            raise _error(self.uri, e) from e

    def close(self) -> None:
        self._engine.dispose()


def _error(uri: str, e: Exception) -> OperationalError:
    return OperationalError(f"SQL catalog database {uri!r}: {e}")
