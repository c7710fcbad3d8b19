"""SHOW NAMESPACES / TABLES / CREATE TABLE / TBLPROPERTIES and DESCRIBE [EXTENDED].

Rows and column names are Spark's (Spark 3.5 with Iceberg 1.10), including the
properties Spark's ``SparkTable`` shows without storing them: ``format``
(``iceberg/parquet``), ``format-version``, ``current-snapshot-id`` (``none`` before the
first snapshot), ``sort-order`` and ``identifier-fields``. One deliberate difference:
``SHOW CREATE TABLE`` keeps a bucket partition inside ``PARTITIONED BY`` instead of Spark's
``CLUSTERED BY ... INTO n BUCKETS``, so the statement it prints runs unchanged in icesql
and in Spark.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pyarrow as pa
from sqlglot import exp

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table, View
from icesql.errors import NoSuchNamespaceError, NoSuchTableError
from icesql.session import Result, Session
from icesql.session.result import rows
from icesql.spec.partitioning import PartitionField
from icesql.spec.schema import Schema
from icesql.spec.sorting import ASC, NULLS_FIRST, SortOrder
from icesql.spec.types import NestedField, StructType
from icesql.sql import nodes
from icesql.sql.identifiers import catalog_named, name_parts
from icesql.sql.spark_errors import quote_string
from icesql.sql.spark_type_names import spark_ddl_type, spark_type
from icesql.sql.tables import METADATA_TABLES
from icesql.statements.iceberg_views import catalog_view_named, show_create_view, view_properties
from icesql.statements.names import namespace_name, table_name
from icesql.write.properties import RESERVED

__all__ = [
    "arrow_spark_type",
    "NAMESPACE_KINDS",
    "describe",
    "describe_namespace",
    "like_pattern",
    "show",
    "spark_properties",
    "transform_sql",
]

_HIDDEN = frozenset({"provider", "location", "owner", "comment", "external", "is_managed_location"})
_S = pa.string()


def _load(session: Session, parts: Sequence[str]) -> tuple[Catalog, Table]:
    catalog, identifier = table_name(session, parts)
    table = session.tables.find(catalog, identifier)
    if table is None:
        raise NoSuchTableError(f"[TABLE_OR_VIEW_NOT_FOUND] table not found: {'.'.join(identifier)}")
    return catalog, table


def like_pattern(pattern: str | None) -> re.Pattern[str] | None:
    """Spark's ``LIKE`` for SHOW: ``*`` any text, ``|`` alternatives, case-insensitive."""
    if pattern is None:
        return None
    parts = [re.escape(p.strip()).replace(r"\*", ".*") for p in pattern.split("|")]
    return re.compile("^(?:" + "|".join(parts) + ")$", re.IGNORECASE)


def _choose_namespace(catalog: Catalog) -> str:
    """What a plain ``SHOW TABLES`` in a missing current namespace should have asked for: a
    fresh connection's ``default`` rarely exists in a Spark warehouse."""
    names = [".".join(ns) for ns in sorted(catalog.list_namespaces(()))]
    if not names:
        return f" (the current namespace; catalog '{catalog.name}' has no namespace yet)"
    shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
    return (
        f" (the current namespace; catalog '{catalog.name}' has {shown}:"
        f" SHOW TABLES IN {names[0]}, or USE {names[0]})"
    )


