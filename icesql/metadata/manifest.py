"""Manifests: the Avro files listing data or delete files with their partition tuples and
column metrics, read with the spec's inheritance rules and written per format version.

Inheritance on read (spec "Sequence Number Inheritance", "First Row ID Inheritance", and
Java's ``InheritableMetadataFactory`` / ``ManifestReader.idAssigner``):

* a null ``snapshot_id`` is the manifest's ``added_snapshot_id``;
* a null data or file sequence number is the manifest's sequence number when the entry is
  ADDED, or when that number is 0 (v1); an EXISTING/DELETED entry must carry its own;
* in a data manifest with a ``first_row_id``, each ADDED/EXISTING data file with a null
  ``first_row_id`` gets the manifest's value plus the ``record_count`` of the earlier such
  files; DELETED entries neither receive nor consume row ids.

Partition tuples use icesql's value convention (dates as days, timestamps as micros or
nanos, decimals as ``Decimal``, uuids as ``UUID``), ordered like the manifest's spec.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from icesql.errors import CorruptFileError, DataError, InternalError
from icesql.io import FileIO
from icesql.metadata.avro.container import read_avro, schema_json, write_avro
from icesql.metadata.avro.schema import compatible_name
from icesql.metadata.manifest_schema import (
    DEFAULT_BLOCK_SIZE,
    PartitionField,
    decimal_required_bytes,
    manifest_entry_schema,
    partition_fields,
)
from icesql.spec.content_file import DATA, POSITION_DELETES, DataFile
from icesql.spec.manifest_file import CONTENT_DATA, CONTENT_DELETES, FieldSummary, ManifestFile
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import DecimalType, DoubleType, FloatType, UUIDType
from icesql.spec.values import decimal_from_unscaled, to_bytes, unscaled_decimal

__all__ = [
    "STATUS_ADDED",
    "STATUS_DELETED",
    "STATUS_EXISTING",
    "ManifestEntry",
    "ManifestReader",
    "open_manifest",
    "read_manifest",
    "write_manifest",
]

STATUS_EXISTING = 0
STATUS_ADDED = 1
STATUS_DELETED = 2


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    """A manifest row: the file and when it was added (1), kept (0) or deleted (2)."""

    status: int
    snapshot_id: int | None
    sequence_number: int | None
    file_sequence_number: int | None
    data_file: DataFile

    @property
    def is_live(self) -> bool:
        return self.status != STATUS_DELETED


# ---------------------------------------------------------------------------------------------
# Reading


def read_manifest(
    io: FileIO, manifest: ManifestFile, metrics: bool = True
) -> Iterator[ManifestEntry]:
    """Stream the entries of a manifest with inherited values filled in (module docstring).
    Without ``metrics`` the column metrics (counts and bounds) are left out: their
    ``DataFile`` fields are None, which saves turning them into dicts.

    A missing file raises ``OperationalError``; a damaged one ``CorruptFileError`` naming it.
    """
    return iter(open_manifest(io, manifest, metrics))


def open_manifest(io: FileIO, manifest: ManifestFile, metrics: bool = True) -> ManifestReader:
    """Read a manifest's header now (its metadata, spec and partition fields); iterate the
    returned reader for the entries."""
    return ManifestReader(manifest, io.read_bytes(manifest.manifest_path), metrics)


class ManifestReader:
    """The header of one manifest and an iterator over its entries."""

    def __init__(self, manifest: ManifestFile, data: bytes, metrics: bool = True, avro: Any = None):
        """``avro`` is the container already opened (``read_avro_blocks``), if it was."""
        self.manifest = manifest
        self.path = manifest.manifest_path
        if avro is None:
            avro = read_avro(data, self.path, frozenset() if metrics else _METRIC_SET)
        self._avro = avro
        self.metrics = metrics
        meta = self._avro.metadata
        try:
            self.format_version = int(meta.get("format-version", "1"))
            spec_id = meta.get("partition-spec-id")
            self.spec_id = int(spec_id) if spec_id is not None else manifest.partition_spec_id
            self.content = (
                CONTENT_DELETES if meta.get("content", "data") == "deletes" else CONTENT_DATA
            )
            self.partition_spec_json = _json_or_none(meta.get("partition-spec"))
            self.schema_json = _json_or_none(meta.get("schema"))
            self._names, self._convert = _partition_layout(
                self._avro.schema, self.partition_spec_json
            )
        except (ValueError, KeyError, TypeError) as e:
            raise CorruptFileError(self.path, f"bad manifest header: {e!r}") from None

    @property
    def metadata(self) -> dict[str, str]:
        """The Avro file's key-value metadata (schema, partition-spec, format-version...)."""
        return self._avro.metadata

    def __iter__(self) -> Iterator[ManifestEntry]:
        spec_id, metrics = self.spec_id, self.metrics
        for status, snapshot_id, data_seq, file_seq, first_row_id, values, df in self.resolve(
            self._avro.records
        ):
            try:
                data_file = _data_file(df, values, first_row_id, spec_id, metrics)
            except (KeyError, TypeError, AttributeError, ValueError) as e:
                raise CorruptFileError(self.path, f"bad manifest entry: {e!r}") from None
            yield ManifestEntry(status, snapshot_id, data_seq, file_seq, data_file)

    def resolve(
        self, records: Iterable[dict[str, Any]]
    ) -> Iterator[tuple[int, int | None, int | None, int | None, int | None, tuple[Any, ...], Any]]:
        """Each record of this manifest with its inherited values (module docstring):
        status, snapshot id, data and file sequence numbers, first row id, partition tuple
        and the raw ``data_file`` record. Damaged records raise ``CorruptFileError``."""
        m = self.manifest
        seq = m.sequence_number
        seq = None if seq == -1 else seq
        inherit_always = seq == 0
        next_row_id = m.first_row_id if m.content == CONTENT_DATA else None
        names, convert = self._names, self._convert
        try:
            for rec in records:
                status = rec["status"]
                df = rec["data_file"]
                part = df.get("partition") or {}
                values = tuple([part.get(n) if n is not None else None for n in names])
                if convert:
                    values = tuple(
                        [v if v is None or c is None else c(v) for v, c in zip(values, convert)]
                    )
                first_row_id = df.get("first_row_id")
                if first_row_id is None and next_row_id is not None and status != STATUS_DELETED:
                    first_row_id = next_row_id
                    next_row_id += df["record_count"]
                snapshot_id = rec.get("snapshot_id")
                data_seq = rec.get("sequence_number")
                file_seq = rec.get("file_sequence_number")
                if inherit_always or status == STATUS_ADDED:
                    data_seq = seq if data_seq is None else data_seq
                    file_seq = seq if file_seq is None else file_seq
                snapshot_id = m.added_snapshot_id if snapshot_id is None else snapshot_id
                yield status, snapshot_id, data_seq, file_seq, first_row_id, values, df
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise CorruptFileError(self.path, f"bad manifest entry: {e!r}") from None


