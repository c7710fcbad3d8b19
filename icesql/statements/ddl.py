"""CREATE / DROP of tables and namespaces, CREATE TABLE AS SELECT and REPLACE TABLE.

New tables get what Spark's Iceberg catalog gives them: fresh field ids in Java's order,
partition fields from 1000 with Java's names, format version 2 unless
``TBLPROPERTIES ('format-version'=...)`` says otherwise (the property itself is not stored),
``write.parquet.compression-codec=zstd`` and the ``owner`` property. A CTAS table appears
with its first snapshot in its first metadata version, or not at all. ``CREATE OR REPLACE``
keeps the table's history and the ids of the columns it keeps (Java's
``buildReplacement``), and leaves ``main`` on the new data (or on nothing).
"""

from __future__ import annotations

import getpass
from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from icesql.catalog.base import Catalog, CommitStateUnknownError
from icesql.catalog.table import Table
from icesql.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import (
    AssertCurrentSchemaId,
    AssertLastAssignedFieldId,
    AssertLastAssignedPartitionId,
    AssertTableUUID,
)
from icesql.metadata.table_updates import (
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    AddSortOrderUpdate,
    RemoveSnapshotRefUpdate,
    SetCurrentSchemaUpdate,
    SetDefaultSortOrderUpdate,
    SetDefaultSpecUpdate,
    SetPropertiesUpdate,
    UpgradeFormatVersionUpdate,
)
from icesql.session import Result, Session
from icesql.session.result import done
from icesql.spec.arrow import arrow_field_type
from icesql.spec.fresh_ids import fresh_schema_fields
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder
from icesql.spec.types import (
    IcebergType,
    NestedField,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    UnknownType,
)
from icesql.sql import nodes
from icesql.sql import spark_types as sql_types
from icesql.sql.dialect import NAMESPACE_PROPERTY, parse_term
from icesql.sql.identifiers import name_parts
from icesql.sql.nodes import Term
from icesql.sql.transform_terms import new_partition_spec
from icesql.statements import views
from icesql.statements.insert import as_query, write_query
from icesql.statements.names import namespace_name, table_name
from icesql.write import commit as committer
from icesql.write.column_metrics import MetricsConfig
from icesql.write.data_writer import WriteTarget
from icesql.write.properties import (
    DEFAULT_PARQUET_COMPRESSION,
    FORMAT_VERSION,
    PARQUET_COMPRESSION,
    RESERVED,
    TableProperties,
)
from icesql.write.schema_update import check_type_version
from icesql.write.snapshot import Change, SnapshotOperation

__all__ = ["create", "drop"]

_NAMESPACE_KINDS = ("NAMESPACE", "DATABASE", "SCHEMA")


