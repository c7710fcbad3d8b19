"""icesql: Spark SQL over Apache Iceberg tables, embedded in Python (PEP 249)."""

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

apilevel = "2.0"
threadsafety = 1
paramstyle = "qmark"

__version__ = "0.1.0"

__all__ = [
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
