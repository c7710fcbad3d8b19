"""Writing one Parquet data file the way Iceberg's Parquet writer lays it out.

Appendix A: every column carries its Iceberg field id as the Parquet field id, lists use
the 3-level representation with ``element``, decimals are stored as int32/int64 when the
precision allows, ``unknown`` columns are omitted, timestamps keep their UTC adjustment, variant columns are
annotated ``VARIANT`` (``icesql.write.variant_footer``).
The Arrow schema written is exactly ``schema_to_arrow(schema)`` minus unknown columns, so
batches must already have been cast to the table's types.

The writer streams: each ``write`` appends row groups, and ``bytes_written`` tells a
rolling writer when the file has reached its target size. ``close`` returns the
``DataFile`` with its metrics (``icesql.write.column_metrics``). ``submit`` hands a row
group to a thread pool instead: Parquet encoding and the metrics pass release the GIL, so
the caller goes on producing rows (and other files encode) while this one is written; a
file keeps at most one row group in flight, and every read of its state waits for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor, Future
from dataclasses import replace
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from icesql.errors import NotSupportedError, OperationalError
from icesql.io import FileIO
from icesql.spec.arrow import geoarrow_type, schema_to_arrow
from icesql.spec.content_file import DATA, DataFile
from icesql.spec.schema import Schema
from icesql.spec.types import (
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
    MapType,
    NestedField,
    StructType,
    UnknownType,
)
from icesql.write.column_metrics import FileMetricsCollector, MetricsConfig
from icesql.write.variant_footer import AnnotatingSink, variant_paths

__all__ = ["OpenDataFile", "ParquetDataWriter", "arrow_write_schema", "file_schema", "split_offsets"]

_CODEC_NAMES = {"uncompressed": "none", "none": "none", "lz4_raw": "lz4"}


def file_schema(schema: Schema) -> Schema:
    """``schema`` as data files store it: v3 ``unknown`` fields left out at every level of
    structs ("omit from data files", in every format); readers give them NULL."""
    return Schema(_known_fields(schema.fields), schema.schema_id, schema.identifier_field_ids)


def _known_fields(fields: tuple[NestedField, ...]) -> tuple[NestedField, ...]:
    return tuple(replace(f, type=_known(f.type)) for f in fields if not isinstance(f.type, UnknownType))


def _known(t: IcebergType) -> IcebergType:
    if isinstance(t, StructType):
        return StructType(_known_fields(t.fields))
    if any(isinstance(f.type, UnknownType) for f in getattr(t, "fields", ())):
        raise NotSupportedError(
            f"cannot write {t}: a list element or map key/value of type unknown has no"
            " representation in data files (only struct fields and columns can be left out)"
        )
    if isinstance(t, ListType):
        return replace(t, element_type=_known(t.element_type))
    if isinstance(t, MapType):
        return replace(t, key_type=_known(t.key_type), value_type=_known(t.value_type))
    return t


def arrow_write_schema(schema: Schema) -> pa.Schema:
    """The Arrow schema of the data files of ``schema`` (unknown fields left out)."""
    return schema_to_arrow(file_schema(schema))


def _geo_columns(schema: Schema) -> list[tuple[int, pa.DataType]]:
    """Top-level geometry / geography columns and their ``geoarrow.wkb`` types, so that the
    Parquet writer annotates them GEOMETRY / GEOGRAPHY (Appendix A; pyarrow 21 and later; 20
    writes plain binary). Nested ones, and geographies with an edge algorithm other than
    ``spherical`` (pyarrow's writer refuses the others), stay plain binary: the table's schema
    still says what they are, and every reader takes the bytes as WKB."""
    return [
        (i, geoarrow_type(f.type)) for i, f in enumerate(schema.fields)
        if isinstance(f.type, GeometryType)
        or (isinstance(f.type, GeographyType) and f.type.algorithm == "spherical")
    ]


class OpenDataFile:
    """What every format's writer shares: the schema written (unknown columns left out),
    the metrics collector, the open sink, and deleting the file on abort."""

    def __init__(self, io: FileIO, path: str, schema: Schema, spec_id: int,
                 partition: Sequence[Any], metrics: MetricsConfig, sort_order_id: int | None,
                 count_batches: bool = False):
        self.io = io
        self.path = path
        self.spec_id = spec_id
        self.partition = tuple(partition)
        self.sort_order_id = sort_order_id
        self._write_schema = file_schema(schema)
        self.arrow_schema = schema_to_arrow(self._write_schema)
        self._metrics = FileMetricsCollector(self._write_schema, metrics, count_batches)
        self.record_count = 0
        self._pending: Future[None] | None = None
        fs, fs_path = io.fs(path)
        parent = fs_path.rsplit("/", 1)[0]
        try:
            if parent:
                fs.makedirs(parent, exist_ok=True)
            self._sink = fs.open(fs_path, "wb")
        except OSError as e:
            raise OperationalError(f"cannot create data file {path}: {e}") from e

    @property
    def bytes_written(self) -> int:
        """Bytes flushed to the file so far (whole row groups, the one in flight included)."""
        self.wait()
        return self._sink.tell()

    def write(self, batch: pa.RecordBatch | pa.Table) -> None:
        raise NotImplementedError

    def submit(self, batch: pa.RecordBatch | pa.Table, executor: Executor) -> None:
        """``write`` on ``executor`` where the format's encoder releases the GIL (Parquet);
        here, at once."""
        self.write(batch)

    @property
    def in_flight(self) -> bool:
        """Whether a submitted row group is still being written."""
        return self._pending is not None and not self._pending.done()

    def wait(self) -> None:
        """Wait for the row group in flight; its error (an OperationalError) is raised here."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def _close_writer(self) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        """Close and delete the file (best effort): nothing will reference it."""
        try:
            self.wait()
        except Exception:  # noqa: BLE001 - already failing; cleanup must not mask the cause
            pass
        try:
            self._close_writer()
            self._sink.close()
        except Exception:  # noqa: BLE001 - already failing; cleanup must not mask the cause
            pass
        try:
            self.io.delete(self.path)
        except Exception:  # noqa: BLE001
            pass


class ParquetDataWriter(OpenDataFile):
    """One open data file. Not thread-safe; use one per file."""

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
        paths = variant_paths(self._write_schema)
        self._annotating = AnnotatingSink(self._sink, paths) if paths else None
        self._geo = _geo_columns(self._write_schema)
        self._file_schema = self.arrow_schema
        for i, ext in self._geo:
            f = self.arrow_schema.field(i)
            self._file_schema = self._file_schema.set(i, pa.field(f.name, ext, f.nullable, f.metadata))
        try:
            self._writer = pq.ParquetWriter(
                self._annotating or self._sink,
                self._file_schema,
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
        except OSError as e:
            self._sink.close()
            raise OperationalError(f"cannot create data file {path}: {e}") from e

    def write(self, batch: pa.RecordBatch | pa.Table) -> None:
        """Append rows (one row group per call); ``batch`` must have the table's types."""
        self.wait()
        table = self._prepare(batch)
        if table is not None:
            self._write_row_group(table)

    def submit(self, batch: pa.RecordBatch | pa.Table, executor: Executor) -> None:
        """``write`` on ``executor``: returns once the previous row group of this file is
        written; its errors surface from the next ``wait`` (every other method waits)."""
        self.wait()
        table = self._prepare(batch)
        if table is not None:
            self._pending = executor.submit(self._write_row_group, table)

    def _prepare(self, batch: pa.RecordBatch | pa.Table) -> pa.Table | None:
        if batch.num_rows == 0:
            return None
        if batch.schema.names != self.arrow_schema.names:
            batch = batch.select(self.arrow_schema.names)
        table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
        self.record_count += table.num_rows
        return table

    def _write_row_group(self, table: pa.Table) -> None:
        table = table.cast(self.arrow_schema)
        self._metrics.add(table)
        for i, ext in self._geo:
            column = table.column(i)
            wrapped = pa.chunked_array(
                [pa.ExtensionArray.from_storage(ext, c) for c in column.chunks], type=ext
            )
            table = table.set_column(i, self._file_schema.field(i), wrapped)
        try:
            self._writer.write_table(table, row_group_size=max(table.num_rows, 1))
        except (OSError, pa.ArrowException) as e:
            raise OperationalError(f"cannot write data file {self.path}: {e}") from e

    def close(self) -> DataFile:
        """Finish the file and describe it for a manifest."""
        self.wait()
        try:
            if self._annotating is not None:
                self._annotating.hold()
            self._writer.close()
            if self._annotating is not None:
                self._annotating.finish()
            size = self._sink.tell()
            self._sink.close()
        except (OSError, pa.ArrowException) as e:
            raise OperationalError(f"cannot finish data file {self.path}: {e}") from e
        footer = self._writer.writer.metadata
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

    def _close_writer(self) -> None:
        self._writer.close()


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