def show(session: Session, parsed: exp.Expr, params: Sequence[object]) -> Result:
    if isinstance(parsed, nodes.ShowNamespaces):
        catalog, parent = namespace_name(session, parsed.namespace or ())
        named = catalog_named(parent[0], session.catalogs) if len(parent) == 1 else None
        if named is not None and not catalog.namespace_exists(parent):
            catalog, parent = named, ()  # SHOW NAMESPACES IN prod: the top of catalog prod
        if parent and not catalog.namespace_exists(parent):
            raise NoSuchNamespaceError(
                f"[SCHEMA_NOT_FOUND] namespace not found: {'.'.join(parent)}"
            )
        pattern = like_pattern(parsed.pattern)
        names = [".".join(ns) for ns in sorted(catalog.list_namespaces(parent))]
        names = [n for n in names if pattern is None or pattern.match(n.rsplit(".", 1)[-1])]
        return rows([("namespace", _S)], [(n,) for n in names])
    if isinstance(parsed, nodes.ShowTables):
        if parsed.namespace:
            catalog, namespace = namespace_name(session, parsed.namespace)
        else:
            catalog, namespace = session.catalog, tuple(session.default_namespace)
        if not catalog.namespace_exists(namespace):
            hint = "" if parsed.namespace else _choose_namespace(catalog)
            raise NoSuchNamespaceError(
                f"[SCHEMA_NOT_FOUND] namespace not found: {'.'.join(namespace)}{hint}"
            )
        pattern = like_pattern(parsed.pattern)
        tables = sorted(catalog.list_tables(namespace))
        data = [
            (".".join(t[:-1]), t[-1], False)
            for t in tables
            if pattern is None or pattern.match(t[-1])
        ]
        return rows([("namespace", _S), ("tableName", _S), ("isTemporary", pa.bool_())], data)
    if isinstance(parsed, (nodes.ShowCreateTable, nodes.ShowTableProperties)):
        found = catalog_view_named(session, parsed.table)
        if found is not None:
            return _show_view(parsed, *found)
    if isinstance(parsed, nodes.ShowCreateTable):
        catalog, table = _load(session, parsed.table)
        return rows([("createtab_stmt", _S)], [(show_create_table(table, catalog.name),)])
    if isinstance(parsed, nodes.ShowTableProperties):
        _, table = _load(session, parsed.table)
        props = spark_properties(table)
        key = parsed.property_key
        if key is not None:
            value = props.get(key, f"Table {table.name} does not have property: {key}")
            return rows([("key", _S), ("value", _S)], [(key, value)])
        return rows([("key", _S), ("value", _S)], sorted(props.items()))
    raise AssertionError(parsed)


def _show_view(
    parsed: exp.Expr, catalog: Catalog, identifier: tuple[str, ...], view: View
) -> Result:
    if isinstance(parsed, nodes.ShowCreateTable):
        return rows([("createtab_stmt", _S)], [(show_create_view(catalog, identifier, view),)])
    assert isinstance(parsed, nodes.ShowTableProperties)
    props = view_properties(catalog, view)
    key = parsed.property_key
    if key is not None:
        value = props.get(key, f"View {view.name} does not have property: {key}")
        return rows([("key", _S), ("value", _S)], [(key, value)])
    return rows([("key", _S), ("value", _S)], list(props.items()))


# ---------------------------------------------------------------------------------------------
# Spark's descriptions of a table


def spark_properties(table: Table) -> dict[str, str]:
    """The properties Spark shows for an Iceberg table (stored ones plus derived ones)."""
    md = table.metadata
    stored = dict(md.properties)
    out = {
        "format": "iceberg/" + stored.get("write.format.default", "parquet").lower(),
        "current-snapshot-id": str(md.current_snapshot_id)
        if md.current_snapshot_id is not None
        else "none",
        "format-version": str(md.format_version),
    }
    order = md.sort_order()
    if order is not None and not order.is_unsorted():
        out["sort-order"] = describe_sort_order(order, md.schema())
    ids = md.schema().identifier_field_names()
    if ids:
        out["identifier-fields"] = "[" + ",".join(ids) + "]"
    for key, value in stored.items():
        if key not in RESERVED and key not in _HIDDEN:
            out[key] = value
    return out


def transform_sql(field: PartitionField, schema: Schema) -> str:
    """A partition field as Spark writes it in DDL: ``bucket(16, id)``, ``days(ts)``."""
    column = (
        schema.find_column_name(field.source_id)
        if schema.has_field_id(field.source_id)
        else str(field.source_id)
    )
    text = str(field.transform)
    if text == "identity":
        return column
    if text.startswith("bucket["):
        return f"bucket({text[7:-1]}, {column})"
    if text.startswith("truncate["):
        return f"truncate({text[9:-1]}, {column})"
    plural = {"year": "years", "month": "months", "day": "days", "hour": "hours", "void": "void"}
    return f"{plural.get(text, text)}({column})"


