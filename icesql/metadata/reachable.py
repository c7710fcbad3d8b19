"""The files a table's snapshots reach, by kind: what ``expire_snapshots`` may delete once no
kept snapshot reaches it, and what ``remove_orphan_files`` must keep.

A snapshot reaches its manifest list, the manifests listed in it, the content files those
manifests list as live (added or existing: a deleted entry only records a removal, the file
itself is reached through the manifests of the snapshots before it), and the statistics and
partition-statistics files the table metadata records for it — the sets Java's Spark actions
build from the ``all_manifests`` metadata table. Manifests are shared between snapshots, so
each distinct one is read once; a manifest that cannot be read fails the walk, since files it
lists would otherwise look unreachable — unless ``missing_ok`` says the walk is over files
being deleted (an expired snapshot's), where a file already gone has nothing left to find. ``same_file`` gives the key under which two spellings
of one location compare equal (``file:/x``, ``file:///x`` and ``/x``; ``s3a://`` and ``s3://``),
so a file one engine wrote and another re-listed is never taken for two.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from icesql.errors import OperationalError
from icesql.io import FileIO, is_missing_file
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.statistics import PartitionStatisticsFile, StatisticsFile
from icesql.metadata.table_metadata import TableMetadata
from icesql.spec.content_file import DATA, EQUALITY_DELETES, POSITION_DELETES
from icesql.spec.manifest_file import ManifestFile

__all__ = [
    "DATA_FILE",
    "EQUALITY_DELETE_FILE",
    "MANIFEST",
    "MANIFEST_LIST",
    "POSITION_DELETE_FILE",
    "STATISTICS_FILE",
    "content_files",
    "manifest_lists",
    "manifests",
    "same_file",
    "statistics_files",
]

# the kinds of Java's FileInfo (ReachableFileUtil / BaseSparkAction)
DATA_FILE, POSITION_DELETE_FILE, EQUALITY_DELETE_FILE = "Data", "Position Delete", "Equality Delete"
MANIFEST, MANIFEST_LIST, STATISTICS_FILE = "Manifest", "Manifest List", "Statistics files"
_CONTENT_KINDS = {
    DATA: DATA_FILE, POSITION_DELETES: POSITION_DELETE_FILE, EQUALITY_DELETES: EQUALITY_DELETE_FILE,
}  # fmt: skip


def same_file(path: str) -> str:
    """The comparison key of a location (module docstring)."""
    if path.startswith("file:"):
        rest = path[len("file:") :]
        return rest[2:] if rest.startswith("///") else rest
    for scheme in ("s3a://", "s3n://"):
        if path.startswith(scheme):
            return "s3://" + path[len(scheme) :]
    return path


def manifests(
    io: FileIO, md: TableMetadata, snapshot_ids: Iterable[int], missing_ok: bool = False
) -> dict[str, ManifestFile]:
    """The distinct manifests of the snapshots ``snapshot_ids``, by path (``missing_ok``: a
    manifest list already deleted lists none)."""
    found: dict[str, ManifestFile] = {}
    for snapshot_id in snapshot_ids:
        snapshot = md.snapshot_by_id(snapshot_id)
        if snapshot is None:
            continue
        try:
            listed = read_manifest_list(io, snapshot.manifest_list, snapshot)
        except OperationalError as e:
            if not (missing_ok and is_missing_file(e)):
                raise
            continue
        for manifest in listed:
            found.setdefault(manifest.manifest_path, manifest)
    return found


def manifest_lists(md: TableMetadata, snapshot_ids: Iterable[int]) -> set[str]:
    """The manifest lists of the snapshots (old v1 snapshots that list manifests inline have
    none)."""
    paths = set()
    for snapshot_id in snapshot_ids:
        snapshot = md.snapshot_by_id(snapshot_id)
        if snapshot is not None and snapshot.manifest_list:
            paths.add(snapshot.manifest_list)
    return paths


def statistics_files(md: TableMetadata, snapshot_ids: Iterable[int] | None = None) -> set[str]:
    """The statistics and partition-statistics files of the snapshots (None: of all)."""
    wanted = None if snapshot_ids is None else set(snapshot_ids)
    files: list[StatisticsFile | PartitionStatisticsFile] = [
        *md.statistics,
        *md.partition_statistics,
    ]
    return {s.statistics_path for s in files if wanted is None or s.snapshot_id in wanted}


def content_files(
    io: FileIO, manifest_files: Iterable[ManifestFile], missing_ok: bool = False
) -> Iterator[tuple[str, str]]:
    """``(path, kind)`` of every live entry of the manifests (a path may repeat: a v3
    Puffin file holds the deletion vectors of many data files; ``missing_ok``: a manifest
    already deleted lists none)."""
    for manifest in manifest_files:
        try:
            entries = read_manifest(io, manifest, metrics=False)
        except OperationalError as e:
            if not (missing_ok and is_missing_file(e)):
                raise
            continue
        for entry in entries:
            if entry.is_live:
                f = entry.data_file
                yield f.file_path, _CONTENT_KINDS.get(f.content, DATA_FILE)
