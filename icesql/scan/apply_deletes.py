"""Applying row-level deletes to the batches of one data file as they stream.

Position deletes (files and deletion vectors) become a keep-mask per batch: the reader keeps
the row offset of each batch within its file, so a position ``p`` is row ``p - offset`` of
the batch that covers it. Equality deletes are an anti-join on the delete columns in which
NULL matches NULL (spec: "a null value in a delete column matches a row if the row's value
is null"). Delete columns the query does not project (or that the table has since dropped)
are read from the data file as extra columns and dropped after the deletes are applied.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.errors import DataError, NotSupportedError
from icesql.scan.reader import ROW_COUNT_COLUMN, ReadContext, read_data_file
from icesql.spec.arrays import bool_array, bools
from icesql.spec.content_file import EQUALITY_DELETES, DataFile
from icesql.spec.schema import Schema
from icesql.spec.types import NestedField

if TYPE_CHECKING:
    import pyarrow.compute as pc

    from icesql.scan import equality_keys
    from icesql.scan.delete_loaders import DeleteLoader
    from icesql.scan.equality_keys import KeyMatcher
else:  # Arrow kernels load with the first batch that needs one, not with the module
    pc = lazy_module("pyarrow.compute")
    equality_keys = lazy_module("icesql.scan.equality_keys")  # with the first equality delete

__all__ = [
    "PREFETCH_FILES",
    "DeleteApplier",
    "EqualityDeletes",
    "background_pool",
    "extra_delete_column",
    "position_keep_mask",
]


def position_keep_mask(deleted: np.ndarray, offset: int, rows: int) -> np.ndarray | None:
    """Keep-mask for the ``rows`` rows starting at file position ``offset``, given sorted
    deleted positions; None when no deleted position falls in that range.

    >>> position_keep_mask(np.array([1, 5, 6]), 4, 3).tolist()
    [True, False, False]
    """
    lo = int(np.searchsorted(deleted, offset, side="left"))
    hi = int(np.searchsorted(deleted, offset + rows, side="left"))
    if lo == hi:
        return None
    mask = np.ones(rows, dtype=bool)
    mask[deleted[lo:hi] - offset] = False
    return mask


@dataclass(frozen=True)
class EqualityDeletes:
    """The rows of some equality delete files sharing one set of delete columns, as a
    membership test. One column uses Arrow's hash ``is_in`` (nulls matching nulls); several
    a NULL-safe semi-join (``icesql.scan.equality_keys``)."""

    fields: tuple[NestedField, ...]
    values: pa.Array | None  # one delete column
    keys: KeyMatcher | None  # several delete columns

    @property
    def field_ids(self) -> tuple[int, ...]:
        return tuple(f.field_id for f in self.fields)

    @staticmethod
    def from_tables(fields: Sequence[NestedField], tables: Sequence[pa.Table]) -> EqualityDeletes:
        """From delete-file tables whose columns are ``fields``, in that order."""
        table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
        if len(fields) == 1:
            values = pc.unique(table.column(0).combine_chunks())
            return EqualityDeletes(tuple(fields), values, None)
        return EqualityDeletes(tuple(fields), None, equality_keys.KeyMatcher(table))

    def deleted(self, columns: Sequence[pa.Array]) -> np.ndarray:
        """Per row of ``columns`` (the delete columns of a batch): is it deleted?"""
        if self.values is not None:
            if len(self.values) == 0:
                return np.zeros(len(columns[0]), dtype=bool)
            hit = pc.is_in(columns[0], value_set=self.values, skip_nulls=False)
            return bools(hit)
        assert self.keys is not None
        return self.keys.deleted(columns)


class DeleteApplier:
    """The deletes of one scan: reads each delete file once (through the ``loader`` it makes
    with ``make_loader`` when the first one is read: a scan of files without deletes never
    loads the delete readers) and applies them to each data file's batches. ``schemas`` are
    searched in order for the type of an equality delete column: the read version's schema
    first, then older ones."""

    def __init__(self, make_loader: Callable[[], DeleteLoader], schemas: Sequence[Schema]):
        self._make_loader = make_loader
        self._loader: DeleteLoader | None = None
        self._loader_lock = threading.Lock()
        self.schemas = tuple(schemas)
        self._lock = threading.Lock()
        self._pending: dict[str, Future[tuple[np.ndarray, list[EqualityDeletes]]]] = {}
        self._equality: dict[tuple[tuple[int, ...], tuple[str, ...]], EqualityDeletes] = {}

    @property
    def loader(self) -> DeleteLoader:
        with self._loader_lock:
            if self._loader is None:
                self._loader = self._make_loader()
            return self._loader

    def read(
        self,
        ctx: ReadContext,
        data_file: DataFile,
        delete_files: Sequence[DataFile],
        identity_partition: dict | None = None,
    ) -> Iterator[pa.RecordBatch]:
        """Batches of ``data_file`` shaped as ``ctx.schema`` without the deleted rows."""
        if not delete_files:
            path, count = data_file.file_path, data_file.record_count
            size = data_file.file_size_in_bytes
            fmt = data_file.file_format
            yield from read_data_file(ctx, path, count, identity_partition, size, fmt)
            return
        for batch, _, _ in self.read_positioned(
            ctx, data_file, delete_files, identity_partition, positions=False
        ):
            yield batch

    def read_positioned(
        self,
        ctx: ReadContext,
        data_file: DataFile,
        delete_files: Sequence[DataFile],
        identity_partition: dict | None = None,
        positions: bool = True,
        mark_deleted: bool = False,
    ) -> Iterator[tuple[pa.RecordBatch, np.ndarray | None, np.ndarray | None]]:
        """As ``read``, each batch with the file positions of its rows (``_pos``; None
        unless ``positions``). With ``mark_deleted`` the deleted rows stay, and the third
        item flags them (Spark's ``_deleted``); otherwise it is None."""
        with self._lock:
            pending = self._pending.pop(data_file.file_path, None)
        if pending is not None:
            deleted, equality = pending.result()
        else:
            deleted, equality = self._prepare(data_file, delete_files)
        path, count = data_file.file_path, data_file.record_count
        if not mark_deleted and not equality and len(deleted) >= count > 0:
            if np.array_equal(deleted[:count], np.arange(count)):
                return  # every row deleted: skip opening the data file
        read_ctx, column_of = self._with_delete_columns(ctx, equality)
        target = ctx.arrow_schema if ctx.schema.fields else None
        width = len(ctx.schema.fields)
        offset = 0
        size = data_file.file_size_in_bytes
        fmt = data_file.file_format
        for batch in read_data_file(read_ctx, path, count, identity_partition, size, fmt):
            rows = batch.num_rows
            keep = position_keep_mask(deleted, offset, rows) if len(deleted) else None
            where = np.arange(offset, offset + rows, dtype=np.int64) if positions else None
            offset += rows
            for eq in equality:
                hit = eq.deleted([batch.column(column_of[fid]) for fid in eq.field_ids])
                if hit.any():
                    keep = ~hit if keep is None else keep & ~hit
            flags = None
            if mark_deleted:
                flags = np.zeros(rows, dtype=bool) if keep is None else ~keep
            elif keep is not None:
                batch = batch.filter(bool_array(keep))
                where = where[keep] if where is not None else None
            if read_ctx is not ctx:
                batch = _project(batch, target, width)
            if batch.num_rows:
                yield batch, where, flags

    def prefetch(self, upcoming: Sequence[tuple[DataFile, Sequence[DataFile]]]) -> None:
        """Start reading the deletes of the data files read next, so that reading them
        overlaps with reading (and DuckDB consuming) the current one. Errors surface when
        the data file is read."""
        for data_file, delete_files in upcoming:
            if not delete_files:
                continue
            with self._lock:
                if data_file.file_path in self._pending:
                    continue
                future = background_pool().submit(self._prepare, data_file, delete_files)
                self._pending[data_file.file_path] = future

    def _prepare(
        self, data_file: DataFile, delete_files: Sequence[DataFile]
    ) -> tuple[np.ndarray, list[EqualityDeletes]]:
        deleted = self.loader.deleted_positions(data_file.file_path, delete_files)
        return deleted, self._equality_deletes(delete_files)

    # --- equality deletes ----------------------------------------------------------------

    def _equality_deletes(self, delete_files: Sequence[DataFile]) -> list[EqualityDeletes]:
        groups: dict[tuple[int, ...], list[DataFile]] = {}
        for delete in delete_files:
            if delete.content == EQUALITY_DELETES:
                ids = tuple(delete.equality_ids or ())
                if not ids:
                    raise DataError(f"equality delete file {delete.file_path} has no equality_ids")
                groups.setdefault(ids, []).append(delete)
        out = []
        for ids, files in groups.items():
            key = (ids, tuple(sorted(f.file_path for f in files)))
            with self._lock:
                cached = self._equality.get(key)
            if cached is None:
                fields = [self.delete_field(fid, files[0]) for fid in ids]
                tables = [self.loader.equality_rows(f, fields) for f in files]
                cached = EqualityDeletes.from_tables(fields, tables)
                with self._lock:
                    self._equality[key] = cached
            out.append(cached)
        return out

    def delete_field(self, field_id: int, delete: DataFile) -> NestedField:
        """The top-level field with this id, from the newest schema that has it (a dropped
        delete column must still be applied)."""
        for schema in self.schemas:
            for f in schema.fields:
                if f.field_id == field_id:
                    return f
        for schema in self.schemas:
            if schema.has_field_id(field_id):
                raise NotSupportedError(
                    f"equality delete file {delete.file_path} deletes by nested field id"
                    f" {field_id}; equality deletes on nested fields are not supported yet"
                )
        raise DataError(
            f"equality delete file {delete.file_path} uses field id {field_id}, which no"
            " schema of the table has"
        )

    @staticmethod
    def _with_delete_columns(
        ctx: ReadContext, equality: Sequence[EqualityDeletes]
    ) -> tuple[ReadContext, dict[int, int]]:
        """A read context that also reads the delete columns the query did not project, and
        the batch column index of each delete column."""
        column_of = {f.field_id: i for i, f in enumerate(ctx.schema.fields)}
        extra: list[NestedField] = []
        for eq in equality:
            for f in eq.fields:
                if f.field_id not in column_of:
                    column_of[f.field_id] = len(ctx.schema.fields) + len(extra)
                    extra.append(extra_delete_column(f))
        if not extra:
            return ctx, column_of
        schema = Schema((*ctx.schema.fields, *extra), schema_id=ctx.schema.schema_id)
        return replace(ctx, schema=schema), column_of


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
PREFETCH_FILES = 2  # data files whose deletes are read ahead


def background_pool() -> ThreadPoolExecutor:
    """One small pool per process: delete reads are I/O and Arrow work that drop the GIL."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="icesql-deletes")
        return _POOL


def extra_delete_column(f: NestedField) -> NestedField:
    """Delete column ``f`` read although the query does not project it, under a name no
    table column uses."""
    return replace(f, name=f"__icesql_delete_col_{f.field_id}")


def _project(batch: pa.RecordBatch, target: pa.Schema | None, width: int) -> pa.RecordBatch:
    """Drop the extra delete columns; with no projected column, keep only the row count."""
    if target is None:
        schema = pa.schema([pa.field(ROW_COUNT_COLUMN, pa.null())])
        return pa.RecordBatch.from_arrays([pa.nulls(batch.num_rows)], schema=schema)
    return pa.RecordBatch.from_arrays(batch.columns[:width], schema=target)
