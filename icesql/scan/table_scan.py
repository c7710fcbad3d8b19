"""A table scan as an Arrow stream that DuckDB can scan as often as a plan needs.

DuckDB calls ``__arrow_c_stream__`` once per scan of a registered object (a self-join scans
twice), so each call plans lazily and streams afresh; a single-use RecordBatchReader would
silently read as empty the second time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.catalog.table import Table
from icesql.expressions.tree import ALWAYS_TRUE, BooleanExpression
from icesql.progress import ProgressTracker
from icesql.scan.apply_deletes import PREFETCH_FILES, DeleteApplier
from icesql.scan.native_read import NativeRead, split_native
from icesql.scan.planner import FileScanTask, ManifestCache, ScanPlan, plan_scan
from icesql.scan.reader import ROW_COUNT_COLUMN, ReadContext
from icesql.scan.time_travel import ReadVersion
from icesql.spec.name_mapping import NameMapping
from icesql.spec.schema import Schema
from icesql.spec.types import NestedField

if TYPE_CHECKING:
    from icesql.scan import delete_loaders
    from icesql.scan import metadata_columns as metadata_columns_
else:  # loaded with the first scan that has deletes / names a metadata column
    delete_loaders = lazy_module("icesql.scan.delete_loaders")
    metadata_columns_ = lazy_module("icesql.scan.metadata_columns")

NAME_MAPPING_PROPERTY = "schema.name-mapping.default"


class TableScan:
    """Rows of one table version, projected onto some of its columns.

    ``row_filter`` (an Iceberg expression on the version's schema) only prunes files: rows
    that do not match it may still be streamed, so the engine must apply the predicate.
    """

    def __init__(
        self,
        table: Table,
        version: ReadVersion,
        columns: list[str] | None = None,
        cache: ManifestCache | None = None,
        row_filter: BooleanExpression = ALWAYS_TRUE,
        metadata_columns: Sequence[str] = (),
        progress: ProgressTracker | None = None,
        read_threads: bool = True,
    ):
        self.table = table
        self.progress = progress  # told of each file the Arrow stream has read
        self.version = version
        self.cache = cache or ManifestCache()
        self.row_filter = row_filter
        self.plan: ScanPlan | None = None
        self.error: Exception | None = None  # raised inside a stream DuckDB was reading
        self._tasks: list[FileScanTask] | None = None
        self._streamed: list[FileScanTask] | None = None  # set by native_read()
        self._native: NativeRead | None = None
        self._identity_fields: dict[int, list[tuple[int, int, NestedField]]] = {}  # by spec id
        schema = version.schema
        if columns is None:
            fields = schema.fields
        else:
            wanted = {c.lower() for c in columns}
            fields = tuple(f for f in schema.fields if f.name.lower() in wanted)
        self.read_schema = Schema(fields, schema_id=schema.schema_id)
        data_names = {f.name.lower() for f in schema.fields}  # a data column hides its twin
        hidden = [c for c in metadata_columns if c.lower() not in data_names]
        self.metadata_columns = (
            metadata_columns_.MetadataColumns.for_scan(table.metadata, schema, hidden)
            if hidden
            else None
        )
        mapping_json = table.metadata.properties.get(NAME_MAPPING_PROPERTY)
        name_mapping = NameMapping.from_json(mapping_json) if mapping_json else None
        self._ctx = ReadContext(self.read_schema, table.io, name_mapping, threads=read_threads)
        # one per scan: each delete file is read once and shared by the data files it hits
        self._deletes = DeleteApplier(
            lambda: delete_loaders.DeleteLoader(table.io, name_mapping),
            [schema, *reversed(table.metadata.schemas)],
        )

    @property
    def arrow_schema(self) -> pa.Schema:
        meta = self.metadata_columns.arrow_fields() if self.metadata_columns else []
        if not self.read_schema.fields:
            return pa.schema(meta or [pa.field(ROW_COUNT_COLUMN, pa.null())])
        return pa.schema([*self._ctx.arrow_schema, *meta])

    def tasks(self) -> list[FileScanTask]:
        """The planned files, planned once (the first call raises any planning error)."""
        if self._tasks is None:
            self.plan = plan_scan(
                self.table.metadata,
                self.version.snapshot,
                self.table.io,
                self.cache,
                self.table.name,
                self.row_filter,
                self.version.schema,
            )
            self._tasks = self.plan.tasks
        return self._tasks

    def native_read(
        self, prefix: str = "icesql", readable: Callable[[str], bool] = lambda path: True
    ) -> NativeRead | None:
        """Split the planned files: the ones DuckDB reads itself, deletes and all
        (``icesql.scan.native_read``; None if there are none; the relations it names start
        with ``prefix``) and the ones this scan streams from then on."""
        tasks = self.tasks()
        meta = self.metadata_columns.names if self.metadata_columns is not None else ()
        self._native, self._streamed = split_native(
            self.read_schema,
            tasks,
            self.table.io,
            self._identity_values,
            self._deletes,
            prefix,
            self._failed,
            readable,
            meta,
        )
        return self._native

    def release(self) -> None:
        """Stop the background work of ``native_read`` no reader will take: keep-mask
        builds not started yet (all of a small scan's are queued when it is split)."""
        if self._native is not None:
            for _, mask in self._native.relations:
                mask.cancel()

    def settle(self) -> None:
        """Wait for the keep-masks of ``native_read`` that are built whole in the
        background, before DuckDB runs the query (``KeepMask.settle``)."""
        if self._native is not None:
            for _, mask in self._native.relations:
                mask.settle()

    def _failed(self, error: Exception) -> None:
        self.error = error

    def streamed_tasks(self) -> list[FileScanTask]:
        """The files this scan's Arrow stream reads: all, unless ``native_read`` took some."""
        return self.tasks() if self._streamed is None else self._streamed

    def native_read_files(self) -> int:
        """How many files ``native_read`` gave DuckDB's own reader (0 before it ran)."""
        return len(self._native.paths) if self._native is not None else 0

    def native_read_deletes(self) -> int:
        """How many of those files have their deletes applied inside DuckDB."""
        return self._native.with_deletes if self._native is not None else 0

    def file_error(self, message: str) -> Exception | None:
        """Our error for a DuckDB error message naming a file DuckDB read for this scan."""
        return self._native.file_error(message) if self._native is not None else None

    def restrict_to(self, tasks: list[FileScanTask]) -> None:
        """Read only ``tasks`` (files planned by another scan of the same version), as a
        copy-on-write rewrite reads the files it replaces."""
        self._tasks = list(tasks)

    def batches(self) -> Iterator[pa.RecordBatch]:
        try:
            tasks = self.streamed_tasks()
            for i, task in enumerate(tasks):
                ahead = tasks[i + 1 : i + 1 + PREFETCH_FILES]
                self._deletes.prefetch([(t.data_file, t.delete_files) for t in ahead])
                identity = self._identity_values(task)
                if self.metadata_columns is None:
                    yield from self._deletes.read(
                        self._ctx, task.data_file, task.delete_files, identity
                    )
                else:
                    yield from self._with_metadata_columns(task, identity)
                progress = self.progress
                if progress is not None and progress.active:
                    progress.file_read(task.data_file.file_size_in_bytes)
        except Exception as e:
            # DuckDB re-raises stream errors as its own type; keep ours to re-raise intact
            self._failed(e)
            raise

    def _with_metadata_columns(
        self, task: FileScanTask, identity: dict[int, tuple[NestedField, object]]
    ) -> Iterator[pa.RecordBatch]:
        meta = self.metadata_columns
        assert meta is not None
        schema = self.arrow_schema
        width = len(self.read_schema.fields)
        stored = meta.file_fields()  # v3 row lineage columns the file may hold
        ctx = self._ctx
        if stored:
            fields = (*self.read_schema.fields, *stored)
            ctx = replace(ctx, schema=Schema(fields, schema_id=self.read_schema.schema_id))
        for batch, positions, deleted in self._deletes.read_positioned(
            ctx, task.data_file, task.delete_files, identity, mark_deleted=meta.marks_deleted
        ):
            assert positions is not None
            columns = batch.columns if ctx.schema.fields else []
            extra = meta.arrays(
                task.data_file,
                task.spec_id,
                positions,
                deleted,
                task.data_sequence_number,
                columns[width:],
            )
            yield pa.RecordBatch.from_arrays([*columns[:width], *extra], schema=schema)

    def _identity_values(self, task: FileScanTask) -> dict[int, tuple[NestedField, object]]:
        """The values of the file's identity partition fields, by source field id (also of
        unprojected fields: equality deletes may read them as extra columns)."""
        fields = self._identity_fields.get(task.spec_id)
        if fields is None:  # once per spec: a scan asks this of each of its files
            fields = self._identity_fields[task.spec_id] = self._identity_fields_of(task.spec_id)
        partition = task.data_file.partition
        return {sid: (field, partition[i]) for i, sid, field in fields if i < len(partition)}

    def _identity_fields_of(self, spec_id: int) -> list[tuple[int, int, NestedField]]:
        """(position in the partition tuple, source id, source field) of the spec's identity
        fields whose source the version's schema has."""
        spec = self.table.metadata.spec_by_id(spec_id)
        if spec is None:
            return []
        out = []
        for i, pf in enumerate(spec.fields):
            if str(pf.transform) == "identity":
                field = self.read_schema_field(pf.source_id) or next(
                    (f for f in self.version.schema.fields if f.field_id == pf.source_id), None
                )
                if field is not None:
                    out.append((i, pf.source_id, field))
        return out

    def read_schema_field(self, field_id: int) -> NestedField | None:
        for f in self.read_schema.fields:
            if f.field_id == field_id:
                return f
        return None

    def to_reader(self) -> pa.RecordBatchReader:
        return pa.RecordBatchReader.from_batches(self.arrow_schema, self.batches())

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self.to_reader().__arrow_c_stream__(requested_schema)
