"""Manifest lists: the Avro file of a snapshot naming its manifests, with their counts,
sequence numbers, partition summaries and (v3) first row ids.

Reading fills in the v1 defaults of Appendix E (content 0, sequence numbers 0). Writing
uses the exact schema of each format version and applies the two assignments a manifest
list writer owns: unassigned sequence numbers of new manifests become the snapshot's
sequence number, and (v3) data manifests without a ``first_row_id`` get one, counting up
from the snapshot's ``first-row-id`` by ``added_rows_count + existing_rows_count`` like
Java's ``ManifestListWriter.V3Writer``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from icesql.errors import CorruptFileError, InternalError
from icesql.io import FileIO
from icesql.metadata.avro.container import read_avro, write_avro
from icesql.metadata.avro.schema import avro_field, avro_list
from icesql.metadata.snapshots import Snapshot
from icesql.spec.manifest_file import (
    CONTENT_DATA,
    UNASSIGNED_SEQUENCE_NUMBER,
    FieldSummary,
    ManifestFile,
)

__all__ = [
    "WrittenManifestList",
    "manifest_list_schema",
    "read_manifest_list",
    "write_manifest_list",
]


# ---------------------------------------------------------------------------------------------
# Reading


def read_manifest_list(
    io: FileIO, path: str | None, snapshot: Snapshot | None = None
) -> list[ManifestFile]:
    """The manifests of a snapshot, in file order.

    ``path`` is the snapshot's ``manifest-list``; for old v1 snapshots that list their
    ``manifests`` directly, pass None and the snapshot: each path then becomes a manifest
    of spec 0 added by that snapshot, with unknown counts, as Java does. Damaged files
    raise ``CorruptFileError`` naming the manifest list.
    """
    if path is None:
        if snapshot is None or snapshot.manifests is None:
            raise InternalError("read_manifest_list needs a path or a v1 snapshot's manifests")
        return [
            ManifestFile(p, io.size(p), 0, added_snapshot_id=snapshot.snapshot_id)
            for p in snapshot.manifests
        ]
    avro = read_avro(io.read_bytes(path), path)
    default_snapshot = snapshot.snapshot_id if snapshot is not None else None
    out = []
    for rec in avro.records:
        try:
            out.append(_manifest_file(rec, default_snapshot))
        except (KeyError, TypeError, ValueError) as e:
            raise CorruptFileError(path, f"bad manifest_file record: {e!r}") from None
    return out


def _count(rec: dict[str, Any], name: str) -> Any:
    """Counts by the spec's name, or by the ``*_data_files_count`` name of older Java."""
    value = rec.get(f"{name}_files_count")
    return rec.get(f"{name}_data_files_count") if value is None else value


def _manifest_file(rec: dict[str, Any], default_snapshot: int | None) -> ManifestFile:
    partitions = rec.get("partitions")
    snapshot_id = rec.get("added_snapshot_id")
    return ManifestFile(
        manifest_path=rec["manifest_path"],
        manifest_length=rec["manifest_length"],
        partition_spec_id=rec["partition_spec_id"],
        content=rec.get("content") or CONTENT_DATA,
        sequence_number=rec.get("sequence_number") or 0,
        min_sequence_number=rec.get("min_sequence_number") or 0,
        added_snapshot_id=default_snapshot if snapshot_id is None else snapshot_id,
        added_files_count=_count(rec, "added"),
        existing_files_count=_count(rec, "existing"),
        deleted_files_count=_count(rec, "deleted"),
        added_rows_count=rec.get("added_rows_count"),
        existing_rows_count=rec.get("existing_rows_count"),
        deleted_rows_count=rec.get("deleted_rows_count"),
        partitions=None
        if partitions is None
        else tuple(
            FieldSummary(
                p["contains_null"],
                p.get("contains_nan"),
                p.get("lower_bound"),
                p.get("upper_bound"),
            )
            for p in partitions
        ),
        key_metadata=rec.get("key_metadata"),
        first_row_id=rec.get("first_row_id"),
    )


# ---------------------------------------------------------------------------------------------
# Writing

_SUMMARY = {
    "type": "record",
    "name": "r508",
    "fields": [
        avro_field(
            "contains_null", "boolean", 509, doc="True if any file has a null partition value"
        ),
        avro_field(
            "contains_nan", "boolean", 518, True, "True if any file has a nan partition value"
        ),
        avro_field("lower_bound", "bytes", 510, True, "Partition lower bound for all files"),
        avro_field("upper_bound", "bytes", 511, True, "Partition upper bound for all files"),
    ],
}


def manifest_list_schema(format_version: int) -> dict[str, Any]:
    """The Avro schema of ``manifest_file`` that Java writes for a format version."""
    v1 = format_version == 1
    f = avro_field
    head = [
        f("manifest_path", "string", 500, doc="Location URI with FS scheme"),
        f("manifest_length", "long", 501, doc="Total file size in bytes"),
        f("partition_spec_id", "int", 502, doc="Spec ID used to write"),
    ]
    if not v1:
        head += [
            f("content", "int", 517, doc="Contents of the manifest: 0=data, 1=deletes"),
            f("sequence_number", "long", 515, doc="Sequence number when the manifest was added"),
            f("min_sequence_number", "long", 516, doc="Lowest sequence number in the manifest"),
        ]
    head.append(f("added_snapshot_id", "long", 503, doc="Snapshot ID that added the manifest"))
    files = [
        f("added_files_count", "int", 504, v1, "Added entry count"),
        f("existing_files_count", "int", 505, v1, "Existing entry count"),
        f("deleted_files_count", "int", 506, v1, "Deleted entry count"),
    ]
    rows = [
        f("added_rows_count", "long", 512, v1, "Added rows count"),
        f("existing_rows_count", "long", 513, v1, "Existing rows count"),
        f("deleted_rows_count", "long", 514, v1, "Deleted rows count"),
    ]
    summaries = f("partitions", avro_list(508, _SUMMARY), 507, True, "Summary for each partition")
    key = f("key_metadata", "bytes", 519, True, "Encryption key metadata blob")
    fields = head + files + ([summaries] + rows if v1 else rows + [summaries]) + [key]
    if format_version >= 3:
        fields.append(
            f(
                "first_row_id",
                "long",
                520,
                True,
                "Starting row ID to assign to new rows in ADDED data files",
            )
        )
    return {"type": "record", "name": "manifest_file", "fields": fields}


