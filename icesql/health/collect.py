"""The measurements of a health report, read from the table metadata and the current snapshot's
manifest list and manifests (live entries only, without column metrics: a table of many files
costs its manifests' decoding, never a data file read).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from icesql.catalog.table import Table
from icesql.errors import ProgrammingError
from icesql.metadata.manifest import ManifestEntry
from icesql.metadata.snapshots import MAIN_BRANCH
from icesql.scan.delete_index import is_deletion_vector
from icesql.scan.metadata_tables import partition_type
from icesql.scan.planner import ManifestCache
from icesql.spec.content_file import DATA, EQUALITY_DELETES, DataFile
from icesql.spec.manifest_file import CONTENT_DATA, ManifestFile
from icesql.spec.partitioning import PartitionField
from icesql.spec.types import IcebergType, StructType
from icesql.write.properties import TableProperties

from .model import (
    FileSizes,
    ManifestInfo,
    MetadataFileInfo,
    PartitionHealth,
    Retention,
    SizeBucket,
    SnapshotPoint,
)

__all__ = [
    "UNPARTITIONED",
    "file_sizes",
    "live_entries",
    "manifest_target",
    "manifests",
    "metadata_files",
    "partitions",
    "retention",
    "size_limits",
    "snapshots",
]

UNPARTITIONED = "(unpartitioned)"
_MIN_RATIO, _MAX_RATIO = 0.75, 1.8  # Java's SizeBasedFileRewritePlanner defaults


def size_limits(table: Table) -> tuple[int, int, int]:
    """target, min and max data file size as ``rewrite_data_files`` plans without options."""
    target = TableProperties(table.metadata.properties, table.name).target_file_size_bytes
    return target, int(target * _MIN_RATIO), int(target * _MAX_RATIO)


def live_entries(
    table: Table, cache: ManifestCache
) -> tuple[list[ManifestFile], list[ManifestEntry]]:
    """The current snapshot's manifests and their live entries (no column metrics)."""
    snapshot = table.metadata.current_snapshot()
    if snapshot is None:
        return [], []
    listed = list(cache.manifests(table.io, snapshot))
    entries = [e for m in listed for e in cache.live_entries(table.io, m, metrics=False)]
    return listed, entries


def file_sizes(table: Table, data: Sequence[DataFile]) -> FileSizes:
    """The data files' size distribution in power-of-two buckets, against the target."""
    target, low, high = size_limits(table)
    counts: dict[int, list[int]] = {}
    for f in data:
        size = max(f.file_size_in_bytes, 1)
        bucket = counts.setdefault(size.bit_length() - 1, [0, 0])
        bucket[0] += 1
        bucket[1] += f.file_size_in_bytes
    buckets = tuple(
        SizeBucket(1 << k, 1 << (k + 1), *counts.get(k, (0, 0)))
        for k in range(min(counts, default=0), max(counts, default=-1) + 1)
    )
    return FileSizes(
        target_bytes=target,
        min_bytes=low,
        max_bytes=high,
        files=len(data),
        bytes=sum(f.file_size_in_bytes for f in data),
        records=sum(f.record_count for f in data),
        small_files=sum(1 for f in data if f.file_size_in_bytes < low),
        large_files=sum(1 for f in data if f.file_size_in_bytes > high),
        buckets=buckets,
    )