def _data_file(
    df: dict[str, Any],
    partition: tuple[Any, ...],
    first_row_id: int | None,
    spec_id: int,
    metrics: bool,
) -> DataFile:
    """The ``DataFile`` of a decoded ``data_file`` record (partition and row id resolved)."""
    sizes, counts, nulls, nans, lower, upper = (
        tuple(_map(df.get(k)) for k in _METRIC_KEYS) if metrics else _NO_METRICS
    )
    return DataFile(
        content=df.get("content") or DATA,
        file_path=df["file_path"],
        file_format=df["file_format"].upper(),
        partition=partition,
        record_count=df["record_count"],
        file_size_in_bytes=df["file_size_in_bytes"],
        column_sizes=sizes,
        value_counts=counts,
        null_value_counts=nulls,
        nan_value_counts=nans,
        lower_bounds=lower,
        upper_bounds=upper,
        key_metadata=df.get("key_metadata"),
        split_offsets=_tuple(df.get("split_offsets")),
        equality_ids=_tuple(df.get("equality_ids")),
        sort_order_id=df.get("sort_order_id"),
        first_row_id=first_row_id,
        referenced_data_file=df.get("referenced_data_file"),
        content_offset=df.get("content_offset"),
        content_size_in_bytes=df.get("content_size_in_bytes"),
        spec_id=spec_id,
    )


