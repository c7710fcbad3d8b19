"""Parquet data and delete files with Iceberg field ids, and tables committed with icesql's
own metadata writers (manifest, manifest list, ``MetadataBuilder``, Puffin DV writer).

Writing the tables this way, rather than through icesql's INSERT, keeps generation fast and
independent of the write path being benchmarked. Metrics come from the Parquet footer (what
Java's ``ParquetMetrics`` reads too): counts per column and bounds of the primitive columns,
strings truncated to 16 characters as Iceberg's default ``truncate(16)`` mode does.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from icesql.io import FileIO
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.manifest import STATUS_ADDED, ManifestEntry, write_manifest
from icesql.metadata.manifest_list import write_manifest_list
from icesql.metadata.snapshots import Snapshot, SnapshotRef
from icesql.spec.content_file import EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.spec.manifest_file import CONTENT_DATA, CONTENT_DELETES
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import DateType, IcebergType, StringType
from icesql.spec.values import to_bytes

FILE_PATH_ID = 2147483546  # reserved field ids of a position delete file
POS_ID = 2147483545
COMPRESSION = "zstd"  # Iceberg's default write.parquet.compression-codec
_EPOCH = dt.date(1970, 1, 1)
_TRUNCATE = 16

POSITION_DELETE_SCHEMA = pa.schema(
    [
        pa.field(
            "file_path", pa.string(), False, {b"PARQUET:field_id": str(FILE_PATH_ID).encode()}
        ),
        pa.field("pos", pa.int64(), False, {b"PARQUET:field_id": str(POS_ID).encode()}),
    ]
)


def _convention(t: IcebergType, value: Any) -> Any:
    """A Parquet statistics value in icesql's value convention (dates as days)."""
    if isinstance(t, DateType) and isinstance(value, dt.date):
        return (value - _EPOCH).days
    if isinstance(value, Decimal):
        return value
    return value


def file_metrics(path: str, schema: Schema) -> dict[str, Any]:
    """Counts, sizes and bounds by field id from a written file's footer."""
    md = pq.read_metadata(path)
    sizes: dict[int, int] = {}
    values: dict[int, int] = {}
    nulls: dict[int, int] = {}
    lower: dict[int, bytes] = {}
    upper: dict[int, bytes] = {}
    arrow = md.schema.to_arrow_schema()
    for c in range(md.num_columns):
        fid = int(arrow.field(c).metadata[b"PARQUET:field_id"])
        t = schema.find_type(fid) if schema.has_field_id(fid) else None
        lo = hi = None
        for rg in range(md.num_row_groups):
            col = md.row_group(rg).column(c)
            sizes[fid] = sizes.get(fid, 0) + col.total_compressed_size
            values[fid] = values.get(fid, 0) + col.num_values
            st = col.statistics
            if st is None:
                continue
            nulls[fid] = nulls.get(fid, 0) + (st.null_count or 0)
            if st.has_min_max:
                lo = st.min if lo is None else min(lo, st.min)
                hi = st.max if hi is None else max(hi, st.max)
        if t is None or lo is None:
            continue
        if isinstance(t, StringType):
            if len(hi) > _TRUNCATE:  # no simple truncated upper bound: leave it out
                lower[fid] = to_bytes(t, lo[:_TRUNCATE])
                continue
            lo = lo[:_TRUNCATE]
        lower[fid] = to_bytes(t, _convention(t, lo))
        upper[fid] = to_bytes(t, _convention(t, hi))
    return {
        "column_sizes": sizes,
        "value_counts": values,
        "null_value_counts": nulls,
        "lower_bounds": lower,
        "upper_bounds": upper,
        "record_count": md.num_rows,
    }


def write_data_file(
    path: str, table: pa.Table, schema: Schema, partition: tuple[Any, ...]
) -> DataFile:
    """Write ``table`` as one Parquet data file and describe it for a manifest."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(table, path, compression=COMPRESSION, row_group_size=1 << 20)
    m = file_metrics(path, schema)
    return DataFile(
        file_path=path,
        file_format="PARQUET",
        partition=partition,
        file_size_in_bytes=os.path.getsize(path),
        **m,
    )


def write_position_deletes(path: str, data_file: DataFile, positions: np.ndarray) -> DataFile:
    """A file-scoped position delete file (one data file, positions sorted)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    t = pa.Table.from_arrays(
        [pa.array([data_file.file_path] * len(positions), pa.string()), pa.array(positions)],
        schema=POSITION_DELETE_SCHEMA,
    )
    pq.write_table(t, path, compression=COMPRESSION)
    return DataFile(
        file_path=path,
        file_format="PARQUET",
        content=POSITION_DELETES,
        partition=data_file.partition,
        record_count=len(positions),
        file_size_in_bytes=os.path.getsize(path),
        referenced_data_file=data_file.file_path,
    )


