"""A table scan as an Arrow stream that DuckDB can scan as often as a plan needs.

DuckDB calls ``__arrow_c_stream__`` once per scan of a registered object (a self-join scans
twice), so each call plans lazily and streams afresh; a single-use RecordBatchReader would
silently read as empty the second time.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from icesql.catalog.table import Table
from icesql.scan.planner import FileScanTask, ManifestCache, plan_files
from icesql.scan.reader import ROW_COUNT_COLUMN, ReadContext, read_data_file
from icesql.scan.time_travel import ReadVersion
from icesql.spec.name_mapping import NameMapping
from icesql.spec.schema import Schema
from icesql.spec.types import NestedField

NAME_MAPPING_PROPERTY = "schema.name-mapping.default"


class TableScan:
    """Rows of one table version, projected onto some of its columns."""

    def __init__(
        self,
        table: Table,
        version: ReadVersion,
        columns: list[str] | None = None,
        cache: ManifestCache | None = None,
    ):
        self.table = table
        self.version = version
        self.cache = cache or ManifestCache()
        self.error: Exception | None = None  # raised inside a stream DuckDB was reading
        self._tasks: list[FileScanTask] | None = None
        schema = version.schema
        if columns is None:
            fields = schema.fields
        else:
            wanted = {c.lower() for c in columns}
            fields = tuple(f for f in schema.fields if f.name.lower() in wanted)
        self.read_schema = Schema(fields, schema_id=schema.schema_id)
        mapping_json = table.metadata.properties.get(NAME_MAPPING_PROPERTY)
        self._ctx = ReadContext(
            self.read_schema,
            table.io,
            NameMapping.from_json(mapping_json) if mapping_json else None,
        )

    @property
    def arrow_schema(self) -> pa.Schema:
        if not self.read_schema.fields:
            return pa.schema([pa.field(ROW_COUNT_COLUMN, pa.null())])
        return self._ctx.arrow_schema

    def tasks(self) -> list[FileScanTask]:
        """The planned files, planned once (the first call raises any planning error)."""
        if self._tasks is None:
            self._tasks = list(
                plan_files(
                    self.table.metadata,
                    self.version.snapshot,
                    self.table.io,
                    self.cache,
                    self.table.name,
                )
            )
        return self._tasks

    def batches(self) -> Iterator[pa.RecordBatch]:
        try:
            for task in self.tasks():
                yield from read_data_file(
                    self._ctx,
                    task.data_file.file_path,
                    task.data_file.record_count,
                    self._identity_values(task),
                )
        except Exception as e:
            # DuckDB re-raises stream errors as its own type; keep ours to re-raise intact
            self.error = e
            raise

    def _identity_values(self, task: FileScanTask) -> dict[int, tuple[NestedField, object]]:
        spec = self.table.metadata.spec_by_id(task.spec_id)
        if spec is None:
            return {}
        out = {}
        for i, pf in enumerate(spec.fields):
            if str(pf.transform) == "identity" and i < len(task.data_file.partition):
                field = self.read_schema_field(pf.source_id)
                if field is not None:
                    out[pf.source_id] = (field, task.data_file.partition[i])
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