def describe_sort_order(order: SortOrder, schema: Schema) -> str:
    """Java's ``Spark3Util.describe(SortOrder)``: ``id DESC NULLS FIRST, s ASC NULLS FIRST``."""
    parts = []
    for f in order.fields:
        term = transform_sql(PartitionField(f.source_id, 0, f.transform, ""), schema)
        direction = "ASC" if f.direction == ASC else "DESC"
        nulls = "NULLS FIRST" if f.null_order == NULLS_FIRST else "NULLS LAST"
        parts.append(f"{term} {direction} {nulls}")
    return ", ".join(parts)


def show_create_table(table: Table, catalog_name: str) -> str:
    md = table.metadata
    schema = md.schema()
    columns = []
    for f in schema.fields:
        line = f"  {f.name} {spark_ddl_type(f.type)}"
        if f.required:
            line += " NOT NULL"
        if f.doc:
            line += f" COMMENT {quote_string(f.doc)}"
        columns.append(line)
    out = (
        f"CREATE TABLE {catalog_name}.{table.name} (\n" + ",\n".join(columns) + ")\nUSING iceberg\n"
    )
    spec = md.spec()
    if spec.fields:
        out += "PARTITIONED BY (" + ", ".join(transform_sql(f, schema) for f in spec.fields) + ")\n"
    comment = md.properties.get("comment")
    if comment:
        out += f"COMMENT {quote_string(comment)}\n"
    out += f"LOCATION {quote_string(md.location)}\n"
    props = spark_properties(table)
    out += (
        "TBLPROPERTIES (\n"
        + ",\n".join(f"  {quote_string(k)} = {quote_string(v)}" for k, v in sorted(props.items()))
        + ")\n"
    )
    return out


# Iceberg's docs of metadata table columns, which Spark's DESCRIBE shows as comments
_FILE_DOCS = {
    "content": "Contents of the file: 0=data, 1=position deletes, 2=equality deletes",
    "file_path": "Location URI with FS scheme",
    "file_format": "File format name: avro, orc, or parquet",
    "spec_id": "Partition spec ID",
    "partition": "Partition data tuple, schema based on the partition spec",
    "record_count": "Number of records in the file",
    "file_size_in_bytes": "Total file size in bytes",
    "column_sizes": "Map of column id to total size on disk",
    "value_counts": "Map of column id to total count, including null and NaN",
    "null_value_counts": "Map of column id to null value count",
    "nan_value_counts": "Map of column id to number of NaN values in the column",
    "lower_bounds": "Map of column id to lower bound",
    "upper_bounds": "Map of column id to upper bound",
    "key_metadata": "Encryption key metadata blob",
    "split_offsets": "Splittable offsets",
    "equality_ids": "Equality comparison field IDs",
    "sort_order_id": "Sort order ID",
    "first_row_id": "The first row ID assigned to the first row in the data file",
    "referenced_data_file": "Fully qualified location (URI with FS scheme) of a data file that"
    " all deletes reference",
    "content_offset": "The offset in the file where the content starts",
    "content_size_in_bytes": "The length of referenced content stored in the file",
    "readable_metrics": "Column metrics in readable form",
}  # fmt: skip
_METADATA_DOCS: dict[str, dict[str, str]] = {
    **{name: _FILE_DOCS for name in (
        "files", "data_files", "delete_files", "all_files", "all_data_files", "all_delete_files",
    )},
    "entries": {"readable_metrics": _FILE_DOCS["readable_metrics"]},
    "all_entries": {"readable_metrics": _FILE_DOCS["readable_metrics"]},
    "partitions": {
        "record_count": "Count of records in data files",
        "file_count": "Count of data files",
        "total_data_file_size_in_bytes": "Total size in bytes of data files",
        "position_delete_record_count": "Count of records in position delete files",
        "position_delete_file_count": "Count of position delete files",
        "equality_delete_record_count": "Count of records in equality delete files",
        "equality_delete_file_count": "Count of equality delete files",
        "last_updated_at": "Commit time of snapshot that last updated this partition",
        "last_updated_snapshot_id": "Id of snapshot that last updated this partition",
    },
    "position_deletes": {
        "file_path": "Path of a file in which a deleted row is stored",
        "pos": "Ordinal position of a deleted row in the data file",
        "row": "Deleted row values",
        "partition": "Partition that position delete row belongs to",
        "spec_id": "Spec ID used to track the file containing a row",
        "delete_file_path": "Path of the file in which a row is stored",
    },
}  # fmt: skip
_ARROW_SPARK = [
    (pa.types.is_boolean, "boolean"), (pa.types.is_int8, "tinyint"), (pa.types.is_int16, "smallint"),
    (pa.types.is_int32, "int"), (pa.types.is_int64, "bigint"), (pa.types.is_float32, "float"),
    (pa.types.is_float64, "double"), (pa.types.is_date, "date"),
    (lambda t: pa.types.is_string(t) or pa.types.is_large_string(t), "string"),
    (lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t)
     or pa.types.is_fixed_size_binary(t), "binary"),
]  # fmt: skip


