"""What a row-level statement changed, and its commit as copy-on-write or merge-on-read.

A statement streams its outcome here while it reads: the positions of target rows it
removes (``remove``: deleted rows, and the old versions of updated ones), per data file of
the scan it read, and the rows it adds (``write``: new versions and inserts), written at
once as data files. ``commit`` then turns that into one Iceberg commit, by the table's
``write.<command>.mode``:

* **copy-on-write** — each data file that lost a row is rewritten without those rows (its
  remaining rows copied with their row lineage in v3) and removed with the delete files
  that applied only to it;
* **merge-on-read** — the positions become deletion vectors (v3) or position delete files
  (v2) merged with the file's existing ones (``icesql.write.position_deletes``).

The commit is validated against concurrent commits from the snapshot the statement read,
with the scan's filter as conflict filter, at ``write.<command>.isolation-level``
(``icesql.write.validation``). ``abort`` deletes every file written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyroaring import BitMap64

from icesql.catalog.table import Table
from icesql.errors import InternalError, ProgrammingError
from icesql.metadata.manifest import DataFile
from icesql.scan.planner import FileScanTask
from icesql.scan.source import TableScan
from icesql.spec.schema import Schema
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.snapshot import Change, operation_for
from icesql.write.validation import SERIALIZABLE, SNAPSHOT, Validation

if TYPE_CHECKING:
    from icesql.engine import Engine

__all__ = ["COPY_ON_WRITE", "MERGE_ON_READ", "RowChanges"]

COPY_ON_WRITE = "copy-on-write"
MERGE_ON_READ = "merge-on-read"
_LINEAGE = ["_row_id", "_last_updated_sequence_number"]


def _mode(table: Table, command: str) -> tuple[str, str]:
    props = table.metadata.properties
    mode = props.get(f"write.{command}.mode", COPY_ON_WRITE).lower()
    if mode not in (COPY_ON_WRITE, MERGE_ON_READ):
        raise ProgrammingError(
            f"table {table.name}: write.{command}.mode is {mode!r}; expected"
            f" {COPY_ON_WRITE!r} or {MERGE_ON_READ!r}"
        )
    isolation = props.get(f"write.{command}.isolation-level", SERIALIZABLE).lower()
    if isolation not in (SERIALIZABLE, SNAPSHOT):
        raise ProgrammingError(
            f"table {table.name}: write.{command}.isolation-level is {isolation!r}; expected"
            f" {SERIALIZABLE!r} or {SNAPSHOT!r}"
        )
    return mode, isolation


class RowChanges:
    """The outcome of one row-level statement on the target read by ``scan`` (module
    docstring); ``command`` is ``delete``, ``update`` or ``merge``."""

    def __init__(self, scan: TableScan, command: str):
        self.scan = scan
        self.table = scan.table
        self.command = command
        self.mode, self.isolation = _mode(self.table, command)
        md = self.table.metadata
        self.lineage = md.format_version >= 3
        self.schema: Schema = md.schema()
        self._tasks = {t.data_file.file_path: t for t in scan.tasks()}
        self._positions: dict[str, BitMap64] = {}
        self._target = WriteTarget.for_table(self.table, row_lineage=True)
        self._writer: DataWriter | None = None
        self._null_lineage = None
        self._delete_writer = None
        self.affected_rows = 0

    # -- collecting ------------------------------------------------------------------------
    def count(self, rows: int) -> None:
        self.affected_rows += rows

    def remove(self, files: pa.Array, positions: pa.Array) -> None:
        """Remove the target rows at ``positions`` of data files ``files`` (``_file``/``_pos``)."""
        if len(files) == 0:
            return
        encoded = pc.dictionary_encode(files)
        pos = positions.to_numpy(zero_copy_only=False).astype(np.uint64)
        indices = encoded.indices.to_numpy(zero_copy_only=False)
        for index, path in enumerate(encoded.dictionary.to_pylist()):
            bitmap = self._positions.get(path)
            if bitmap is None:
                if path not in self._tasks:
                    raise InternalError(f"row of {path}, which the scan of {self.table.name} did not plan")
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
            batch = pa.RecordBatch.from_arrays([*batch.columns, ids, nulls], names=[*batch.schema.names, *_LINEAGE])
        self._data_writer().write(batch)

    def _data_writer(self) -> DataWriter:
        if self._writer is None:
            self._writer = DataWriter(self._target)
        return self._writer

    # -- committing ------------------------------------------------------------------------
    def commit(self, engine: Engine) -> None:
        """One commit of everything collected; nothing at all when nothing changed."""
        removed: list[DataFile] = []
        added: list[DataFile] = []
        referenced: frozenset[str] = frozenset()
        touched = {p: b for p, b in self._positions.items() if b}
        if self.mode == COPY_ON_WRITE:
            for path in sorted(touched):
                task = self._tasks[path]
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
        if not added and not removed:
            return
        snapshot = self.scan.version.snapshot
        change = Change(
            operation=operation_for(added, removed),
            added_files=tuple(added),
            removed_files=tuple(removed),
            validation=Validation(
                snapshot.snapshot_id if snapshot is not None else None,
                self.scan.row_filter,
                self.isolation,
                referenced,
            ),
        )
        commit(engine.catalog, self.table, change)

    def _copy_rows(self, task: FileScanTask, gone: BitMap64) -> None:
        """Write the rows of ``task``'s file that stay (copy-on-write)."""
        meta = ["_pos", *(_LINEAGE if self.lineage else [])]
        scan = TableScan(self.table, self.scan.version, None, self.scan.cache, metadata_columns=meta)
        scan.restrict_to([task])
        names = [f.name for f in self.schema.fields]
        removed = np.frombuffer(gone.to_array(), dtype=np.uint64).astype(np.int64)
        for batch in scan.batches():
            positions = batch.column("_pos").to_numpy(zero_copy_only=False)
            keep = pa.array(~np.isin(positions, removed))
            kept = batch.filter(keep)
            if kept.num_rows:
                self._data_writer().write(kept.select([*names, *(_LINEAGE if self.lineage else [])]))

    def abort(self) -> None:
        """Delete the files written so far (the statement failed before its commit)."""
        for writer in (self._writer, self._delete_writer):
            if writer is not None:
                writer.abort()


def _file_scoped(task: FileScanTask) -> Sequence[DataFile]:
    """The delete files that apply only to ``task``'s data file (removed with it)."""
    return [d for d in task.delete_files if d.referenced_data_file == task.data_file.file_path]
