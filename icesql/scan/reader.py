"""Reading one data file of a scan into Arrow record batches shaped as the read schema.

Batches stream: a file is opened when the consumer reaches it and read one batch at a time,
so ``LIMIT 10`` over a huge table touches only the first row groups.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.errors import CorruptFileError, NotSupportedError, OperationalError
from icesql.io import FileIO
from icesql.scan.conform import (
    FIELD_ID_KEY,
    children_by_id,
    conform,
    constant_array,
    field_id,
    missing_field_array,
)
from icesql.scan.file_formats import AvroDataFile, OrcDataFile, open_format_file
from icesql.spec.arrow import PYARROW_READS_VARIANT, schema_to_arrow
from icesql.spec.name_mapping import NameMapping
from icesql.spec.schema import Schema
from icesql.spec.types import NestedField, UnknownType

if TYPE_CHECKING:
    import pyarrow.parquet as pq
else:  # loaded with the first file streamed through Arrow, not with the module (DuckDB reads
    # local Parquet): pyarrow.parquet brings pyarrow.fs, its S3 bindings and ssl
    pq = lazy_module("pyarrow.parquet")

BATCH_ROWS = 64 * 1024
# An object-store file up to this size is fetched whole, in one GET: a footer read and then
# the column chunks would cost two round trips or more for a few MiB. A larger one is read
# by range: its footer, then the projected column chunks, coalesced (pre_buffer), no byte twice.
WHOLE_FILE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class ReadContext:
    """What every file of one scan shares: the schema read and how to find files."""

    schema: Schema  # the projected read schema (top-level fields to return)
    io: FileIO
    name_mapping: NameMapping | None = None
    batch_rows: int = BATCH_ROWS
    # a file's columns decoded on Arrow's thread pool; off for a reader whose batches feed
    # busy threads of its own (copy-on-write's encoders): handing each column to the pool
    # then costs more than it gains, since every core is busy already
    threads: bool = True

    @property
    def arrow_schema(self) -> pa.Schema:
        return schema_to_arrow(self.schema)


def open_parquet(io: FileIO, path: str, size: int | None = None) -> pq.ParquetFile:
    """The Parquet file at ``path``; ``size`` (the manifest's file size) lets a small remote
    file be fetched in one request."""
    try:
        local = io.local(path)
        if local is not None:  # Arrow's own local reader is the fastest
            return pq.ParquetFile(local, pre_buffer=True)
        if size is not None and size <= WHOLE_FILE_BYTES:
            return pq.ParquetFile(pa.BufferReader(io.read_bytes(path)))
        fs, remote = io.fs(path)
        return pq.ParquetFile(_random_access(fs, remote), pre_buffer=True)
    except FileNotFoundError:
        raise OperationalError(f"data file not found: {path}") from None
    except OperationalError:
        raise
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError) as e:  # a damaged footer's names
        if not PYARROW_READS_VARIANT and "cannot be applied to group node" in str(e):
            raise NotSupportedError(
                f"{path} has a variant column, which pyarrow {pa.__version__} cannot open (22 or"
                " later can); DuckDB's reader reads it in queries without metadata columns"
            ) from None
        raise CorruptFileError(path, str(e)) from None


def _random_access(fs: object, path: str) -> pa.NativeFile:
    """A file Arrow reads by ranges (ReadAt), not through fsspec's read-ahead buffer, which
    would fetch the bytes after the footer, then the column chunks again."""
    from pyarrow.fs import FSSpecHandler, PyFileSystem

    return PyFileSystem(FSSpecHandler(fs)).open_input_file(path)


def read_data_file(
    ctx: ReadContext,
    path: str,
    record_count: int,
    identity_partition: dict[int, tuple[NestedField, object]] | None = None,
    size: int | None = None,
    file_format: str = "PARQUET",
) -> Iterator[pa.RecordBatch]:
    """Batches of one data file, columns matched by field id to ``ctx.schema``.

    ``identity_partition`` maps a source field id to (field, value) for identity-partitioned
    columns, used when the file itself does not hold the column (spec: Column Projection);
    ``size`` is the file's size in bytes, as its manifest entry gives it; ``file_format``
    is its entry's format (ORC and Avro files are opened by ``icesql.scan.file_formats``).
    """
    target = ctx.arrow_schema
    fields = ctx.schema.fields
    if not fields:
        yield from _row_count_batches(record_count, ctx.batch_rows)
        return
    is_parquet = file_format == "PARQUET" or file_format.upper() == "PARQUET"
    pf = (
        open_parquet(ctx.io, path, size)
        if is_parquet
        else open_format_file(ctx.io, path, file_format)
    )
    file_fields = _file_fields(pf.schema_arrow, ctx.name_mapping, path)
    by_id = children_by_id(file_fields)
    read_columns: list[str] = []
    plan: list[tuple[str, object]] = []  # per target field: ("file", index) | ("const", ...)
    for f in fields:
        found = by_id.get(f.field_id)
        if isinstance(f.type, UnknownType):
            plan.append(("missing", None))  # always NULL, whatever the file holds for its id
        elif found is not None:
            plan.append(("file", len(read_columns)))
            read_columns.append(found[1].name)
        elif identity_partition and f.field_id in identity_partition:
            plan.append(("const", identity_partition[f.field_id][1]))
        else:
            plan.append(("missing", None))
    try:
        if read_columns:
            batches = pf.iter_batches(
                batch_size=ctx.batch_rows, columns=read_columns, use_threads=ctx.threads
            )
        else:
            # is_parquet opened a pq.ParquetFile, which counts its rows in its footer
            rows = (
                pf.num_rows if isinstance(pf, OrcDataFile | AvroDataFile) else pf.metadata.num_rows
            )
            batches = _row_count_batches(rows if rows >= 0 else record_count, ctx.batch_rows)
        for batch in batches:
            n = batch.num_rows
            arrays = []
            for f, (kind, arg) in zip(fields, plan):
                if kind == "file":
                    file_field = by_id[f.field_id][1]
                    arrays.append(conform(batch.column(arg), file_field, f, path))
                elif kind == "const":
                    arrays.append(constant_array(f.type, arg, n))
                else:
                    arrays.append(missing_field_array(f, n))
            yield pa.RecordBatch.from_arrays(arrays, schema=target)
    except (pa.ArrowInvalid, OSError) as e:
        raise CorruptFileError(path, str(e)) from None


# a string column chunk whose dictionary page takes at most this many bytes is read still
# dictionary-encoded by ``read_as_stored``: its values are few (a larger dictionary may have
# spilled into plain pages, which pyarrow would hash back into a dictionary)
SMALL_DICTIONARY_BYTES = 16 * 1024
# rows per batch of ``read_as_stored``: a rewrite's writer routes and buffers each batch,
# so fewer, larger ones cost less per row (a row group of up to 256k rows at once)
STORED_BATCH_ROWS = 1 << 18


def read_as_stored(
    io: FileIO, path: str, schema: Schema, record_count: int
) -> Iterator[pa.RecordBatch] | None:
    """The rows of the local Parquet file ``path`` for a rewrite (copy-on-write), when its
    columns are ``schema``'s as they are: every top-level column found by field id, of a
    primitive type, with the Arrow type the schema gives it. Columns come in schema order
    under the schema's names; strings whose every column chunk has a small dictionary stay
    dictionary-encoded (``SMALL_DICTIONARY_BYTES``), which the writer takes as they are
    (``icesql.write.parquet.is_encoded``): decoding the strings only to hash them back into
    a dictionary would be a large part of a rewrite's CPU. None when the file needs the
    scan's reader (``read_data_file``: conforming types, defaults, name mapping, nested
    columns)."""
    local = io.local(path)
    if local is None or not schema.fields:
        return None
    try:
        pf = pq.ParquetFile(local)
    except (OSError, pa.ArrowException):
        return None  # the scan's reader names the problem
    by_id = {field_id(f): f for f in pf.schema_arrow}
    meta = pf.metadata
    paths = [meta.schema.column(i).path for i in range(meta.num_columns)]
    names, encoded = [], []
    for f, target in zip(schema.fields, schema_to_arrow(schema)):
        stored, wanted = by_id.get(f.field_id), target.type
        if stored is None or pa.types.is_nested(wanted) or not stored.type.equals(wanted):
            return None
        names.append(stored.name)
        if wanted in (pa.string(), pa.binary()) and _small_dictionaries(meta, paths, stored.name):
            encoded.append(stored.name)
    if len(set(names)) != len(names):
        return None
    pf = pq.ParquetFile(local, metadata=meta, read_dictionary=encoded)
    return _stored_batches(pf, names, [f.name for f in schema.fields], path, record_count)


def _small_dictionaries(meta: pq.FileMetaData, paths: list[str], name: str) -> bool:
    """Whether every column chunk of top-level column ``name`` (``paths``: the leaves' paths)
    has a dictionary page of at most ``SMALL_DICTIONARY_BYTES``."""
    if name not in paths or meta.num_row_groups == 0:
        return False
    index = paths.index(name)
    for i in range(meta.num_row_groups):
        chunk = meta.row_group(i).column(index)
        if not chunk.has_dictionary_page or not chunk.dictionary_page_offset:
            return False
        if chunk.data_page_offset - chunk.dictionary_page_offset > SMALL_DICTIONARY_BYTES:
            return False
    return True


def _stored_batches(
    pf: pq.ParquetFile, columns: list[str], names: list[str], path: str, record_count: int
) -> Iterator[pa.RecordBatch]:
    rows = 0
    try:
        for batch in pf.iter_batches(
            batch_size=STORED_BATCH_ROWS, columns=columns, use_threads=False
        ):
            rows += batch.num_rows
            yield pa.RecordBatch.from_arrays(batch.columns, names=names)
    except (pa.ArrowInvalid, OSError) as e:
        raise CorruptFileError(path, str(e)) from None
    if rows != record_count:
        raise CorruptFileError(
            path, f"the file holds {rows} rows, its manifest entry says {record_count}"
        )


ROW_COUNT_COLUMN = "__icesql_rows"


def _row_count_batches(count: int, batch_rows: int) -> Iterator[pa.RecordBatch]:
    """Batches with a single NULL column, for queries that need rows but no columns."""
    schema = pa.schema([pa.field(ROW_COUNT_COLUMN, pa.null())])
    while count > 0:
        n = min(count, batch_rows)
        yield pa.RecordBatch.from_arrays([pa.nulls(n)], schema=schema)
        count -= n


def _file_fields(schema: pa.Schema, mapping: NameMapping | None, path: str) -> list[pa.Field]:
    """The file's top-level fields, with field ids assigned by name mapping if missing."""
    fields = list(schema)
    if any(field_id(f) is not None for f in fields):
        return fields
    if mapping is None:
        raise NotSupportedError(
            f"data file {path} has no Iceberg field ids and the table has no"
            " schema.name-mapping.default to assign them"
        )
    return [_map_field(f, (f.name,), mapping) for f in fields]


def _map_field(f: pa.Field, names: Sequence[str], mapping: NameMapping) -> pa.Field:
    t = f.type
    if pa.types.is_struct(t):
        t = pa.struct([_map_field(c, (*names, c.name), mapping) for c in t])
    elif pa.types.is_map(t):
        t = pa.map_(
            _map_field(t.key_field, (*names, "key"), mapping),
            _map_field(t.item_field, (*names, "value"), mapping),
        )
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        t = pa.list_(_map_field(t.value_field, (*names, "element"), mapping))
    fid = mapping.find(list(names))
    meta = {FIELD_ID_KEY: str(fid).encode()} if fid is not None else None
    return pa.field(f.name, t, f.nullable, metadata=meta)
