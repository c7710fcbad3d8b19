"""Deleting rows of data files by position: deletion vectors (v3) and position delete files (v2).

A row-level statement (DELETE, UPDATE, MERGE in merge-on-read mode) hands this writer, per
data file, the positions of the rows it removes and the delete files the scan applied to that
file (``FileScanTask.delete_files``). The writer produces the new delete files and says which
existing ones they replace, as Iceberg 1.10 (Spark) does:

* **v3 and later** — one deletion vector per data file, holding the new positions *and* every
  position already deleted by the file's DV or position delete files (file-scoped and
  partition-scoped alike: a reader ignores position delete files once a DV exists, spec "Row-level
  delete changes"). All DVs of a statement go into one Puffin file under the data location
  (``00000-0-<uuid>-00001-deletes.puffin``); each manifest entry names its data file, blob offset
  and length. Replaced: the old DV and the file-scoped position delete files.
* **v2** — one Parquet position delete file per data file (Java's default
  ``write.delete.granularity=file``), in the data file's partition folder, with the new positions
  merged with those of the file's previous file-scoped delete files, which it replaces.
  Partition-scoped delete files stay where they are and are not merged (they still apply).
  Rows are ``(file_path, pos)`` sorted by position, field ids 2147483546 / 2147483545; metrics
  as Java's ``PositionDeleteWriter`` keeps them for a file naming one data file: column sizes
  and full lower/upper bounds, no value / null / NaN counts. ``referenced_data_file`` is set
  (Spark 1.10 leaves it null and relies on the equal ``file_path`` bounds; both mean the same to
  readers, the field is what the spec recommends).

Nothing is committed here: ``close`` returns a ``DeleteWriteResult`` whose ``added`` go to
``Change.added_files``, ``removed`` to ``Change.removed_files`` and ``referenced_data_files`` to
the commit's ``Validation``; ``abort`` deletes every file written.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
from pyroaring import BitMap64

from icesql.catalog.table import Table
from icesql.errors import InternalError
from icesql.io import FileIO
from icesql.metadata.puffin import write_deletion_vector_puffin
from icesql.scan.delete_index import referenced_data_file
from icesql.scan.delete_loaders import DeleteLoader
from icesql.spec.arrays import int_array, repeat_string
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.spec.reserved import FILE_PATH_FIELD_ID, POS_FIELD_ID, POSITION_DELETE_SCHEMA
from icesql.write.column_metrics import FULL, MetricsConfig
from icesql.write.file_writers import check_format, open_writer
from icesql.write.properties import TableProperties

__all__ = [
    "DeleteWriteResult",
    "PositionDeleteWriter",
    "as_positions",
    "write_deletion_vectors",
    "write_position_delete_file",
]

ROWS_PER_ROW_GROUP = 1 << 20  # (file_path, pos) rows per Parquet write
_POSITION_IDS = (FILE_PATH_FIELD_ID, POS_FIELD_ID)


def as_positions(positions: BitMap64 | np.ndarray | Sequence[int]) -> np.ndarray:
    """Row positions as a sorted, distinct int64 array."""
    if isinstance(positions, BitMap64):
        return np.frombuffer(positions.to_array(), dtype=np.uint64).astype(np.int64)
    array = np.asarray(positions, dtype=np.int64)
    if len(array) > 1 and not bool(np.all(array[1:] > array[:-1])):
        array = np.unique(array)
    return array


@dataclass(frozen=True)
class DeleteWriteResult:
    """What a statement's deletes amount to: the delete files to add, the live ones they
    replace, the data files deleted from, and how many rows are newly deleted."""

    added: tuple[DataFile, ...] = ()
    removed: tuple[DataFile, ...] = ()
    referenced_data_files: frozenset[str] = frozenset()
    deleted_rows: int = 0


@dataclass
class _Pending:
    data_file: DataFile
    positions: np.ndarray
    existing: tuple[DataFile, ...]


class PositionDeleteWriter:
    """Collects the rows a statement deletes by position, per data file, and writes them as
    deletion vectors (v3) or position delete files (v2) on ``close``.

    ``delete`` may be called more than once for a data file; positions accumulate. ``existing``
    must be the delete files the scan applied to the data file (equality deletes are ignored).
    """

    def __init__(
        self, table: Table, loader: DeleteLoader | None = None, operation_id: str | None = None
    ):
        md = table.metadata
        self.table = table
        self.format_version = md.format_version
        self.properties = TableProperties(md.properties, table.name)
        self.data_location = self.properties.data_location(md.location)
        self.operation_id = operation_id or str(uuid.uuid4())
        self.loader = loader or DeleteLoader(table.io)
        self._pending: dict[str, _Pending] = {}
        self._written: list[str] = []
        self._count = 0

    def delete(
        self,
        data_file: DataFile,
        positions: BitMap64 | np.ndarray | Sequence[int],
        existing: Sequence[DataFile] = (),
    ) -> None:
        """Delete the rows of ``data_file`` at ``positions`` (file positions, ``_pos``)."""
        array = as_positions(positions)
        if len(array) and (array[0] < 0 or array[-1] >= max(data_file.record_count, 0)):
            raise InternalError(
                f"row positions {array[0]}..{array[-1]} are outside data file"
                f" {data_file.file_path} ({data_file.record_count} rows)"
            )
        pending = self._pending.get(data_file.file_path)
        if pending is None:
            pending = _Pending(data_file, array, tuple(existing))
            self._pending[data_file.file_path] = pending
        else:
            pending.positions = np.union1d(pending.positions, array)

    def close(self) -> DeleteWriteResult:
        """Write the delete files; on error, those written are deleted before it propagates."""
        try:
            return self._close()
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Delete every file this writer wrote (best effort)."""
        for path in self._written:
            try:
                self.table.io.delete(path)
            except Exception:
                pass
        self._written.clear()

    # --- merging ---------------------------------------------------------------------------

    def _close(self) -> DeleteWriteResult:
        added: list[DataFile] = []
        removed: dict[tuple[str, int | None], DataFile] = {}
        referenced: set[str] = set()
        vectors: list[tuple[DataFile, np.ndarray]] = []
        deleted_rows = 0
        for path in sorted(self._pending):
            pending = self._pending[path]
            if not len(pending.positions):
                continue
            merged, replaced, previous = self._merge(pending)
            new_rows = len(merged) - len(previous)
            if new_rows == 0:
                continue  # every row was deleted already
            deleted_rows += new_rows
            referenced.add(path)
            for f in replaced:
                removed[(f.file_path, f.content_offset)] = f
            if self.format_version >= 3:
                vectors.append((pending.data_file, merged))
            else:
                added.append(self._write_position_file(pending.data_file, merged))
        if vectors:
            added.extend(self._write_vectors(vectors))
        return DeleteWriteResult(
            tuple(added), tuple(removed.values()), frozenset(referenced), deleted_rows
        )

    def _merge(self, pending: _Pending) -> tuple[np.ndarray, list[DataFile], np.ndarray]:
        """All positions the new delete file holds, the delete files it replaces, and the
        positions that were deleted before (of the merged files)."""
        path = pending.data_file.file_path
        positional = [d for d in pending.existing if d.content == POSITION_DELETES]
        file_scoped = [d for d in positional if referenced_data_file(d) == path]
        # a DV must hold every position delete of its file; v2 merges the file-scoped ones
        merged_from = positional if self.format_version >= 3 else file_scoped
        previous = self.loader.deleted_positions(path, merged_from) if merged_from else None
        if previous is None or not len(previous):
            return pending.positions, file_scoped, np.empty(0, dtype=np.int64)
        return np.union1d(previous, pending.positions), file_scoped, previous

    # --- writing ---------------------------------------------------------------------------

    def _name(self, suffix: str) -> str:
        self._count += 1
        return f"00000-0-{self.operation_id}-{self._count:05d}-deletes.{suffix}"

    def _partition_folder(self, data_file: DataFile) -> str:
        md = self.table.metadata
        spec = md.spec_by_id(data_file.spec_id)
        if spec is None or not spec.fields:
            return self.data_location
        try:
            return f"{self.data_location}/{spec.partition_path(data_file.partition, md.schema())}"
        except Exception:
            return self.data_location

    def _write_position_file(self, data_file: DataFile, positions: np.ndarray) -> DataFile:
        fmt, prop = self.properties.delete_file_format
        path = f"{self._partition_folder(data_file)}/{self._name(check_format(fmt, prop))}"
        self._written.append(path)

        def chunks() -> Iterator[pa.Table]:
            for start in range(0, len(positions), ROWS_PER_ROW_GROUP):
                chunk = positions[start : start + ROWS_PER_ROW_GROUP]
                names = repeat_string(data_file.file_path, len(chunk))  # no pandas import
                yield pa.table([names, int_array(chunk)], names=["file_path", "pos"])

        return write_position_delete_file(
            self.table, path, data_file.spec_id, data_file.partition, chunks(), data_file.file_path
        )

    def _write_vectors(self, vectors: list[tuple[DataFile, np.ndarray]]) -> list[DataFile]:
        path = f"{self.data_location}/{self._name('puffin')}"
        self._written.append(path)
        return write_deletion_vectors(self.table.io, path, vectors)


