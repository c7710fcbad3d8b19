"""From the rewritten Spark AST to DuckDB SQL, and from DuckDB's errors back to ours.

Parameters stay parameters: each ``?`` becomes DuckDB's positional ``$n``, and values are
bound by DuckDB, never pasted into the text.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import duckdb
from sqlglot import exp
from sqlglot.errors import ErrorLevel, UnsupportedError

from icesql.errors import (
    DatabaseError,
    DataError,
    Error,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
)
from icesql.sql.semantics import apply_spark_semantics
from icesql.sql.spark.base import RUNTIME_REFUSAL
from icesql.sql.spark.function_names import SPARK_FUNCTIONS
from icesql.sql.spark.overflow import (
    KEEP_SUMS_AS_WRITTEN,
    mark_int_parameters,
    sums_arithmetic,
    wrapping_integers,
)
from icesql.sql.tables import replace_table

__all__ = [
    "clean_duckdb_message",
    "KEEP_SUMS_AS_WRITTEN",
    "duckdb_errors",
    "integer_overflow",
    "mark_int_parameters",
    "sums_arithmetic",
    "to_duckdb_sql",
    "wrapping_integers",
]

if TYPE_CHECKING:
    from icesql.scan.table_scan import TableScan


def to_duckdb_sql(
    statement: exp.Expr, params: Sequence[object], sources: Mapping[str, exp.Expr] | None = None
) -> tuple[str, list[object]]:
    """DuckDB SQL for ``statement`` and the parameter values it still uses, renumbered.

    ``sources`` maps table names to DuckDB queries the translated statement reads in their
    place, as subqueries under the table's alias (the trees themselves: the caller hands
    each over)."""
    tree = apply_spark_semantics(statement)
    if sources:
        _read_sources(tree, sources)
    values: list[object] = []
    for node in list(tree.find_all(exp.Placeholder)):
        index = node.meta.get("icesql_param")
        if index is None:
            raise ProgrammingError(f"unsupported parameter marker {node.sql()}")
        values.append(params[index])
        node.replace(exp.Placeholder(this=str(len(values))))
    try:
        # the tree is this call's own copy: the generator need not copy it again
        return tree.sql(dialect="duckdb", copy=False, unsupported_level=ErrorLevel.RAISE), values
    except UnsupportedError as e:
        # sqlglot knows it cannot say this in DuckDB: refuse rather than drop the construct
        raise NotSupportedError(f"not supported: {e}") from None


def _read_sources(tree: exp.Expr, sources: Mapping[str, exp.Expr]) -> None:
    """Each source goes in as it is, a copy where it goes in again: copying the tree of a
    scan of many files costs as much as writing it out."""
    used: set[str] = set()
    for node in list(tree.find_all(exp.Table)):
        source = sources.get(node.name) if not node.args.get("db") else None
        if source is not None:
            this = source.copy() if node.name in used else source
            used.add(node.name)
            replace_table(node, exp.Subquery(this=this, alias=node.args.get("alias")))


_ERROR_TYPES: list[tuple[type, type[Error]]] = [
    (duckdb.ParserException, ProgrammingError),
    (duckdb.BinderException, ProgrammingError),
    (duckdb.CatalogException, ProgrammingError),
    (duckdb.SyntaxException, ProgrammingError),
    (duckdb.ConversionException, DataError),
    (duckdb.OutOfRangeException, DataError),
    (duckdb.NotImplementedException, NotSupportedError),
    (duckdb.IOException, OperationalError),
    (duckdb.OutOfMemoryException, OperationalError),  # PEP 249: a memory allocation error
    (duckdb.InternalException, InternalError),
    (duckdb.InvalidInputException, DataError),
]
_OVERFLOW = re.compile(
    r"Overflow in (addition|subtraction|multiplication|negation)|Overflow on abs"
    r"|INT(8|16|32|64|128) with value \S+ can't be cast because the value is out of range"
)


def integer_overflow(error: BaseException) -> bool:
    """Whether DuckDB refused an integer result past its type's range, where Spark (ANSI
    off) wraps around: the statement is then rerun under ``wrapping_integers``."""
    return _OVERFLOW.search(str(error)) is not None


_UNKNOWN_FUNCTION = re.compile(r"Function with name \"?(\w+)\"? does not exist")
_LINE_CONTEXT = re.compile(r"\n\s*LINE \d+:.*", re.S)
_SCAN_NAME = re.compile(r'"?__icesql_scan_\d+(_stream)?"?\.?')


def clean_duckdb_message(message: str) -> str:
    """DuckDB's message without its echo of the generated SQL or our internal view names."""
    message = _LINE_CONTEXT.sub("", message)
    return _SCAN_NAME.sub("", message).strip()


def _stream_errors() -> tuple[type[BaseException], ...]:
    """DuckDB's errors, and pyarrow's once it is loaded: a statement whose rows DuckDB
    fetched itself (``icesql.engine.tuple_rows``) loads no pyarrow to translate its errors."""
    arrow = sys.modules.get("pyarrow")
    if arrow is None:
        return (duckdb.Error, OSError)
    return (duckdb.Error, arrow.ArrowException, OSError)


@contextmanager
def duckdb_errors(
    scans: Sequence[TableScan], names: Callable[[str], Error | None] | None = None
) -> Iterator[None]:
    """Translate DuckDB exceptions; an error raised inside one of our scans wins as-is.
    ``names`` says a binder's or catalog's error of a name that resolves to nothing in the
    user's terms (``icesql.sql.spark_errors``), or gives None for DuckDB's own message.

    While rows stream, DuckDB's failures reach us through pyarrow's reader as ArrowException
    or a plain OSError, so those are translated too.
    """
    try:
        yield
    except _stream_errors() as e:
        for scan in scans:
            if scan.error is not None:
                raise scan.error from None
        for scan in scans:
            mapped = scan.file_error(str(e))
            if mapped is not None:
                raise mapped from None
        if RUNTIME_REFUSAL in str(e):  # a rewrite's refusal of an input (refuse_when)
            refused = str(e)[str(e).index(RUNTIME_REFUSAL) + len(RUNTIME_REFUSAL) :]
            raise NotSupportedError(clean_duckdb_message(refused) + " (not supported)") from None
        if not isinstance(e, duckdb.Error):
            raise OperationalError(clean_duckdb_message(str(e))) from None
        unknown = _UNKNOWN_FUNCTION.search(str(e))
        if unknown is not None and unknown.group(1).lower() in SPARK_FUNCTIONS:
            raise NotSupportedError(
                f"Spark function {unknown.group(1)}() is not supported"
            ) from None
        if names is not None and isinstance(e, (duckdb.BinderException, duckdb.CatalogException)):
            named = names(str(e))
            if named is not None:
                raise named from None
        for duck_type, ours in _ERROR_TYPES:
            if isinstance(e, duck_type):
                raise ours(clean_duckdb_message(str(e))) from None
        raise DatabaseError(clean_duckdb_message(str(e))) from None
