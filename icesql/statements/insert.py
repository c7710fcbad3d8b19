"""INSERT INTO / INSERT OVERWRITE: the statement's rows, streamed into data files, committed
as one append (or, for INSERT OVERWRITE, one overwrite: ``icesql.statements.overwrite``).

The source (``VALUES`` or a query, which may read Iceberg tables, the target included) runs
through the engine's query path as an Arrow stream; each batch is converted to the table's
columns by Spark's store assignment rules (``icesql.sql.store_assignment``) and handed to the
data writer, so the source is never held in memory. Only when every row has been written
does the commit happen; an error on the way deletes the files written so far and leaves
the table unchanged. Static values of a PARTITION clause are added to every batch as the
columns they fill before the conversion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import pyarrow as pa
from sqlglot import exp

from icesql.catalog.base import Catalog, CommitStateUnknownError
from icesql.catalog.table import Table
from icesql.errors import NoSuchTableError, NotSupportedError, ProgrammingError
from icesql.metadata.snapshots import MAIN_BRANCH
from icesql.session import Result, Session, WriteRef, write_ref
from icesql.session.result import done
from icesql.spec.content_file import DataFile
from icesql.sql.defaults import fill_values_defaults
from icesql.sql.identifiers import name_parts
from icesql.sql.store_assignment import Assignment, arity_error
from icesql.sql.translate import duckdb_errors
from icesql.statements.names import table_name
from icesql.statements.overwrite import overwrite_change, partition_clause
from icesql.statements.views import refuse_view_target
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.snapshot import Change, SnapshotOperation

__all__ = ["DmlTarget", "as_query", "insert", "target_table", "write_query"]


PYTHON_BATCH_ROWS = 64 * 1024  # a Python table's rows are written in batches as a query's


def as_query(source: exp.Expr) -> exp.Expr:
    """A ``VALUES`` list as ``SELECT * FROM (VALUES ...)``; queries as they are."""
    if isinstance(source, exp.Values):
        return exp.select("*").from_(exp.Subquery(this=source.copy()))
    if isinstance(source, exp.Query):
        return source
    raise NotSupportedError(f"cannot insert the result of {source.sql(dialect='spark')[:60]}")


def write_query(
    session: Session,
    table: Table,
    query: exp.Expr | None,
    params: Sequence[object],
    columns: Sequence[str] | None = None,
    target: WriteTarget | None = None,
    result: Result | None = None,
    static: Mapping[str, pa.Scalar] | None = None,
) -> tuple[list[DataFile], int, pa.Schema]:
    """Run ``query`` (or read the already started ``result``) and write its rows as data
    files of ``table``, not committed.

    ``static`` gives values for some columns (a PARTITION clause): the query supplies the
    others, in table order or as ``columns`` lists them. Returns the files, the row count
    and the query's Arrow schema. On error every file written is deleted before the error
    propagates.
    """
    if result is None:
        assert query is not None
        rows = session.python_rows(query)
        result = (
            Result(reader=rows.to_reader(PYTHON_BATCH_ROWS))
            if rows is not None
            else session.query(query, params)
        )
    writer: DataWriter | None = None
    try:
        reader = result.reader
        assert reader is not None
        target = target or WriteTarget.for_table(table)
        source = reader.schema
        constants = list((static or {}).items())
        if constants:
            names = {n.lower() for n, _ in constants}
            if columns is None:
                columns = [f.name for f in target.schema.fields if f.name.lower() not in names]
            if len(columns) != len(source):
                raise arity_error(table.name, list(columns), source.names)
            columns = [*columns, *(n for n, _ in constants)]
            source = pa.schema([*source, *(pa.field(n, v.type) for n, v in constants)])
        assignment = Assignment(table.name, target.schema, source, columns)
        progress = session.progress
        writer = DataWriter(target, progress)
        with duckdb_errors(result.scans):
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    break
                if constants:
                    batch = pa.RecordBatch.from_arrays(
                        [*batch.columns, *(pa.repeat(v, batch.num_rows) for _, v in constants)],
                        schema=source,
                    )
                writer.write(assignment.convert(batch))
        if progress.active:
            progress.read_to_end()
        files = writer.close()
        return files, writer.rows, reader.schema
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    finally:
        result.close()


class DmlTarget(NamedTuple):
    """The table a DML statement writes, its column list (if any) and where the commit lands."""

    catalog: Catalog
    table: Table
    columns: list[str] | None
    ref: WriteRef


def target_table(session: Session, node: exp.Expr) -> DmlTarget:
    """The catalog and table a DML statement writes, its column list, and the branch it
    commits to: the ``t.branch_b`` suffix (an existing branch, as Spark's ``SparkTable``
    requires), else the session's write-audit-publish branch or staging id
    (``icesql.session.wap``), else ``main``. A tag takes no writes."""
    columns = None
    if isinstance(node, exp.Schema):
        columns = [c.name for c in node.expressions]
        node = node.this
    refuse_view_target(session, node)
    catalog, identifier = table_name(session, name_parts(node))
    branch = None
    tables = session.tables  # the statement's query binds the same loaded table
    table = tables.find(catalog, identifier)
    if table is None:
        suffix = identifier[-1]
        kind, _, ref = suffix.partition("_")
        if len(identifier) < 3 or kind.lower() not in ("branch", "tag") or not ref:
            raise NoSuchTableError(f"table not found: {'.'.join(identifier)}")
        identifier = identifier[:-1]
        table = tables.find(catalog, identifier)
        if table is None:
            raise NoSuchTableError(f"table not found: {'.'.join(identifier)}")
        md = table.metadata
        if kind.lower() == "tag":
            raise ProgrammingError(
                f"cannot write to {'.'.join(identifier)}: {ref!r} is a tag; only branches take writes"
            )
        if ref != MAIN_BRANCH and md.refs.get(ref) is None:
            raise ProgrammingError(f"Cannot use branch (does not exist): {ref}")
        branch = ref
    return DmlTarget(catalog, table, columns, write_ref(session.settings, table.metadata, branch))


def insert(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    """``INSERT {INTO | OVERWRITE} [TABLE] t [PARTITION (...)] [(columns)] VALUES ... | query``:
    one commit, an append or an overwrite."""
    assert isinstance(statement, exp.Insert)
    if statement.args.get("by_name"):
        raise NotSupportedError("INSERT INTO ... BY NAME is not supported yet")
    catalog, table, columns, ref = target_table(session, statement.this)
    if statement.args.get("exists"):
        raise ProgrammingError(
            f"cannot write to {table.name}: IF NOT EXISTS is not supported for Iceberg tables"
            " (Spark refuses it for v2 tables too)"
        )
    node = statement.this.this if isinstance(statement.this, exp.Schema) else statement.this
    clause = partition_clause(table, node.args.get("partition"), params)
    for name in columns or ():
        if name.lower() in {s.lower() for s in clause.static}:
            raise ProgrammingError(
                f"[STATIC_PARTITION_COLUMN_IN_INSERT_COLUMN_LIST] cannot write to {table.name}:"
                f" static partition column {name} is also specified in the column list"
            )
    source = statement.expression
    if isinstance(source, exp.Values):  # VALUES (1, DEFAULT): the column's write-default
        schema = table.metadata.schema()
        static = {name.lower() for name in clause.static}
        names = columns or [f.name for f in schema.fields if f.name.lower() not in static]
        by_name = {f.name.lower(): f for f in schema.fields}
        fields = [by_name[n.lower()] for n in names if n.lower() in by_name]
        if len(fields) == len(names):
            source = fill_values_defaults(source, fields)
    query = as_query(source)
    files, rows, _ = write_query(session, table, query, params, columns, static=clause.scalars())
    if statement.args.get("overwrite"):
        change = overwrite_change(table, files, clause, session.settings.partition_overwrite_mode)
    else:
        change = Change(operation=SnapshotOperation.APPEND, added_files=tuple(files))
    if change is None:
        return done(rows)
    try:
        commit(catalog, table, ref.apply(change))
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
        except Exception:
            pass
