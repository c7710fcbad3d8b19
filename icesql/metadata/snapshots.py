"""Snapshots, snapshot references and the two history logs of table metadata (Appendix C).

Each class is a frozen view of one JSON object: ``from_json`` reads it (v1 defaults filled
in as Appendix E asks), ``to_json`` writes it back the way the reference implementation
does, and keys this version of icesql does not know are kept in ``extra`` so that a
rewrite never drops them::

    >>> s = Snapshot.from_json({"snapshot-id": 7, "timestamp-ms": 1, "manifest-list": "l.avro",
    ...                         "summary": {"operation": "append"}, "vendor-x": 1})
    >>> s.operation, s.sequence_number, s.extra
    ('append', 0, {'vendor-x': 1})
    >>> s.to_json()["vendor-x"]
    1
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from icesql.metadata.json_fields import extra_keys, get_int, get_str, json_object

__all__ = [
    "BRANCH",
    "MAIN_BRANCH",
    "TAG",
    "MetadataLogEntry",
    "Snapshot",
    "SnapshotLogEntry",
    "SnapshotRef",
]

MAIN_BRANCH = "main"
BRANCH = "branch"
TAG = "tag"


_SNAPSHOT_KEYS = frozenset(
    {
        "snapshot-id",
        "parent-snapshot-id",
        "sequence-number",
        "timestamp-ms",
        "manifest-list",
        "manifests",
        "summary",
        "schema-id",
        "first-row-id",
        "added-rows",
        "key-id",
    }
)


@dataclass(frozen=True)
class Snapshot:
    """The state of a table at one commit.

    ``sequence_number`` is 0 for v1 snapshots (Appendix E); ``manifest_list`` is None only
    for old v1 snapshots that list their ``manifests`` directly. ``first_row_id`` and
    ``added_rows`` are the v3 row-lineage fields (None before v3 or on upgraded tables).
    """

    snapshot_id: int
    timestamp_ms: int
    manifest_list: str | None = None
    parent_snapshot_id: int | None = None
    sequence_number: int = 0
    summary: Mapping[str, str] = field(default_factory=dict)
    schema_id: int | None = None
    first_row_id: int | None = None
    added_rows: int | None = None
    key_id: str | None = None
    manifests: tuple[str, ...] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def operation(self) -> str | None:
        """``append``, ``replace``, ``overwrite`` or ``delete`` (None if never recorded)."""
        return self.summary.get("operation")

    @staticmethod
    def from_json(obj: Any) -> Snapshot:
        obj = json_object(obj, "snapshot")
        summary = obj.get("summary") or {}
        if not isinstance(summary, Mapping):
            raise ValueError(f"snapshot summary must be an object, got {summary!r}")
        manifests = obj.get("manifests")
        if manifests is not None and not (
            isinstance(manifests, list) and all(isinstance(m, str) for m in manifests)
        ):
            raise ValueError(f"snapshot manifests must be a list of paths, got {manifests!r}")
        manifest_list = get_str(obj, "manifest-list", required=False)
        if manifest_list is None and manifests is None:
            raise ValueError("snapshot has neither 'manifest-list' nor 'manifests'")
        return Snapshot(
            snapshot_id=get_int(obj, "snapshot-id"),
            timestamp_ms=get_int(obj, "timestamp-ms"),
            manifest_list=manifest_list,
            parent_snapshot_id=get_int(obj, "parent-snapshot-id", required=False),
            sequence_number=get_int(obj, "sequence-number", required=False) or 0,
            summary=dict(summary),
            schema_id=get_int(obj, "schema-id", required=False),
            first_row_id=get_int(obj, "first-row-id", required=False),
            added_rows=get_int(obj, "added-rows", required=False),
            key_id=get_str(obj, "key-id", required=False),
            manifests=tuple(manifests) if manifests is not None else None,
            extra=extra_keys(obj, _SNAPSHOT_KEYS),
        )

    def to_json(self) -> dict[str, Any]:
        """The snapshot object, in the reference implementation's key order.

        ``sequence-number`` is written only when positive, as Java does, so v1 snapshots
        (always 0) never carry it.
        """
        out: dict[str, Any] = {"snapshot-id": self.snapshot_id}
        if self.parent_snapshot_id is not None:
            out["parent-snapshot-id"] = self.parent_snapshot_id
        if self.sequence_number > 0:
            out["sequence-number"] = self.sequence_number
        out["timestamp-ms"] = self.timestamp_ms
        if self.summary:
            summary = dict(self.summary)
            op = summary.pop("operation", None)
            out["summary"] = ({"operation": op} if op is not None else {}) | summary
        if self.manifest_list is not None:
            out["manifest-list"] = self.manifest_list
        elif self.manifests is not None:
            out["manifests"] = list(self.manifests)
        if self.schema_id is not None:
            out["schema-id"] = self.schema_id
        if self.first_row_id is not None:
            out["first-row-id"] = self.first_row_id
        if self.added_rows is not None:
            out["added-rows"] = self.added_rows
        if self.key_id is not None:
            out["key-id"] = self.key_id
        out.update(self.extra)
        return out


_REF_KEYS = frozenset(
    {"snapshot-id", "type", "min-snapshots-to-keep", "max-snapshot-age-ms", "max-ref-age-ms"}
)


@dataclass(frozen=True)
class SnapshotRef:
    """A named branch or tag and its retention settings (None means the table default)."""

    snapshot_id: int
    type: str = BRANCH
    min_snapshots_to_keep: int | None = None
    max_snapshot_age_ms: int | None = None
    max_ref_age_ms: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def is_branch(self) -> bool:
        return self.type == BRANCH

    @staticmethod
    def from_json(obj: Any) -> SnapshotRef:
        obj = json_object(obj, "snapshot reference")
        kind = get_str(obj, "type").lower()
        if kind not in (BRANCH, TAG):
            raise ValueError(f"snapshot reference type must be 'branch' or 'tag', got {kind!r}")
        return SnapshotRef(
            snapshot_id=get_int(obj, "snapshot-id"),
            type=kind,
            min_snapshots_to_keep=get_int(obj, "min-snapshots-to-keep", required=False),
            max_snapshot_age_ms=get_int(obj, "max-snapshot-age-ms", required=False),
            max_ref_age_ms=get_int(obj, "max-ref-age-ms", required=False),
            extra=extra_keys(obj, _REF_KEYS),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"snapshot-id": self.snapshot_id, "type": self.type}
        if self.min_snapshots_to_keep is not None:
            out["min-snapshots-to-keep"] = self.min_snapshots_to_keep
        if self.max_snapshot_age_ms is not None:
            out["max-snapshot-age-ms"] = self.max_snapshot_age_ms
        if self.max_ref_age_ms is not None:
            out["max-ref-age-ms"] = self.max_ref_age_ms
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class SnapshotLogEntry:
    """``snapshot-log``: the snapshot that became current at ``timestamp_ms``."""

    timestamp_ms: int
    snapshot_id: int

    @staticmethod
    def from_json(obj: Any) -> SnapshotLogEntry:
        obj = json_object(obj, "snapshot-log entry")
        return SnapshotLogEntry(get_int(obj, "timestamp-ms"), get_int(obj, "snapshot-id"))

    def to_json(self) -> dict[str, Any]:
        return {"timestamp-ms": self.timestamp_ms, "snapshot-id": self.snapshot_id}


@dataclass(frozen=True)
class MetadataLogEntry:
    """``metadata-log``: a previous metadata file and the time it was replaced."""

    timestamp_ms: int
    metadata_file: str

    @staticmethod
    def from_json(obj: Any) -> MetadataLogEntry:
        obj = json_object(obj, "metadata-log entry")
        return MetadataLogEntry(get_int(obj, "timestamp-ms"), get_str(obj, "metadata-file"))

    def to_json(self) -> dict[str, Any]:
        return {"timestamp-ms": self.timestamp_ms, "metadata-file": self.metadata_file}
