"""Row-level deletes applied inside DuckDB, for data files its ``read_parquet`` reads.

Handing a file with deletes to the Arrow stream costs several times DuckDB's own reader
(pyarrow decodes decimals and strings far slower), so the deletes go to DuckDB instead:

* Position deletes and deletion vectors become a keep-mask per data file: a stream of one
  BOOLEAN per row, built from the deleted positions when DuckDB first reads it, and lined up
  with the file's rows by ``POSITIONAL JOIN``. DuckDB scans both sides of a positional join
  in order (one thread per file) and never pushes a filter below it, so row ``i`` of the
  file meets flag ``i``. A hash anti-join on (file, position) measured about 2x the read;
  the positional join about 1.2x.
* Equality deletes are a hash ``ANTI JOIN`` on the delete columns with ``IS NOT DISTINCT
  FROM`` (spec: a null delete value matches a null row value), against the delete rows the
  scan's ``DeleteApplier`` read once.

The mask is as long as the manifest's ``record_count``; a data file with more or fewer rows
is damaged, and the query fails naming it rather than dropping or inventing rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa

from icesql.scan.apply_deletes import DeleteApplier
from icesql.scan.planner import FileScanTask

__all__ = ["KEEP_COLUMN", "DeleteRows", "KeepMask", "anti_join", "positional"]

KEEP_COLUMN = "keep"
MASK_BATCH_ROWS = 1 << 20
_SCHEMA = pa.schema([pa.field(KEEP_COLUMN, pa.bool_(), nullable=False)])
PREFETCH_MASKS = 2  # data files whose deletes are read while DuckDB reads the current one


class KeepMask:
    """The keep flags of one data file's rows as an Arrow stream DuckDB can scan as often
    as a plan needs. Positions are read when the first batch is asked for: registering
    and binding the mask costs nothing."""

    def __init__(
        self,
        deletes: DeleteApplier,
        tasks: Sequence[FileScanTask],
        index: int,
        on_error: Callable[[Exception], None],
    ):
        self._deletes = deletes
        self._tasks = tasks  # every masked file of the scan, in reading order
        self._index = index
        self._on_error = on_error

    @property
    def task(self) -> FileScanTask:
        return self._tasks[self._index]

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        reader = pa.RecordBatchReader.from_batches(_SCHEMA, self._batches())
        return reader.__arrow_c_stream__(requested_schema)

    def _batches(self) -> Iterator[pa.RecordBatch]:
        try:
            ahead = self._tasks[self._index + 1 : self._index + 1 + PREFETCH_MASKS]
            self._deletes.prefetch([(t.data_file, t.delete_files) for t in ahead])
            task = self.task
            deleted = self._deletes.deleted_positions(task.data_file, task.delete_files)
            count = task.data_file.record_count
            for start in range(0, count, MASK_BATCH_ROWS):
                rows = min(MASK_BATCH_ROWS, count - start)
                keep = np.ones(rows, dtype=bool)
                lo, hi = np.searchsorted(deleted, (start, start + rows))
                keep[deleted[lo:hi] - start] = False
                yield pa.RecordBatch.from_arrays([pa.array(keep)], schema=_SCHEMA)
        except Exception as e:
            # DuckDB re-raises stream errors as its own type; keep ours to re-raise intact
            self._on_error(e)
            raise


class DeleteRows:
    """Equality delete rows handed to DuckDB as a stream, not as a table.

    DuckDB has no row estimate for ``read_parquet`` with a ``schema`` map; given a table's
    exact count for the delete side, it flips the anti-join and builds its hash table from
    the data files (2.3 GB for 20M rows). With neither side estimated it keeps the written
    order: the delete rows are the build side."""

    def __init__(self, rows: pa.Table):
        self.rows = rows

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self.rows.to_reader().__arrow_c_stream__(requested_schema)


def sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def positional(read_parquet: str, mask: str, path: str, record_count: int) -> str:
    """The rows of one file's ``read_parquet`` (called with ``file_row_number=true``) that
    its keep-mask relation ``mask`` keeps; a row count that differs from ``record_count``
    fails the query."""
    message = sql_string(
        f"data file {path} does not hold the {record_count} rows its manifest entry says"
    )
    return (
        f"SELECT p.* EXCLUDE (file_row_number) FROM {read_parquet} p"
        f" POSITIONAL JOIN {quoted(mask)} m"
        f" WHERE CASE WHEN m.{KEEP_COLUMN} IS NULL OR p.file_row_number IS NULL"
        f" THEN error({message}) ELSE m.{KEEP_COLUMN} END"
    )


def anti_join(
    inner: str, columns: Sequence[str], joins: Sequence[tuple[str, Sequence[str]]]
) -> str:
    """``columns`` of the rows of ``inner`` that no delete row matches; each join is (the
    relation of delete rows, with columns "0", "1", ..., and the inner columns they match
    in that order)."""
    out = ", ".join(f"p.{quoted(c)}" for c in columns)
    sql = f"SELECT {out} FROM ({inner}) p"
    for i, (relation, keys) in enumerate(joins):
        on = " AND ".join(
            f"p.{quoted(k)} IS NOT DISTINCT FROM d{i}.{quoted(str(j))}" for j, k in enumerate(keys)
        )
        sql += f" ANTI JOIN {quoted(relation)} d{i} ON {on}"
    return sql
