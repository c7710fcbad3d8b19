"""``compute_table_stats``: Spark's ``ComputeTableStatsProcedure`` — a theta sketch of each
column's distinct values at a snapshot, in a Puffin statistics file registered with
``set-statistics``. ``compute_partition_stats``: Spark's ``ComputePartitionStatsProcedure`` —
the spec's partition statistics file of a snapshot (``icesql.scan.partition_stats``), written in
the table's default file format (Parquet here; ORC and Avro are refused), named
``partition-stats-<snapshot id>-<uuid>.parquet`` in the metadata folder and registered with
``set-partition-statistics``; a snapshot that has one already gets it again, an unpartitioned
table is Java's error, an empty one no row.

As Java's ``ComputeTableStatsSparkAction``: the snapshot is ``snapshot_id`` or the current
one (a table without snapshots gives no row and writes nothing), its schema names the
columns, ``columns`` defaults to every top-level primitive column, and each column gets an
``apache-datasketches-theta-v1`` blob (zstd-compressed, property ``ndv``) fed with the
column's values — deletes applied — in Iceberg's binary serialization
(``icesql.metadata.theta_sketch``). The file is ``<metadata dir>/<snapshot id>-<uuid>.stats``;
the output row is its path. A nested (dotted) column name is refused by name.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from icesql._version import __version__
from icesql.catalog.base import Catalog, CommitStateUnknownError
from icesql.catalog.metadata_files import metadata_dir
from icesql.catalog.table import Table
from icesql.errors import NotSupportedError
from icesql.metadata.puffin import NewBlob, write_puffin
from icesql.metadata.snapshots import Snapshot
from icesql.metadata.statistics import BlobMetadata, PartitionStatisticsFile, StatisticsFile
from icesql.metadata.table_updates import (
    SetPartitionStatisticsUpdate,
    SetStatisticsUpdate,
    TableUpdate,
)
from icesql.metadata.theta_sketch import THETA_BLOB, ThetaSketch, hash_value
from icesql.scan.metadata_tables import partition_type
from icesql.scan.partition_stats import compute_partition_stats, stats_table
from icesql.scan.planner import ManifestCache
from icesql.scan.table_scan import TableScan
from icesql.scan.time_travel import ReadVersion
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DateType,
    DoubleType,
    FloatType,
    IcebergType,
    IntegerType,
    LongType,
    PrimitiveType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
)
from icesql.spec.values import to_bytes
from icesql.statements.procedures.base import (
    LONG,
    STRING,
    STRING_ARRAY,
    Call,
    Parameter,
    Procedure,
)
from icesql.write.commit import commit
from icesql.write.properties import DEFAULT_FILE_FORMAT
from icesql.write.snapshot import Change

__all__ = ["PROCEDURES"]

_NDV = "ndv"
_INTS = (IntegerType, DateType)
_LONGS = (
    LongType,
    TimeType,
    TimestampType,
    TimestamptzType,
    TimestampNanoType,
    TimestamptzNanoType,
)


def _columns(call: Call, schema: Schema) -> list[str]:
    given = call.args.get("columns")
    if given is None:
        names = [f.name for f in schema.fields if isinstance(f.type, PrimitiveType)]
    else:
        if not given:
            raise call.error("Columns cannot be null/empty")
        names = list(dict.fromkeys(given))
    if not names:
        raise call.error("No columns found to compute stats")
    by_name = {f.name: f for f in schema.fields}
    for name in names:
        field = by_name.get(name)
        if field is None and "." in name:
            raise NotSupportedError(
                f"procedure {call.procedure}: statistics of nested column {name!r}"
            )
        if field is None:
            raise call.error(f"Can't find column {name} in {schema}")
        if not isinstance(field.type, PrimitiveType):
            raise call.error(
                f"Can't compute stats on non-primitive type column: {name} ({field.type})"
            )
    return names


def _snapshot(call: Call, table: Table) -> Snapshot | None:
    """``snapshot_id``'s snapshot (Java's "Snapshot not found"), else the current one."""
    md = table.metadata
    snapshot_id = call.args.get("snapshot_id")
    if snapshot_id is None:
        return md.current_snapshot()
    snapshot = md.snapshot_by_id(snapshot_id)
    if snapshot is None:
        raise call.error(f"Snapshot not found: {snapshot_id}")
    return snapshot


def _register(catalog: Catalog, table: Table, update: TableUpdate, written: str | None) -> None:
    """Commit ``update``; a failed commit deletes the file just ``written``, an unknown
    outcome keeps it (the table may list it now)."""
    try:
        commit(catalog, table, Change(updates=(update,)))
    except CommitStateUnknownError:
        raise
    except BaseException:
        if written is not None:
            table.io.delete(written)
        raise


def _compute_table_stats(call: Call) -> Sequence[Sequence[Any]]:
    catalog, table = call.table()
    md = table.metadata
    snapshot = _snapshot(call, table)
    if snapshot is None:
        return []
    schema = (md.schema_by_id(snapshot.schema_id) if snapshot.schema_id is not None else None) or (
        md.schema()
    )
    names = _columns(call, schema)
    fields = [next(f for f in schema.fields if f.name == n) for n in names]
    sketches = [ThetaSketch() for _ in fields]
    scan = TableScan(table, ReadVersion(snapshot, schema), names, ManifestCache())
    for batch in scan.batches():
        for field, sketch in zip(fields, sketches, strict=True):
            sketch.update_hashes(_distinct_hashes(batch.column(field.name), field.type))
    blobs = [
        NewBlob(
            THETA_BLOB,
            (field.field_id,),
            snapshot.snapshot_id,
            snapshot.sequence_number,
            sketch.to_bytes(),
            {_NDV: str(int(sketch.estimate))},
            codec="zstd",
        )
        for field, sketch in zip(fields, sketches, strict=True)
    ]
    path = f"{metadata_dir(md)}/{snapshot.snapshot_id}-{uuid.uuid4()}.stats"
    footer = write_puffin(table.io, path, blobs, f"icesql {__version__}")
    size = table.io.size(path)
    stats = StatisticsFile(
        snapshot.snapshot_id,
        path,
        size,
        footer.footer_size,
        tuple(
            BlobMetadata(b.type, b.snapshot_id, b.sequence_number, b.fields, dict(b.properties))
            for b in footer.blobs
        ),
    )
    _register(catalog, table, SetStatisticsUpdate(stats), path)
    return [(path,)]


def _distinct_hashes(column: pa.ChunkedArray | pa.Array, t: IcebergType) -> list[int]:
    """The theta hashes of the distinct non-null values of ``column`` in Iceberg's binary
    single-value serialization (what Spark's ``ThetaSketchAgg`` feeds its sketch)."""
    values = pc.drop_null(column)
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not len(values):
        return []
    width = (
        4
        if isinstance(t, _INTS + (FloatType,))
        else 8
        if isinstance(t, _LONGS + (DoubleType,))
        else 0
    )
    if width:
        # the raw bits, so that -0.0 and 0.0 (and NaN payloads) stay apart as in Java
        ints = values.view(pa.int32() if width == 4 else pa.int64())
        raw = np.asarray(pc.unique(ints)).astype("<i4" if width == 4 else "<i8").tobytes()
        return [hash_value(raw[i : i + width]) for i in range(0, len(raw), width)]
    unique = pc.unique(values)
    if pa.types.is_string(unique.type) or pa.types.is_large_string(unique.type):
        unique = unique.cast(pa.large_binary())
    if isinstance(unique.type, pa.BaseExtensionType) or not (
        pa.types.is_binary(unique.type)
        or pa.types.is_large_binary(unique.type)
        or pa.types.is_fixed_size_binary(unique.type)
    ):
        return [hash_value(to_bytes(t, v)) for v in unique.to_pylist()]  # booleans, decimals
    return [hash_value(v) for v in unique.to_pylist() if v]  # Java skips an empty value


def _compute_partition_stats(call: Call) -> Sequence[Sequence[Any]]:
    catalog, table = call.table()
    md = table.metadata
    snapshot = _snapshot(call, table)
    if snapshot is None:
        return []
    if not partition_type(table).fields:
        raise call.error("Table must be partitioned")
    by_snapshot = {s.snapshot_id: s for s in md.partition_statistics}
    previous = next(
        (
            by_snapshot[s.snapshot_id]
            for s in md.ancestors_of(snapshot.snapshot_id)
            if s.snapshot_id in by_snapshot
        ),
        None,
    )
    if previous is not None and previous.snapshot_id == snapshot.snapshot_id:
        stats_file = previous
    else:
        file_format = str(md.properties.get(DEFAULT_FILE_FORMAT, "parquet")).lower()
        if file_format != "parquet":
            raise NotSupportedError(
                f"procedure {call.procedure}: a partition statistics file in {file_format}"
            )
        rows = compute_partition_stats(table, snapshot, previous)
        if not rows:
            return []
        path = f"{metadata_dir(md)}/partition-stats-{snapshot.snapshot_id}-{uuid.uuid4()}.parquet"
        with table.io.create(path) as out:
            pq.write_table(stats_table(table, rows), out, compression="zstd")
        stats_file = PartitionStatisticsFile(snapshot.snapshot_id, path, table.io.size(path))
    written = None if stats_file is previous else stats_file.statistics_path
    _register(catalog, table, SetPartitionStatisticsUpdate(stats_file), written)
    return [(stats_file.statistics_path,)]


PROCEDURES = (
    Procedure(
        "compute_partition_stats",
        (Parameter("table", STRING), Parameter("snapshot_id", LONG, required=False)),
        pa.schema([pa.field("partition_statistics_file", pa.string())]),
        _compute_partition_stats,
    ),
    Procedure(
        "compute_table_stats",
        (
            Parameter("table", STRING),
            Parameter("snapshot_id", LONG, required=False),
            Parameter("columns", STRING_ARRAY, required=False),
        ),
        pa.schema([pa.field("statistics_file", pa.string())]),
        _compute_table_stats,
    ),
)
