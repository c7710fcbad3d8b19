"""INSERT INTO: the statement's rows, streamed into data files, committed as one append.

The source (``VALUES`` or a query, which may read Iceberg tables, the target included) runs
through the engine's query path as an Arrow stream; each batch is converted to the table's
columns by Spark's store assignment rules (``icesql.statements.assign``) and handed to the
data writer, so the source is never held in memory. Only when every row has been written
does the commit happen; an error on the way deletes the files written so far and leaves
the table unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa
from sqlglot import exp

from icesql.catalog.base import CommitStateUnknownError
from icesql.catalog.table import Table
from icesql.errors import NoSuchTableError, NotSupportedError
from icesql.metadata.manifest import DataFile
from icesql.sql.translate import duckdb_errors
from icesql.statements.assign import Assignment
from icesql.statements.names import name_parts, table_identifier
from icesql.statements.results import done
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.snapshot import Change

if TYPE_CHECKING:
    from icesql.engine import Engine, Result

__all__ = ["as_query", "insert", "write_query"]


def as_query(source: exp.Expr) -> exp.Expr:
    """A ``VALUES`` list as ``SELECT * FROM (VALUES ...)``; queries as they are."""
    if isinstance(source, exp.Values):
        return exp.select("*").from_(exp.Subquery(this=source.copy()))
    if isinstance(source, exp.Query):
        return source
    raise NotSupportedError(f"cannot insert the result of {source.sql(dialect='spark')[:60]}")


def write_query(
    engine: Engine,
    table: Table,
    query: exp.Expr | None,
    params: Sequence[object],
    columns: Sequence[str] | None = None,
    target: WriteTarget | None = None,
    result: Result | None = None,
) -> tuple[list[DataFile], int, pa.Schema]:
    """Run ``query`` (or read the already started ``result``) and write its rows as data
    files of ``table``, not committed.

    Returns the files, the row count and the query's Arrow schema. On error every file
    written is deleted before the error propagates.
    """
    if result is None:
        assert query is not None
        result = engine.query(query, params)
    writer: DataWriter | None = None
    try:
        reader = result.reader
        assert reader is not None
        target = target or WriteTarget.for_table(table)
        assignment = Assignment(table.name, target.schema, reader.schema, columns)
        writer = DataWriter(target)
        with duckdb_errors(result.scans):
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    break
                writer.write(assignment.convert(batch))
        files = writer.close()
        return files, writer.rows, reader.schema
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    finally:
        result.close()


def _target(engine: Engine, node: exp.Expr) -> tuple[Table, list[str] | None]:
    columns = None
    if isinstance(node, exp.Schema):
        columns = [c.name for c in node.expressions]
        node = node.this
    identifier = table_identifier(name_parts(node), engine.catalog.name, engine.default_namespace)
    if not engine.catalog.table_exists(identifier):
        suffix = identifier[-1].lower()
        if len(identifier) > 2 and suffix.startswith(("branch_", "tag_")):
            raise NotSupportedError(f"writing to a branch ({'.'.join(identifier)}) is not supported yet")
        raise NoSuchTableError(f"table not found: {'.'.join(identifier)}")
    return engine.catalog.load_table(identifier), columns


def insert(engine: Engine, statement: exp.Expr, params: Sequence[object]) -> Result:
    """``INSERT INTO [TABLE] t [(columns)] VALUES ... | query``: one append commit."""
    assert isinstance(statement, exp.Insert)
    if statement.args.get("overwrite"):
        raise NotSupportedError("INSERT OVERWRITE is not supported yet")
    if statement.args.get("partition"):
        raise NotSupportedError("INSERT INTO ... PARTITION (...) is not supported yet")
    if statement.args.get("by_name"):
        raise NotSupportedError("INSERT INTO ... BY NAME is not supported yet")
    table, columns = _target(engine, statement.this)
    query = as_query(statement.expression)
    files, rows, _ = write_query(engine, table, query, params, columns)
    try:
        commit(engine.catalog, table, Change(operation="append", added_files=tuple(files)))
    except CommitStateUnknownError:
        raise  # the files may be part of the table now
    except BaseException:
        _delete_files(table, files)
        raise
    return done(rows)


def _delete_files(table: Table, files: Sequence[DataFile]) -> None:
    for f in files:
        try:
            table.io.delete(f.file_path)
        except Exception:  # noqa: BLE001 - the commit error is what the user needs to see
            pass
