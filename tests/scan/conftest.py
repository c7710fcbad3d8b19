"""Small Iceberg tables for planner tests, built without Spark.

``TableWriter`` writes Parquet files with pyarrow (field ids from ``schema_to_arrow``), the
column metrics Iceberg writers record (value / null / NaN counts, lower / upper bounds), one
manifest per commit with the current partition spec, a manifest list, and the metadata JSON
in Spark's ``type=hadoop`` layout, so ``icesql.connect(warehouse)`` reads the table.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icesql.io import FileIO
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.manifest import ManifestEntry, write_manifest
from icesql.metadata.manifest_list import write_manifest_list
from icesql.metadata.snapshots import Snapshot, SnapshotRef
from icesql.metadata.table_metadata import TableMetadata
from icesql.spec.arrow import schema_to_arrow, to_arrow_array
from icesql.spec.content_file import DataFile
from icesql.spec.manifest_file import ManifestFile
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import DoubleType, FloatType, PrimitiveType, UUIDType
from icesql.spec.values import to_bytes

_ids = itertools.count(1000)


def _sort_key(v: Any) -> Any:
    return (v, math.copysign(1.0, v)) if isinstance(v, float) else v


def column_metrics(schema: Schema, rows: Sequence[dict[str, Any]]) -> dict[str, dict[int, Any]]:
    """Iceberg-style metrics of top-level primitive columns (convention values in ``rows``)."""
    out: dict[str, dict[int, Any]] = {k: {} for k in ("values", "nulls", "nans", "lower", "upper")}
    for f in schema.fields:
        if not isinstance(f.type, PrimitiveType):
            continue
        values = [r.get(f.name) for r in rows]
        out["values"][f.field_id] = len(values)
        out["nulls"][f.field_id] = sum(v is None for v in values)
        is_float = isinstance(f.type, FloatType | DoubleType)
        if is_float:
            out["nans"][f.field_id] = sum(v is not None and v != v for v in values)
        numbers = [v for v in values if v is not None and not (is_float and v != v)]
        if numbers and not isinstance(f.type, UUIDType):
            out["lower"][f.field_id] = to_bytes(f.type, min(numbers, key=_sort_key))
            out["upper"][f.field_id] = to_bytes(f.type, max(numbers, key=_sort_key))
    return out


class TableWriter:
    """A table under construction: ``append`` commits one snapshot of new files."""

    def __init__(
        self,
        warehouse: Path,
        identifier: str,
        schema: Schema,
        spec: PartitionSpec | None = None,
        format_version: int = 2,
    ):
        ns, name = identifier.split(".")
        self.location = str(warehouse / ns / name)
        Path(self.location, "metadata").mkdir(parents=True, exist_ok=True)
        Path(self.location, "data").mkdir(parents=True, exist_ok=True)
        self.io = FileIO()
        self.schema = schema
        self.format_version = format_version
        self.metadata: TableMetadata = new_table_metadata(
            self.location, schema, spec, format_version=format_version
        )
        self.version = 0
        self.manifests: list[ManifestFile] = []
        self.files: list[DataFile] = []
        self.file_rows: dict[str, list[dict[str, Any]]] = {}  # path -> rows written there
        self._write_metadata()

    @property
    def spec(self) -> PartitionSpec:
        return self.metadata.spec()

    def evolve_spec(self, spec: PartitionSpec) -> int:
        """Make ``spec`` (field ids above the table's last) the default; returns its id."""
        builder = self.metadata.builder()
        spec_id = builder.add_partition_spec(spec)
        builder.set_default_spec(spec_id)
        self.metadata = builder.build()
        self._write_metadata()
        return spec_id

    def partition_of(self, row: dict[str, Any]) -> tuple[Any, ...]:
        out = []
        for pf in self.spec.fields:
            source = self.schema.find_field(pf.source_id)
            out.append(pf.transform.apply(source.type, row.get(source.name)))
        return tuple(out)

    def append(self, rows: Iterable[dict[str, Any]], rows_per_file: int | None = None) -> int:
        """Commit ``rows`` (convention values) as files grouped by partition, at most
        ``rows_per_file`` rows each, in the given order; returns the snapshot id."""
        groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for row in rows:
            groups.setdefault(self.partition_of(row), []).append(row)
        files = []
        for partition, group in groups.items():
            size = rows_per_file or len(group)
            for start in range(0, len(group), size):
                files.append(self._write_file(partition, group[start : start + size]))
        return self.commit_files(files)

    def _write_file(self, partition: tuple[Any, ...], rows: list[dict[str, Any]]) -> DataFile:
        arrow_schema = schema_to_arrow(self.schema)
        columns = [
            to_arrow_array(f.type, [r.get(f.name) for r in rows]) for f in self.schema.fields
        ]
        table = pa.Table.from_arrays(columns, schema=arrow_schema)
        path = f"{self.location}/data/{next(_ids)}.parquet"
        pq.write_table(table, path)
        self.file_rows[path] = rows
        m = column_metrics(self.schema, rows)
        return DataFile(
            file_path=path,
            file_format="PARQUET",
            partition=partition,
            record_count=len(rows),
            file_size_in_bytes=Path(path).stat().st_size,
            value_counts=m["values"],
            null_value_counts=m["nulls"],
            nan_value_counts=m["nans"],
            lower_bounds=m["lower"],
            upper_bounds=m["upper"],
            spec_id=self.spec.spec_id,
        )

    def position_deletes(self, data_file: DataFile, positions: list[int]) -> DataFile:
        """A position delete file (``file_path``, ``pos``) for rows of one data file, in that
        file's partition, with the metrics writers record for it."""
        from icesql.spec.types import LongType, NestedField, StringType

        path_field = NestedField(2147483546, "file_path", StringType(), required=True)
        pos_field = NestedField(2147483545, "pos", LongType(), required=True)
        rows = [{"file_path": data_file.file_path, "pos": p} for p in positions]
        return self._delete_file(
            Schema((path_field, pos_field)),
            rows,
            "delete",
            data_file.partition,
            spec_id=data_file.spec_id,
            content=1,
        )

    def equality_deletes(
        self,
        field_names: Sequence[str],
        rows: Sequence[dict[str, Any]],
        partition: tuple[Any, ...] = (),
    ) -> DataFile:
        """An equality delete file deleting rows whose ``field_names`` columns equal one of
        ``rows`` (NULL matching NULL), in ``partition`` of the current spec."""
        fields = tuple(self.schema.find_field_by_name(n) for n in field_names)
        return self._delete_file(
            Schema(fields),
            rows,
            "eq-delete",
            partition,
            spec_id=self.spec.spec_id,
            content=2,
            equality_ids=tuple(f.field_id for f in fields),
        )

    def _delete_file(
        self,
        schema: Schema,
        rows: Sequence[dict[str, Any]],
        prefix: str,
        partition: tuple[Any, ...],
        **entry: Any,
    ) -> DataFile:
        columns = [to_arrow_array(f.type, [r.get(f.name) for r in rows]) for f in schema.fields]
        path = f"{self.location}/data/{prefix}-{next(_ids)}.parquet"
        pq.write_table(pa.Table.from_arrays(columns, schema=schema_to_arrow(schema)), path)
        m = column_metrics(schema, rows)
        return DataFile(
            file_path=path,
            file_format="PARQUET",
            partition=partition,
            record_count=len(rows),
            file_size_in_bytes=Path(path).stat().st_size,
            value_counts=m["values"],
            null_value_counts=m["nulls"],
            lower_bounds=m["lower"],
            upper_bounds=m["upper"],
            **entry,
        )

    def commit_files(self, files: list[DataFile], content: int = 0) -> int:
        snapshot_id = next(_ids)
        parent = self.metadata.current_snapshot_id
        sequence_number = self.metadata.last_sequence_number + 1
        entries = [ManifestEntry(1, snapshot_id, None, None, f) for f in files]
        manifest = write_manifest(
            self.io,
            f"{self.location}/metadata/m-{snapshot_id}.avro",
            self.spec,
            self.schema,
            self.format_version,
            snapshot_id,
            entries,
            content=content,
        )
        written = write_manifest_list(
            self.io,
            f"{self.location}/metadata/snap-{snapshot_id}.avro",
            [manifest, *self.manifests],
            self.format_version,
            snapshot_id,
            parent,
            sequence_number,
        )
        self.manifests = list(written.manifests)
        self.files.extend(files)
        snapshot = Snapshot(
            snapshot_id=snapshot_id,
            timestamp_ms=int(time.time() * 1000),
            manifest_list=written.path,
            parent_snapshot_id=parent,
            sequence_number=sequence_number,
            summary={"operation": "append"},
            schema_id=self.schema.schema_id,
        )
        builder = self.metadata.builder()
        builder.add_snapshot(snapshot)
        builder.set_ref("main", SnapshotRef(snapshot_id))
        self.metadata = builder.build()
        self._write_metadata()
        return snapshot_id

    def _write_metadata(self) -> None:
        self.version += 1
        meta = Path(self.location, "metadata")
        (meta / f"v{self.version}.metadata.json").write_text(self.metadata.to_json())
        (meta / "version-hint.text").write_text(str(self.version))


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    return tmp_path / "wh"


@pytest.fixture
def make_table(warehouse: Path) -> Any:
    """``make_table("db.t", schema, spec)`` gives a ``TableWriter`` in the test warehouse."""

    def make(
        identifier: str, schema: Schema, spec: PartitionSpec | None = None, format_version: int = 2
    ) -> TableWriter:
        return TableWriter(warehouse, identifier, schema, spec, format_version)

    return make


@pytest.fixture
def explain() -> Any:
    """``explain(con, sql)``: the counters of the first scan section of ``EXPLAIN sql``."""
    return explain_counters


def explain_counters(con: Any, sql: str, params: Sequence[object] = ()) -> dict[str, int]:
    """The numbers of the first Iceberg scan section of ``EXPLAIN sql``."""
    import re

    text = con.execute(f"EXPLAIN {sql}", params).fetchone()[0]
    section = text.split("\n\n")[0]
    counters: dict[str, int] = {}
    for line in section.splitlines():
        if ":" not in line or line.startswith(("==", "pushed", "residual", "snapshot")):
            continue
        head, rest = line.split(":", 1)
        for name, value in re.findall(r"([a-z ]+?) (\d+)", rest):
            counters[f"{head.strip()} {name.strip()}".replace(" ", "_")] = int(value)
    return counters
