"""Iceberg metadata tables (``db.t.snapshots``, ``db.t.files``, ...) with Spark's columns.

Each is computed from the table metadata and its manifests as an Arrow table, with the same
column names and types Spark + Iceberg 1.10 show, ``readable_metrics`` included. Time travel
(``VERSION AS OF``, ``TIMESTAMP AS OF``) picks the snapshot of the tables that read one
snapshot (entries, files, manifests, partitions, position_deletes, ...); the history tables
(snapshots, history, refs, metadata_log_entries) show the whole table whatever the version, and
the ``all_*`` tables, which read every snapshot, refuse a version as Spark does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pyarrow as pa

from icesql.catalog.table import Table
from icesql.errors import NotSupportedError, ProgrammingError
from icesql.metadata.manifest import ManifestEntry, read_manifest
from icesql.metadata.table_metadata import Snapshot
from icesql.scan.planner import ManifestCache
from icesql.scan.readable_metrics import readable_metrics
from icesql.spec.arrow import to_arrow_array, type_to_arrow
from icesql.spec.content_file import DataFile
from icesql.spec.manifest_file import ManifestFile
from icesql.spec.partitioning import PartitionField
from icesql.spec.reserved import POSITION_DELETE_ROW_FIELD_ID
from icesql.spec.types import IcebergType, NestedField, StructType
from icesql.spec.values import from_bytes

TS = pa.timestamp("ms", tz="UTC")
COUNTS = pa.map_(pa.int32(), pa.int64())
BOUNDS = pa.map_(pa.int32(), pa.binary())


def partition_type(table: Table) -> StructType:
    """The union of every spec's partition fields, by field id (as Java's partitionType)."""
    fields: dict[int, NestedField] = {}
    schema = table.metadata.schema()
    for spec in table.metadata.specs:
        for f in spec.partition_type(schema).fields:
            fields.setdefault(f.field_id, NestedField(f.field_id, f.name, f.type, False))
    return StructType(tuple(fields[k] for k in sorted(fields)))


def _partition_keys(table: Table, files: list[DataFile], struct: StructType) -> list[tuple]:
    """Each file's partition tuple coerced to ``struct`` (the union of the specs' fields, by
    field id): a field the file's spec lacks is NULL."""
    positions = {
        spec.spec_id: {f.field_id: i for i, f in enumerate(spec.fields)}
        for spec in table.metadata.specs
    }
    keys = []
    for data_file in files:
        index = positions.get(data_file.spec_id, {})
        keys.append(
            tuple(
                data_file.partition[index[f.field_id]] if f.field_id in index else None
                for f in struct.fields
            )
        )
    return keys


def _partition_struct(struct: StructType, keys: list[tuple]) -> pa.StructArray:
    columns = [to_arrow_array(f.type, [k[i] for k in keys]) for i, f in enumerate(struct.fields)]
    arrow_fields = [pa.field(f.name, type_to_arrow(f.type)) for f in struct.fields]
    return pa.StructArray.from_arrays(columns, fields=arrow_fields)


def _partition_array(table: Table, files: list[DataFile]) -> pa.Array:
    struct = partition_type(table)
    return _partition_struct(struct, _partition_keys(table, files, struct))


def _map(d: dict | None) -> list[tuple] | None:
    return None if d is None else sorted(d.items())


DATA_FILE_COLUMNS: list[tuple[str, pa.DataType, Callable[[DataFile], object]]] = [
    ("content", pa.int32(), lambda f: f.content),
    ("file_path", pa.string(), lambda f: f.file_path),
    ("file_format", pa.string(), lambda f: f.file_format),
    ("spec_id", pa.int32(), lambda f: f.spec_id),
    ("record_count", pa.int64(), lambda f: f.record_count),
    ("file_size_in_bytes", pa.int64(), lambda f: f.file_size_in_bytes),
    ("column_sizes", COUNTS, lambda f: _map(f.column_sizes)),
    ("value_counts", COUNTS, lambda f: _map(f.value_counts)),
    ("null_value_counts", COUNTS, lambda f: _map(f.null_value_counts)),
    ("nan_value_counts", COUNTS, lambda f: _map(f.nan_value_counts)),
    ("lower_bounds", BOUNDS, lambda f: _map(f.lower_bounds)),
    ("upper_bounds", BOUNDS, lambda f: _map(f.upper_bounds)),
    ("key_metadata", pa.binary(), lambda f: f.key_metadata),
    ("split_offsets", pa.list_(pa.int64()), lambda f: f.split_offsets),
    ("equality_ids", pa.list_(pa.int32()), lambda f: f.equality_ids),
    ("sort_order_id", pa.int32(), lambda f: f.sort_order_id),
    ("first_row_id", pa.int64(), lambda f: f.first_row_id),
    ("referenced_data_file", pa.string(), lambda f: f.referenced_data_file),
    ("content_offset", pa.int64(), lambda f: f.content_offset),
    ("content_size_in_bytes", pa.int64(), lambda f: f.content_size_in_bytes),
]


