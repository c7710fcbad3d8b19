"""One root error for everything icesql raises, laid out as PEP 249 asks.

Every error carries the context a user needs to act on it (SQL position, table, snapshot,
file); the message is complete on its own, so no traceback is needed to understand it.
"""

from __future__ import annotations


class Warning(Exception):
    """Important warnings (PEP 249)."""


class Error(Exception):
    """Root of every icesql error (PEP 249)."""


class InterfaceError(Error):
    """Misuse of the DB-API itself: a closed cursor, fetch before execute."""


class DatabaseError(Error):
    """Errors related to the database: tables, files, statements."""


class DataError(DatabaseError):
    """A value that does not fit: overflow, bad cast, division by zero."""


class OperationalError(DatabaseError):
    """The storage or catalog failed: missing, unreadable or corrupt files."""


class IntegrityError(DatabaseError):
    """A constraint was violated, e.g. NULL written to a required column."""


class InternalError(DatabaseError):
    """A bug in icesql: an invariant that should hold did not."""


class ProgrammingError(DatabaseError):
    """The statement is wrong: syntax, unknown table / column / snapshot, bad parameters."""


class NotSupportedError(DatabaseError):
    """Valid Spark SQL or Iceberg feature that icesql does not implement (yet)."""


class CommitConflictError(OperationalError):
    """A concurrent commit won the race and this one could not be retried."""


class CorruptFileError(OperationalError):
    """A metadata, manifest or data file could not be decoded; the message names the file."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"corrupt or unreadable file {path}: {reason}")
        self.path = path
        self.reason = reason


class NoSuchTableError(ProgrammingError):
    """The table does not exist in the catalog."""


class NoSuchViewError(NoSuchTableError):
    """The view does not exist in the catalog (a kind of "no such table or view")."""


class NoSuchNamespaceError(ProgrammingError):
    """The namespace does not exist in the catalog."""


class AlreadyExistsError(ProgrammingError):
    """A table or namespace of that name exists already."""


__all__ = [
    "AlreadyExistsError",
    "CommitConflictError",
    "CorruptFileError",
    "DataError",
    "DatabaseError",
    "Error",
    "IntegrityError",
    "InterfaceError",
    "InternalError",
    "NoSuchNamespaceError",
    "NoSuchTableError",
    "NoSuchViewError",
    "NotSupportedError",
    "OperationalError",
    "ProgrammingError",
    "Warning",
]
