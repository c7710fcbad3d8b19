"""Partition statistics (the spec's partition statistics file), computed as Java's
``PartitionStatsHandler`` computes them.

One row per (spec, partition) with the counts of the live data files, position delete files
(deletion vectors apart, v3), equality delete files and their records, and the newest
snapshot that added or removed a file there (``last_updated_at`` in epoch milliseconds);
``total_record_count`` is left NULL, as Java leaves it (it would need the data read). A full
compute reads every manifest of the snapshot; when an ancestor already has a statistics file,
the snapshots after it are added to that file's rows (files they added count, files they
removed count off), as Java's incremental compute does. Rows are sorted by partition,
ascending with NULLs first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from icesql.catalog.table import Table
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.snapshots import Snapshot
from icesql.metadata.statistics import PartitionStatisticsFile
from icesql.scan.delete_index import is_deletion_vector
from icesql.scan.metadata_tables import partition_type
from icesql.spec.arrow import schema_to_arrow, to_arrow_array
from icesql.spec.content_file import DataFile
from icesql.spec.schema import Schema
from icesql.spec.types import IntegerType, LongType, NestedField, StructType

__all__ = ["PartitionStats", "compute_partition_stats", "stats_schema", "stats_table"]

_ADDED, _DELETED = 1, 2
_COUNTS = (
    (3, "data_record_count", LongType()),
    (4, "data_file_count", IntegerType()),
    (5, "total_data_file_size_in_bytes", LongType()),
    (6, "position_delete_record_count", LongType()),
    (7, "position_delete_file_count", IntegerType()),
    (8, "equality_delete_record_count", LongType()),
    (9, "equality_delete_file_count", IntegerType()),
)


@dataclass
class PartitionStats:
    """The counters of one (spec, partition); ``counts`` in the file's column order 3..9."""

    partition: tuple[Any, ...]
    spec_id: int
    counts: list[int] = field(default_factory=lambda: [0] * 7)
    dv_count: int = 0
    last_updated_at: int | None = None
    last_updated_snapshot_id: int | None = None

    def add(self, f: DataFile, sign: int = 1) -> None:
        c = self.counts
        if f.content == 0:
            c[0] += sign * f.record_count
            c[1] += sign
            c[2] += sign * f.file_size_in_bytes
        elif f.content == 1:
            c[3] += sign * f.record_count
            if is_deletion_vector(f):
                self.dv_count += sign
            else:
                c[4] += sign
        else:
            c[5] += sign * f.record_count
            c[6] += sign

    def touched(self, snapshot: Snapshot | None) -> None:
        if snapshot is not None:
            self.updated(snapshot.snapshot_id, snapshot.timestamp_ms)

    def updated(self, snapshot_id: int, at: int) -> None:
        if self.last_updated_at is None or self.last_updated_at < at:
            self.last_updated_at, self.last_updated_snapshot_id = at, snapshot_id


def stats_schema(table: Table) -> Schema:
    """The file's schema for the table's format version (v3 makes the delete counts required
    and adds ``dv_count``)."""
    v3 = table.metadata.format_version >= 3
    fields = [
        NestedField(1, "partition", partition_type(table), required=True),
        NestedField(2, "spec_id", IntegerType(), required=True),
        *(NestedField(i, n, t, required=(i <= 5 or v3)) for i, n, t in _COUNTS),
        NestedField(10, "total_record_count", LongType(), required=False),
        NestedField(11, "last_updated_at", LongType(), required=False),
        NestedField(12, "last_updated_snapshot_id", LongType(), required=False),
    ]
    if v3:
        fields.append(NestedField(13, "dv_count", IntegerType(), required=True))
    return Schema(tuple(fields))


def _coerce(table: Table, f: DataFile, struct: StructType) -> tuple[Any, ...]:
    spec = table.metadata.spec_by_id(f.spec_id)
    index = {pf.field_id: i for i, pf in enumerate(spec.fields)} if spec is not None else {}
    return tuple(
        f.partition[index[u.field_id]] if u.field_id in index else None for u in struct.fields
    )


def compute_partition_stats(
    table: Table, snapshot: Snapshot, previous: PartitionStatisticsFile | None
) -> list[PartitionStats]:
    """The stats of ``snapshot``: from ``previous`` (an ancestor's file) and the snapshots
    after it, or from all its manifests."""
    md = table.metadata
    struct = partition_type(table)
    stats: dict[tuple[int, tuple[Any, ...]], PartitionStats] = {}

    def entry_stats(f: DataFile) -> PartitionStats:
        key = _coerce(table, f, struct)
        found = stats.get((f.spec_id, key))
        if found is None:
            found = stats[f.spec_id, key] = PartitionStats(key, f.spec_id)
        return found

    if previous is None:
        for manifest in read_manifest_list(table.io, snapshot.manifest_list, snapshot):
            for entry in read_manifest(table.io, manifest):
                s = entry_stats(entry.data_file)
                if entry.is_live:
                    s.add(entry.data_file)
                s.touched(md.snapshot_by_id(entry.snapshot_id) if entry.snapshot_id else None)
        return _sorted(stats.values())
    for row in _read(table, previous):
        stats[row.spec_id, row.partition] = row
    for between in _after(table, snapshot, previous.snapshot_id):
        for manifest in read_manifest_list(table.io, between.manifest_list, between):
            if manifest.added_snapshot_id != between.snapshot_id:
                continue
            for entry in read_manifest(table.io, manifest):
                if entry.status not in (_ADDED, _DELETED):
                    continue
                s = entry_stats(entry.data_file)
                s.add(entry.data_file, 1 if entry.status == _ADDED else -1)
                s.touched(md.snapshot_by_id(entry.snapshot_id) if entry.snapshot_id else None)
    return _sorted(stats.values())


