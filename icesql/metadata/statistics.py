"""Table statistics, partition statistics and encryption keys listed in table metadata.

Statistics are informational (a reader may ignore them), but a writer must carry them over
and drop those of expired snapshots, so they are parsed into small frozen views that keep
unknown keys in ``extra`` and write themselves back as the reference implementation does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from icesql.metadata.json_fields import extra_keys, get_int, get_str, json_object

__all__ = ["BlobMetadata", "EncryptionKey", "PartitionStatisticsFile", "StatisticsFile"]


def _str_map(obj: Mapping[str, Any], key: str) -> dict[str, str]:
    value = obj.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"field {key!r} must be an object, got {value!r}")
    return dict(value)


_BLOB_KEYS = frozenset({"type", "snapshot-id", "sequence-number", "fields", "properties"})


@dataclass(frozen=True)
class BlobMetadata:
    """One blob of a Puffin statistics file, as recorded in table metadata."""

    type: str
    snapshot_id: int
    sequence_number: int
    fields: tuple[int, ...]
    properties: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @staticmethod
    def from_json(obj: Any) -> BlobMetadata:
        obj = json_object(obj, "blob metadata")
        fields = obj.get("fields")
        if not isinstance(fields, list):
            raise ValueError(f"blob metadata 'fields' must be a list, got {fields!r}")
        return BlobMetadata(
            type=get_str(obj, "type"),
            snapshot_id=get_int(obj, "snapshot-id"),
            sequence_number=get_int(obj, "sequence-number"),
            fields=tuple(fields),
            properties=_str_map(obj, "properties"),
            extra=extra_keys(obj, _BLOB_KEYS),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "snapshot-id": self.snapshot_id,
            "sequence-number": self.sequence_number,
            "fields": list(self.fields),
        }
        if self.properties:
            out["properties"] = dict(self.properties)
        out.update(self.extra)
        return out


_STATS_KEYS = frozenset(
    {
        "snapshot-id",
        "statistics-path",
        "file-size-in-bytes",
        "file-footer-size-in-bytes",
        "key-metadata",
        "blob-metadata",
    }
)


@dataclass(frozen=True)
class StatisticsFile:
    """A Puffin file of table statistics computed from one snapshot."""

    snapshot_id: int
    statistics_path: str
    file_size_in_bytes: int
    file_footer_size_in_bytes: int
    blob_metadata: tuple[BlobMetadata, ...] = ()
    key_metadata: str | None = None  # base64, as stored
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @staticmethod
    def from_json(obj: Any) -> StatisticsFile:
        obj = json_object(obj, "statistics file")
        blobs = obj.get("blob-metadata")
        if blobs is None:
            blobs = []
        if not isinstance(blobs, list):
            raise ValueError(f"'blob-metadata' must be a list, got {blobs!r}")
        return StatisticsFile(
            snapshot_id=get_int(obj, "snapshot-id"),
            statistics_path=get_str(obj, "statistics-path"),
            file_size_in_bytes=get_int(obj, "file-size-in-bytes"),
            file_footer_size_in_bytes=get_int(obj, "file-footer-size-in-bytes"),
            blob_metadata=tuple(BlobMetadata.from_json(b) for b in blobs),
            key_metadata=get_str(obj, "key-metadata", required=False),
            extra=extra_keys(obj, _STATS_KEYS),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "snapshot-id": self.snapshot_id,
            "statistics-path": self.statistics_path,
            "file-size-in-bytes": self.file_size_in_bytes,
            "file-footer-size-in-bytes": self.file_footer_size_in_bytes,
        }
        if self.key_metadata is not None:
            out["key-metadata"] = self.key_metadata
        out["blob-metadata"] = [b.to_json() for b in self.blob_metadata]
        out.update(self.extra)
        return out


_PARTITION_STATS_KEYS = frozenset({"snapshot-id", "statistics-path", "file-size-in-bytes"})


@dataclass(frozen=True)
class PartitionStatisticsFile:
    """A partition statistics file computed from one snapshot (at most one per snapshot)."""

    snapshot_id: int
    statistics_path: str
    file_size_in_bytes: int
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @staticmethod
    def from_json(obj: Any) -> PartitionStatisticsFile:
        obj = json_object(obj, "partition statistics file")
        return PartitionStatisticsFile(
            snapshot_id=get_int(obj, "snapshot-id"),
            statistics_path=get_str(obj, "statistics-path"),
            file_size_in_bytes=get_int(obj, "file-size-in-bytes"),
            extra=extra_keys(obj, _PARTITION_STATS_KEYS),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "snapshot-id": self.snapshot_id,
            "statistics-path": self.statistics_path,
            "file-size-in-bytes": self.file_size_in_bytes,
        }
        out.update(self.extra)
        return out


_KEY_KEYS = frozenset({"key-id", "encrypted-key-metadata", "encrypted-by-id", "properties"})


@dataclass(frozen=True)
class EncryptionKey:
    """A v3 table encryption key; icesql keeps it but does not encrypt or decrypt."""

    key_id: str
    encrypted_key_metadata: str  # base64, as stored
    encrypted_by_id: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @staticmethod
    def from_json(obj: Any) -> EncryptionKey:
        obj = json_object(obj, "encryption key")
        return EncryptionKey(
            key_id=get_str(obj, "key-id"),
            encrypted_key_metadata=get_str(obj, "encrypted-key-metadata"),
            encrypted_by_id=get_str(obj, "encrypted-by-id", required=False),
            properties=_str_map(obj, "properties"),
            extra=extra_keys(obj, _KEY_KEYS),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key-id": self.key_id,
            "encrypted-key-metadata": self.encrypted_key_metadata,
        }
        if self.encrypted_by_id is not None:
            out["encrypted-by-id"] = self.encrypted_by_id
        if self.properties:
            out["properties"] = dict(self.properties)
        out.update(self.extra)
        return out