def write_equality_deletes(
    path: str,
    keys: pa.Table,
    schema: Schema,
    equality_ids: tuple[int, ...],
    partition: tuple[Any, ...],
) -> DataFile:
    """An equality delete file over ``equality_ids`` for one partition."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(keys, path, compression=COMPRESSION)
    m = file_metrics(path, schema)
    return DataFile(
        file_path=path,
        file_format="PARQUET",
        content=EQUALITY_DELETES,
        partition=partition,
        file_size_in_bytes=os.path.getsize(path),
        equality_ids=equality_ids,
        **m,
    )


@dataclass
class TableLayout:
    """What to commit: data files (grouped into manifests) and, in a second snapshot, delete
    files (one delete manifest)."""

    location: str
    schema: Schema
    spec: PartitionSpec
    format_version: int
    data_manifests: list[list[DataFile]]
    delete_files: list[DataFile] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)


def _snapshot_id(rng: np.random.Generator) -> int:
    return int(rng.integers(1, 2**62))


def _entries(files: Sequence[DataFile]) -> list[ManifestEntry]:
    return [ManifestEntry(STATUS_ADDED, None, None, None, f) for f in files]


def commit_table(layout: TableLayout, seed: int) -> str:
    """Write the manifests, manifest lists and ``v1.metadata.json`` (+ version hint) of a
    table: snapshot 1 appends the data, snapshot 2 (if any deletes) adds the delete files at
    a higher sequence number, so equality deletes apply. Returns the metadata file path."""
    io = FileIO()
    fv = layout.format_version
    meta_dir = f"{layout.location}/metadata"
    os.makedirs(meta_dir, exist_ok=True)
    rng = np.random.default_rng([seed, fv, len(layout.data_manifests)])
    md = new_table_metadata(
        layout.location,
        layout.schema,
        layout.spec,
        properties=layout.properties,
        format_version=fv,
        table_uuid=str(uuid.UUID(int=int(rng.integers(1, 2**62)))),
    )
    builder = md.builder()
    now = 1_763_700_000_000
    snap1 = _snapshot_id(rng)
    manifests = [
        write_manifest(
            io,
            f"{meta_dir}/{snap1}-m{i}.avro",
            layout.spec,
            layout.schema,
            fv,
            snap1,
            _entries(files),
            CONTENT_DATA,
        )
        for i, files in enumerate(layout.data_manifests)
    ]
    rows = sum(f.record_count for files in layout.data_manifests for f in files)
    nfiles = sum(len(files) for files in layout.data_manifests)
    written = write_manifest_list(
        io,
        f"{meta_dir}/snap-{snap1}-1.avro",
        manifests,
        fv,
        snap1,
        None,
        1,
        0 if fv >= 3 else None,
    )
    builder.add_snapshot(
        Snapshot(
            snap1,
            now,
            written.path,
            None,
            1 if fv >= 2 else 0,
            {
                "operation": "append",
                "added-data-files": str(nfiles),
                "added-records": str(rows),
                "total-data-files": str(nfiles),
                "total-records": str(rows),
            },
            0,
            0 if fv >= 3 else None,
            written.next_row_id if fv >= 3 else None,
        )
    )
    builder.set_ref("main", SnapshotRef(snap1))
    if layout.delete_files:
        snap2 = _snapshot_id(rng)
        deletes = write_manifest(
            io,
            f"{meta_dir}/{snap2}-m0.avro",
            layout.spec,
            layout.schema,
            fv,
            snap2,
            _entries(layout.delete_files),
            CONTENT_DELETES,
        )
        second = write_manifest_list(
            io,
            f"{meta_dir}/snap-{snap2}-1.avro",
            [*written.manifests, deletes],
            fv,
            snap2,
            snap1,
            2,
            written.next_row_id if fv >= 3 else None,
        )
        deleted = sum(f.record_count for f in layout.delete_files)
        builder.add_snapshot(
            Snapshot(
                snap2,
                now + 1000,
                second.path,
                snap1,
                2,
                {
                    "operation": "overwrite",
                    "added-delete-files": str(len(layout.delete_files)),
                    "total-data-files": str(nfiles),
                    "total-records": str(rows),
                    "added-position-deletes"
                    if layout.delete_files[0].content == POSITION_DELETES
                    else "added-equality-deletes": str(deleted),
                },
                0,
                second.next_row_id if fv >= 3 else None,
                0 if fv >= 3 else None,
            )
        )
        builder.set_ref("main", SnapshotRef(snap2))
    path = f"{meta_dir}/v1.metadata.json"
    with open(path, "w") as f:
        f.write(builder.build().to_json())
    with open(f"{meta_dir}/version-hint.text", "w") as f:
        f.write("1")
    return path
