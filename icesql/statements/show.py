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
from icesql.catalog.table import Table
from icesql.errors import NoSuchNamespaceError, NoSuchTableError
from icesql.session import Result, Session
from icesql.session.result import rows
from icesql.spec.partitioning import PartitionField
from icesql.spec.schema import Schema
from icesql.spec.sorting import ASC, NULLS_FIRST, SortOrder
from icesql.spec.types import NestedField, StructType
from icesql.sql import nodes
from icesql.sql.identifiers import catalog_named, name_parts
from icesql.sql.spark_type_names import spark_ddl_type, spark_type
from icesql.statements.names import namespace_name, table_name
from icesql.write.properties import RESERVED

__all__ = ["describe", "show", "spark_properties", "transform_sql"]

_HIDDEN = frozenset({"provider", "location", "owner", "comment", "external", "is_managed_location"})
_S = pa.string()


def _load(session: Session, parts: Sequence[str]) -> tuple[Catalog, Table]:
    catalog, identifier = table_name(session, parts)
    if not catalog.table_exists(identifier):
        raise NoSuchTableError(f"[TABLE_OR_VIEW_NOT_FOUND] table not found: {'.'.join(identifier)}")
    return catalog, catalog.load_table(identifier)


def _pattern(pattern: str | None) -> re.Pattern[str] | None:
    """Spark's ``LIKE`` for SHOW: ``*`` any text, ``|`` alternatives, case-insensitive."""
    if pattern is None:
        return None
    parts = [re.escape(p.strip()).replace(r"\*", ".*") for p in pattern.split("|")]
    return re.compile("^(?:" + "|".join(parts) + ")$", re.IGNORECASE)


def show(session: Session, parsed: exp.Expr, params: Sequence[object]) -> Result:
    if isinstance(parsed, nodes.ShowNamespaces):
        catalog, parent = namespace_name(session, parsed.namespace or ())
        named = catalog_named(parent[0], session.catalogs) if len(parent) == 1 else None
        if named is not None and not catalog.namespace_exists(parent):
            catalog, parent = named, ()  # SHOW NAMESPACES IN prod: the top of catalog prod
        if parent and not catalog.namespace_exists(parent):
            raise NoSuchNamespaceError(f"[SCHEMA_NOT_FOUND] namespace not found: {'.'.join(parent)}")
        pattern = _pattern(parsed.pattern)
        names = [".".join(ns) for ns in sorted(catalog.list_namespaces(parent))]
        names = [n for n in names if pattern is None or pattern.match(n.rsplit(".", 1)[-1])]
        return rows([("namespace", _S)], [(n,) for n in names])
    if isinstance(parsed, nodes.ShowTables):
        if parsed.namespace:
            catalog, namespace = namespace_name(session, parsed.namespace)
        else:
            catalog, namespace = session.catalog, tuple(session.default_namespace)
        if not catalog.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"[SCHEMA_NOT_FOUND] namespace not found: {'.'.join(namespace)}")
        pattern = _pattern(parsed.pattern)
        tables = sorted(catalog.list_tables(namespace))
        data = [
            (".".join(t[:-1]), t[-1], False)
            for t in tables
            if pattern is None or pattern.match(t[-1])
        ]
        return rows([("namespace", _S), ("tableName", _S), ("isTemporary", pa.bool_())], data)
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


# ---------------------------------------------------------------------------------------------
# Spark's descriptions of a table


def spark_properties(table: Table) -> dict[str, str]:
    """The properties Spark shows for an Iceberg table (stored ones plus derived ones)."""
    md = table.metadata
    stored = dict(md.properties)
    out = {
        "format": "iceberg/" + stored.get("write.format.default", "parquet").lower(),
        "current-snapshot-id": str(md.current_snapshot_id) if md.current_snapshot_id is not None else "none",
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
    column = schema.find_column_name(field.source_id) if schema.has_field_id(field.source_id) else str(field.source_id)
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


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def show_create_table(table: Table, catalog_name: str) -> str:
    md = table.metadata
    schema = md.schema()
    columns = []
    for f in schema.fields:
        line = f"  {f.name} {spark_ddl_type(f.type)}"
        if f.required:
            line += " NOT NULL"
        if f.doc:
            line += f" COMMENT {_quote(f.doc)}"
        columns.append(line)
    out = f"CREATE TABLE {catalog_name}.{table.name} (\n" + ",\n".join(columns) + ")\nUSING iceberg\n"
    spec = md.spec()
    if spec.fields:
        out += "PARTITIONED BY (" + ", ".join(transform_sql(f, schema) for f in spec.fields) + ")\n"
    comment = md.properties.get("comment")
    if comment:
        out += f"COMMENT {_quote(comment)}\n"
    out += f"LOCATION {_quote(md.location)}\n"
    props = spark_properties(table)
    out += "TBLPROPERTIES (\n" + ",\n".join(
        f"  {_quote(k)} = {_quote(v)}" for k, v in sorted(props.items())
    ) + ")\n"
    return out


def describe(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    """``DESCRIBE [TABLE] [EXTENDED] t``: Spark's rows (col_name, data_type, comment)."""
    assert isinstance(statement, exp.Describe)
    catalog, table = _load(session, name_parts(statement.this))
    md = table.metadata
    schema = md.schema()
    extended = (statement.args.get("style") or "").upper() in ("EXTENDED", "FORMATTED")
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
        data.append(("Table Properties", "[" + ",".join(f"{k}={v}" for k, v in sorted(props.items())) + "]", ""))
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