_METRIC_KEYS = (
    "column_sizes",
    "value_counts",
    "null_value_counts",
    "nan_value_counts",
    "lower_bounds",
    "upper_bounds",
)
_METRIC_SET = frozenset(_METRIC_KEYS)
_NO_METRICS = (None,) * len(_METRIC_KEYS)


def _json_or_none(text: str | None) -> Any:
    import json

    return None if text is None else json.loads(text)


def _map(items: list[dict[str, Any]] | None) -> dict[int, Any] | None:
    return None if items is None else {e["key"]: e["value"] for e in items}


def _tuple(items: list[Any] | None) -> tuple[Any, ...] | None:
    return None if items is None else tuple(items)


def _unwrap(t: Any) -> Any:
    if isinstance(t, list):
        return next((x for x in t if x != "null"), "null")
    return t


def _converter(avro_type: Any) -> Callable[[Any], Any] | None:
    """Normalise one raw partition value (read without logical types) to the convention."""
    if not isinstance(avro_type, dict):
        return None
    logical = avro_type.get("logicalType")
    if logical == "decimal":
        scale = int(avro_type.get("scale", 0))
        return lambda b: decimal_from_unscaled(int.from_bytes(b, "big", signed=True), scale)
    if logical == "uuid":
        return lambda v: uuid.UUID(bytes=v) if isinstance(v, bytes) else uuid.UUID(v)
    if logical in ("timestamp-millis", "local-timestamp-millis", "time-millis"):
        return lambda v: v * 1000  # never written by Iceberg; micros are the convention
    return None


def _partition_layout(
    entry_schema: dict[str, Any], spec_fields: Any
) -> tuple[list[str | None], list[Callable[[Any], Any] | None] | None]:
    """Record field names in spec order, and per-field converters (None when none needed)."""
    data_file = next(f for f in entry_schema["fields"] if f["name"] == "data_file")
    data_type = _unwrap(data_file["type"])
    part = next((f for f in data_type["fields"] if f["name"] == "partition"), None)
    record_fields = _unwrap(part["type"])["fields"] if part is not None else []
    by_id = {f.get("field-id"): f for f in record_fields}
    ordered = record_fields
    if isinstance(spec_fields, list) and all("field-id" in f for f in spec_fields):
        if all(f["field-id"] in by_id for f in spec_fields):
            ordered = [by_id[f["field-id"]] for f in spec_fields]
    names: list[str | None] = [f["name"] for f in ordered]
    convert = [_converter(_unwrap(f["type"])) for f in ordered]
    return names, (convert if any(c is not None for c in convert) else None)


# ---------------------------------------------------------------------------------------------
# Writing