def _after(table: Table, snapshot: Snapshot, ancestor_id: int) -> list[Snapshot]:
    out = []
    for s in table.metadata.ancestors_of(snapshot.snapshot_id):
        if s.snapshot_id == ancestor_id:
            break
        out.append(s)
    return out


def _sort_key(stats: PartitionStats) -> tuple[Any, ...]:
    return tuple((v is not None, v) for v in stats.partition)


def _sorted(stats: Iterable[PartitionStats]) -> list[PartitionStats]:
    return sorted(stats, key=_sort_key)


def stats_table(table: Table, stats: list[PartitionStats]) -> pa.Table:
    """The rows as the file holds them (Iceberg field ids in the Arrow schema)."""
    schema = stats_schema(table)
    arrow_schema = schema_to_arrow(schema)
    struct = schema.fields[0].type
    assert isinstance(struct, StructType)
    partition = pa.StructArray.from_arrays(
        [
            to_arrow_array(f.type, [s.partition[i] for s in stats])
            for i, f in enumerate(struct.fields)
        ],
        fields=list(arrow_schema.field("partition").type),
    )
    columns: list[pa.Array] = [partition, pa.array([s.spec_id for s in stats], pa.int32())]
    for i, (_, _, t) in enumerate(_COUNTS):
        columns.append(
            pa.array([s.counts[i] for s in stats], pa.int64() if t == LongType() else pa.int32())
        )
    columns.append(pa.array([None] * len(stats), pa.int64()))
    columns.append(pa.array([s.last_updated_at for s in stats], pa.int64()))
    columns.append(pa.array([s.last_updated_snapshot_id for s in stats], pa.int64()))
    if len(schema.fields) == 13:
        columns.append(pa.array([s.dv_count for s in stats], pa.int32()))
    return pa.Table.from_arrays(columns, schema=arrow_schema)


def _read(table: Table, previous: PartitionStatisticsFile) -> list[PartitionStats]:
    """An earlier statistics file's rows (its columns matched by field id)."""
    with table.io.open(previous.statistics_path) as f:
        data = pq.read_table(f)
    by_id = _columns_by_id(data)
    struct = partition_type(table)
    part = by_id.get(1)
    part_values: dict[int | None, list[Any]] = {}
    if part is not None:
        part_values = {
            _field_id(part.type.field(i)): pc.struct_field(part, [i]).to_pylist()
            for i in range(part.type.num_fields)
        }
    n = data.num_rows
    rows = []
    counts = {fid: (by_id[fid].to_pylist() if fid in by_id else [0] * n) for fid, _, _ in _COUNTS}
    specs = by_id[2].to_pylist()
    at = by_id[11].to_pylist() if 11 in by_id else [None] * n
    ids = by_id[12].to_pylist() if 12 in by_id else [None] * n
    dvs = by_id[13].to_pylist() if 13 in by_id else [0] * n
    for r in range(n):
        key = tuple(
            _from_arrow(part_values[u.field_id][r]) if u.field_id in part_values else None
            for u in struct.fields
        )
        s = PartitionStats(key, specs[r], [int(counts[fid][r] or 0) for fid, _, _ in _COUNTS])
        s.dv_count = int(dvs[r] or 0)
        at_r, id_r = at[r], ids[r]
        if at_r is not None and id_r is not None:
            s.updated(int(id_r), int(at_r))
        rows.append(s)
    return rows


def _field_id(f: pa.Field) -> int | None:
    raw = (f.metadata or {}).get(b"PARQUET:field_id")
    return int(raw) if raw is not None else None


def _columns_by_id(data: pa.Table) -> dict[int, Any]:
    out = {}
    for i, f in enumerate(data.schema):
        fid = _field_id(f)
        if fid is not None:
            out[fid] = data.column(i).combine_chunks()
    return out


def _from_arrow(value: Any) -> Any:
    """A partition value read back, in icesql's value convention (``icesql.spec.values``)."""
    import datetime as dt

    if isinstance(value, dt.datetime):
        epoch = dt.datetime(1970, 1, 1, tzinfo=value.tzinfo)
        return (value - epoch) // dt.timedelta(microseconds=1)
    if isinstance(value, dt.date):
        return (value - dt.date(1970, 1, 1)).days
    return value