@dataclass(frozen=True)
class WrittenManifestList:
    """What ``write_manifest_list`` wrote: the manifests with their assigned sequence numbers
    and first row ids, and (v3) the next row id, i.e. the snapshot's first-row-id plus its
    ``added-rows``."""

    path: str
    length: int
    manifests: tuple[ManifestFile, ...]
    next_row_id: int | None = None


def write_manifest_list(
    io: FileIO,
    path: str,
    manifests: Iterable[ManifestFile],
    format_version: int,
    snapshot_id: int,
    parent_snapshot_id: int | None,
    sequence_number: int,
    first_row_id: int | None = None,
) -> WrittenManifestList:
    """Write the manifest list of a new snapshot.

    Unassigned sequence numbers (None or -1) become ``sequence_number``; that is only valid
    for manifests added by this snapshot (``InternalError`` otherwise, as in Java). In v3,
    ``first_row_id`` is the snapshot's ``first-row-id`` and each data manifest without one
    is assigned the next row id; delete manifests never get one.
    """
    if format_version not in (1, 2, 3):
        raise InternalError(f"cannot write a manifest list for format version {format_version}")
    if format_version >= 3 and first_row_id is None:
        raise InternalError("a v3 manifest list needs the snapshot's first-row-id")
    meta = {"snapshot-id": str(snapshot_id), "parent-snapshot-id": _java_str(parent_snapshot_id)}
    if format_version >= 2:
        meta["sequence-number"] = str(sequence_number)
    if format_version >= 3:
        meta["first-row-id"] = str(first_row_id)
    meta["format-version"] = str(format_version)

    next_row_id = first_row_id
    written: list[ManifestFile] = []
    for m in manifests:
        m = _assign(m, format_version, snapshot_id, sequence_number)
        if format_version >= 3 and m.content == CONTENT_DATA and m.first_row_id is None:
            added, existing = m.added_rows_count, m.existing_rows_count
            if added is None or existing is None:
                raise InternalError(f"manifest {m.manifest_path} has no row counts")
            if next_row_id is None:  # checked above: v3 lists start at first_row_id
                raise InternalError("a v3 manifest list needs the snapshot's first-row-id")
            m = replace(m, first_row_id=next_row_id)
            next_row_id += added + existing
        elif m.content != CONTENT_DATA and m.first_row_id is not None:
            raise InternalError(f"delete manifest {m.manifest_path} has a first_row_id")
        written.append(m)
    records = [_record(m, format_version) for m in written]
    data = write_avro(manifest_list_schema(format_version), records, meta)
    io.write_bytes(path, data)
    return WrittenManifestList(path, len(data), tuple(written), next_row_id)


def _java_str(value: int | None) -> str:
    """``String.valueOf`` of a boxed Long: Java writes the text ``null`` for no parent."""
    return "null" if value is None else str(value)


def _assign(m: ManifestFile, version: int, snapshot_id: int, seq: int) -> ManifestFile:
    if m.added_snapshot_id is None:
        m = replace(m, added_snapshot_id=snapshot_id)
    if version == 1:
        if m.content != CONTENT_DATA:
            raise InternalError(f"cannot store delete manifest {m.manifest_path} in a v1 table")
        return m
    changes: dict[str, Any] = {}
    for name in ("sequence_number", "min_sequence_number"):
        value = getattr(m, name)
        if value is None or value == UNASSIGNED_SEQUENCE_NUMBER:
            if m.added_snapshot_id != snapshot_id:
                raise InternalError(
                    f"found unassigned sequence number for manifest {m.manifest_path}"
                    f" from snapshot {m.added_snapshot_id}"
                )
            changes[name] = seq
    return replace(m, **changes) if changes else m


def _record(m: ManifestFile, version: int) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "manifest_path": m.manifest_path,
        "manifest_length": m.manifest_length,
        "partition_spec_id": m.partition_spec_id,
        "content": m.content,
        "sequence_number": m.sequence_number,
        "min_sequence_number": m.min_sequence_number,
        "added_snapshot_id": m.added_snapshot_id,
        "added_files_count": m.added_files_count,
        "existing_files_count": m.existing_files_count,
        "deleted_files_count": m.deleted_files_count,
        "added_rows_count": m.added_rows_count,
        "existing_rows_count": m.existing_rows_count,
        "deleted_rows_count": m.deleted_rows_count,
        "partitions": None if m.partitions is None else [_summary(s) for s in m.partitions],
        "key_metadata": m.key_metadata,
        "first_row_id": m.first_row_id,
    }
    if version >= 2:
        required = (
            "added_files_count",
            "existing_files_count",
            "deleted_files_count",
            "added_rows_count",
            "existing_rows_count",
            "deleted_rows_count",
        )
        missing = [k for k in required if rec[k] is None]
        if missing:
            raise InternalError(f"manifest {m.manifest_path} lacks {', '.join(missing)}")
    return rec


def _summary(s: FieldSummary) -> dict[str, Any]:
    return {
        "contains_null": s.contains_null,
        "contains_nan": s.contains_nan,
        "lower_bound": s.lower_bound,
        "upper_bound": s.upper_bound,
    }
