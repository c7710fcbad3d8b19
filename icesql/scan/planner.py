"""Scan planning: from a snapshot to the data files a query must read.

The manifest list names the manifests; each manifest lists data (or delete) files with the
partition tuple of its own partition spec. Manifests are immutable, so their entries are
cached by path for the life of a connection.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from icesql.errors import NotSupportedError
from icesql.io import FileIO
from icesql.metadata.manifest import DataFile, ManifestEntry, read_manifest
from icesql.metadata.manifest_list import ManifestFile, read_manifest_list
from icesql.metadata.table_metadata import Snapshot, TableMetadata

STATUS_DELETED = 2
CONTENT_DATA = 0


@dataclass(frozen=True)
class FileScanTask:
    """One data file to read, with the partition spec its tuple belongs to."""

    data_file: DataFile
    spec_id: int
    data_sequence_number: int | None = None


@dataclass
class ManifestCache:
    """Live entries of manifests by path; safe to share across the queries of a connection."""

    entries: dict[str, tuple[ManifestEntry, ...]] = field(default_factory=dict)
    lists: dict[str, tuple[ManifestFile, ...]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def manifests(self, io: FileIO, snapshot: Snapshot) -> tuple[ManifestFile, ...]:
        key = snapshot.manifest_list or f"v1-manifests:{snapshot.snapshot_id}"
        with self._lock:
            cached = self.lists.get(key)
        if cached is None:
            cached = tuple(read_manifest_list(io, snapshot.manifest_list, snapshot))
            with self._lock:
                self.lists[key] = cached
        return cached

    def live_entries(self, io: FileIO, manifest: ManifestFile) -> tuple[ManifestEntry, ...]:
        with self._lock:
            cached = self.entries.get(manifest.manifest_path)
        if cached is None:
            cached = tuple(e for e in read_manifest(io, manifest) if e.status != STATUS_DELETED)
            with self._lock:
                self.entries[manifest.manifest_path] = cached
        return cached


def plan_files(
    metadata: TableMetadata,
    snapshot: Snapshot | None,
    io: FileIO,
    cache: ManifestCache | None = None,
    table_name: str = "",
) -> Iterator[FileScanTask]:
    """The data files of ``snapshot`` (none for a table with no snapshot yet)."""
    if snapshot is None:
        return
    cache = cache or ManifestCache()
    manifests = cache.manifests(io, snapshot)
    for manifest in manifests:
        if manifest.content != CONTENT_DATA and _has_live_files(manifest, cache, io):
            raise NotSupportedError(
                f"table {table_name or metadata.location} has row-level delete files at"
                f" snapshot {snapshot.snapshot_id} (manifest {manifest.manifest_path});"
                " reading tables with position/equality deletes or deletion vectors is not"
                " supported yet"
            )
    for manifest in manifests:
        if manifest.content != CONTENT_DATA:
            continue
        for entry in cache.live_entries(io, manifest):
            yield FileScanTask(
                entry.data_file, manifest.partition_spec_id, entry.sequence_number
            )


def _has_live_files(manifest: ManifestFile, cache: ManifestCache, io: FileIO) -> bool:
    if (manifest.added_files_count or 0) + (manifest.existing_files_count or 0) > 0:
        return True
    if manifest.added_files_count is None or manifest.existing_files_count is None:
        return bool(cache.live_entries(io, manifest))
    return False