def _data_file_arrays(table: Table, files: list[DataFile]) -> tuple[list[pa.Array], list[str]]:
    """The columns of the data_file struct (entries) and of the files tables, in Spark's order."""
    arrays, names = [], []
    partitioned = bool(partition_type(table).fields)
    for name, arrow_type, get in DATA_FILE_COLUMNS:
        arrays.append(pa.array([get(f) for f in files], type=arrow_type))
        names.append(name)
        # Spark puts the partition tuple right after spec_id, and leaves it out when no spec
        # of the table has a partition field
        if name == "spec_id" and partitioned:
            arrays.append(_partition_array(table, files))
            names.append("partition")
    return arrays, names


class MetadataTables:
    """Builds one metadata table of one table version; ``time_travel`` says the version was
    asked for (``VERSION AS OF`` ...), which the ``all_*`` tables refuse. Without
    ``readable_metrics`` (a query that neither names that column nor selects ``*``) the column
    is left out: decoding every bound of every file is most of the cost of a files table."""

    def __init__(
        self,
        table: Table,
        snapshot: Snapshot | None,
        cache: ManifestCache,
        time_travel: bool = False,
        readable_metrics: bool = True,
    ):
        self.table = table
        self.metadata = table.metadata
        self.snapshot = snapshot
        self.cache = cache
        self.time_travel = time_travel
        self.readable_metrics = readable_metrics

    def build(self, name: str) -> pa.Table:
        builder = getattr(self, f"_{name}", None)
        if builder is None:
            raise NotSupportedError(f"metadata table {self.table.name}.{name} is not supported yet")
        if name.startswith("all_") and self.time_travel:
            raise ProgrammingError(
                f"cannot select a snapshot of {self.table.name}.{name}: it covers every"
                " snapshot of the table (Spark: Cannot select snapshot in table)"
            )
        return builder()

    # -- table-level history ---------------------------------------------------------------
    def _snapshots(self) -> pa.Table:
        snaps = self.metadata.snapshots
        return pa.table(
            {
                "committed_at": pa.array([s.timestamp_ms for s in snaps], pa.int64()).cast(TS),
                "snapshot_id": pa.array([s.snapshot_id for s in snaps], pa.int64()),
                "parent_id": pa.array([s.parent_snapshot_id for s in snaps], pa.int64()),
                "operation": pa.array(
                    [(s.summary or {}).get("operation") for s in snaps], pa.string()
                ),
                "manifest_list": pa.array([s.manifest_list for s in snaps], pa.string()),
                "summary": pa.array(
                    [
                        sorted((k, v) for k, v in (s.summary or {}).items() if k != "operation")
                        for s in snaps
                    ],
                    pa.map_(pa.string(), pa.string()),
                ),
            }
        )

    def _history(self) -> pa.Table:
        current = self.metadata.current_snapshot_id
        ancestors = (
            {s.snapshot_id for s in self.metadata.ancestors_of(current)} if current else set()
        )
        log = self.metadata.snapshot_log
        parents = [
            (s.parent_snapshot_id if (s := self.metadata.snapshot_by_id(e.snapshot_id)) else None)
            for e in log
        ]
        return pa.table(
            {
                "made_current_at": pa.array([e.timestamp_ms for e in log], pa.int64()).cast(TS),
                "snapshot_id": pa.array([e.snapshot_id for e in log], pa.int64()),
                "parent_id": pa.array(parents, pa.int64()),
                "is_current_ancestor": pa.array(
                    [e.snapshot_id in ancestors for e in log], pa.bool_()
                ),
            }
        )

    def _refs(self) -> pa.Table:
        refs = list(self.metadata.refs.items())
        return pa.table(
            {
                "name": pa.array([n for n, _ in refs], pa.string()),
                "type": pa.array([r.type.upper() for _, r in refs], pa.string()),
                "snapshot_id": pa.array([r.snapshot_id for _, r in refs], pa.int64()),
                "max_reference_age_in_ms": pa.array(
                    [r.max_ref_age_ms for _, r in refs], pa.int64()
                ),
                "min_snapshots_to_keep": pa.array(
                    [r.min_snapshots_to_keep for _, r in refs], pa.int32()
                ),
                "max_snapshot_age_in_ms": pa.array(
                    [r.max_snapshot_age_ms for _, r in refs], pa.int64()
                ),
            }
        )

    def _metadata_log_entries(self) -> pa.Table:
        entries = [(e.timestamp_ms, e.metadata_file) for e in self.metadata.metadata_log]
        current_file = self.metadata.path or ""
        entries.append((self.metadata.last_updated_ms, current_file))
        latest = [self._snapshot_at(ts) for ts, _ in entries]
        return pa.table(
            {
                "timestamp": pa.array([ts for ts, _ in entries], pa.int64()).cast(TS),
                "file": pa.array([f for _, f in entries], pa.string()),
                "latest_snapshot_id": pa.array(
                    [s.snapshot_id if s else None for s in latest], pa.int64()
                ),
                "latest_schema_id": pa.array(
                    [s.schema_id if s else None for s in latest], pa.int32()
                ),
                "latest_sequence_number": pa.array(
                    [s.sequence_number if s else None for s in latest], pa.int64()
                ),
            }
        )

    def _snapshot_at(self, timestamp_ms: int) -> Snapshot | None:
        found = None
        for entry in self.metadata.snapshot_log:
            if entry.timestamp_ms <= timestamp_ms:
                found = entry.snapshot_id
        return self.metadata.snapshot_by_id(found) if found is not None else None

    # -- manifests and files ---------------------------------------------------------------
    def _manifest_files(self) -> tuple[ManifestFile, ...]:
        if self.snapshot is None:
            return ()
        return self.cache.manifests(self.table.io, self.snapshot)

    def _manifests(self) -> pa.Table:
        return self._manifests_table(list(self._manifest_files()))

    def _manifests_table(self, ms: list[ManifestFile]) -> pa.Table:
        summary_type = pa.list_(
            pa.struct(
                [
                    ("contains_null", pa.bool_()),
                    ("contains_nan", pa.bool_()),
                    ("lower_bound", pa.string()),
                    ("upper_bound", pa.string()),
                ]
            )
        )

        def count(m: ManifestFile, attr: str, content: int) -> int:
            return (getattr(m, attr) or 0) if m.content == content else 0

        return pa.table(
            {
                "content": pa.array([m.content for m in ms], pa.int32()),
                "path": pa.array([m.manifest_path for m in ms], pa.string()),
                "length": pa.array([m.manifest_length for m in ms], pa.int64()),
                "partition_spec_id": pa.array([m.partition_spec_id for m in ms], pa.int32()),
                "added_snapshot_id": pa.array([m.added_snapshot_id for m in ms], pa.int64()),
                **{
                    f"{kind}_{what}_files_count": pa.array(
                        [count(m, f"{kind}_files_count", c) for m in ms], pa.int32()
                    )
                    for what, c in (("data", 0), ("delete", 1))
                    for kind in ("added", "existing", "deleted")
                },
                "partition_summaries": pa.array([self._summaries(m) for m in ms], summary_type),
            }
        ).select(
            [
                "content",
                "path",
                "length",
                "partition_spec_id",
                "added_snapshot_id",
                "added_data_files_count",
                "existing_data_files_count",
                "deleted_data_files_count",
                "added_delete_files_count",
                "existing_delete_files_count",
                "deleted_delete_files_count",
                "partition_summaries",
            ]
        )

    def _summaries(self, m: ManifestFile) -> list[dict]:
        spec = self.metadata.spec_by_id(m.partition_spec_id)
        if spec is None or m.partitions is None:
            return []
        schema = self.metadata.schema()
        ptype = spec.partition_type(schema)
        out = []
        for pf, field, summary in zip(spec.fields, ptype.fields, m.partitions):
            source = schema.find_type(pf.source_id) if schema.has_field_id(pf.source_id) else None

            def human(
                raw: bytes | None,
                field: NestedField = field,
                pf: PartitionField = pf,
                source: IcebergType | None = source,
            ) -> str | None:
                if raw is None or source is None:
                    return None
                return pf.transform.to_human_string(source, from_bytes(field.type, raw))

            out.append(
                {
                    "contains_null": summary.contains_null,
                    "contains_nan": summary.contains_nan,
                    "lower_bound": human(summary.lower_bound),
                    "upper_bound": human(summary.upper_bound),
                }
            )
        return out

    def _live_entries(self, contents: Iterable[int] | None = None) -> list[ManifestEntry]:
        out = []
        for m in self._manifest_files():
            for entry in self.cache.live_entries(self.table.io, m):
                if contents is None or entry.data_file.content in contents:
                    out.append(entry)
        return out

    def _files_table(self, files: list[DataFile]) -> pa.Table:
        arrays, names = _data_file_arrays(self.table, files)
        if self.readable_metrics:
            arrays.append(readable_metrics(self.metadata.schema(), files))
            names.append("readable_metrics")
        return pa.Table.from_arrays(arrays, names=names)

    def _files_of(self, contents: Iterable[int] | None) -> pa.Table:
        return self._files_table([e.data_file for e in self._live_entries(contents)])

    def _files(self) -> pa.Table:
        return self._files_of(None)

    def _data_files(self) -> pa.Table:
        return self._files_of((0,))

    def _delete_files(self) -> pa.Table:
        return self._files_of((1, 2))

    def _entries_table(self, entries: list[ManifestEntry]) -> pa.Table:
        files = [e.data_file for e in entries]
        arrays, names = _data_file_arrays(self.table, files)
        data_file = pa.StructArray.from_arrays(arrays, names=names)
        columns = {
            "status": pa.array([e.status for e in entries], pa.int32()),
            "snapshot_id": pa.array([e.snapshot_id for e in entries], pa.int64()),
            "sequence_number": pa.array([e.sequence_number for e in entries], pa.int64()),
            "file_sequence_number": pa.array([e.file_sequence_number for e in entries], pa.int64()),
            "data_file": data_file,
        }
        if self.readable_metrics:
            columns["readable_metrics"] = readable_metrics(self.metadata.schema(), files)
        return pa.table(columns)

    def _entries(self) -> pa.Table:
        """Every entry of the snapshot's manifests, DELETED ones (status 2) included, as
        Java's ``ManifestReader.entries()`` gives them: read here, not from the cache of live
        entries that planning keeps."""
        return self._entries_table(
            [e for m in self._manifest_files() for e in read_manifest(self.table.io, m)]
        )

    # -- every snapshot: the all_* tables --------------------------------------------------
    def _all_manifest_files(self) -> list[ManifestFile]:
        """Each manifest any snapshot lists, once (by path), in snapshot order."""
        seen: dict[str, ManifestFile] = {}
        for snapshot in self.metadata.snapshots:
            for m in self.cache.manifests(self.table.io, snapshot):
                seen.setdefault(m.manifest_path, m)
        return list(seen.values())

    def _all_files_of(self, contents: Iterable[int] | None) -> pa.Table:
        """The live entries of every manifest of every snapshot: a file listed by several
        manifests appears once per manifest, as in Java's AllFilesTable."""
        wanted = None if contents is None else set(contents)
        files = [
            e.data_file
            for m in self._all_manifest_files()
            for e in self.cache.live_entries(self.table.io, m)
            if wanted is None or e.data_file.content in wanted
        ]
        return self._files_table(files)

    def _all_files(self) -> pa.Table:
        return self._all_files_of(None)

    def _all_data_files(self) -> pa.Table:
        return self._all_files_of((0,))

    def _all_delete_files(self) -> pa.Table:
        return self._all_files_of((1, 2))

    def _all_entries(self) -> pa.Table:
        return self._entries_table(
            [e for m in self._all_manifest_files() for e in read_manifest(self.table.io, m)]
        )

    def _all_manifests(self) -> pa.Table:
        """Each snapshot's manifests, with the snapshot as ``reference_snapshot_id``."""
        rows: list[tuple[ManifestFile, int]] = [
            (m, s.snapshot_id)
            for s in self.metadata.snapshots
            for m in self.cache.manifests(self.table.io, s)
        ]
        table = self._manifests_table([m for m, _ in rows])
        return table.append_column(
            "reference_snapshot_id", pa.array([sid for _, sid in rows], pa.int64())
        )

    # -- partitions and position deletes ---------------------------------------------------
    def _partitions(self) -> pa.Table:
        return partitions_table(self.table, self._live_entries())

    def _position_deletes(self) -> pa.Table:
        return position_deletes_table(self.table, [e.data_file for e in self._live_entries((1,))])