def arrow_spark_type(t: pa.DataType) -> str:
    """Spark's ``DESCRIBE`` spelling of a result column's Arrow type."""
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{arrow_spark_type(f.type)}" for f in t) + ">"
    if pa.types.is_map(t):
        return f"map<{arrow_spark_type(t.key_type)},{arrow_spark_type(t.item_type)}>"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"array<{arrow_spark_type(t.value_type)}>"
    if pa.types.is_timestamp(t):
        return "timestamp" if t.tz is not None else "timestamp_ntz"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    for test, name in _ARROW_SPARK:
        if test(t):
            return name
    return str(t)


def _describe_metadata_table(
    session: Session, statement: exp.Describe, parts: Sequence[str], extended: bool
) -> Result | None:
    """``DESCRIBE t.snapshots`` (any metadata table): its columns as Spark shows them, the
    types those of the rows a ``SELECT *`` returns; None when ``parts`` names no metadata
    table of an existing table."""
    if len(parts) < 2 or parts[-1].lower() not in METADATA_TABLES:
        return None
    try:
        catalog, table = _load(session, parts[:-1])
    except (NoSuchTableError, NoSuchNamespaceError):
        return None
    kind = parts[-1].lower()
    result = session.query(exp.select("*").from_(statement.this.copy()).limit(0), [])
    try:
        assert result.reader is not None
        schema = result.reader.schema
    finally:
        result.close()
    docs = _METADATA_DOCS.get(kind, {})
    data: list[tuple[str, str, str | None]] = [
        (f.name, arrow_spark_type(f.type), docs.get(f.name)) for f in schema
    ]
    if kind == "position_deletes":  # partitioned by its partition column's fields
        partition = schema.field("partition").type
        data += [("# Partition Information", "", ""), ("# col_name", "data_type", "comment")]
        data += [(f"partition.{f.name}", arrow_spark_type(f.type), None) for f in partition]
    if extended:
        md = table.metadata
        props = {
            k: v
            for k, v in spark_properties(table).items()
            if k in ("current-snapshot-id", "format")
        }
        if kind == "position_deletes":  # the one metadata table with its table's properties
            props = {
                k: v
                for k, v in spark_properties(table).items()
                if k not in ("format-version", "sort-order", "identifier-fields")
            }
        shown = ",".join(f"{k}={v}" for k, v in sorted(props.items()))
        # the partition struct of a table whose rows have partitions (position_deletes)
        partition = (
            arrow_spark_type(schema.field("partition").type)
            if kind == "position_deletes"
            else "struct<>"
        )
        data += [("", "", ""), ("# Metadata Columns", "", "")]
        data += [
            ("_spec_id", "int", ""), ("_partition", partition, ""), ("_file", "string", ""),
            ("_pos", "bigint", ""), ("_deleted", "boolean", ""), ("_row_id", "bigint", ""),
            ("_last_updated_sequence_number", "bigint", ""),
            ("", "", ""), ("# Detailed Table Information", "", ""),
            ("Name", f"{catalog.name}.{table.name}.{kind}", ""), ("Type", "MANAGED", ""),
            ("Location", md.location, ""), ("Provider", "iceberg", ""),
            ("Table Properties", f"[{shown}]", ""),
        ]  # fmt: skip
    return rows([("col_name", _S), ("data_type", _S), ("comment", _S)], data)


