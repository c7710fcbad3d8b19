"""Writing one Parquet data file the way Iceberg's Parquet writer lays it out.

Appendix A: every column carries its Iceberg field id as the Parquet field id, lists use
the 3-level representation with ``element``, decimals are stored as int32/int64 when the
precision allows, ``unknown`` columns are omitted, timestamps keep their UTC adjustment, variant
columns are annotated ``VARIANT`` in the footer (``icesql.write.variant_footer``).
The Arrow schema written is exactly ``schema_to_arrow(schema)`` minus unknown columns, so
batches must already have been cast to the table's types.

The writer streams: each ``write`` appends row groups, and ``bytes_written`` tells a
rolling writer when the file has reached its target size. ``close`` returns the
``DataFile`` with its metrics (``icesql.write.column_metrics``). ``submit`` hands a row
group to a thread pool instead: Parquet encoding and the metrics pass release the GIL, so
the caller goes on producing rows while this one is encoded. Row groups are encoded apart
and stitched into the file in the order given (``icesql.write.parquet_stitch``), so
several row groups of one file encode at once: an unpartitioned write uses every core.
``size_after(n)`` waits only for the first ``n`` row groups, which keeps a rolling writer's
decisions independent of which encoding finishes first.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from icesql.errors import OperationalError
from icesql.io import FileIO
from icesql.metadata.manifest_schema import decimal_required_bytes
from icesql.spec.arrow import geoarrow_type, schema_to_arrow
from icesql.spec.content_file import DATA, DataFile
from icesql.spec.file_schema import file_schema
from icesql.spec.schema import Schema
from icesql.spec.types import (
    GeographyType,
    GeometryType,
)
from icesql.write.column_metrics import FileMetricsCollector, MetricsConfig
from icesql.write.parquet_stitch import MAGIC, EncodedRowGroup, Stitcher, encode
from icesql.write.variant_footer import annotate_footer, variant_paths

__all__ = [
    "OpenDataFile",
    "ParquetDataWriter",
    "dictionary_pays",
    "is_encoded",
    "leaf_paths",
    "plain_columns",
    "split_offsets",
]

_CODEC_NAMES = {"uncompressed": "none", "none": "none", "lz4_raw": "lz4"}


def is_encoded(array_type: pa.DataType, column_type: pa.DataType) -> bool:
    """Whether ``array_type`` is a dictionary encoding of ``column_type``'s values: written
    as it is, the Parquet encoder takes its dictionary instead of hashing each value, and
    the column chunk it writes is the one the decoded values give (same Parquet type,
    statistics of the values the rows use)."""
    return pa.types.is_dictionary(array_type) and array_type.value_type.equals(column_type)


def _keeping_encoded(schema: pa.Schema, given: pa.Schema) -> pa.Schema:
    """``schema`` with the type ``given`` has where that is a dictionary encoding of it."""
    return pa.schema(
        [f.with_type(g.type) if is_encoded(g.type, f.type) else f for f, g in zip(schema, given)],
        metadata=schema.metadata,
    )


# rows of a row group's start that decide whether a column's dictionary pays off (parquet-mr
# decides on its first page)
DICTIONARY_SAMPLE_ROWS = 8192


def dictionary_pays(values: int, distinct: int, width: int) -> bool:
    """parquet-mr's test of a dictionary-encoded column (``isCompressionSatisfying``): its
    indices (bit-packed, as wide as the dictionary needs) and its dictionary must take fewer
    bytes than the ``values`` of ``width`` bytes stored plain. Where they do not, the values
    barely repeat, and parquet-mr writes them plain from its first page on."""
    bits = max(1, (distinct - 1).bit_length())
    return values * bits / 8 + distinct * width < values * width


def _plain_width(t: pa.DataType) -> int | None:
    """Bytes a value of ``t`` takes stored plain, for the columns whose dictionary is
    decided (fixed-width numbers, dates and times; decimals as ``store_decimal_as_integer``
    stores them); None for the others (strings, booleans...: pyarrow's own default)."""
    if pa.types.is_decimal(t):
        if t.precision <= 9:
            return 4
        if t.precision <= 18:
            return 8
        return decimal_required_bytes(t.precision)  # its fixed length
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_temporal(t):
        return max(4, t.bit_width // 8)  # Parquet has no integer narrower than int32
    return None


def plain_columns(table: pa.Table, widths: dict[str, int]) -> list[str]:
    """The columns of ``widths`` (name: plain width) whose first rows in ``table`` repeat
    too little for a dictionary (``dictionary_pays``): written plain, they encode faster and
    smaller than pyarrow's dictionary, which hashes every value until the dictionary
    outgrows its page (1 MB), and the dictionary of nearly unique values saves nothing (the
    benchmark's lineitem part key and extended price are such columns)."""
    plain = []
    for name, width in widths.items():
        head = table.column(name).slice(0, DICTIONARY_SAMPLE_ROWS)
        values = len(head) - head.null_count
        if values and not dictionary_pays(values, pc.count_distinct(head).as_py(), width):
            plain.append(name)
    return plain


def leaf_paths(schema: pa.Schema) -> list[str]:
    """The dotted paths of the Parquet leaf columns of ``schema`` as pyarrow names them (with
    ``use_compliant_nested_type``): what its ``use_dictionary`` list takes."""

    def walk(prefix: str, t: pa.DataType) -> list[str]:
        if pa.types.is_struct(t):
            return [
                p
                for i in range(t.num_fields)
                for p in walk(f"{prefix}.{t.field(i).name}", t.field(i).type)
            ]
        if pa.types.is_map(t):
            return [
                *walk(f"{prefix}.key_value.key", t.key_type),
                *walk(f"{prefix}.key_value.value", t.item_type),
            ]
        if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            return walk(f"{prefix}.list.element", t.value_type)
        return [prefix]

    return [p for f in schema for p in walk(f.name, f.type)]


def _geo_columns(schema: Schema) -> list[tuple[int, pa.DataType]]:
    """Top-level geometry / geography columns and their ``geoarrow.wkb`` types, so that the
    Parquet writer annotates them GEOMETRY / GEOGRAPHY (Appendix A; pyarrow 21 and later; 20
    writes plain binary). Nested ones, and geographies with an edge algorithm other than
    ``spherical`` (pyarrow's writer refuses the others), stay plain binary: the table's schema
    still says what they are, and every reader takes the bytes as WKB."""
    return [
        (i, geoarrow_type(f.type))
        for i, f in enumerate(schema.fields)
        if isinstance(f.type, GeometryType)
        or (isinstance(f.type, GeographyType) and f.type.algorithm == "spherical")
    ]


class OpenDataFile:
    """What every format's writer shares: the schema written (unknown columns left out),
    the metrics collector, the open sink, and deleting the file on abort."""

    def __init__(
        self,
        io: FileIO,
        path: str,
        schema: Schema,
        spec_id: int,
        partition: Sequence[Any],
        metrics: MetricsConfig,
        sort_order_id: int | None,
        count_batches: bool = False,
    ):
        self.io = io
        self.path = path
        self.spec_id = spec_id
        self.partition = tuple(partition)
        self.sort_order_id = sort_order_id
        self._write_schema = file_schema(schema)
        self.arrow_schema = schema_to_arrow(self._write_schema)
        self._metrics = FileMetricsCollector(self._write_schema, metrics, count_batches)
        self.record_count = 0
        self.row_groups = 0  # writes given
        try:
            self._sink = io.create(path)
        except OSError as e:
            raise OperationalError(f"cannot create data file {path}: {e}") from e

    @property
    def bytes_written(self) -> int:
        """Bytes flushed to the file so far."""
        return self._sink.tell()

    def write(self, batch: pa.RecordBatch | pa.Table) -> None:
        raise NotImplementedError

    def submit(self, batch: pa.RecordBatch | pa.Table, executor: Executor) -> Future[Any] | None:
        """``write`` on ``executor`` where the format's encoder releases the GIL (Parquet);
        here, at once (no future)."""
        self.write(batch)
        self.row_groups += 1
        return None

    def size_after(self, row_groups: int) -> int:
        """The file's size once its first ``row_groups`` writes are in: here, all are."""
        return self.bytes_written

    @property
    def in_flight(self) -> bool:
        """Whether a submitted row group is still being written."""
        return False

    def wait(self) -> None:
        """Wait for the row groups in flight; their first error is raised here."""

    def _close_writer(self) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        """Close and delete the file (best effort): nothing will reference it."""
        try:
            self.wait()
        except Exception:
            pass
        try:
            self._close_writer()
            self._sink.close()
        except Exception:
            pass
        try:
            self.io.delete(self.path)
        except Exception:
            pass


class ParquetDataWriter(OpenDataFile):
    """One open data file. Not thread-safe; use one per file.

    Each row group is encoded apart (``icesql.write.parquet_stitch``), on the caller's
    thread (``write``) or on an executor (``submit``), several of one file at once; the
    encoded row groups are appended in the order they were given, and ``close`` writes the
    footer listing them all."""

    def __init__(
        self,
        io: FileIO,
        path: str,
        schema: Schema,
        spec_id: int,
        partition: Sequence[Any],
        metrics: MetricsConfig,
        compression: str = "zstd",
        compression_level: int | None = None,
        page_size: int = 1024 * 1024,
        sort_order_id: int | None = 0,
    ):
        super().__init__(io, path, schema, spec_id, partition, metrics, sort_order_id)
        self._geo = _geo_columns(self._write_schema)
        self._file_schema = self.arrow_schema
        for i, ext in self._geo:
            f = self.arrow_schema.field(i)
            self._file_schema = self._file_schema.set(
                i, pa.field(f.name, ext, f.nullable, f.metadata)
            )
        self._options: dict[str, Any] = dict(
            compression=_CODEC_NAMES.get(compression, compression),
            compression_level=compression_level,
            data_page_size=page_size,
            store_decimal_as_integer=True,
            store_schema=False,
            write_statistics=True,
            use_compliant_nested_type=True,
            version="2.6",
            data_page_version="1.0",  # what parquet-mr (Spark) writes and every reader reads
        )
        # top-level columns whose dictionary is decided per row group (``plain_columns``).
        # Not a decimal with a default: Iceberg Java's vectorized reader (Spark's, up to
        # 1.10) fails on its plain pages (apache/iceberg#16502), so it keeps its dictionary
        self._widths = {
            f.name: width
            for f, field in zip(self._file_schema, self._write_schema.fields)
            if (width := _plain_width(f.type)) is not None
            and not (
                pa.types.is_decimal(f.type)
                and (field.initial_default is not None or field.write_default is not None)
            )
        }
        self._leaves = leaf_paths(self._file_schema) if self._widths else []
        try:
            pq.ParquetWriter(pa.BufferOutputStream(), self._file_schema, **self._options).close()
            self._sink.write(MAGIC)
        except (OSError, ValueError, pa.ArrowException) as e:
            self._sink.close()
            raise OperationalError(f"cannot create data file {path}: {e}") from e
        self._stitcher = Stitcher()
        self._variants = variant_paths(self._write_schema)
        # row groups given and not yet appended, in file order
        self._queue: deque[Future[EncodedRowGroup]] = deque()
        self._ends: list[int] = []  # the file's size after each appended row group
        self.row_groups = 0  # row groups given (written, or submitted)

    def write(self, batch: pa.RecordBatch | pa.Table) -> None:
        """Append rows (one row group per call); ``batch`` must have the table's types."""
        table = self._prepare(batch)
        if table is not None:
            done: Future[EncodedRowGroup] = Future()
            try:
                done.set_result(self._encode_row_group(table, self.record_count - table.num_rows))
            except BaseException as e:
                done.set_exception(e)
            self._queue.append(done)
            self._drain(len(self._queue))

    def submit(self, batch: pa.RecordBatch | pa.Table, executor: Executor) -> Future[Any] | None:
        """``write`` on ``executor``, returning at once (the row group's future, or None for
        no rows): row groups given before may still be encoding. Errors surface from the
        future and from every method that reads the file's state."""
        table = self._prepare(batch)
        if table is None:
            return None
        first = self.record_count - table.num_rows
        future = executor.submit(self._encode_row_group, table, first)
        self._queue.append(future)
        self._drain(sum(1 for _ in _done_prefix(self._queue)))  # free what is finished
        return future

    def _prepare(self, batch: pa.RecordBatch | pa.Table) -> pa.Table | None:
        if batch.num_rows == 0:
            return None
        if batch.schema.names != self.arrow_schema.names:
            batch = batch.select(self.arrow_schema.names)
        table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
        self.record_count += table.num_rows
        self.row_groups += 1
        return table

    def _encode_row_group(self, table: pa.Table, first: int) -> EncodedRowGroup:
        """Rows ``first ..`` of the file as one encoded row group (any thread)."""
        file_schema = self._file_schema
        if not table.schema.equals(self.arrow_schema):  # dictionary-encoded strings stay so
            table = table.cast(_keeping_encoded(self.arrow_schema, table.schema))
            file_schema = _keeping_encoded(self._file_schema, table.schema)
        self._metrics.add(table, first)
        for i, ext in self._geo:
            column = table.column(i)
            wrapped = pa.chunked_array(
                [pa.ExtensionArray.from_storage(ext, c) for c in column.chunks], type=ext
            )
            table = table.set_column(i, self._file_schema.field(i), wrapped)
        options = self._options
        plain = plain_columns(table, self._widths) if self._widths else []
        if plain:
            options = {**options, "use_dictionary": [p for p in self._leaves if p not in plain]}
        try:
            return encode(table, file_schema, **options)
        except (OSError, pa.ArrowException) as e:
            raise OperationalError(f"cannot write data file {self.path}: {e}") from e

    def _drain(self, count: int) -> None:
        """Append the next ``count`` row groups of the queue, waiting for them."""
        for _ in range(count):
            encoded = self._queue[0].result()
            self._queue.popleft()
            position = self._sink.tell()
            try:
                self._sink.write(encoded.body)
            except OSError as e:
                raise OperationalError(f"cannot write data file {self.path}: {e}") from e
            self._stitcher.add(encoded, position)
            self._ends.append(self._sink.tell())

    @property
    def in_flight(self) -> bool:
        """Whether a submitted row group is still being encoded."""
        return any(not f.done() for f in self._queue)

    def wait(self) -> None:
        """Append every row group given; the first error of one is raised here."""
        self._drain(len(self._queue))

    @property
    def bytes_written(self) -> int:
        """Bytes in the file so far (every row group given, waiting for those encoding)."""
        self.wait()
        return self._sink.tell()

    def size_after(self, row_groups: int) -> int:
        """The file's size once its first ``row_groups`` row groups are in (waits for them)."""
        self._drain(max(0, row_groups - len(self._ends)))
        return self._ends[row_groups - 1] if row_groups else len(MAGIC)

    def close(self) -> DataFile:
        """Finish the file and describe it for a manifest."""
        self.wait()
        try:
            meta = self._stitcher.metadata()
            if self._variants:
                meta = annotate_footer(meta, self._variants)
            tail = meta + len(meta).to_bytes(4, "little") + MAGIC
            self._sink.write(tail)
            size = self._sink.tell()
            self._sink.close()
        except OSError as e:
            raise OperationalError(f"cannot finish data file {self.path}: {e}") from e
        footer = pq.read_metadata(pa.BufferReader(MAGIC + tail))
        metrics = self._metrics.metrics(footer)
        return DataFile(
            content=DATA,
            file_path=self.path,
            file_format="PARQUET",
            partition=self.partition,
            record_count=self.record_count,
            file_size_in_bytes=size,
            split_offsets=split_offsets(footer),
            sort_order_id=self.sort_order_id,
            spec_id=self.spec_id,
            **metrics,
        )

    def abort(self) -> None:
        """Close and delete the file (best effort): nothing will reference it."""
        for future in self._queue:
            future.cancel()
            try:
                future.result()
            except BaseException:
                pass
        self._queue.clear()
        super().abort()

    def _close_writer(self) -> None:
        pass


def _done_prefix(queue: deque[Future[Any]]) -> Any:
    for future in queue:
        if not future.done():
            return
        yield future


def split_offsets(footer: Any) -> tuple[int, ...]:
    """Row-group start offsets, as Java's ``ParquetUtil.getSplitOffsets``."""
    offsets = []
    for i in range(footer.num_row_groups):
        column = footer.row_group(i).column(0)
        start = column.data_page_offset
        if column.has_dictionary_page and column.dictionary_page_offset is not None:
            start = min(start, column.dictionary_page_offset)
        offsets.append(start)
    return tuple(sorted(offsets))