def partitions(table: Table, files: Sequence[DataFile]) -> tuple[PartitionHealth, ...]:
    """The live files by partition, as ``db.t.partitions`` groups them (the partition tuple
    over every spec's fields, a field a file's spec lacks NULL), largest first."""
    md = table.metadata
    struct = partition_type(table)
    positions = {s.spec_id: {f.field_id: i for i, f in enumerate(s.fields)} for s in md.specs}
    _, low, _ = size_limits(table)
    # [spec, files, records, bytes, small, pos files, dvs, pos records, eq files, eq records]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for f in files:
        index = positions.get(f.spec_id, {})
        key = tuple(
            f.partition[index[u.field_id]] if u.field_id in index else None for u in struct.fields
        )
        g = groups.setdefault(key, [f.spec_id, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        g[0] = f.spec_id
        if f.content == DATA:
            g[1] += 1
            g[2] += f.record_count
            g[3] += f.file_size_in_bytes
            g[4] += f.file_size_in_bytes < low
        elif f.content == EQUALITY_DELETES:
            g[8] += 1
            g[9] += f.record_count
        else:
            g[6 if is_deletion_vector(f) else 5] += 1
            g[7] += f.record_count
    labels = _labeller(table, struct)
    out = [PartitionHealth(labels(key), *g) for key, g in groups.items()]
    return tuple(sorted(out, key=lambda p: (-p.bytes, p.partition)))


def _labeller(table: Table, struct: StructType) -> Any:
    """A function from a coerced partition tuple to ``name=value/...`` in Java's human
    strings (the spec's partition path, unescaped)."""
    if not struct.fields:
        return lambda key: UNPARTITIONED
    md = table.metadata
    schema = md.schema()
    by_id: dict[int, PartitionField] = {}
    for spec in md.specs:
        for pf in spec.fields:
            by_id.setdefault(pf.field_id, pf)
    sources: dict[int, IcebergType | None] = {}
    for field_id, pf in by_id.items():
        try:
            sources[field_id] = schema.find_type(pf.source_id)
        except ProgrammingError:
            sources[field_id] = None  # a dropped source column

    def label(key: tuple[Any, ...]) -> str:
        parts = []
        for u, value in zip(struct.fields, key, strict=True):
            pf, source = by_id[u.field_id], sources[u.field_id]
            if value is None:
                text = "null"
            elif source is None:
                text = str(value)
            else:
                text = pf.transform.to_human_string(source, value)
            parts.append(f"{u.name}={text}")
        return "/".join(parts)

    return label


def manifests(listed: Sequence[ManifestFile]) -> tuple[ManifestInfo, ...]:
    return tuple(
        ManifestInfo(
            path=m.manifest_path,
            content="data" if m.content == CONTENT_DATA else "deletes",
            spec_id=m.partition_spec_id,
            length=m.manifest_length,
            added_files=m.added_files_count or 0,
            existing_files=m.existing_files_count or 0,
            deleted_files=m.deleted_files_count or 0,
        )
        for m in listed
    )


def _int(summary: dict[str, str], key: str) -> int:
    try:
        return int(summary.get(key, 0))
    except ValueError:
        return 0


def snapshots(table: Table, expiring: set[int]) -> tuple[SnapshotPoint, ...]:
    """Every snapshot, oldest first, with the refs that point at it."""
    md = table.metadata
    refs: dict[int, list[str]] = {}
    for name, ref in sorted(md.refs.items(), key=lambda r: (r[0] != MAIN_BRANCH, r[0])):
        refs.setdefault(ref.snapshot_id, []).append(name)
    out = []
    for s in sorted(md.snapshots, key=lambda s: (s.timestamp_ms, s.sequence_number or 0)):
        summary = dict(s.summary or {})
        total_records = summary.get("total-records")
        total_files = summary.get("total-data-files")
        out.append(
            SnapshotPoint(
                snapshot_id=s.snapshot_id,
                parent_id=s.parent_snapshot_id,
                timestamp_ms=s.timestamp_ms,
                operation=summary.get("operation"),
                added_data_files=_int(summary, "added-data-files"),
                removed_data_files=_int(summary, "deleted-data-files"),
                added_delete_files=_int(summary, "added-delete-files"),
                removed_delete_files=_int(summary, "removed-delete-files"),
                added_records=_int(summary, "added-records"),
                deleted_records=_int(summary, "deleted-records"),
                total_records=int(total_records) if total_records is not None else None,
                total_data_files=int(total_files) if total_files is not None else None,
                refs=tuple(refs.get(s.snapshot_id, ())),
                expires=s.snapshot_id in expiring,
            )
        )
    return tuple(out)


def manifest_target(table: Table) -> int:
    return TableProperties(table.metadata.properties, table.name).manifest_target_size_bytes


def retention(table: Table) -> Retention:
    props = TableProperties(table.metadata.properties, table.name)
    return Retention(
        max_snapshot_age_ms=props.max_snapshot_age_ms,
        min_snapshots_to_keep=props.min_snapshots_to_keep,
        max_ref_age_ms=props.max_ref_age_ms,
        gc_enabled=props.gc_enabled,
    )


def metadata_files(table: Table) -> tuple[MetadataFileInfo, ...]:
    """The metadata log's files and the current one, with their sizes where they exist (one
    stat each: the log holds at most ``write.metadata.previous-versions-max`` files)."""
    md = table.metadata
    found = [(e.metadata_file, e.timestamp_ms) for e in md.metadata_log]
    if table.metadata_location:
        found.append((table.metadata_location, md.last_updated_ms))
    out = []
    for path, at in found:
        size: int | None
        try:
            fs, local = table.io.fs(path)
            size = int(fs.size(local))
        except (OSError, ValueError):
            size = None
        out.append(MetadataFileInfo(path, at, size))
    return tuple(out)
