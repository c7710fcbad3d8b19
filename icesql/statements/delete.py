"""DELETE FROM t [[AS] alias] [WHERE condition]: one commit, by metadata or row by row.

As Spark + Iceberg decide it (``SparkTable.canDeleteUsingMetadata``):

1. **Metadata only**, when the condition converts *exactly* into an Iceberg expression
   (``icesql.sql.predicates.exact_filter``) and every file that may hold a matching row is
   proven to hold nothing else — by the condition's residual for its partition judged by its
   column metrics (``icesql.write.manifest_filter.rows_must_match``). Those
   data files are removed without reading a row (``Change.delete_filter``, Java's
   ``deleteFromRowFilter``), with their deletion vectors and the delete files of partitions
   the condition covers whole. ``DELETE FROM t`` removes every file.
   Like Spark, this commits (operation ``delete``) even when nothing matched.

   As in Spark, the filter is the change: ``SparkTable.deleteWhere`` commits Java's
   ``DeleteFiles.deleteFromRowFilter``, which finds the files to remove on the table each
   commit attempt lands on and validates nothing against the snapshot the statement
   planned on (``StreamingDelete.validate`` checks only ``validateFilesExist``, which Spark
   does not ask for; no ``write.delete.isolation-level`` applies). Files appended
   concurrently whose rows all match are removed too — the result is the DELETE run after
   those commits, a serial order at either isolation level — and a file appended
   concurrently that holds matching and other rows fails the statement
   (``CommitConflictError``; Java's ``ValidationException`` "Cannot delete file where some,
   but not all, rows match filter"), leaving the table as it was.
2. Otherwise **row by row** (``icesql.statements.rowlevel``): the query
   ``SELECT _file, _pos FROM t WHERE condition`` finds the rows (any condition DuckDB can
   evaluate, subqueries and EXISTS included; ``icesql.statements.row_changes``), and the
   table's ``write.delete.mode`` decides
   between rewriting the files holding them (copy-on-write, the default) and deleting them
   by position (merge-on-read: deletion vectors in v3, position delete files in v2).

Both land on the target's branch (``t.branch_b``, or the session's write-audit-publish
branch); a write-audit-publish id stages the row-by-row commit only: like Spark's
``SparkTable.deleteWhere``, a metadata-only delete commits to the branch.

The cursor's ``rowcount`` is the number of rows deleted (-1 after a metadata-only delete of
files with equality deletes, whose surviving rows cannot be counted without reading them),
counted on the snapshot the commit landed on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
from sqlglot import exp

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table
from icesql.errors import CommitConflictError, NotSupportedError
from icesql.expressions.tree import ALWAYS_TRUE, BooleanExpression
from icesql.scan.delete_loaders import DeleteLoader
from icesql.scan.planner import FileScanTask, plan_scan
from icesql.session import Result, Session, WriteRef
from icesql.session.result import done
from icesql.spec.content_file import EQUALITY_DELETES, POSITION_DELETES
from icesql.sql.dialect import DIALECT
from icesql.sql.predicates import exact_filter
from icesql.statements.insert import target_table
from icesql.statements.row_changes import (
    FILE_COLUMN,
    POS_COLUMN,
    RowChanges,
    apply_changes,
    check_target_node,
    metadata_column,
    run_target_query,
    target_table_node,
)
from icesql.write.commit import commit
from icesql.write.manifest_filter import SplitFileError, rows_must_match
from icesql.write.snapshot import Change, SnapshotOperation, branch_head

__all__ = ["delete"]


def delete(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    """``DELETE FROM t [AS a] [WHERE ...]`` (module docstring)."""
    assert isinstance(statement, exp.Delete)
    for key in ("using", "returning", "limit", "order", "cluster"):
        if statement.args.get(key):
            raise NotSupportedError(f"DELETE ... {key.upper()} is not supported")
    node = statement.this
    check_target_node(node)
    catalog, table, _, ref = target_table(session, node)
    where = statement.args.get("where")
    condition = where.this if where is not None else None
    if condition is None:
        expr: BooleanExpression | None = ALWAYS_TRUE
    else:
        alias = node.alias or node.name
        expr = exact_filter(condition, alias, table.metadata.schema(), params, DIALECT)
    if expr is not None:
        deleted = _delete_files_only(session, catalog, table, expr, ref.branch)
        if deleted is not None:
            return done(deleted)
    return done(_delete_rows(session, catalog, table, node, condition, params, ref))


# ---------------------------------------------------------------------------------------------
# Metadata only


def _delete_files_only(
    session: Session, catalog: Catalog, table: Table, expr: BooleanExpression, branch: str
) -> int | None:
    """Remove the files ``expr`` covers whole from ``branch`` and return the rows deleted
    (-1: not known), or None when some file may also hold rows that stay."""
    md = table.metadata
    snapshot = branch_head(md, branch, table.name)
    plan = plan_scan(md, snapshot, table.io, session.manifest_cache, table.name, expr, md.schema())
    must_match = rows_must_match(md, expr)
    if not all(must_match(t.spec_id, t.data_file) for t in plan.tasks):
        return None
    count = _rows_in(table, plan.tasks)
    # Java's deleteFromRowFilter: the filter removes the files (and their DVs, and delete
    # files of covered partitions) anew on each commit attempt, with no validation
    change = Change(operation=SnapshotOperation.DELETE, delete_filter=expr, branch=branch)
    try:
        committed = commit(catalog, table, change).metadata
    except SplitFileError as e:
        raise CommitConflictError(
            f"cannot delete from {table.name}: a concurrent commit added data file {e.path},"
            f" which holds rows matching {expr} and rows that may not, so they cannot be"
            " deleted by removing whole files; run the DELETE again"
        ) from e
    head = branch_head(committed, branch, table.name)
    assert head is not None  # the snapshot this commit just added
    parent_id = head.parent_snapshot_id
    if parent_id == (snapshot.snapshot_id if snapshot is not None else None):
        return count
    # other commits landed first: count what the filter removed from the snapshot before ours
    try:
        parent = committed.snapshot_by_id(parent_id) if parent_id is not None else None
        landed = plan_scan(
            committed,
            parent,
            table.io,
            session.manifest_cache,
            table.name,
            expr,
            committed.schema(),
        )
        return _rows_in(table, landed.tasks)
    except Exception:
        return -1


def _rows_in(table: Table, tasks: Sequence[FileScanTask]) -> int:
    """Rows left in the tasks' files after their deletes, read from delete files only;
    -1 when an equality delete applies (only the data could tell)."""
    loader = DeleteLoader(table.io)
    total = 0
    for task in tasks:
        if any(d.content == EQUALITY_DELETES for d in task.delete_files):
            return -1
        count = task.data_file.record_count
        positional = [d for d in task.delete_files if d.content == POSITION_DELETES]
        if positional:
            gone = loader.deleted_positions(task.data_file.file_path, positional)
            count -= int(np.count_nonzero(gone < count))
        total += count
    return total


# ---------------------------------------------------------------------------------------------
# Row by row


def _delete_rows(
    session: Session,
    catalog: Catalog,
    table: Table,
    node: exp.Table,
    condition: exp.Expr | None,
    params: Sequence[object],
    ref: WriteRef,
) -> int:
    target, alias = target_table_node(node, table)
    select = exp.Select(
        expressions=[metadata_column(alias, FILE_COLUMN), metadata_column(alias, POS_COLUMN)],
        from_=exp.From(this=target),
    )
    if condition is not None:
        select.set("where", exp.Where(this=condition.copy()))
    result, scan = run_target_query(session, select, params)

    def collect(changes: RowChanges, batch: pa.RecordBatch) -> None:
        changes.remove(batch.column(0), batch.column(1))

    return apply_changes(catalog, result, scan, "delete", collect, ref=ref).removed_rows
