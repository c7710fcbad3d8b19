"""Turning a stream of record batches into partitioned, sorted, size-bounded data files.

Rows are routed to the partition of the table's default spec, buffered per partition and
flushed as Parquet row groups; a file is closed once it reaches
``write.target-file-size-bytes`` and the next rows of that partition open a new one. When
the table has a sort order, each file is written from one sorted buffer, so every file is
sorted and records the order's id (as Spark's writes do); without one, ``sort_order_id`` is
0. Memory stays bounded: buffers are flushed when they reach a row group's worth of data or
when all buffers together pass a limit, never holding the whole input.

Row groups are encoded on a small thread pool (``ParquetDataWriter.submit``; pyarrow
releases the GIL): the caller goes on reading and routing rows while row groups are
encoded, up to ``FILE_WINDOW`` of one file in flight (so an unpartitioned write uses every
core) and the files of several partitions together; all row groups in flight stay under
``MAX_IN_FLIGHT_BYTES`` of Arrow data. Peak memory is about ``MAX_BUFFERED_BYTES`` of rows
being routed plus ``MAX_IN_FLIGHT_BYTES`` (plus one row group) being encoded, and their
encoded bytes until appended to their file.

Rolling decisions are made from what the writer waits for at fixed points, never from
which encoding happens to finish first, so threaded and sequential writes cut the same
files: a file's size is learnt for its row groups older than the window; the younger ones
are estimated (Arrow bytes times the Parquet/Arrow ratio learnt so far). Once that estimate
with the next row group would reach the target size, the writer waits for them all and
decides on the file's exact size, as a sequential writer does: a file is closed only when
it has reached the target.

With ``row_lineage`` (v3 rewrites of existing rows), batches carry two more columns after the
table's, ``_row_id`` and ``_last_updated_sequence_number``, written with their reserved field
ids (spec "Row Lineage": a moved row keeps its id; null values are inherited on read).

File names follow Spark's ``<partition>-<task>-<operation uuid>-<epoch>-<count>.parquet``
under ``write.data.path`` (default ``<location>/data``) and the partition path Java builds.
"""

from __future__ import annotations

import os
import uuid
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from icesql.errors import InternalError
from icesql.io import FileIO
from icesql.progress import ProgressTracker
from icesql.spec.arrow import check_variant_support
from icesql.spec.content_file import DataFile
from icesql.spec.file_schema import arrow_write_schema
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.reserved import ROW_LINEAGE_FIELDS
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder
from icesql.write.column_metrics import MetricsConfig
from icesql.write.file_writers import DataFileWriter, check_format, open_writer
from icesql.write.parquet import is_encoded
from icesql.write.properties import DEFAULT_FILE_FORMAT, TableProperties
from icesql.write.sorting import partition_keys, sort_indices

__all__ = ["DataWriter", "WriteTarget"]

MAX_BUFFERED_BYTES = 256 * 1024 * 1024  # all partitions together
# in-memory (Arrow) size of one flushed row group: the default write.parquet.row-group-size-
# bytes. Smaller row groups cost more CPU to encode and make larger files: each column chunk
# starts its dictionary and statistics afresh
MAX_ROW_GROUP_BYTES = 128 * 1024 * 1024
WRITE_THREADS = max(1, min(4, os.cpu_count() or 1))
# submitted, not yet written: one row group more than the threads encode. At exactly as many,
# two full row groups a few bytes over the average size made the caller wait for the older
# one right after submitting the newer, instead of gathering the next row group's rows
# meanwhile, and a thread stood idle between row groups
MAX_IN_FLIGHT_BYTES = (WRITE_THREADS + 1) * MAX_ROW_GROUP_BYTES
# row groups of one file whose size is not waited for: one queued beside those encoding, so a
# thread that finishes takes the next at once while the caller appends the finished one
FILE_WINDOW = WRITE_THREADS + 1