def create(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    assert isinstance(statement, exp.Create)
    kind = (statement.args.get("kind") or "").upper()
    if kind in _NAMESPACE_KINDS:
        return _create_namespace(session, statement)
    if kind == "TABLE":
        return _create_table(session, statement, params)
    if kind == "VIEW":
        return views.create_view(session, statement, params)
    raise NotSupportedError(f"CREATE {kind} is not supported (tables, namespaces and views are)")


def drop(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    assert isinstance(statement, exp.Drop)
    kind = (statement.args.get("kind") or "").upper()
    exists = bool(statement.args.get("exists"))
    for node in (
        statement.args.get("expressions") or statement.args.get("tables") or [statement.this]
    ):
        parts = name_parts(node)
        if kind in _NAMESPACE_KINDS:
            catalog, namespace = namespace_name(session, parts)
            if not catalog.namespace_exists(namespace):
                if exists:
                    continue
                raise NoSuchNamespaceError(
                    f"[SCHEMA_NOT_FOUND] namespace not found: {'.'.join(namespace)}"
                )
            if statement.args.get("cascade"):
                for table in catalog.list_tables(namespace):
                    catalog.drop_table(table)
            catalog.drop_namespace(namespace)
        elif kind == "VIEW":
            views.drop_view(session, parts, exists)
        elif kind == "TABLE":
            if len(parts) == 1 and session.temp_views.drop(parts[0]):
                continue  # Spark's DROP TABLE drops a temporary view of the name
            catalog, identifier = table_name(session, parts)
            if not session.tables.exists(catalog, identifier):
                if exists:
                    continue
                raise NoSuchTableError(
                    f"[TABLE_OR_VIEW_NOT_FOUND] table not found: {'.'.join(identifier)}"
                )
            catalog.drop_table(identifier, purge=bool(statement.args.get("purge")))
            session.tables.forget(catalog, identifier)
        else:
            raise NotSupportedError(
                f"DROP {kind} is not supported (tables, namespaces and views are)"
            )
    return done()


# the reserved namespace properties Spark refuses in WITH DBPROPERTIES, and why
_SET_ONLY_BY_CLAUSE = {
    "location": "please use the LOCATION clause to specify it",
    "owner": "it will be set to the current user",
}


def _create_namespace(session: Session, statement: exp.Create) -> Result:
    catalog, namespace = namespace_name(session, name_parts(statement.this))
    properties: dict[str, str] = {}
    for prop in (statement.args.get("properties") or exp.Properties()).expressions:
        if isinstance(prop, exp.SchemaCommentProperty):  # Spark's reserved namespace keys
            properties["comment"] = prop.this.name
        elif isinstance(prop, exp.LocationProperty):
            properties["location"] = prop.this.name
        elif isinstance(prop, exp.Property) and prop.args.get("value") is not None:
            key = prop.this.name if isinstance(prop.this, exp.Literal) else prop.name
            if key in _SET_ONLY_BY_CLAUSE:
                raise NotSupportedError(
                    f"[UNSUPPORTED_FEATURE.SET_NAMESPACE_PROPERTY] The feature is not supported:"
                    f" {key} is a reserved namespace property, {_SET_ONLY_BY_CLAUSE[key]}."
                )
            properties[key] = prop.text("value") or prop.args["value"].sql(dialect="spark")
        else:
            raise NotSupportedError(
                f"CREATE NAMESPACE clause {prop.sql(dialect='spark')} is not supported"
            )
    if catalog.namespace_exists(namespace):
        if statement.args.get("exists"):
            return done()
        raise AlreadyExistsError(
            f"[SCHEMA_ALREADY_EXISTS] namespace already exists: {'.'.join(namespace)}"
        )
    catalog.create_namespace(namespace, properties or None)
    return done()


# ---------------------------------------------------------------------------------------------
# CREATE TABLE


class _TableSpec:
    """What a CREATE TABLE statement asks for, before ids are assigned."""

    def __init__(self, statement: exp.Create):
        self.fields: list[NestedField] | None = None
        self.terms: list[Term] = []
        self.properties: dict[str, str] = {}
        self.location: str | None = None
        self.comment: str | None = None
        this = statement.this
        if isinstance(this, exp.Schema):
            self.fields = [
                sql_types.column_field(c) for c in this.expressions if isinstance(c, exp.ColumnDef)
            ]
            others = [c for c in this.expressions if not isinstance(c, exp.ColumnDef)]
            if others:
                raise NotSupportedError(
                    f"table constraint {others[0].sql(dialect='spark')} is not supported"
                )
        for prop in (statement.args.get("properties") or exp.Properties()).expressions:
            self._property(prop)

    def place(self, catalog: Catalog, identifier: tuple[str, ...]) -> None:
        """Settle the table's location: the LOCATION given (where the catalog allows one),
        else the catalog's default."""
        if self.location is None:
            self.location = catalog.default_table_location(identifier)
        elif not catalog.custom_locations:
            expected = catalog.default_table_location(identifier)
            if self.location.rstrip("/") != expected.rstrip("/"):
                raise ProgrammingError(
                    f"cannot set a custom location for a table of the file-system catalog:"
                    f" expected {expected} but got {self.location}"
                )

    def _property(self, prop: exp.Expr) -> None:
        if isinstance(prop, exp.FileFormatProperty):
            provider = prop.name.lower()
            if provider != "iceberg":
                raise NotSupportedError(
                    f"USING {prop.name}: icesql creates only Iceberg tables (USING iceberg)"
                )
        elif isinstance(prop, exp.PartitionedByProperty):
            items = prop.this.expressions if isinstance(prop.this, exp.Schema) else [prop.this]
            self.terms = [parse_term(i.sql(dialect="spark")) for i in items]
        elif isinstance(prop, exp.LocationProperty):
            self.location = prop.this.name
        elif isinstance(prop, exp.SchemaCommentProperty):
            self.comment = prop.this.name
        elif prop.meta.get(NAMESPACE_PROPERTY):
            raise ProgrammingError(
                "CREATE TABLE takes TBLPROPERTIES (...); WITH [DB]PROPERTIES is a namespace's"
            )
        elif isinstance(prop, exp.Property):
            key = prop.this.name if isinstance(prop.this, exp.Literal) else prop.name
            value = prop.args.get("value")
            if value is None:  # TEMPORARY, EXTERNAL, ROW FORMAT ...: a clause without a value
                raise NotSupportedError(
                    f"CREATE TABLE clause {prop.sql(dialect='spark')} is not supported"
                )
            self.properties[key] = (
                value.name if isinstance(value, exp.Literal) else value.sql(dialect="spark")
            )
        else:
            raise NotSupportedError(
                f"CREATE TABLE clause {prop.sql(dialect='spark')} is not supported"
            )


def _format_version(properties: dict[str, str], default: int) -> int:
    text = properties.pop(FORMAT_VERSION, None)
    if text is None:
        return default
    try:
        version = int(text)
    except ValueError:
        version = -1
    if version not in (1, 2, 3):
        raise ProgrammingError(f"unsupported format-version {text!r}: icesql writes 1, 2 and 3")
    return version


def _stored_properties(spec: _TableSpec) -> dict[str, str]:
    props = dict(spec.properties)
    reserved = sorted(k for k in props if k in RESERVED and k != FORMAT_VERSION)
    if reserved:
        raise ProgrammingError(
            f"table properties {', '.join(reserved)} are reserved and cannot be set"
        )
    if spec.comment is not None:
        props["comment"] = spec.comment
    return props


def _check_schema(schema: Schema, format_version: int, table: str) -> None:
    seen: set[str] = set()
    for f in schema.fields:
        if f.name.lower() in seen:
            raise ProgrammingError(f"cannot create {table}: column {f.name!r} appears twice")
        seen.add(f.name.lower())
    for fid in schema.field_ids():
        t = schema.find_type(fid)
        if isinstance(t, UnknownType) and format_version < 3:
            raise ProgrammingError(
                f"cannot create {table}: column {schema.find_column_name(fid)!r} has no type (NULL);"
                " cast it, e.g. CAST(NULL AS STRING)"
            )
    for f in schema.fields:
        check_type_version(f.type, format_version, f"cannot create {table}", f.name)


def _query_fields(arrow_schema: Any) -> list[NestedField]:
    """CTAS columns: the query's names and types, all optional (Spark's ``asNullable``)."""
    out = []
    for f in arrow_schema:
        try:
            t = arrow_field_type(f, [1])
        except NotSupportedError as e:
            raise NotSupportedError(
                f"cannot create a column `{f.name}` of type {f.type}: {e}; cast it in the query"
                " (e.g. an unsigned 64-bit column to DECIMAL(20,0))"
            ) from None
        out.append(NestedField(0, f.name, _optional(t), False))
    return out


def _spark_timestamps(fields: list[NestedField], format_version: int) -> list[NestedField]:
    """Below format version 3 a CTAS column of nanosecond timestamps (a pandas
    ``datetime64[ns]``, DuckDB's ``TIMESTAMP_NS``) takes Spark's microsecond type, as Spark
    reading the same data would; a value with sub-microsecond digits then fails the write,
    naming its column. Version 3 tables keep nanoseconds."""
    if format_version >= 3:
        return fields
    micros: dict[type[IcebergType], IcebergType] = {
        TimestampNanoType: TimestampType(),
        TimestamptzNanoType: TimestamptzType(),
    }
    return [
        NestedField(f.field_id, f.name, micros[type(f.type)], f.required, f.doc)
        if type(f.type) in micros
        else f
        for f in fields
    ]


def _optional(t: Any) -> Any:
    from icesql.spec.types import ListType, MapType, StructType

    if isinstance(t, StructType):
        return StructType(
            tuple(NestedField(0, f.name, _optional(f.type), False, f.doc) for f in t.fields)
        )
    if isinstance(t, ListType):
        return ListType(0, _optional(t.element_type), False)
    if isinstance(t, MapType):
        return MapType(0, _optional(t.key_type), 0, _optional(t.value_type), False)
    return t


def _create_table(session: Session, statement: exp.Create, params: Sequence[object]) -> Result:
    catalog, identifier = table_name(session, name_parts(statement.this))
    name = ".".join(identifier)
    spec = _TableSpec(statement)
    query = statement.args.get("expression")
    replace = bool(statement.args.get("replace"))
    # a replacement starts from the table as it is (one round trip: load, or learn there is
    # none); a plain CREATE only needs to know whether the name is taken
    tables = session.tables
    table = tables.find(catalog, identifier) if replace else None
    exists = table is not None if replace else tables.exists(catalog, identifier)
    if not exists and statement.args.get(nodes.REPLACE_ONLY):
        raise NoSuchTableError(
            f"[CANNOT_REPLACE_MISSING_TABLE] table {name} cannot be replaced as it does not"
            " exist: use CREATE OR REPLACE TABLE to create it"
        )
    if exists and not replace:
        if statement.args.get("exists"):
            return done()
        raise AlreadyExistsError(f"[TABLE_OR_VIEW_ALREADY_EXISTS] table already exists: {name}")
    if query is not None and spec.fields is not None:
        raise ProgrammingError(f"cannot create {name}: CREATE TABLE AS SELECT takes no column list")
    if query is None and spec.fields is None:
        raise ProgrammingError(f"cannot create {name}: no columns given")
    if table is not None:
        if spec.location is not None:
            spec.place(catalog, identifier)
            if spec.location.rstrip("/") != table.metadata.location.rstrip("/"):
                raise NotSupportedError(
                    f"cannot replace {name} at {spec.location}: REPLACE TABLE keeps the table's"
                    f" location ({table.metadata.location})"
                )
        return _replace_table(session, catalog, table, spec, query, params)
    spec.place(catalog, identifier)

    result = None
    fields = spec.fields
    if query is not None:
        result = session.query(as_query(query), params)
        assert result.reader is not None  # a query's result is a stream of rows
        fields = _query_fields(result.reader.schema)
    try:
        return _create_new_table(session, catalog, identifier, spec, fields, result, params)
    finally:
        session.tables.forget(catalog, identifier)  # found missing above, there now (or not)
        if result is not None:
            result.close()


def _create_new_table(
    session: Session,
    catalog: Catalog,
    identifier: tuple[str, ...],
    spec: _TableSpec,
    fields: Any,
    result: Any,
    params: Sequence[object],
) -> Result:
    name = ".".join(identifier)
    props = _stored_properties(spec)
    version = _format_version(props, 2)
    if result is not None:
        fields = _spark_timestamps(fields, version)
    schema = Schema(fresh_schema_fields(fields, 1), 0)
    _check_schema(schema, version, name)
    partition_spec = new_partition_spec(schema, spec.terms)
    stored = {"owner": _owner(), PARQUET_COMPRESSION: DEFAULT_PARQUET_COMPRESSION, **props}
    TableProperties(stored, name).parquet_compression  # noqa: B018 - validates the codec
    assert spec.location is not None
    metadata = new_table_metadata(
        spec.location,
        schema,
        partition_spec,
        SortOrder(0, ()),
        stored,
        format_version=version,
    )
    if result is None:
        committer.create_table(catalog, identifier, metadata)
        return done()
    table = Table(identifier, metadata, "", _io(catalog))
    files, rows, _ = write_query(session, table, None, params, result=result)
    try:
        committer.create_table(
            catalog,
            identifier,
            metadata,
            Change(operation=SnapshotOperation.APPEND, added_files=tuple(files)),
        )
    except CommitStateUnknownError:
        raise  # the files may be part of the table now
    except BaseException:
        _delete(table, files)
        raise
    return done(rows)


def _owner() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return "icesql"


def _io(catalog: Any) -> Any:
    from icesql.io import FileIO

    return getattr(catalog, "io", None) or FileIO()


def _delete(table: Table, files: Sequence[Any]) -> None:
    for f in files:
        try:
            table.io.delete(f.file_path)
        except Exception:
            pass


# ---------------------------------------------------------------------------------------------
# CREATE OR REPLACE TABLE


def _replacement_spec(
    base: TableMetadata, schema: Schema, terms: Sequence[Term], version: int
) -> PartitionSpec:
    """Java's ``reassignPartitionIds``: keep the id of a (source, transform) pair any earlier
    spec had; new pairs get ids after ``last-partition-id`` (v1: by position from 1000)."""
    fresh = new_partition_spec(schema, terms)
    if version < 2:
        return fresh
    known: dict[tuple[int, str], int] = {}
    for s in base.specs:
        for f in s.fields:
            known.setdefault((f.source_id, str(f.transform)), f.field_id)
    next_id = base.last_partition_id
    fields = []
    for f in fresh.fields:
        fid = known.get((f.source_id, str(f.transform)))
        if fid is None:
            next_id += 1
            fid = next_id
        fields.append(PartitionField(f.source_id, fid, f.transform, f.name))
    return PartitionSpec(0, tuple(fields))


def _replace_table(
    session: Session,
    catalog: Catalog,
    table: Table,
    spec: _TableSpec,
    query: exp.Expr | None,
    params: Sequence[object],
) -> Result:
    result = None
    fields = spec.fields
    if query is not None:
        result = session.query(as_query(query), params)
        assert result.reader is not None  # a query's result is a stream of rows
        fields = _query_fields(result.reader.schema)
    try:
        return _replace_with(session, catalog, table, spec, fields, result, params)
    finally:
        if result is not None:
            result.close()


def _replace_with(
    session: Session,
    catalog: Catalog,
    table: Table,
    spec: _TableSpec,
    fields: Any,
    result: Any,
    params: Sequence[object],
) -> Result:
    base = table.metadata
    name = table.name
    props = _stored_properties(spec)
    version = _format_version(props, base.format_version)
    if version < base.format_version:
        raise ProgrammingError(
            f"cannot replace {name}: cannot downgrade format version {base.format_version} to {version}"
        )
    if result is not None:
        fields = _spark_timestamps(fields, version)
    schema = Schema(fresh_schema_fields(fields, base.last_column_id + 1, base.schema()), 0)
    _check_schema(schema, version, name)
    updates = [
        AddSchemaUpdate(schema),
        SetCurrentSchemaUpdate(),
        AddPartitionSpecUpdate(_replacement_spec(base, schema, spec.terms, version)),
        SetDefaultSpecUpdate(),
        AddSortOrderUpdate(SortOrder(0, ())),
        SetDefaultSortOrderUpdate(),
        SetPropertiesUpdate(props),
        RemoveSnapshotRefUpdate("main"),
    ]
    if version > base.format_version:
        updates.insert(0, UpgradeFormatVersionUpdate(version))
    requirements = (
        AssertTableUUID(base.table_uuid),
        AssertCurrentSchemaId(base.current_schema_id),
        AssertLastAssignedFieldId(base.last_column_id),
        AssertLastAssignedPartitionId(base.last_partition_id),
    )
    if result is None:
        committer.commit(catalog, table, Change(updates=tuple(updates), requirements=requirements))
        return done()
    view = TableMetadata(base.builder().apply(updates).raw, base.path)
    new_schema, order = view.schema(), view.sort_order()
    props_view = TableProperties(view.properties, name)
    target = WriteTarget(
        io=table.io,
        data_location=props_view.data_location(view.location),
        schema=new_schema,
        spec=view.spec(),
        sort_order=order,
        properties=props_view,
        metrics=MetricsConfig.for_table(new_schema, view.properties, order),
    )
    files, rows, _ = write_query(session, table, None, params, target=target, result=result)
    change = Change(
        operation=SnapshotOperation.OVERWRITE,
        added_files=tuple(files),
        keep_existing=False,
        updates=tuple(updates),
        requirements=requirements,
    )
    try:
        committer.commit(catalog, table, change)
    except CommitStateUnknownError:
        raise  # the files may be part of the table now
    except BaseException:
        _delete(table, files)
        raise
    return done(rows)
