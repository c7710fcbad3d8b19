"""What a table health report holds: plain frozen records, each turned into JSON by ``to_dict``.

Every number comes from the table metadata, the manifest list and the manifests of the current
snapshot (never a data file), so a report equals what the metadata tables show: a partition's
counts are ``db.t.partitions``' row (deletion vectors counted apart from the other position
delete files), the manifests are ``db.t.manifests``' rows, the snapshots ``db.t.snapshots``'.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Advice",
    "FileSizes",
    "ManifestInfo",
    "MetadataFileInfo",
    "PartitionHealth",
    "Retention",
    "SizeBucket",
    "SnapshotPoint",
    "TableHealth",
]


@dataclass(frozen=True)
class SizeBucket:
    """Data files whose size is in [``lower``, ``upper``) bytes."""

    lower: int
    upper: int
    files: int
    bytes: int


@dataclass(frozen=True)
class FileSizes:
    """The live data files against the sizes ``rewrite_data_files`` plans with: a file below
    ``min_bytes`` (0.75 x target) or above ``max_bytes`` (1.8 x target) is one it selects."""

    target_bytes: int
    min_bytes: int
    max_bytes: int
    files: int
    bytes: int
    records: int
    small_files: int
    large_files: int
    buckets: tuple[SizeBucket, ...]

    @property
    def average_bytes(self) -> int:
        return self.bytes // self.files if self.files else 0


@dataclass(frozen=True)
class PartitionHealth:
    """One partition's live files (``db.t.partitions`` groups the same way: by the partition
    tuple over every spec's fields). ``position_deleted_records`` counts the rows the position
    delete files and deletion vectors remove; equality delete records are keys, each of
    which may remove any number of rows."""

    partition: str
    spec_id: int
    data_files: int
    records: int
    bytes: int
    small_files: int
    position_delete_files: int
    deletion_vectors: int
    position_deleted_records: int
    equality_delete_files: int
    equality_delete_records: int

    @property
    def delete_files(self) -> int:
        return self.position_delete_files + self.deletion_vectors + self.equality_delete_files

    @property
    def live_records(self) -> int:
        """The records less those position deletes remove (equality deletes not counted)."""
        return max(self.records - self.position_deleted_records, 0)

    @property
    def deleted_fraction(self) -> float:
        """The share of the partition's records that position deletes remove."""
        return self.position_deleted_records / self.records if self.records else 0.0


@dataclass(frozen=True)
class ManifestInfo:
    """One manifest of the current snapshot, as ``db.t.manifests`` shows it."""

    path: str
    content: str  # "data" or "deletes"
    spec_id: int
    length: int
    added_files: int
    existing_files: int
    deleted_files: int


@dataclass(frozen=True)
class SnapshotPoint:
    """One snapshot on the timeline, with what its summary says it changed."""

    snapshot_id: int
    parent_id: int | None
    timestamp_ms: int
    operation: str | None
    added_data_files: int
    removed_data_files: int
    added_delete_files: int
    removed_delete_files: int
    added_records: int
    deleted_records: int
    total_records: int | None
    total_data_files: int | None
    refs: tuple[str, ...]
    expires: bool  # expire_snapshots with its defaults would remove it


@dataclass(frozen=True)
class Retention:
    """The table's ``history.expire.*`` properties as ``expire_snapshots`` reads them."""

    max_snapshot_age_ms: int
    min_snapshots_to_keep: int
    max_ref_age_ms: int
    gc_enabled: bool


@dataclass(frozen=True)
class MetadataFileInfo:
    """A metadata JSON file of the table (the metadata log, then the current one)."""

    path: str
    timestamp_ms: int
    bytes: int | None  # None when the file could not be found


@dataclass(frozen=True)
class Advice:
    """One problem found: what it is, the evidence, the ``CALL`` that fixes it and what that
    call would change, planned the way the procedure plans (nothing is changed)."""

    code: str  # small-files, deleted-rows, delete-files, manifests, snapshots, orphans
    problem: str
    evidence: tuple[str, ...]
    call: str
    preview: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TableHealth:
    """A table's health, computed from its metadata and manifests (``icesql.health``)."""

    table: str
    location: str
    format_version: int
    snapshot_id: int | None
    properties: dict[str, str]
    files: FileSizes
    partitions: tuple[PartitionHealth, ...]
    manifests: tuple[ManifestInfo, ...]
    manifest_target_bytes: int
    snapshots: tuple[SnapshotPoint, ...]
    retention: Retention
    metadata_files: tuple[MetadataFileInfo, ...]
    advice: tuple[Advice, ...]
    orphans_checked: bool
    computed_ms: int

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-able data (what ``icesql health TABLE --json`` prints)."""
        out = dataclasses.asdict(self)
        out["files"]["average_bytes"] = self.files.average_bytes
        for row, p in zip(out["partitions"], self.partitions, strict=True):
            row["delete_files"] = p.delete_files
            row["live_records"] = p.live_records
            row["deleted_fraction"] = round(p.deleted_fraction, 6)
        out["summary"] = {
            "data_files": self.files.files,
            "data_bytes": self.files.bytes,
            "records": self.files.records,
            "small_files": self.files.small_files,
            "delete_files": sum(p.delete_files for p in self.partitions),
            "partitions": len(self.partitions),
            "manifests": len(self.manifests),
            "snapshots": len(self.snapshots),
            "metadata_files": len(self.metadata_files),
            "problems": len(self.advice),
        }
        return out

    def __repr__(self) -> str:
        from icesql.health.text import render_text

        return render_text(self)

    def _repr_html_(self) -> str:
        from icesql.health.html import render_html

        return render_html(self)
