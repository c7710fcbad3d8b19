"""Row-level deletes applied inside DuckDB, for data files its ``read_parquet`` reads.

Handing a file with deletes to the Arrow stream costs several times DuckDB's own reader
(pyarrow decodes decimals and strings far slower), so the deletes go to DuckDB instead:

* Position deletes and deletion vectors become a keep-mask: a stream of one BOOLEAN per
  row, built from the deleted positions in the background, lined up with the rows of one
  ``read_parquet`` of several files by ``POSITIONAL JOIN``. DuckDB scans both sides of a
  positional join in order (one thread each) and never pushes a filter below it, so row
  ``i`` meets flag ``i``; the files with position deletes are split into a few such groups
  so that every thread has one. A hash anti-join on (file, position) costs about as much
  as the read itself, a positional join per file much less (but a bind per file), and a
  few groups with masks cut where row groups end almost nothing.
* Equality deletes are a hash ``ANTI JOIN`` on the delete columns with ``IS NOT DISTINCT
  FROM`` (spec: a null delete value matches a null row value), against the delete files
  read by DuckDB too, their columns matched by field id and typed as the table types them;
  a column of few values is not hashed, only compared on the rows the hash found.

``icesql.scan.native_read`` decides those reads and joins; ``icesql.sql.native_sql``
writes them as SQL. This module builds the keep-masks.

The mask is as long as the manifest's ``record_count``; a data file whose footer gives
another row count is damaged, and the query fails naming it rather than dropping or
inventing rows (``native_read``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.metadata.parquet_footer import footer_row_groups
from icesql.scan.apply_deletes import background_pool
from icesql.scan.delete_loaders import DeleteLoader
from icesql.scan.planner import FileScanTask
from icesql.scan.read_parts import KEEP_COLUMN
from icesql.spec.arrays import bool_array

if TYPE_CHECKING:
    import pyarrow.parquet as pq
else:  # loaded with the first file this module reads itself, not with the module (DuckDB
    # reads local Parquet): pyarrow.parquet brings pyarrow.fs, its S3 bindings and ssl
    pq = lazy_module("pyarrow.parquet")


__all__ = ["KeepMask", "start_masks"]

MASK_BATCH_ROWS = 1 << 20  # a multiple of DuckDB's 2048-row vectors
AHEAD = 4  # files whose flags are built ahead of the one DuckDB reads, in a large scan
EAGER_ROWS = 1 << 28  # rows of a scan's masks all built from the start (32 MB of flags)
_SCHEMA = pa.schema([pa.field(KEEP_COLUMN, pa.bool_(), nullable=False)])


class KeepMask:
    """The keep flags of the rows of some data files, one file after another, as an Arrow
    stream DuckDB can scan as often as a plan needs, lined up with one ``read_parquet`` of
    those files in that order.

    The batches end where the files' row groups end: DuckDB's reader hands over a row group
    in vectors of 2048 rows and ends a vector with the row group, and the Arrow scan does the
    same per batch, so the vectors of the two sides pair up as they come. Batches that end
    elsewhere cost DuckDB a copy of every vector, a large part of the read.

    Flags are built in the background from the moment the scan is split (``start_masks``),
    while DuckDB parses and binds the query: built inside DuckDB's scan, each waited for
    the GIL, which cost more than building them. A mask whose flags are all built before
    DuckDB runs the query (``settle``) is handed over as an Arrow table: DuckDB's threads
    then scan it without the GIL, and no build contends with them for it (the benchmarks'
    delete-file queries show what it saves)."""

    def __init__(
        self,
        deletes: DeleteLoader,
        files: Sequence[tuple[FileScanTask, str, object]],
        on_error: Callable[[Exception], None],
    ):
        self._deletes = deletes
        self.files = list(files)  # (task, the local path DuckDB reads, ...)
        self._on_error = on_error
        self._ready: dict[int, Future[list[pa.Array]]] = {}
        self._ahead = AHEAD
        self._table: pa.Table | None = None  # all the flags, once ``settle`` has them

    def cancel(self) -> None:
        """Drop the builds not started yet: the query is over (or only explained)."""
        for future in self._ready.values():
            future.cancel()
        self._ready.clear()
        self._table = None

    def settle(self) -> None:
        """Wait for the flags of a mask whose builds were all queued (``start_masks``) and
        keep them as one table. A failed build is left to the scan, which raises its error
        where DuckDB reports it; a large scan's mask keeps streaming."""
        if self._table is not None or len(self._ready) < len(self.files):
            return
        futures = [self._ready[i] for i in range(len(self.files))]
        try:
            chunks = [chunk for future in futures for chunk in future.result()]
        except Exception:
            return
        batches = [pa.RecordBatch.from_arrays([chunk], schema=_SCHEMA) for chunk in chunks]
        self._table = pa.Table.from_batches(batches, schema=_SCHEMA)
        self._ready.clear()

    def _submit(self, i: int) -> Future[list[pa.Array]]:
        return background_pool().submit(self._build, *self.files[i][:2])

    def _build(self, task: FileScanTask, local: str) -> list[pa.Array]:
        """One file's flags, bit-packed (a bit per row), cut at its row groups' ends and
        every ``MASK_BATCH_ROWS`` rows within a row group."""
        deleted = self._deletes.deleted_positions(task.data_file.file_path, task.delete_files)
        count = task.data_file.record_count
        keep = np.ones(count, dtype=bool)
        keep[deleted[: np.searchsorted(deleted, count)]] = False  # none past the end
        flags = bool_array(keep)  # 6x faster than pa.array
        chunks = []
        start = 0
        for rows in _row_groups(local, count):
            for offset in range(0, rows, MASK_BATCH_ROWS):
                chunks.append(flags.slice(start + offset, min(MASK_BATCH_ROWS, rows - offset)))
            start += rows
        return chunks

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        if self._table is not None:  # the table's chunks are the batches, in order
            return self._table.to_reader().__arrow_c_stream__(requested_schema)
        reader = pa.RecordBatchReader.from_batches(_SCHEMA, self._batches())
        return reader.__arrow_c_stream__(requested_schema)

    def _batches(self) -> Iterator[pa.RecordBatch]:
        ahead: dict[int, Future[list[pa.Array]]] = {}
        for i in range(len(self.files)):
            for j in range(i, min(i + self._ahead + 1, len(self.files))):
                if j not in ahead:  # a second scan of the mask builds its flags again
                    ready = self._ready.pop(j, None)
                    ahead[j] = ready if ready is not None else self._submit(j)
            try:
                chunks = ahead.pop(i).result()
            except Exception as e:
                # DuckDB re-raises stream errors as its own type; keep ours to re-raise intact
                self._on_error(e)
                raise
            for chunk in chunks:
                yield pa.RecordBatch.from_arrays([chunk], schema=_SCHEMA)