@dataclass(frozen=True)
class WriteTarget:
    """Everything the writer needs to know about the table it writes for."""

    io: FileIO
    data_location: str
    schema: Schema
    spec: PartitionSpec
    sort_order: SortOrder
    properties: TableProperties
    metrics: MetricsConfig
    operation_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    row_lineage: bool = False
    # the sort_order_id files record when ``sort_order`` is not one of the table's (0)
    recorded_sort_order_id: int | None = None

    @property
    def write_schema(self) -> Schema:
        """The columns of the files: the table's, then the row lineage columns if kept."""
        if not self.row_lineage:
            return self.schema
        return Schema((*self.schema.fields, *ROW_LINEAGE_FIELDS), self.schema.schema_id)

    @staticmethod
    def for_table(table: Any, row_lineage: bool = False) -> WriteTarget:
        """The target for writing to ``table`` (an ``icesql.catalog.table.Table``);
        ``row_lineage`` keeps the lineage columns of moved rows (format v3 and later)."""
        md = table.metadata
        md.refuse_encrypted(table.name)
        props = TableProperties(md.properties, table.name)
        schema, order = md.schema(), md.sort_order()
        return WriteTarget(
            io=table.io,
            data_location=props.data_location(md.location),
            schema=schema,
            spec=md.spec(),
            sort_order=order,
            properties=props,
            metrics=MetricsConfig.for_table(schema, md.properties, order),
            row_lineage=row_lineage and md.format_version >= 3,
        )


@dataclass
class _Partition:
    values: tuple[Any, ...]
    batches: list[pa.RecordBatch] = field(default_factory=list)
    nbytes: int = 0
    writer: DataFileWriter | None = None
    # row groups of the open file whose size is not learnt yet: (number, Arrow bytes)
    pending: deque[tuple[int, int]] = field(default_factory=deque)
    known: int = 0  # the open file's size after the row groups before ``pending``