def write_manifest(
    io: FileIO,
    path: str,
    spec: PartitionSpec | dict[str, Any],
    schema: Schema,
    format_version: int,
    snapshot_id: int | None,
    entries: Iterable[ManifestEntry],
    content: int = CONTENT_DATA,
) -> ManifestFile:
    """Write a manifest of one partition spec and return its manifest-list row.

    ``spec`` is a ``PartitionSpec`` (or its JSON object) and ``schema`` the table ``Schema``
    at write time. ADDED and DELETED entries are stamped with ``snapshot_id`` (None leaves
    them to inheritance); new files should carry null sequence numbers and, in v3, a null
    ``first_row_id``. The returned row has unassigned (None) sequence numbers unless every
    live entry carried one: the manifest list writer assigns them.
    """
    if format_version not in (1, 2, 3):
        raise InternalError(f"cannot write a manifest for format version {format_version}")
    if format_version == 1 and content != CONTENT_DATA:
        raise InternalError("v1 manifests cannot hold delete files")
    spec_json = spec if isinstance(spec, dict) else spec.to_json()
    fields = partition_fields(spec, schema)
    meta = {"schema": schema_json(schema.to_json())}
    if format_version >= 2:
        meta["schema-id"] = str(schema.schema_id)
    meta["partition-spec"] = schema_json(spec_json["fields"])
    meta["partition-spec-id"] = str(spec_json["spec-id"])
    meta["format-version"] = str(format_version)
    if format_version >= 2:
        meta["content"] = "deletes" if content == CONTENT_DELETES else "data"

    stats = _ManifestStats(fields)
    to_raw = [_raw_writer(t) for _, _, t in fields]
    names = [compatible_name(name) for _, name, _ in fields]  # the Avro record's names
    records = []
    for entry in entries:
        entry = _stamp(entry, snapshot_id, format_version)
        stats.add(entry)
        records.append(_entry_record(entry, names, to_raw, format_version))
    data = write_avro(manifest_entry_schema(format_version, fields), records, meta)
    io.write_bytes(path, data)
    return stats.manifest_file(path, len(data), spec_json["spec-id"], content, snapshot_id)


def _stamp(entry: ManifestEntry, snapshot_id: int | None, version: int) -> ManifestEntry:
    """Java's wrapAppend / wrapExisting / wrapDelete, with its sanity checks."""
    sid = entry.snapshot_id
    if entry.status != STATUS_EXISTING and snapshot_id is not None:
        sid = snapshot_id
    if version == 1:
        if sid is None:
            raise InternalError(
                f"v1 manifest entry for {entry.data_file.file_path} needs a snapshot id"
            )
        if entry.data_file.content != DATA:
            raise InternalError("v1 manifests cannot hold delete files")
    elif entry.sequence_number is None:
        if entry.status != STATUS_ADDED:
            raise InternalError(
                f"only ADDED entries may have a null sequence number ({entry.data_file.file_path})"
            )
        if sid is not None and snapshot_id is not None and sid != snapshot_id:
            raise InternalError(
                f"found unassigned sequence number for an entry from snapshot {sid}"
            )
    if sid == entry.snapshot_id:
        return entry
    return ManifestEntry(
        entry.status, sid, entry.sequence_number, entry.file_sequence_number, entry.data_file
    )


def _raw_writer(t: Any) -> Callable[[Any], Any] | None:
    if isinstance(t, DecimalType):
        size, scale = decimal_required_bytes(t.precision), t.scale

        def decimal_bytes(v: Decimal) -> bytes:
            try:
                return unscaled_decimal(v, scale).to_bytes(size, "big", signed=True)
            except (OverflowError, ValueError) as e:
                raise DataError(f"partition value {v} does not fit {t}: {e}") from None

        return decimal_bytes
    if isinstance(t, UUIDType):
        return lambda v: v.bytes if isinstance(v, uuid.UUID) else bytes(v)
    return None


def _int_map(values: dict[int, Any] | None) -> list[dict[str, Any]] | None:
    return None if values is None else [{"key": k, "value": v} for k, v in sorted(values.items())]


