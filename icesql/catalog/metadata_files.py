"""The metadata files every catalog writes and cleans up, whatever it swaps to commit.

A commit writes a whole new ``*.metadata.json`` (gzip-compressed when
``write.metadata.compression-codec=gzip``); after it, the versions that fell out of the
metadata log may be deleted (``write.metadata.delete-after-commit.enabled``); ``DROP TABLE
... PURGE`` deletes every file the table references. Metastore catalogs (SQL, Glue, REST
clients that write their own metadata) name a version ``<NNNNN>-<uuid>.metadata.json`` as
Java's ``BaseMetastoreTableOperations`` does, so Spark and PyIceberg find the same names.
"""

from __future__ import annotations

import gzip
import re
import uuid
from typing import TYPE_CHECKING

from icesql._lazy import lazy_module
from icesql.catalog.table import Table
from icesql.errors import OperationalError
from icesql.io import FileIO
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.view_metadata import ViewMetadata

if TYPE_CHECKING:
    from icesql.metadata import manifest, manifest_list
else:  # read only to purge a dropped table's files
    manifest = lazy_module("icesql.metadata.manifest")
    manifest_list = lazy_module("icesql.metadata.manifest_list")

METADATA_COMPRESSION = "write.metadata.compression-codec"
METADATA_PATH = "write.metadata.path"
_VERSIONED_NAME = re.compile(r"^(\d+)-[^/]*\.metadata\.json$")


def compressed(metadata: TableMetadata | ViewMetadata) -> bool:
    """Whether the table (or view) asks for gzip-compressed metadata files; a view's
    default is gzip (Java's ``ViewProperties``), a table's none."""
    default = "gzip" if isinstance(metadata, ViewMetadata) else "none"
    return str((metadata.properties or {}).get(METADATA_COMPRESSION, default)).lower() == "gzip"


def metadata_dir(metadata: TableMetadata | ViewMetadata) -> str:
    """Where the table's metadata files go: ``write.metadata.path``, else ``<location>/metadata``."""
    path = (metadata.properties or {}).get(METADATA_PATH)
    return str(path).rstrip("/") if path else f"{metadata.location.rstrip('/')}/metadata"


def parse_version(metadata_location: str | None) -> int:
    """The version number of a ``<NNNNN>-<uuid>.metadata.json`` name; -1 for any other name
    (Java's ``parseVersion``), so the next version is 0 after a file named otherwise."""
    if not metadata_location:
        return -1
    m = _VERSIONED_NAME.match(metadata_location.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else -1


def new_metadata_location(metadata: TableMetadata | ViewMetadata, previous: str | None) -> str:
    """A fresh name for the next version after ``previous`` (None for a new table)."""
    ext = ".gz.metadata.json" if compressed(metadata) else ".metadata.json"
    version = parse_version(previous) + 1
    return f"{metadata_dir(metadata)}/{version:05d}-{uuid.uuid4()}{ext}"


def serialize(metadata: TableMetadata | ViewMetadata, compress: bool = False) -> bytes:
    """The document as written: UTF-8 JSON, gzip-compressed when asked."""
    data = metadata.to_json().encode("utf-8")
    return gzip.compress(data) if compress else data


def delete_dropped_metadata(
    io: FileIO, base: TableMetadata, new: TableMetadata, base_path: str
) -> None:
    """``write.metadata.delete-after-commit.enabled``: delete the previous metadata files
    that fell out of the metadata log (``write.metadata.previous-versions-max``)."""
    enabled = str(new.properties.get("write.metadata.delete-after-commit.enabled", "false"))
    if enabled.lower() != "true":
        return
    kept = {e.metadata_file for e in new.metadata_log}
    dropped = {e.metadata_file for e in base.metadata_log} - kept
    if base_path not in kept:
        dropped.add(base_path)
    for path in dropped:
        try:
            io.delete(path)
        except Exception:
            pass


def delete_table_files(table: Table) -> None:
    """Delete every file the table's metadata references (DROP TABLE ... PURGE)."""
    md, io = table.metadata, table.io
    seen: set[str] = set()
    doomed: list[str] = []

    def add(path: str | None) -> None:
        if path and path not in seen:
            seen.add(path)
            doomed.append(path)

    for snapshot in md.snapshots:
        try:
            manifests = manifest_list.read_manifest_list(io, snapshot.manifest_list, snapshot)
        except OperationalError:
            continue  # already gone
        for listed in manifests:
            if listed.manifest_path in seen:
                continue
            try:
                for entry in manifest.read_manifest(io, listed):
                    add(entry.data_file.file_path)
            except OperationalError:
                pass
            add(listed.manifest_path)
        add(snapshot.manifest_list)
    for stats in (*md.statistics, *md.partition_statistics):
        add(getattr(stats, "statistics_path", None) or getattr(stats, "path", None))
    for logged in md.metadata_log:
        add(logged.metadata_file)
    add(table.metadata_location)  # the current version is not in its own log
    for path in doomed:
        try:
            io.delete(path)
        except Exception:
            pass
