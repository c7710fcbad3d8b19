"""What a row-level statement changed, and its commit as copy-on-write or merge-on-read.

DELETE, UPDATE and MERGE INTO share this machinery. A statement reads its target through one
query whose FROM names the target table; the query selects the target's hidden ``_file`` and
``_pos`` columns (and in v3 ``_row_id``) with whatever else the statement needs:

* ``target_table_node(node, table)`` — the statement's table node, copied and marked so that
  ``run_target_query`` can hand back the scan of *that* reference (the target may also be read
  by a subquery), with the alias to qualify its columns with;
* ``run_target_query(session, select, params)`` — starts the query: its ``Result`` and the
  target ``TableScan`` (its table, snapshot and planned files are what the change is based
  on); ``iter_batches(result)`` streams the rows with DuckDB's errors translated, and
  ``apply_changes`` runs the whole collect / commit / clean-up-on-failure cycle.

The statement streams its outcome into ``RowChanges(scan, command)`` while it reads: the
positions of target rows it removes (``remove(files, positions)``: deleted rows, and the old
versions of updated ones), per data file of the scan it read, and the rows it adds
(``write(batch, row_ids)``: new versions and inserts, shaped as the table's columns; in v3
an updated row passes its old ``_row_id`` and gets a null ``_last_updated_sequence_number``,
an inserted row passes none), written at once as data files. ``commit`` then turns that into
one Iceberg commit, by the table's ``write.<command>.mode``:

* **copy-on-write** — each data file that lost a row is rewritten without those rows (its
  remaining rows copied with their row lineage in v3) and removed with the delete files
  that applied only to it;
* **merge-on-read** — the positions become deletion vectors (v3) or position delete files
  (v2) merged with the file's existing ones (``icesql.write.position_deletes``).

The commit lands on the target's branch (``WriteRef``: a ``t.branch_b`` target or the
session's write-audit-publish branch, whose head the query read) and is validated against
concurrent commits to that branch from the snapshot the statement read,
with the scan's filter as conflict filter, at ``write.<command>.isolation-level``
(``icesql.write.validation``); the operation is Java's (``operation_for``). A statement that
changed nothing still commits, as Spark does: an empty snapshot whose operation is
``empty_operation`` (``overwrite``, what Spark's ``OverwriteFiles`` and ``RowDelta`` record
without files; ``append`` for a MERGE Spark plans as an append); None commits nothing.
``abort`` deletes every file written; call it whenever the statement fails (also when
``commit`` raised anything but ``CommitStateUnknownError``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyroaring import BitMap64
from sqlglot import exp

from icesql.catalog.base import Catalog, CommitStateUnknownError
from icesql.catalog.table import Table
from icesql.errors import InternalError, NotSupportedError
from icesql.scan.planner import FileScanTask
from icesql.scan.reader import read_as_stored
from icesql.scan.table_scan import TableScan
from icesql.session import DML_TARGET, Result, Session, WriteRef
from icesql.spec.arrays import bool_array, ints
from icesql.spec.content_file import DataFile
from icesql.spec.schema import Schema
from icesql.sql.translate import duckdb_errors
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.properties import COPY_ON_WRITE, MERGE_ON_READ, TableProperties
from icesql.write.snapshot import Change, SnapshotOperation, operation_for
from icesql.write.validation import Validation

if TYPE_CHECKING:
    from icesql.write.position_deletes import PositionDeleteWriter

__all__ = [
    "COPY_ON_WRITE",
    "FILE_COLUMN",
    "MERGE_ON_READ",
    "POS_COLUMN",
    "RowChanges",
    "apply_changes",
    "check_target_node",
    "iter_batches",
    "metadata_column",
    "run_target_query",
    "target_table_node",
]

FILE_COLUMN, POS_COLUMN = "_file", "_pos"
_LINEAGE = ["_row_id", "_last_updated_sequence_number"]
METADATA_NAMES = frozenset({FILE_COLUMN, POS_COLUMN, *_LINEAGE})


def check_target_node(node: exp.Expr) -> None:
    """Refuse a target that is not a plain table name (time travel cannot be changed)."""
    if not isinstance(node, exp.Table):
        raise NotSupportedError(
            f"the target of a row-level statement must be a table, not {node.sql(dialect='spark')}"
        )
    if node.args.get("version") is not None:
        raise NotSupportedError(
            f"time travel in the target of a row-level statement ({node.sql(dialect='spark')})"
            " is not supported: changes always apply to the current state"
        )


def target_table_node(node: exp.Table, table: Table) -> tuple[exp.Table, str]:
    """A copy of the statement's table node marked as the target, and the alias its columns
    are qualified with (the statement's alias, else the table name). A table with a data
    column named like a metadata column the statement needs is refused."""
    check_target_node(node)
    clashes = [f.name for f in table.metadata.schema().fields if f.name.lower() in METADATA_NAMES]
    if clashes:
        raise NotSupportedError(
            f"row-level changes to {table.name} are not supported: its column(s)"
            f" {', '.join(clashes)} hide the metadata columns of the same name"
        )
    target = node.copy()
    target.meta[DML_TARGET] = True
    alias = target.alias or target.name
    if not target.alias:
        target.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    return target, alias


def metadata_column(alias: str, name: str) -> exp.Column:
    """``alias.name`` for a metadata column (``_file``, ``_pos``, ``_row_id``)."""
    return exp.column(name, table=alias)


def run_target_query(
    session: Session, select: exp.Expr, params: Sequence[object]
) -> tuple[Result, TableScan]:
    """Start the statement's query; its result and the scan of the marked target table."""
    result = session.query(select, params)
    if result.target is None:
        result.close()
        raise InternalError("the row-level query does not read its target table")
    return result, result.target


def iter_batches(result: Result) -> Iterator[pa.RecordBatch]:
    """The query's non-empty batches, DuckDB's errors translated (an error of a scan raised
    as is); the result is closed at the end."""
    reader = result.reader
    assert reader is not None
    try:
        with duckdb_errors(result.scans):
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
                if batch.num_rows:
                    yield batch
    finally:
        result.close()


def apply_changes(
    catalog: Catalog,
    result: Result,
    scan: TableScan,
    command: str,
    collect: Callable[[RowChanges, pa.RecordBatch], None],
    empty_operation: SnapshotOperation | None = SnapshotOperation.OVERWRITE,
    ref: WriteRef | None = None,
) -> RowChanges:
    """Stream the target query's batches into a new ``RowChanges`` (``collect`` says what
    each batch removes and writes) and commit them to ``catalog``, the target's, on ``ref``
    (default ``main``); on failure the files written are deleted
    (not after an unknown commit outcome) and the result is always closed."""
    changes: RowChanges | None = None
    try:
        changes = RowChanges(scan, command, ref)
        for batch in iter_batches(result):
            collect(changes, batch)
        changes.commit(catalog, empty_operation)
    except CommitStateUnknownError:
        raise  # the files may be part of the table now
    except BaseException:
        if changes is not None:
            changes.abort()
        raise
    finally:
        result.close()
    return changes


class RowChanges:
    """The outcome of one row-level statement on the target read by ``scan`` (module
    docstring); ``command`` is ``delete``, ``update`` or ``merge``."""

    def __init__(self, scan: TableScan, command: str, ref: WriteRef | None = None):
        self.scan = scan
        self.ref = ref or WriteRef()
        self.table = scan.table
        self.command = command
        props = TableProperties(self.table.metadata.properties, self.table.name)
        self.mode = props.row_level_mode(command)
        self.isolation = props.isolation_level(command)
        md = self.table.metadata
        self.lineage = md.format_version >= 3
        self.schema: Schema = md.schema()
        self._tasks = {t.data_file.file_path: t for t in scan.tasks()}
        self._positions: dict[str, BitMap64] = {}
        self._target = WriteTarget.for_table(self.table, row_lineage=True)
        self._writer: DataWriter | None = None
        self._null_lineage = None
        self._delete_writer: PositionDeleteWriter | None = None
        self.affected_rows = 0

    @property
    def removed_rows(self) -> int:
        """Distinct target rows removed so far."""
        return sum(len(b) for b in self._positions.values())

    # -- collecting ------------------------------------------------------------------------
    def count(self, rows: int) -> None:
        self.affected_rows += rows

    def remove(self, files: pa.Array, positions: pa.Array) -> None:
        """Remove the target rows at ``positions`` of data files ``files`` (``_file``/``_pos``)."""
        if len(files) == 0:
            return
        encoded = pc.dictionary_encode(files)
        pos = ints(positions).astype(np.uint64)  # to_numpy would import pandas (spec.arrays)
        indices = ints(encoded.indices)
        for index, path in enumerate(encoded.dictionary.to_pylist()):
            bitmap = self._positions.get(path)
            if bitmap is None:
                if path not in self._tasks:
                    raise InternalError(
                        f"row of {path}, which the scan of {self.table.name} did not plan"
                    )
                bitmap = self._positions[path] = BitMap64()
            bitmap.update(pos[indices == index])

    def write(self, batch: pa.RecordBatch, row_ids: pa.Array | None = None) -> None:
        """Add rows shaped like the table's columns; ``row_ids`` keeps the lineage of
        updated rows (v3: same ``_row_id``, a new ``_last_updated_sequence_number``)."""
        if batch.num_rows == 0:
            return
        if self.lineage:
            nulls = pa.nulls(batch.num_rows, pa.int64())
            ids = nulls if row_ids is None else row_ids.cast(pa.int64())
            batch = pa.RecordBatch.from_arrays(
                [*batch.columns, ids, nulls], names=[*batch.schema.names, *_LINEAGE]
            )
        self._data_writer().write(batch)

    def _data_writer(self) -> DataWriter:
        if self._writer is None:
            self._writer = DataWriter(self._target, self.scan.progress)
        return self._writer

    # -- committing ------------------------------------------------------------------------
    def commit(
        self,
        catalog: Catalog,
        empty_operation: SnapshotOperation | None = SnapshotOperation.OVERWRITE,
    ) -> None:
        """One commit of everything collected; when nothing changed, an empty snapshot with
        operation ``empty_operation`` (what Spark commits then), or nothing when it is None."""
        removed: list[DataFile] = []
        added: list[DataFile] = []
        referenced: frozenset[str] = frozenset()
        touched = {p: b for p, b in self._positions.items() if b}
        if self.mode == COPY_ON_WRITE:
            partition = None
            for path in sorted(touched):  # the files of a partition one after another
                task = self._tasks[path]
                source = (task.data_file.spec_id, task.data_file.partition)
                if partition is not None and source != partition and self._writer is not None:
                    self._writer.flush()  # the last partition's rows: encoded as we read on
                partition = source
                self._copy_rows(task, touched[path])
                removed.append(task.data_file)
                removed.extend(_file_scoped(task))
        elif touched:
            from icesql.write.position_deletes import PositionDeleteWriter

            self._delete_writer = PositionDeleteWriter(self.table)
            for path in sorted(touched):
                task = self._tasks[path]
                self._delete_writer.delete(task.data_file, touched[path], task.delete_files)
            result = self._delete_writer.close()
            added.extend(result.added)
            removed.extend(result.removed)
            referenced = result.referenced_data_files
        if self._writer is not None:
            added = [*self._writer.close(), *added]
        if not added and not removed and empty_operation is None:
            return
        snapshot = self.scan.version.snapshot
        change = Change(
            operation=operation_for(added, removed) if added or removed else empty_operation,
            added_files=tuple(added),
            removed_files=tuple(removed),
            validation=Validation(
                snapshot.snapshot_id if snapshot is not None else None,
                self.scan.row_filter,
                self.isolation,
                referenced,
            ),
        )
        commit(catalog, self.table, self.ref.apply(change))

    def _copy_rows(self, task: FileScanTask, gone: BitMap64) -> None:
        """Write the rows of ``task``'s file that stay (copy-on-write): as stored when the
        file holds the table's columns as they are and nothing else deletes from it
        (``read_as_stored``), else through a scan with the file's deletes applied."""
        removed = np.frombuffer(gone.to_array(), dtype=np.uint64).astype(np.int64)
        stored = (
            None
            if self.lineage or task.delete_files
            else read_as_stored(
                self.table.io, task.data_file.file_path, self.schema, task.data_file.record_count
            )
        )
        if stored is not None:
            first = 0
            for batch in stored:
                kept = batch.filter(_kept_rows(first, batch.num_rows, removed))
                first += batch.num_rows
                if kept.num_rows:
                    self._data_writer().write(kept)
            return
        meta = ["_pos", *(_LINEAGE if self.lineage else [])]
        scan = TableScan(
            self.table,
            self.scan.version,
            None,
            self.scan.cache,
            metadata_columns=meta,
            read_threads=False,
        )  # both cores encode what it reads
        scan.restrict_to([task])
        names = [f.name for f in self.schema.fields]
        for batch in scan.batches():
            positions = ints(batch.column("_pos"))
            keep = bool_array(~np.isin(positions, removed))
            kept = batch.filter(keep)
            if kept.num_rows:
                self._data_writer().write(
                    kept.select([*names, *(_LINEAGE if self.lineage else [])])
                )

    def abort(self) -> None:
        """Delete the files written so far (the statement failed before its commit)."""
        for writer in (self._writer, self._delete_writer):
            if writer is not None:
                writer.abort()


def _kept_rows(first: int, count: int, removed: np.ndarray) -> pa.Array:
    """Which of the file's rows ``first .. first + count`` are not in ``removed`` (sorted)."""
    lo, hi = np.searchsorted(removed, [first, first + count])
    keep = np.ones(count, dtype=bool)
    keep[removed[lo:hi] - first] = False
    return bool_array(keep)


def _file_scoped(task: FileScanTask) -> Sequence[DataFile]:
    """The delete files that apply only to ``task``'s data file (removed with it)."""
    return [d for d in task.delete_files if d.referenced_data_file == task.data_file.file_path]