NAMESPACE_KINDS = ("NAMESPACE", "DATABASE", "SCHEMA")
# SupportsNamespaces' reserved properties, shown as rows of their own in that order
_NAMESPACE_RESERVED = ("comment", "location", "owner")


def describe_namespace(session: Session, statement: exp.Describe) -> Result:
    """``DESCRIBE NAMESPACE [EXTENDED] ns``: Spark's ``DescribeNamespaceExec`` rows
    (``info_name``, ``info_value``): the catalog, the namespace's last name, its reserved
    properties capitalised, and with EXTENDED the others as Scala prints a sorted sequence of
    pairs, ``((a,1), (b,2))``."""
    catalog, namespace = namespace_name(session, name_parts(statement.this))
    if not namespace or not catalog.namespace_exists(namespace):
        shown = ".".join(f"`{p}`" for p in namespace)
        raise NoSuchNamespaceError(
            f"[SCHEMA_NOT_FOUND] The schema {shown} cannot be found. Verify the spelling and"
            " correctness of the schema and catalog."
        )
    props = catalog.namespace_properties(namespace)
    data = [("Catalog Name", catalog.name), ("Namespace Name", namespace[-1])]
    data += [(key.capitalize(), props[key]) for key in _NAMESPACE_RESERVED if key in props]
    if (statement.args.get("style") or "").upper() == "EXTENDED":
        others = sorted((k, v) for k, v in props.items() if k not in _NAMESPACE_RESERVED)
        shown = f"({', '.join(f'({k},{v})' for k, v in others)})" if others else ""
        data.append(("Properties", shown))
    return rows([("info_name", _S), ("info_value", _S)], data)


def describe(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    """``DESCRIBE [TABLE] [EXTENDED] t``: Spark's rows (col_name, data_type, comment)."""
    assert isinstance(statement, exp.Describe)
    parts = name_parts(statement.this)
    extended = (statement.args.get("style") or "").upper() in ("EXTENDED", "FORMATTED")
    catalog, identifier = table_name(session, parts)
    if session.tables.find(catalog, identifier) is None:
        described = _describe_metadata_table(session, statement, parts, extended)
        if described is not None:
            return described
    catalog, table = _load(session, parts)
    md = table.metadata
    schema = md.schema()
    data: list[tuple[str, str, str | None]] = [
        (f.name, spark_type(f.type), f.doc) for f in schema.fields
    ]
    spec = md.spec()
    if spec.fields:
        data += [("", "", ""), ("# Partitioning", "", "")]
        data += [(f"Part {i}", transform_sql(f, schema), "") for i, f in enumerate(spec.fields)]
    if extended:
        partition = _partition_struct(table)
        data += [("", "", ""), ("# Metadata Columns", "", "")]
        data += [
            ("_spec_id", "int", ""),
            ("_partition", spark_type(partition), ""),
            ("_file", "string", ""),
            ("_pos", "bigint", ""),
            ("_deleted", "boolean", ""),
            ("_row_id", "bigint", ""),
            ("_last_updated_sequence_number", "bigint", ""),
        ]
        props = spark_properties(table)
        data += [
            ("", "", ""),
            ("# Detailed Table Information", "", ""),
            ("Name", f"{catalog.name}.{table.name}", ""),
            ("Type", "MANAGED", ""),
            ("Location", md.location, ""),
            ("Provider", "iceberg", ""),
        ]
        if md.properties.get("comment"):
            data.append(("Comment", md.properties["comment"], ""))
        if md.properties.get("owner"):
            data.append(("Owner", md.properties["owner"], ""))
        data.append(
            (
                "Table Properties",
                "[" + ",".join(f"{k}={v}" for k, v in sorted(props.items())) + "]",
                "",
            )
        )
    return rows([("col_name", _S), ("data_type", _S), ("comment", _S)], data)


def _partition_struct(table: Table) -> StructType:
    """Spark's ``_partition`` column: every partition field of every spec, by field id."""
    md = table.metadata
    schema = md.schema()
    fields: dict[int, NestedField] = {}
    for spec in md.specs:
        for f in spec.partition_type(schema).fields:
            fields.setdefault(f.field_id, f)
    return StructType(tuple(fields[k] for k in sorted(fields)))