def _entry_record(
    entry: ManifestEntry, names: list[str], to_raw: list[Any], version: int
) -> dict[str, Any]:
    df = entry.data_file
    if len(df.partition) != len(names):
        raise InternalError(
            f"partition tuple {df.partition!r} of {df.file_path} does not match the spec {names}"
        )
    partition = {
        name: (v if v is None or w is None else w(v))
        for name, v, w in zip(names, df.partition, to_raw)
    }
    is_data = df.content == DATA
    is_position = df.content == POSITION_DELETES
    return {
        "status": entry.status,
        "snapshot_id": entry.snapshot_id,
        "sequence_number": entry.sequence_number,
        "file_sequence_number": entry.file_sequence_number,
        "data_file": {
            "content": df.content,
            "file_path": df.file_path,
            "file_format": df.file_format.upper(),
            "partition": partition,
            "record_count": df.record_count,
            "file_size_in_bytes": df.file_size_in_bytes,
            "block_size_in_bytes": DEFAULT_BLOCK_SIZE,
            "column_sizes": _int_map(df.column_sizes),
            "value_counts": _int_map(df.value_counts),
            "null_value_counts": _int_map(df.null_value_counts),
            "nan_value_counts": _int_map(df.nan_value_counts),
            "lower_bounds": _int_map(df.lower_bounds),
            "upper_bounds": _int_map(df.upper_bounds),
            "key_metadata": df.key_metadata,
            "split_offsets": None if df.split_offsets is None else list(df.split_offsets),
            "equality_ids": None if df.equality_ids is None else list(df.equality_ids),
            "sort_order_id": df.sort_order_id,
            "first_row_id": df.first_row_id if is_data else None,
            "referenced_data_file": df.referenced_data_file if is_position else None,
            "content_offset": df.content_offset if is_position and version >= 3 else None,
            "content_size_in_bytes": df.content_size_in_bytes
            if is_position and version >= 3
            else None,
        },
    }


def _order_key(v: Any) -> Any:
    """Iceberg's order for bound candidates: -0.0 sorts before +0.0."""
    if isinstance(v, float):
        return (v, math.copysign(1.0, v))
    return v


class _ManifestStats:
    """Counts, the live minimum sequence number and partition summaries of a manifest."""

    def __init__(self, fields: list[PartitionField]):
        self.types = [t for _, _, t in fields]
        self.files = [0, 0, 0]  # by status: existing, added, deleted
        self.rows = [0, 0, 0]
        self.min_seq: int | None = None
        self.nulls = [False] * len(fields)
        self.nans = [False] * len(fields)
        self.lower: list[Any] = [None] * len(fields)
        self.upper: list[Any] = [None] * len(fields)

    def add(self, entry: ManifestEntry) -> None:
        self.files[entry.status] += 1
        self.rows[entry.status] += entry.data_file.record_count
        seq = entry.sequence_number
        if entry.is_live and seq is not None and (self.min_seq is None or seq < self.min_seq):
            self.min_seq = seq
        for i, v in enumerate(entry.data_file.partition):
            if v is None:
                self.nulls[i] = True
            elif isinstance(v, float) and math.isnan(v):
                self.nans[i] = True
            else:
                if self.lower[i] is None or _order_key(v) < _order_key(self.lower[i]):
                    self.lower[i] = v
                if self.upper[i] is None or _order_key(v) > _order_key(self.upper[i]):
                    self.upper[i] = v

    def summaries(self) -> tuple[FieldSummary, ...]:
        out = []
        for i, t in enumerate(self.types):
            lo, hi = self.lower[i], self.upper[i]
            out.append(
                FieldSummary(
                    contains_null=self.nulls[i],
                    contains_nan=self.nans[i] if isinstance(t, FloatType | DoubleType) else False,
                    lower_bound=None if lo is None else to_bytes(t, lo),
                    upper_bound=None if hi is None else to_bytes(t, hi),
                )
            )
        return tuple(out)

    def manifest_file(
        self, path: str, length: int, spec_id: int, content: int, snapshot_id: int | None
    ) -> ManifestFile:
        return ManifestFile(
            manifest_path=path,
            manifest_length=length,
            partition_spec_id=spec_id,
            content=content,
            sequence_number=None,
            min_sequence_number=self.min_seq,
            added_snapshot_id=snapshot_id,
            added_files_count=self.files[STATUS_ADDED],
            existing_files_count=self.files[STATUS_EXISTING],
            deleted_files_count=self.files[STATUS_DELETED],
            added_rows_count=self.rows[STATUS_ADDED],
            existing_rows_count=self.rows[STATUS_EXISTING],
            deleted_rows_count=self.rows[STATUS_DELETED],
            partitions=self.summaries(),
        )
