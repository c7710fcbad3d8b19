"""Reading delete files: position delete files, deletion vectors and equality delete files.

Reading a delete file can cost more than applying it: each row of a position delete file
repeats the full path of its data file beside the position (the Iceberg table spec,
"Position Delete Files"), and decoding those strings is most of the read. So:

* a position delete file that names its one data file is read for ``pos`` only;
* a position delete file shared by a partition is read once per scan and split by
  ``file_path``, since every data file of the partition asks for its part; each part is
  dropped when handed out, so a scan of a large partition holds the positions of the files
  not read yet, not of all (a file asked for again, as a second scan of the same rows asks,
  has the delete file read again);
* an equality delete file is read once per scan (only its delete columns) and kept;
* a deletion vector belongs to one data file, so it is read when that file is read.

Errors name the delete file: a missing file raises ``OperationalError``, a damaged one
(including a DV whose CRC does not match) ``CorruptFileError``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.errors import CorruptFileError, DataError, NotSupportedError, OperationalError
from icesql.io import FileIO
from icesql.metadata.puffin import read_deletion_vector
from icesql.scan.conform import conform, field_id
from icesql.scan.delete_index import is_deletion_vector, referenced_data_file
from icesql.scan.file_formats import FORMATS, open_format_file
from icesql.scan.reader import ReadContext, read_data_file
from icesql.spec.arrays import ints
from icesql.spec.content_file import DataFile
from icesql.spec.name_mapping import NameMapping
from icesql.spec.reserved import FILE_PATH_FIELD_ID, POS_FIELD_ID, POSITION_DELETE_ROW_FIELD_ID
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField, StringType

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # loaded with the first file this module reads itself, not with the module (DuckDB
    # reads local Parquet); pyarrow.parquet is not loaded at all (``_PositionFile``)
    pc = lazy_module("pyarrow.compute")

__all__ = ["DeleteLoader", "EMPTY_POSITIONS"]

EMPTY_POSITIONS = np.empty(0, dtype=np.int64)


class DeleteLoader:
    """Delete file contents for one scan, each shared file read at most once."""

    def __init__(self, io: FileIO, name_mapping: NameMapping | None = None):
        self.io = io
        self.name_mapping = name_mapping
        self.files_read = 0  # delete files (or DV blobs) actually read from storage
        self._lock = threading.Lock()
        self._shared_positions: dict[str, dict[str, np.ndarray]] = {}
        self._handed_out: dict[str, set[str]] = {}  # shared file: data files given their part
        self._equality: dict[tuple[str, tuple[int, ...]], pa.Table] = {}
        self._loading: dict[object, threading.Lock] = {}

    def deleted_positions(self, data_file_path: str, deletes: Sequence[DataFile]) -> np.ndarray:
        """Sorted, distinct positions of ``data_file_path`` deleted by the position delete
        files and DVs among ``deletes`` (equality deletes are skipped)."""
        parts = []
        for delete in deletes:
            if is_deletion_vector(delete):
                parts.append(self._dv_positions(delete))
            elif delete.content == 1:
                if referenced_data_file(delete) == data_file_path:
                    parts.append(self._own_positions(delete))
                else:
                    parts.append(self._shared_part(delete, data_file_path))
        parts = [p for p in parts if len(p)]
        if not parts:
            return EMPTY_POSITIONS
        if len(parts) == 1:
            return parts[0]
        return np.unique(np.concatenate(parts))

    def position_rows(
        self, delete: DataFile, row: NestedField | None = None
    ) -> tuple[pa.Array, np.ndarray, pa.Array | None]:
        """The (file_path, pos) rows of a Parquet position delete file, in file order, and,
        given the ``row`` field (id 2147483544, a struct of the table's columns), the deleted
        rows when the file stores them, conformed to it by field id (None when it does not)."""
        table = self._position_columns(delete, with_paths=True, row=row is not None)
        paths = table.column(0).combine_chunks()
        if pa.types.is_dictionary(paths.type):
            paths = paths.dictionary_decode()
        positions = table.column(1).combine_chunks()
        if positions.null_count:
            raise DataError(f"position delete file {delete.file_path} has NULL pos values")
        positions = ints(positions)
        rows = None
        if row is not None and table.num_columns > 2:
            stored = table.column(2).combine_chunks()
            rows = conform(stored, table.schema.field(2), row, f"{delete.file_path}: row")
        return paths.cast(pa.string()), np.asarray(positions, dtype=np.int64), rows

    def equality_rows(self, delete: DataFile, fields: Sequence[NestedField]) -> pa.Table:
        """The delete columns (``fields``, in ``equality_ids`` order) of an equality delete
        file, typed as the table types them; columns are named by position ("0", "1", ...)."""
        key = (delete.file_path, tuple(f.field_id for f in fields))
        renamed = [replace(f, name=str(i)) for i, f in enumerate(fields)]
        return self._once(self._equality, key, lambda: self._read(delete, renamed, "equality"))

    def _once(self, cache: dict, key: object, load: Callable[[], Any]) -> Any:
        """``cache[key]``, loaded by one thread only (deletes are read ahead in parallel)."""
        with self._lock:
            if key in cache:
                return cache[key]
            key_lock = self._loading.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                if key in cache:
                    return cache[key]
            value = load()
            with self._lock:
                cache[key] = value
                self._loading.pop(key, None)
            return value

    # --- position deletes --------------------------------------------------------------------

    def _dv_positions(self, delete: DataFile) -> np.ndarray:
        if delete.content_offset is None or delete.content_size_in_bytes is None:
            raise CorruptFileError(
                delete.file_path, "deletion vector entry has no content_offset / content_size"
            )
        try:
            bitmap = read_deletion_vector(
                self.io, delete.file_path, delete.content_offset, delete.content_size_in_bytes
            )
        except CorruptFileError:
            raise
        except OperationalError as e:
            raise OperationalError(f"cannot read deletion vector {delete.file_path}: {e}") from e
        except OSError as e:
            raise CorruptFileError(delete.file_path, f"deletion vector: {e}") from e
        self._count()
        return np.asarray(bitmap.to_array(), dtype=np.int64)

    def _own_positions(self, delete: DataFile) -> np.ndarray:
        """The positions of a delete file of one data file: its ``pos`` column alone (half
        the time of reading it through the data file reader)."""
        return _sorted_positions(self._position_columns(delete, with_paths=False).column(0))

    def _shared(self, delete: DataFile) -> dict[str, np.ndarray]:
        path = delete.file_path
        return self._once(self._shared_positions, path, lambda: self._read_by_path(delete))

    def _shared_part(self, delete: DataFile, data_file_path: str) -> np.ndarray:
        """The positions of one data file in a shared delete file, dropped from the cache
        as they are handed out. A file asked for again starts a second pass: the delete
        file is read again and cached afresh for the data files that pass asks for."""
        key = delete.file_path
        while True:
            parts = self._shared(delete)
            with self._lock:
                positions = parts.pop(data_file_path, None)
                handed = self._handed_out.setdefault(key, set())
                if positions is not None:
                    handed.add(data_file_path)
                    return positions
                if data_file_path not in handed:
                    return EMPTY_POSITIONS  # the file deletes nothing in it
                if self._shared_positions.get(key) is parts:
                    del self._shared_positions[key]
                    handed.clear()

    def _read_by_path(self, delete: DataFile) -> dict[str, np.ndarray]:
        """(file_path, pos) rows split by path."""
        table = self._position_columns(delete, with_paths=True)
        return _split_by_path(table.column(0), table.column(1))

    def _position_columns(self, delete: DataFile, with_paths: bool, row: bool = False) -> pa.Table:
        """The (file_path, pos) columns of a position delete file, or ``pos`` alone; with
        ``row``, also the stored deleted rows when the file has them (a third column).
        ``file_path`` is read dictionary-encoded: the strings repeat, and decoding each of
        them would dominate the read."""
        _require_format(delete, "position")
        if delete.file_format.upper() != "PARQUET":
            return self._other_format_positions(delete, with_paths, refuse_rows=row)
        try:
            pf = _open_position_file(self.io, delete.file_path, with_paths)
            names = {field_id(f): f.name for f in pf.schema_arrow}
            if not any(isinstance(i, int) for i in names):  # no ids: the spec's names
                present = {f.name for f in pf.schema_arrow}
                spec_names = {
                    FILE_PATH_FIELD_ID: "file_path",
                    POS_FIELD_ID: "pos",
                    POSITION_DELETE_ROW_FIELD_ID: "row",
                }
                names = {i: n for i, n in spec_names.items() if n in present}
            path_col, pos_col = names.get(FILE_PATH_FIELD_ID), names.get(POS_FIELD_ID)
            if path_col is None or pos_col is None:
                raise CorruptFileError(
                    delete.file_path, "position delete file has no file_path / pos columns"
                )
            # one thread: files are read in parallel already, and Arrow's pool on top of
            # that only adds handing work between threads
            columns = [path_col, pos_col] if with_paths else [pos_col]
            if row and POSITION_DELETE_ROW_FIELD_ID in names:
                columns.append(names[POSITION_DELETE_ROW_FIELD_ID])
            table = pf.read(columns=columns, use_threads=False)
        except CorruptFileError:
            raise
        except (FileNotFoundError, OperationalError) as e:
            raise OperationalError(
                f"cannot read position delete file {delete.file_path}: file not found"
            ) from e
        except (pa.ArrowInvalid, OSError, UnicodeDecodeError) as e:  # a damaged footer's names
            raise CorruptFileError(delete.file_path, str(e)) from None
        self._count()
        return table.unify_dictionaries() if with_paths else table

    def _other_format_positions(
        self, delete: DataFile, with_paths: bool, refuse_rows: bool
    ) -> pa.Table:
        """The (file_path, pos) columns of an ORC or Avro position delete file (the Parquet
        reader's shortcuts do not apply: these are read through the stream reader);
        ``refuse_rows``: one that also stores the deleted rows is NotSupportedError (for the
        ``row`` column of ``position_deletes``, read from Parquet files only so far)."""
        if refuse_rows:
            fields = open_format_file(self.io, delete.file_path, delete.file_format).schema_arrow
            if any(field_id(f) == POSITION_DELETE_ROW_FIELD_ID or f.name == "row" for f in fields):
                raise NotSupportedError(
                    f"position delete file {delete.file_path} stores the deleted rows"
                    " (column 'row'), which icesql does not read yet"
                )
        wanted = [NestedField(POS_FIELD_ID, "pos", LongType(), True)]
        if with_paths:
            wanted.insert(0, NestedField(FILE_PATH_FIELD_ID, "file_path", StringType(), True))
        table = self._read(delete, wanted, "position")
        if with_paths:
            paths = table.column(0).combine_chunks().dictionary_encode()
            table = table.set_column(0, "file_path", pa.chunked_array([paths]))
        return table

    # --- reading ---------------------------------------------------------------------------

    def _read(self, delete: DataFile, fields: list[NestedField], kind: str) -> pa.Table:
        _require_format(delete, kind)
        ctx = ReadContext(Schema(tuple(fields)), self.io, self.name_mapping)
        try:
            batches = list(
                read_data_file(
                    ctx, delete.file_path, delete.record_count, file_format=delete.file_format
                )
            )
        except CorruptFileError:
            raise
        except OperationalError as e:
            raise OperationalError(f"cannot read {kind} delete file {delete.file_path}: {e}") from e
        self._count()
        return pa.Table.from_batches(batches, schema=ctx.arrow_schema)

    def _count(self) -> None:
        with self._lock:
            self.files_read += 1


def _require_format(delete: DataFile, kind: str) -> None:
    if delete.file_format.upper() not in FORMATS:
        raise NotSupportedError(
            f"{kind} delete file {delete.file_path} is {delete.file_format}; delete files"
            " are read in Parquet, ORC and Avro (and deletion vectors in Puffin)"
        )


def _open_position_file(io: FileIO, path: str, with_paths: bool) -> _PositionFile:
    """A position delete file opened to read, with ``with_paths``, its ``file_path``
    column dictionary-encoded. A local file is read without pre-buffering: Arrow's
    coalesced background reads pay off on object stores, where a request is slow, but on a
    local file they only add the hand-off to a background thread."""
    local = io.local(path)  # a local file needs no fsspec (a slow import: icesql.io)
    is_local = local is not None

    def source() -> object:
        return local if is_local else io.open(path)

    if not with_paths:
        return _PositionFile(source(), [], pre_buffer=not is_local)
    schema = _PositionFile(source(), [], pre_buffer=not is_local).schema_arrow
    names = [f.name for f in schema if field_id(f) == FILE_PATH_FIELD_ID]
    return _PositionFile(source(), names, pre_buffer=not is_local)


class _PositionFile:
    """What ``pyarrow.parquet.ParquetFile`` does for a position delete file (its schema, whole top-level
    columns), on pyarrow's Parquet reader itself: importing ``pyarrow.parquet`` (with
    ``pyarrow.fs``, its cloud file systems and ssl) would cost the query's first position
    delete file more than reading all of a scan's files."""

    def __init__(self, source: object, read_dictionary: list[str], pre_buffer: bool):
        from pyarrow._parquet import ParquetReader

        self._reader = ParquetReader()
        self._reader.open(source, read_dictionary=read_dictionary, pre_buffer=pre_buffer)
        self.schema_arrow: pa.Schema = self._reader.schema_arrow

    def read(self, columns: Sequence[str], use_threads: bool) -> pa.Table:
        """The top-level ``columns`` (every leaf of a nested one), in that order."""
        paths = self._reader.column_paths
        leaves = [i for name in columns for i, p in enumerate(paths) if p[0] == name]
        return self._reader.read_all(column_indices=leaves, use_threads=use_threads)


def _split_by_path(paths: pa.ChunkedArray, positions: pa.ChunkedArray) -> dict[str, np.ndarray]:
    """Sorted positions per data file path, grouped with numpy over the dictionary codes."""
    if len(paths) == 0:
        return {}
    codes_col = paths.combine_chunks()
    if not pa.types.is_dictionary(codes_col.type):
        codes_col = codes_col.dictionary_encode()
    if codes_col.null_count:
        raise DataError("position delete file has NULL file_path values")
    pos_col = positions.combine_chunks()
    if pos_col.null_count:  # a NULL position deletes nothing (as in ``_sorted_positions``)
        valid = pc.is_valid(pos_col)
        codes_col, pos_col = codes_col.filter(valid), pos_col.filter(valid)
    codes = ints(codes_col.indices)
    pos = ints(pos_col).astype(np.int64, copy=False)
    if len(pos) == 0:
        return {}
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(sorted_codes)) + 1])
    ends = np.append(starts[1:], len(order))
    dictionary = codes_col.dictionary.to_pylist()
    out = {}
    for start, end in zip(starts, ends):
        chunk = pos[order[start:end]]
        if len(chunk) > 1 and not bool(np.all(chunk[1:] > chunk[:-1])):
            chunk = np.unique(chunk)
        out[dictionary[sorted_codes[start]]] = chunk
    return out


def _sorted_positions(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Distinct non-null positions, sorted (files are sorted by spec, but not trusted)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count:
        column = pc.drop_null(column)
    positions = ints(column).astype(np.int64, copy=False)
    if len(positions) > 1 and not bool(np.all(positions[1:] > positions[:-1])):
        positions = np.unique(positions)
    return positions
