"""icesql: Spark SQL over Apache Iceberg tables, embedded in Python (PEP 249).

The root is lazy (PEP 562): ``connect``, ``Connection``, ``Cursor`` and the PEP 249 type
objects load the engine (DuckDB, sqlglot, pyarrow) on first use, so importing a light
submodule such as ``icesql.spec.types`` stays cheap. The exceptions are plain classes and
load at once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from icesql._version import __version__ as __version__
from icesql.errors import (
    CommitConflictError,
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
)

if TYPE_CHECKING:
    from icesql.dbapi import Connection, Cursor, connect
    from icesql.dbapi.relation import Relation
    from icesql.dbapi_types import (
        BINARY,
        DATETIME,
        NUMBER,
        ROWID,
        STRING,
        Binary,
        Date,
        DateFromTicks,
        Time,
        TimeFromTicks,
        Timestamp,
        TimestampFromTicks,
    )

apilevel = "2.0"
threadsafety = 1
paramstyle = "qmark"

# name -> the module that defines it, imported on first access
_LAZY = {
    "Connection": "icesql.dbapi",
    "Cursor": "icesql.dbapi",
    "connect": "icesql.dbapi",
    "Relation": "icesql.dbapi.relation",
    **{
        name: "icesql.dbapi_types"
        for name in (
            "BINARY",
            "DATETIME",
            "NUMBER",
            "ROWID",
            "STRING",
            "Binary",
            "Date",
            "DateFromTicks",
            "Time",
            "TimeFromTicks",
            "Timestamp",
            "TimestampFromTicks",
        )
    },
}

__all__ = [
    "BINARY",
    "DATETIME",
    "NUMBER",
    "ROWID",
    "STRING",
    "Binary",
    "Connection",
    "Cursor",
    "Relation",
    "Date",
    "DateFromTicks",
    "Time",
    "TimeFromTicks",
    "Timestamp",
    "TimestampFromTicks",
    "connect",
    "CommitConflictError",
    "DataError",
    "DatabaseError",
    "Error",
    "IntegrityError",
    "InterfaceError",
    "InternalError",
    "NotSupportedError",
    "OperationalError",
    "ProgrammingError",
    "Warning",
    "apilevel",
    "paramstyle",
    "threadsafety",
]


def __getattr__(name: str) -> Any:
    """Load a lazy public name from its module and keep it on the package."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'icesql' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