def start_masks(masks: Sequence[KeepMask]) -> None:
    """Start building the flags of ``masks``, the first files of each mask first.

    A scan of up to ``EAGER_ROWS`` rows has all its flags built now, as fast as the
    background threads go: building them as DuckDB reads, a few files ahead, contends with
    DuckDB's threads for the GIL longer, which costs more than it overlaps.
    A larger scan has the first ``AHEAD`` files of each mask built now and the rest as
    DuckDB reads, so memory holds a few files' flags per mask, and a query that stops
    early (LIMIT) builds few."""
    rows = sum(t.data_file.record_count for m in masks for t, *_ in m.files)
    for mask in masks:
        mask._ahead = len(mask.files) if rows <= EAGER_ROWS else AHEAD
    for i in range(max((m._ahead for m in masks), default=0)):
        for mask in masks:
            if i < min(mask._ahead, len(mask.files)):
                mask._ready[i] = mask._submit(i)


def _row_groups(local: str, count: int) -> list[int]:
    """The row counts of the row groups of the Parquet file ``local`` (``count`` rows, as
    checked before); one group of ``count`` when its footer cannot be read here, which
    only costs the alignment. A file of one row group, as most are, needs no second look
    at its footer (reading it again is a cost per file)."""
    if footer_row_groups(local) == 1:
        return [count]
    try:
        meta = pq.read_metadata(local)
        sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    except (OSError, ValueError, pa.ArrowException):
        return [count]
    return sizes if sum(sizes) == count else [count]
