"""Table metadata (the ``*.metadata.json`` file) of format versions 1, 2 and 3.

The parsed JSON document stays the source of truth: ``TableMetadata.raw`` is the object as
read, every accessor is a view derived from it, and ``to_json`` writes it back unchanged, so
fields and properties that icesql does not know survive a rewrite. New versions are made
with ``TableMetadata.builder()`` (see ``icesql.metadata.builder``), which edits a copy of
that document.

v1 documents are read with the defaults of Appendix E: ``schema`` / ``partition-spec``
stand in for the lists, sequence numbers are 0, and a ``main`` branch is derived from
``current-snapshot-id`` when there is no ``refs`` map::

    >>> md = parse_table_metadata('''{"format-version": 1, "location": "/t",
    ...   "last-updated-ms": 5, "last-column-id": 1, "current-snapshot-id": -1,
    ...   "schema": {"type": "struct", "fields": [
    ...       {"id": 1, "name": "id", "required": true, "type": "long"}]},
    ...   "partition-spec": []}''')
    >>> md.current_snapshot_id, md.last_sequence_number, md.specs_json
    (None, 0, [{'spec-id': 0, 'fields': []}])
"""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from icesql.errors import CorruptFileError, NotSupportedError, ProgrammingError
from icesql.metadata.json_fields import get_int, get_str, json_object
from icesql.metadata.snapshots import (
    MAIN_BRANCH,
    MetadataLogEntry,
    Snapshot,
    SnapshotLogEntry,
    SnapshotRef,
)
from icesql.metadata.statistics import EncryptionKey, PartitionStatisticsFile, StatisticsFile
from icesql.spec.lru import Lru
from icesql.spec.schema import Schema

if TYPE_CHECKING:
    from icesql.metadata.builder import MetadataBuilder
    from icesql.metadata.table_updates import TableUpdate

__all__ = [
    "SUPPORTED_FORMAT_VERSIONS",
    "MetadataLogEntry",
    "Snapshot",
    "SnapshotLogEntry",
    "SnapshotRef",
    "TableMetadata",
    "parse_table_metadata",
]

SUPPORTED_FORMAT_VERSIONS = (1, 2, 3)
PARTITION_DATA_ID_START = 1000  # v1 specs without field ids number them from here (Java)
_GZIP_MAGIC = b"\x1f\x8b"
# Parsed documents by path, for the process: every statement reads the current metadata file
# again (another writer may have committed), but parsing it again is most of a warm query's
# cost on a table with thousands of snapshots. A hit needs the very same bytes at the same
# path (a dropped table's name reused writes new bytes under the old name). Bounded by
# PARSED_KEPT documents and PARSED_BYTES_KEPT bytes of their text; larger ones are not kept.
PARSED_KEPT = 16
PARSED_BYTES_KEPT = 32 * 1024 * 1024
_parsed: Lru[str, tuple[bytes, TableMetadata]] = Lru()
_parsed_lock = threading.Lock()


def parse_table_metadata(data: str | bytes, path: str | None = None) -> TableMetadata:
    """Parse a metadata JSON document (plain or gzip-compressed, detected by its bytes).

    Malformed documents raise ``CorruptFileError`` naming ``path``; a format version above 3
    raises ``NotSupportedError``, as the spec asks of readers. The same bytes read again from
    the same ``path`` give the same (read-only) ``TableMetadata`` without parsing them again.
    """
    if path is None or not isinstance(data, bytes):
        return _parse(data, path)
    with _parsed_lock:
        kept = _parsed.get(path)
        if kept is not None and kept[0] == data:
            return kept[1]
    metadata = _parse(data, path)
    if len(data) <= PARSED_BYTES_KEPT:
        with _parsed_lock:
            _parsed.put(path, (data, metadata), len(data))
            _parsed.trim(PARSED_KEPT, PARSED_BYTES_KEPT)
    return metadata


