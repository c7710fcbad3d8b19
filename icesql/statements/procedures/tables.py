"""``register_table``: a catalog entry for an existing metadata file (Spark's
``RegisterTableProcedure``), in the procedure's catalog; catalogs that cannot register tables
(the file-system catalog, like Java's ``HadoopCatalog``) refuse it.

``add_files``: Spark's ``AddFilesProcedure`` for a file-system source,
``source_table => '`parquet`.`/path/folder`'``: the folder's Parquet files (in hive-style
partition folders for a partitioned table, ``icesql.write.imported_files``) are appended in
place, in one ``append`` snapshot, after the table gets a ``schema.name-mapping.default``
(its own commit, as Spark's ``ensureNameMappingPresent``) so files without field ids are read
by column name. The table's spec must be identity transforms only; files the table already
holds are refused unless ``check_duplicate_files => false``. Hive/Spark catalog tables and ORC
or Avro folders raise ``NotSupportedError``; ``parallelism`` is accepted (files are read one
after the other)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from icesql.errors import NotSupportedError
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.table_updates import SetPropertiesUpdate
from icesql.scan.table_scan import NAME_MAPPING_PROPERTY
from icesql.spec.manifest_file import CONTENT_DATA
from icesql.spec.name_mapping import NameMapping, create_mapping_from_schema
from icesql.spec.transforms import Identity
from icesql.statements.procedures.base import (
    BOOLEAN,
    INT,
    STRING,
    STRING_MAP,
    Call,
    Parameter,
    Procedure,
)
from icesql.write.column_metrics import MetricsConfig
from icesql.write.commit import commit
from icesql.write.imported_files import imported_data_file, source_files, source_partitions
from icesql.write.snapshot import Change, SnapshotOperation

__all__ = ["PROCEDURES"]


def _register_table(call: Call) -> Sequence[Sequence[Any]]:
    metadata_file = call.args["metadata_file"]
    if not metadata_file:
        raise call.error("Cannot handle an empty argument metadata_file")
    catalog, identifier = call.identifier()
    table = catalog.register_table(identifier, metadata_file)
    current = table.metadata.current_snapshot()
    if current is None:
        return [(None, None, None)]
    summary = current.summary

    def total(key: str) -> int | None:
        return int(summary[key]) if key in summary else None

    return [(current.snapshot_id, total("total-records"), total("total-data-files"))]


NAME_MAPPING = NAME_MAPPING_PROPERTY
_FILE_FORMATS = ("parquet", "orc", "avro")


def _source(call: Call) -> str:
    """The folder of a ``format``.``path`` source; anything else is refused by name."""
    text = call.args["source_table"]
    parts = call.table_name("source_table")
    if len(parts) != 2 or parts[0].lower() not in _FILE_FORMATS:
        raise NotSupportedError(
            f"procedure {call.procedure}: source_table {text!r} names a Hive/Spark catalog"
            " table; icesql has no session catalog of non-Iceberg tables, only file sources"
            " (source_table => '`parquet`.`/path/to/folder`')"
        )
    if parts[0].lower() != "parquet":
        raise NotSupportedError(
            f"procedure {call.procedure}: {parts[0].lower()} source files are not supported"
            " (only `parquet`)"
        )
    folder = parts[1]
    # Spark qualifies a path without a scheme by its default file system: the local one
    return folder if "://" in folder or folder.startswith("file:") else f"file:{folder}"


def _add_files(call: Call) -> Sequence[Sequence[Any]]:
    catalog, table = call.table()
    folder = _source(call)
    partition_filter = call.args.get("partition_filter") or {}
    parallelism = call.args.get("parallelism")
    if parallelism is not None and parallelism <= 0:
        raise call.error("Parallelism should be larger than 0")
    md = table.metadata
    spec, schema = md.spec(), md.schema()
    others = [f for f in spec.fields if not isinstance(f.transform, Identity)]
    if others:
        raise call.error(
            f"Cannot add data files to target table {table.name} because that table is"
            " partitioned and contains non-identity partition transforms which will not be"
            f" compatible. Found non-identity fields {[str(f) for f in others]}"
        )
    names = {f.name for f in spec.fields}
    if spec.fields and partition_filter:
        unknown = sorted(set(partition_filter) - names)
        if unknown:
            raise call.error(
                f"the partition filter refers to columns that are not partitioned: {unknown};"
                f" partition columns: {sorted(names)}"
            )
    elif partition_filter:
        raise call.error(f"Cannot use partition filter with an unpartitioned table {table.name}")
    if NAME_MAPPING not in md.properties:
        mapping_json = create_mapping_from_schema(schema).to_json_string()
        table = commit(
            catalog, table, Change(updates=(SetPropertiesUpdate({NAME_MAPPING: mapping_json}),))
        )
        md = table.metadata
    mapping = NameMapping.from_json(md.properties[NAME_MAPPING])
    partitions = source_partitions(table.io, folder, spec, schema, partition_filter)
    if spec.fields and not partitions:
        raise call.error(f"Cannot find any matching partitions in table {table.name}")
    config = MetricsConfig.for_table(schema, md.properties, md.sort_order())
    files = [
        imported_data_file(table.io, path, schema, spec.spec_id, p.values, config, mapping)
        for p in partitions
        for path in source_files(table.io, p.folder)
    ]
    if call.args.get("check_duplicate_files", True):
        duplicates = sorted({f.file_path for f in files} & _live_paths(table))
        if duplicates:
            raise call.error(
                "Cannot complete import because data files to be imported already exist within"
                f" the target table: {', '.join(duplicates)}. Iceberg is not designed for"
                " multiple references to the same file within the same table; set"
                " check_duplicate_files => false to force the import"
            )
    # Spark appends the files as whole manifests, whose summary has no partition metrics
    change = Change(
        operation=SnapshotOperation.APPEND, added_files=tuple(files), partition_metrics=False
    )
    table = commit(catalog, table, change)
    current = table.metadata.current_snapshot()
    summary = current.summary if current is not None else {}
    changed = summary.get("changed-partition-count")
    return [
        (int(summary.get("added-data-files", 0)), int(changed) if changed is not None else None)
    ]


def _live_paths(table: Any) -> set[str]:
    """The data file paths the current snapshot's manifests hold as live entries."""
    snapshot = table.metadata.current_snapshot()
    if snapshot is None:
        return set()
    return {
        e.data_file.file_path
        for m in read_manifest_list(table.io, snapshot.manifest_list, snapshot)
        if m.content == CONTENT_DATA
        for e in read_manifest(table.io, m, metrics=False)
        if e.is_live
    }


PROCEDURES = (
    Procedure(
        "add_files",
        (Parameter("table", STRING), Parameter("source_table", STRING),
         Parameter("partition_filter", STRING_MAP, required=False),
         Parameter("check_duplicate_files", BOOLEAN, required=False),
         Parameter("parallelism", INT, required=False)),
        pa.schema([pa.field("added_files_count", pa.int64(), nullable=False),
                   pa.field("changed_partition_count", pa.int64())]),
        _add_files,
    ),
    Procedure(
        "register_table",
        (Parameter("table", STRING), Parameter("metadata_file", STRING)),
        pa.schema([pa.field("current_snapshot_id", pa.int64()),
                   pa.field("total_records_count", pa.int64()),
                   pa.field("total_data_files_count", pa.int64())]),
        _register_table,
    ),
)  # fmt: skip