def partitions_table(table: Table, entries: list[ManifestEntry]) -> pa.Table:
    """Java's PartitionsTable: the live files grouped by their partition (coerced to the
    union of the specs' fields), with the data and delete counts, the spec of the last file
    seen, and the newest snapshot that added a file to it."""
    metadata = table.metadata
    struct = partition_type(table)
    keys = _partition_keys(table, [e.data_file for e in entries], struct)
    groups: dict[tuple, list] = {}
    for entry, key in zip(entries, keys):
        f = entry.data_file
        # [spec, records, files, bytes, pos records, pos files, eq records, eq files, at, id]
        g = groups.setdefault(key, [None, 0, 0, 0, 0, 0, 0, 0, None, None])
        snapshot = metadata.snapshot_by_id(entry.snapshot_id) if entry.snapshot_id else None
        if snapshot is not None and (g[8] is None or snapshot.timestamp_ms > g[8]):
            g[8], g[9] = snapshot.timestamp_ms, snapshot.snapshot_id
        g[0] = f.spec_id
        if f.content == 0:
            g[1] += f.record_count
            g[2] += 1
            g[3] += f.file_size_in_bytes
        elif f.content == 1:
            g[4] += f.record_count
            g[5] += 1
        else:
            g[6] += f.record_count
            g[7] += 1
    stats = list(groups.values())
    columns: dict[str, pa.Array] = {}
    if struct.fields:
        columns["partition"] = _partition_struct(struct, list(groups))
        columns["spec_id"] = pa.array([g[0] for g in stats], pa.int32())
    names = [
        ("record_count", pa.int64()),
        ("file_count", pa.int32()),
        ("total_data_file_size_in_bytes", pa.int64()),
        ("position_delete_record_count", pa.int64()),
        ("position_delete_file_count", pa.int32()),
        ("equality_delete_record_count", pa.int64()),
        ("equality_delete_file_count", pa.int32()),
    ]
    for i, (name, arrow_type) in enumerate(names, start=1):
        columns[name] = pa.array([g[i] for g in stats], arrow_type)
    columns["last_updated_at"] = pa.array([g[8] for g in stats], pa.int64()).cast(TS)
    columns["last_updated_snapshot_id"] = pa.array([g[9] for g in stats], pa.int64())
    return pa.table(columns)