def _parse(data: str | bytes, path: str | None) -> TableMetadata:
    where = path or "<table metadata>"
    if isinstance(data, bytes | bytearray | memoryview):
        raw_bytes = bytes(data)
        if raw_bytes[:2] == _GZIP_MAGIC:
            try:
                raw_bytes = gzip.decompress(raw_bytes)
            except (OSError, EOFError, zlib.error) as e:
                raise CorruptFileError(where, f"bad gzip data: {e}") from None
        try:
            data = raw_bytes.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CorruptFileError(where, f"not UTF-8 text: {e}") from None
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as e:
        raise CorruptFileError(where, f"invalid JSON: {e}") from None
    try:
        metadata = TableMetadata(obj, path)
        metadata.validate_bindings()
        return metadata
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise CorruptFileError(where, f"invalid table metadata: {e}") from None


class TableMetadata:
    """A parsed metadata document; accessors are views of ``raw`` (never mutate it).

    ``changes`` are the updates that made this version from the last committed one (Java's
    ``TableMetadata.changes()``), as ``MetadataBuilder`` recorded them; empty for a version
    read from a file or a catalog."""

    def __init__(
        self,
        raw: Mapping[str, Any],
        path: str | None = None,
        changes: Sequence[TableUpdate] = (),
    ):
        self._raw = json_object(raw, "table metadata")
        self.path = path
        self.changes: tuple[TableUpdate, ...] = tuple(changes)
        version = get_int(self._raw, "format-version")
        if version not in SUPPORTED_FORMAT_VERSIONS:
            if version > max(SUPPORTED_FORMAT_VERSIONS):
                raise NotSupportedError(
                    f"table metadata {path or ''} has format version {version};"
                    f" icesql reads versions 1 to {max(SUPPORTED_FORMAT_VERSIONS)}"
                )
            raise ValueError(f"invalid format version {version}")
        self.format_version: int = version
        self._validate()

    # --- the document ------------------------------------------------------------------------

    @property
    def raw(self) -> Mapping[str, Any]:
        """The JSON object as read (or as built); shared, so treat it as read-only."""
        return self._raw

    def to_json(self, indent: int | None = None) -> str:
        """The document as JSON text; ``json.loads(md.to_json()) == md.raw`` always holds."""
        separators = (",", ":") if indent is None else None  # compact, as Java writes it
        return json.dumps(self._raw, indent=indent, separators=separators, ensure_ascii=False)

    def builder(self) -> MetadataBuilder:
        """A builder for the next version of this metadata (edits a deep copy)."""
        from icesql.metadata.builder import MetadataBuilder

        return MetadataBuilder(self)

    def _validate(self) -> None:
        raw, v = self._raw, self.format_version
        required = ["location", "last-updated-ms", "last-column-id"]
        if v >= 2:
            required += [
                "table-uuid",
                "last-sequence-number",
                "schemas",
                "current-schema-id",
                "partition-specs",
                "default-spec-id",
                "last-partition-id",
                "sort-orders",
                "default-sort-order-id",
            ]
        if v >= 3:
            required.append("next-row-id")
        for key in required:
            if raw.get(key) is None:
                raise ValueError(f"missing required field {key!r} (format v{v})")
        get_str(raw, "location")
        get_int(raw, "last-updated-ms")
        get_int(raw, "last-column-id")
        if "schemas" not in raw and "schema" not in raw:
            raise ValueError("missing 'schemas' (or v1 'schema')")
        if "partition-specs" not in raw and "partition-spec" not in raw:
            raise ValueError("missing 'partition-specs' (or v1 'partition-spec')")
        if self.schema_by_id(self.current_schema_id) is None:
            raise ValueError(f"current-schema-id {self.current_schema_id} is not in 'schemas'")
        if self.spec_json_by_id(self.default_spec_id) is None:
            raise ValueError(f"default-spec-id {self.default_spec_id} is not in the specs")
        _ = (self._snapshots, self.snapshot_log, self.metadata_log, self.statistics)
        _ = (self.partition_statistics, self.encryption_keys, self.properties)
        self._validate_refs()

    def refuse_encrypted(self, table: str, snapshot: Snapshot | None = None) -> None:
        """NotSupportedError naming ``table`` when it is encrypted (``encryption-keys``, the
        ``encryption.key-id`` property, or a snapshot whose manifest list has a ``key-id``):
        icesql cannot decrypt its files and must not read them as garbage or write plain
        files into it."""
        reason = None
        if self.encryption_keys:
            reason = "its metadata has encryption-keys"
        elif self.properties.get("encryption.key-id"):
            reason = "it sets encryption.key-id"
        elif snapshot is not None and snapshot.key_id is not None:
            reason = f"snapshot {snapshot.snapshot_id}'s manifest list is encrypted"
        if reason is not None:
            raise NotSupportedError(
                f"table {table or self.location} is encrypted ({reason}); icesql does not"
                " support Iceberg table encryption"
            )

    def validate_bindings(self) -> None:
        """Java binds the default spec and sort order to the current schema when it loads a
        table (older specs may name dropped columns); so do catalogs loading a table, with the
        same rules. Raises ValueError naming the field, transform and column."""
        schema = self.schema()
        try:
            self.spec().validate(schema)
            order = self.sort_order()
            if order is not None:
                order.validate(schema)
        except ProgrammingError as e:
            raise ValueError(str(e)) from None

    def _validate_refs(self) -> None:
        """The checks Java makes on load: refs name existing snapshots, main is current."""
        for name, ref in self.refs.items():
            if ref.snapshot_id not in self._snapshots_by_id:
                raise ValueError(f"ref {name!r} points at unknown snapshot {ref.snapshot_id}")
        main = self.refs.get(MAIN_BRANCH)
        current = self.current_snapshot_id
        if main is not None and main.snapshot_id != current:
            raise ValueError(
                f"current-snapshot-id {current} does not match main branch {main.snapshot_id}"
            )

    # --- scalars -----------------------------------------------------------------------------

    @property
    def table_uuid(self) -> str | None:
        return get_str(self._raw, "table-uuid", required=False)

    @property
    def location(self) -> str:
        return self._raw["location"]

    @property
    def last_sequence_number(self) -> int:
        """Highest assigned sequence number; 0 for v1 tables (Appendix E)."""
        return get_int(self._raw, "last-sequence-number", required=False) or 0

    @property
    def last_updated_ms(self) -> int:
        return self._raw["last-updated-ms"]

    @property
    def last_column_id(self) -> int:
        return self._raw["last-column-id"]

    @property
    def next_row_id(self) -> int | None:
        """v3: the first row id the next snapshot assigns (None before v3)."""
        return get_int(self._raw, "next-row-id", required=False)

    @cached_property
    def properties(self) -> Mapping[str, str]:
        props = self._raw.get("properties") or {}
        return MappingProxyType(dict(json_object(props, "properties")))

    # --- schemas -----------------------------------------------------------------------------

    @cached_property
    def _schemas(self) -> tuple[Schema, ...]:
        if "schemas" in self._raw:
            items = self._raw["schemas"]
            if not isinstance(items, list):
                raise ValueError("'schemas' must be a list")
            return tuple(Schema.from_json(s) for s in items)
        return (Schema.from_json(self._raw["schema"]),)

    @property
    def schemas(self) -> list[Schema]:
        return list(self._schemas)

    @property
    def current_schema_id(self) -> int:
        if "current-schema-id" in self._raw:
            return get_int(self._raw, "current-schema-id")
        return self._schemas[-1].schema_id if "schemas" in self._raw else self._schemas[0].schema_id

    def schema(self) -> Schema:
        """The current schema."""
        schema = self.schema_by_id(self.current_schema_id)
        if schema is None:  # _validate rejects such metadata
            raise ValueError(f"current-schema-id {self.current_schema_id} is not in 'schemas'")
        return schema

    def schema_by_id(self, schema_id: int) -> Schema | None:
        return next((s for s in self._schemas if s.schema_id == schema_id), None)

    # --- partition specs ---------------------------------------------------------------------

    @cached_property
    def specs_json(self) -> list[dict[str, Any]]:
        """Every partition spec as a full JSON object; v1 field ids are filled in from 1000."""
        if "partition-specs" in self._raw:
            items = self._raw["partition-specs"]
            if not isinstance(items, list):
                raise ValueError("'partition-specs' must be a list")
            specs = [dict(json_object(s, "partition spec")) for s in items]
        else:
            specs = [{"spec-id": 0, "fields": self._raw["partition-spec"]}]
        for spec in specs:
            get_int(spec, "spec-id")
            fields = spec.get("fields")
            if not isinstance(fields, list):
                raise ValueError(f"partition spec fields must be a list: {spec!r}")
            spec["fields"] = [
                f if "field-id" in f else {**f, "field-id": PARTITION_DATA_ID_START + i}
                for i, f in enumerate(json_object(f, "partition field") for f in fields)
            ]
        return specs

    @property
    def default_spec_id(self) -> int:
        return get_int(self._raw, "default-spec-id", required=False) or 0

    @property
    def last_partition_id(self) -> int:
        value = get_int(self._raw, "last-partition-id", required=False)
        if value is not None:
            return value
        ids = [f["field-id"] for s in self.specs_json for f in s["fields"]]
        return max(ids, default=PARTITION_DATA_ID_START - 1)

    def spec_json_by_id(self, spec_id: int) -> dict[str, Any] | None:
        return next((s for s in self.specs_json if s["spec-id"] == spec_id), None)

    @cached_property
    def _specs(self) -> tuple[Any, ...]:
        from icesql.spec.partitioning import PartitionSpec

        return tuple(PartitionSpec.from_json(s) for s in self.specs_json)

    @property
    def specs(self) -> list[Any]:
        """Every partition spec as ``icesql.spec.partitioning.PartitionSpec``."""
        return list(self._specs)

    def spec(self) -> Any:
        """The default partition spec (the one writers use)."""
        return self.spec_by_id(self.default_spec_id)

    def spec_by_id(self, spec_id: int) -> Any | None:
        return next((s for s in self._specs if s.spec_id == spec_id), None)

    # --- sort orders -------------------------------------------------------------------------

    @cached_property
    def sort_orders_json(self) -> list[dict[str, Any]]:
        """Every sort order as JSON; v1 tables without any get the unsorted order 0."""
        items = self._raw.get("sort-orders")
        if items is None:
            return [{"order-id": 0, "fields": []}]
        if not isinstance(items, list):
            raise ValueError("'sort-orders' must be a list")
        return [dict(json_object(o, "sort order")) for o in items]

    @property
    def default_sort_order_id(self) -> int:
        return get_int(self._raw, "default-sort-order-id", required=False) or 0

    @cached_property
    def _sort_orders(self) -> tuple[Any, ...]:
        from icesql.spec.sorting import SortOrder

        return tuple(SortOrder.from_json(o) for o in self.sort_orders_json)

    @property
    def sort_orders(self) -> list[Any]:
        """Every sort order as ``icesql.spec.sorting.SortOrder``."""
        return list(self._sort_orders)

    def sort_order(self) -> Any:
        """The default sort order."""
        return self.sort_order_by_id(self.default_sort_order_id)

    def sort_order_by_id(self, order_id: int) -> Any | None:
        return next((o for o in self._sort_orders if o.order_id == order_id), None)

    # --- snapshots and refs ------------------------------------------------------------------

    @cached_property
    def _snapshots(self) -> tuple[Snapshot, ...]:
        items = self._raw.get("snapshots") or []
        if not isinstance(items, list):
            raise ValueError("'snapshots' must be a list")
        return tuple(Snapshot.from_json(s) for s in items)

    @cached_property
    def _snapshots_by_id(self) -> dict[int, Snapshot]:
        return {s.snapshot_id: s for s in self._snapshots}

    @property
    def snapshots(self) -> list[Snapshot]:
        return list(self._snapshots)

    @property
    def current_snapshot_id(self) -> int | None:
        """The current snapshot id, or None when the table has none (-1 in v1/v2 files)."""
        value = get_int(self._raw, "current-snapshot-id", required=False)
        return None if value is None or value == -1 else value

    def current_snapshot(self) -> Snapshot | None:
        current = self.current_snapshot_id
        return None if current is None else self._snapshots_by_id.get(current)

    def snapshot_by_id(self, snapshot_id: int) -> Snapshot | None:
        return self._snapshots_by_id.get(snapshot_id)

    @cached_property
    def refs(self) -> Mapping[str, SnapshotRef]:
        """Branches and tags by name; ``main`` is derived from the current snapshot when
        absent (always for v1 files without ``refs``), as the spec and Java do."""
        items = self._raw.get("refs") or {}
        refs = {name: SnapshotRef.from_json(r) for name, r in json_object(items, "refs").items()}
        current = self.current_snapshot_id
        if MAIN_BRANCH not in refs and current is not None:
            refs[MAIN_BRANCH] = SnapshotRef(current)
        return MappingProxyType(refs)

    def snapshot_for_ref(self, name: str) -> Snapshot | None:
        """The snapshot a branch or tag points at (None if there is no such ref)."""
        ref = self.refs.get(name)
        return None if ref is None else self._snapshots_by_id.get(ref.snapshot_id)

    def snapshot_as_of(self, timestamp_ms: int) -> Snapshot:
        """The snapshot that was current at ``timestamp_ms``, per the snapshot log.

        This is Spark's ``TIMESTAMP AS OF`` (Java ``SnapshotUtil.snapshotIdAsOfTime``): the
        last log entry at or before the time, in log order. Raises ``ProgrammingError`` when
        the time is before the first entry or that snapshot has expired.
        """
        found = None
        for entry in self.snapshot_log:
            if entry.timestamp_ms <= timestamp_ms:
                found = entry.snapshot_id
        if found is None:
            raise ProgrammingError(
                f"cannot find a snapshot older than {timestamp_ms} ms"
                f" (the snapshot log of {self.location} starts later or is empty)"
            )
        snapshot = self._snapshots_by_id.get(found)
        if snapshot is None:
            raise ProgrammingError(
                f"snapshot {found}, current at {timestamp_ms} ms, has expired from {self.location}"
            )
        return snapshot

    def ancestors_of(self, snapshot_id: int) -> Iterator[Snapshot]:
        """The snapshot and its parents, newest first, until a parent has expired."""
        seen: set[int] = set()
        snapshot = self._snapshots_by_id.get(snapshot_id)
        while snapshot is not None and snapshot.snapshot_id not in seen:
            seen.add(snapshot.snapshot_id)
            yield snapshot
            parent = snapshot.parent_snapshot_id
            snapshot = None if parent is None else self._snapshots_by_id.get(parent)

    # --- logs, statistics, keys --------------------------------------------------------------

    def _list(self, key: str) -> list[Any]:
        items = self._raw.get(key) or []
        if not isinstance(items, list):
            raise ValueError(f"{key!r} must be a list")
        return items

    @cached_property
    def snapshot_log(self) -> list[SnapshotLogEntry]:
        return [SnapshotLogEntry.from_json(e) for e in self._list("snapshot-log")]

    @cached_property
    def metadata_log(self) -> list[MetadataLogEntry]:
        return [MetadataLogEntry.from_json(e) for e in self._list("metadata-log")]

    @cached_property
    def statistics(self) -> list[StatisticsFile]:
        return [StatisticsFile.from_json(e) for e in self._list("statistics")]

    @cached_property
    def partition_statistics(self) -> list[PartitionStatisticsFile]:
        return [PartitionStatisticsFile.from_json(e) for e in self._list("partition-statistics")]

    @cached_property
    def encryption_keys(self) -> list[EncryptionKey]:
        return [EncryptionKey.from_json(e) for e in self._list("encryption-keys")]

    def __repr__(self) -> str:
        return (
            f"TableMetadata(v{self.format_version}, {self.location!r},"
            f" current_snapshot_id={self.current_snapshot_id})"
        )