class DataWriter:
    """Writes batches shaped like ``arrow_write_schema(target.write_schema)``; ``close``
    returns the data files. On any error call ``abort`` to delete what was written."""

    def __init__(self, target: WriteTarget, progress: ProgressTracker | None = None):
        check_variant_support(target.schema, "writing")
        self.target = target
        self.arrow_schema = arrow_write_schema(target.write_schema)
        self.target_size = target.properties.target_file_size_bytes
        self.sorted = not target.sort_order.is_unsorted()
        # a sorted file is written from one buffer, so buffer up to a whole file
        limit = self.target_size if self.sorted else target.properties.row_group_size_bytes
        self.flush_bytes = max(
            1, min(limit, MAX_ROW_GROUP_BYTES if not self.sorted else MAX_BUFFERED_BYTES)
        )
        # Arrow bytes of one row group: write.parquet.row-group-size-bytes also splits a
        # large batch (the Parquet size it names is reached later: Arrow bytes are larger)
        self.row_group_bytes = max(
            1, min(target.properties.row_group_size_bytes, MAX_ROW_GROUP_BYTES)
        )
        self._partitions: dict[tuple[Any, ...], _Partition] = {}
        self._done: list[DataFile] = []
        self._open: list[DataFileWriter] = []
        self._count = 0
        self._buffered = 0
        self._ratio = 1.0  # Parquet bytes per Arrow byte, learnt from written row groups
        self._executor: ThreadPoolExecutor | None = None
        self._in_flight: deque[tuple[Future[Any], int]] = deque()
        self._in_flight_bytes = 0
        self.rows = 0
        # string / binary columns a batch may hand over dictionary-encoded, kept so up to the
        # Parquet encoder, which then takes the dictionary as it is instead of hashing every
        # value again (copy-on-write's kept rows come so from the files they are read from);
        # not the columns that partition or sort (their transforms and comparisons take
        # plain arrays)
        sources = {i for f in target.spec.fields for i in f.all_source_ids} | {
            i for f in target.sort_order.fields for i in f.all_source_ids
        }
        parquet = target.properties.file_format == "parquet"
        self._encoded = frozenset(
            f.name
            for f, field in zip(self.arrow_schema, target.write_schema.fields)
            if parquet and field.field_id not in sources and f.type in (pa.string(), pa.binary())
        )
        self.progress = progress  # told of the rows taken and each file finished

    # --- input ---------------------------------------------------------------------------

    def write(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        if batch.schema.names != self.arrow_schema.names:
            batch = batch.select(self.arrow_schema.names)
        if not batch.schema.equals(self.arrow_schema):
            # same types, other nullability or field metadata: buffered batches must agree;
            # a struct may still hold an unknown field, which the file leaves out (a cast)
            arrays, fields = [], []
            for c, f in zip(batch.columns, self.arrow_schema):
                if f.name in self._encoded and is_encoded(c.type, f.type):
                    f = f.with_type(c.type)
                elif not c.type.equals(f.type):
                    c = c.cast(f.type)
                arrays.append(c)
                fields.append(f)
            batch = pa.RecordBatch.from_arrays(
                arrays, schema=pa.schema(fields, metadata=self.arrow_schema.metadata)
            )
        self.rows += batch.num_rows
        if self.progress is not None and self.progress.active:
            self.progress.rows_written(batch.num_rows)
        for values, rows in partition_keys(batch, self.target.schema, self.target.spec):
            part = batch if rows is None else batch.take(rows)
            state = self._partitions.get(values)
            if state is None:
                state = self._partitions[values] = _Partition(values)
            state.batches.append(part)
            state.nbytes += part.nbytes
            self._buffered += part.nbytes
            if state.nbytes >= self.flush_bytes:
                self._flush(state, whole=False)
        while self._buffered > MAX_BUFFERED_BYTES:
            self._flush(max(self._partitions.values(), key=lambda p: p.nbytes))

    def flush(self) -> None:
        """Start encoding every buffered row, files left open: for a caller whose rows
        have moved on from the partitions buffered so far (copy-on-write rewrites the files
        of one partition after another), so that encoding overlaps the reads of the next
        ones instead of waiting for ``close``."""
        for state in list(self._partitions.values()):
            self._flush(state)

    def close(self) -> list[DataFile]:
        """Flush everything and finish every file; the data files, in write order."""
        try:
            states = list(self._partitions.values())
            for state in states:  # every partition's rows submitted before any is waited for:
                self._flush(state)  # flushed and finished in turn, the files of a partitioned
            for state in states:  # write (a row group or two each) were encoded one at a time
                self._finish(state)
        finally:
            self._shutdown()
        return list(self._done)

    def abort(self) -> None:
        """Delete every file this writer created (best effort)."""
        self._shutdown()
        for writer in self._open:
            writer.abort()
        for data_file in self._done:
            try:
                self.target.io.delete(data_file.file_path)
            except Exception:
                pass
        self._open.clear()
        self._partitions.clear()

    # --- output --------------------------------------------------------------------------

    def _flush(self, state: _Partition, whole: bool = True) -> None:
        """Write ``state``'s buffered rows as row groups. Without ``whole`` (a buffer that
        just reached a row group's size), rows short of a full row group stay buffered for
        the next one: writing them at once made every other row group a small remainder,
        and that remainder took one of the file's ``FILE_WINDOW`` places, so the next full
        row group waited instead of encoding beside the one before."""
        if not state.batches:
            return
        schema = state.batches[0].schema
        if not all(b.schema.equals(schema) for b in state.batches):  # some kept dictionaries
            state.batches = [b.cast(self.arrow_schema) for b in state.batches]
            schema = self.arrow_schema
        table = pa.Table.from_batches(state.batches, schema=schema)
        self._buffered -= state.nbytes
        state.batches, state.nbytes = [], 0
        if self.sorted:
            self._finish(state)  # a sorted buffer starts and fills its own files
            table = table.take(sort_indices(table, self.target.schema, self.target.sort_order))
            whole = True
        offset = 0
        row_bytes = max(table.nbytes / max(table.num_rows, 1), 1.0)  # Arrow bytes
        cap = max(1, int(self.row_group_bytes / row_bytes))
        while offset < table.num_rows:
            if not whole and table.num_rows - offset < cap:
                rest = table.slice(offset).to_batches()
                state.batches = [b for b in rest if b.num_rows]
                state.nbytes = sum(b.nbytes for b in state.batches)
                self._buffered += state.nbytes
                return
            next_bytes = min(table.num_rows - offset, cap) * row_bytes * self._ratio
            writer, size = self._current(state, next_bytes)
            room = max(self.target_size - size, 1)
            rows = max(1, min(table.num_rows - offset, cap, int(room / (row_bytes * self._ratio))))
            chunk = table.slice(offset, rows)
            self._submit(state, writer, chunk)
            offset += rows
        if self.sorted:
            self._finish(state)

    def _current(self, state: _Partition, next_bytes: float) -> tuple[DataFileWriter, float]:
        """The partition's open file and its (estimated) size, or a new file when that one
        reached the target size (module docstring: sizes are waited for at fixed points)."""
        if state.writer is not None:
            while len(state.pending) >= FILE_WINDOW:
                self._settle(state)
            size = state.known + sum(n for _, n in state.pending) * self._ratio
            if size + next_bytes >= self.target_size:
                while state.pending:
                    self._settle(state)
                size = state.known
                if size >= self.target_size:
                    self._finish(state)
            if state.writer is not None:
                return state.writer, size
        writer = self._new_writer(state)
        state.known = writer.size_after(0)
        return writer, state.known

    def _settle(self, state: _Partition) -> None:
        """Learn the size of the oldest row group of ``state``'s file whose size is unknown
        (waiting for it), and the Parquet/Arrow ratio from it."""
        assert state.writer is not None
        number, nbytes = state.pending.popleft()
        after = state.writer.size_after(number)
        written, state.known = after - state.known, after
        if nbytes and written:
            self._ratio = max(written / nbytes, 1e-3)

    def _submit(self, state: _Partition, writer: DataFileWriter, chunk: pa.Table) -> None:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(WRITE_THREADS, thread_name_prefix="icesql-write")
        future = writer.submit(chunk, self._executor)
        state.pending.append((writer.row_groups, chunk.nbytes))
        if future is None:
            return
        self._in_flight.append((future, chunk.nbytes))
        self._in_flight_bytes += chunk.nbytes
        while self._in_flight:
            oldest, nbytes = self._in_flight[0]
            if not oldest.done() and self._in_flight_bytes <= MAX_IN_FLIGHT_BYTES:
                break
            self._in_flight.popleft()
            self._in_flight_bytes -= nbytes
            oldest.result()  # at once when encoded; else the bound on memory makes us wait

    def _shutdown(self) -> None:
        """Wait for every row group in flight (errors surface where the files are used)."""
        self._in_flight.clear()
        self._in_flight_bytes = 0
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    def _new_writer(self, state: _Partition) -> DataFileWriter:
        t = self.target
        self._count += 1
        props = t.properties
        fmt = check_format(props.file_format)
        name = f"00000-0-{t.operation_id}-0-{self._count:05d}.{fmt}"
        if t.spec.fields:
            path = f"{t.data_location}/{t.spec.partition_path(state.values, t.schema)}/{name}"
        else:
            path = f"{t.data_location}/{name}"
        writer = open_writer(
            fmt,
            t.io,
            path,
            t.write_schema,
            t.spec.spec_id,
            state.values,
            t.metrics,
            DEFAULT_FILE_FORMAT,
            compression=props.parquet_compression,
            compression_level=props.parquet_compression_level,
            page_size=props.page_size_bytes,
            sort_order_id=(
                t.sort_order.order_id
                if t.recorded_sort_order_id is None
                else t.recorded_sort_order_id
            ),
        )
        state.writer = writer
        self._open.append(writer)
        return writer

    def _finish(self, state: _Partition) -> None:
        writer = state.writer
        if writer is None:
            return
        while state.pending:
            self._settle(state)
        state.writer = None
        if writer not in self._open:
            raise InternalError(f"data file {writer.path} finished twice")
        self._open.remove(writer)
        if writer.record_count == 0:
            writer.abort()
            return
        data_file = writer.close()
        self._done.append(data_file)
        if self.progress is not None and self.progress.active:
            self.progress.file_written(data_file.file_size_in_bytes)