def position_deletes_table(table: Table, deletes: list[DataFile]) -> pa.Table:
    """Java's PositionDeletesTable: one row per deleted position of every live position delete
    file and deletion vector. ``row`` is the deleted row where the delete file stores it
    (field id 2147483544, read by field id as a struct of the table's current columns), NULL
    where it does not (Spark's default, and always for deletion vectors)."""
    from icesql.scan.delete_index import is_deletion_vector, referenced_data_file
    from icesql.scan.delete_loaders import DeleteLoader

    loader = DeleteLoader(table.io)
    schema = table.metadata.schema()
    struct = partition_type(table)
    keys = _partition_keys(table, deletes, struct)
    row_field = NestedField(POSITION_DELETE_ROW_FIELD_ID, "row", schema.as_struct())
    row_type = pa.struct([pa.field(f.name, type_to_arrow(f.type)) for f in schema.fields])
    paths, positions, rows, owners = [], [], [], []
    for i, delete in enumerate(deletes):
        stored = None
        if is_deletion_vector(delete):
            target = referenced_data_file(delete) or ""
            pos = loader.deleted_positions(target, [delete])
            file_paths = pa.array([target] * len(pos), pa.string())
        else:
            file_paths, pos, stored = loader.position_rows(delete, row_field)
        paths.append(file_paths)
        positions.append(pa.array(pos, pa.int64()))
        rows.append(stored.cast(row_type) if stored is not None else pa.nulls(len(pos), row_type))
        owners += [i] * len(pos)
    take = pa.array(owners, pa.int64())
    columns: dict[str, pa.Array | pa.ChunkedArray] = {
        "file_path": pa.chunked_array(paths, pa.string()),
        "pos": pa.chunked_array(positions, pa.int64()),
        "row": pa.chunked_array(rows, row_type),
    }
    if struct.fields:
        columns["partition"] = _partition_struct(struct, keys).take(take)
    columns["spec_id"] = pa.array([d.spec_id for d in deletes], pa.int32()).take(take)
    columns["delete_file_path"] = pa.array([d.file_path for d in deletes], pa.string()).take(take)
    if table.metadata.format_version >= 3:
        columns["content_offset"] = pa.array([d.content_offset for d in deletes], pa.int64()).take(
            take
        )
        columns["content_size_in_bytes"] = pa.array(
            [d.content_size_in_bytes for d in deletes], pa.int64()
        ).take(take)
    return pa.table(columns)