def write_deletion_vectors(
    io: FileIO, path: str, vectors: Sequence[tuple[DataFile, np.ndarray]]
) -> list[DataFile]:
    """Write one Puffin file of deletion vectors, one per data file with its sorted deleted
    positions; the DV entries, each naming its data file, blob offset and length."""
    bitmaps = [(f.file_path, BitMap64(p.astype(np.uint64))) for f, p in vectors]
    blobs = write_deletion_vector_puffin(io, path, bitmaps)
    size = io.size(path)
    return [
        DataFile(
            content=POSITION_DELETES,
            file_path=path,
            file_format="PUFFIN",
            partition=data_file.partition,
            record_count=cardinality,
            file_size_in_bytes=size,
            referenced_data_file=data_file.file_path,
            content_offset=offset,
            content_size_in_bytes=length,
            spec_id=data_file.spec_id,
        )
        for (data_file, _), (offset, length, cardinality) in zip(vectors, blobs)
    ]


def write_position_delete_file(
    table: Table,
    path: str,
    spec_id: int,
    partition: tuple,
    chunks: Iterable[pa.Table],
    referenced: str | None,
) -> DataFile:
    """Write one position delete file (in ``write.delete.format.default``) of ``(file_path, pos)`` rows, already sorted,
    with Java's metrics (module docstring); ``referenced`` names its one data file, if one."""
    props = TableProperties(table.metadata.properties, table.name)
    fmt, prop = props.delete_file_format
    writer = open_writer(
        fmt,
        table.io,
        path,
        POSITION_DELETE_SCHEMA,
        spec_id,
        partition,
        MetricsConfig(FULL, {}),
        prop,
        None,
        compression=props.parquet_compression,
        compression_level=props.parquet_compression_level,
        page_size=props.page_size_bytes,
    )
    try:
        for chunk in chunks:
            writer.write(pa.table(chunk.columns, schema=writer.arrow_schema))
        written = writer.close()
    except BaseException:
        writer.abort()
        raise
    return replace(
        written,
        content=POSITION_DELETES,
        referenced_data_file=referenced,
        value_counts=_without(written.value_counts),
        null_value_counts=_without(written.null_value_counts),
        nan_value_counts=_without(written.nan_value_counts),
    )


def _without(counts: dict[int, int] | None) -> dict[int, int] | None:
    """Java keeps no value / null / NaN counts for the ``file_path`` and ``pos`` columns."""
    if counts is None:
        return None
    kept = {k: v for k, v in counts.items() if k not in _POSITION_IDS}
    return kept or None
