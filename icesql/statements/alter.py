"""ALTER TABLE: schema, partitioning, write order, identifier fields, properties (branches
and tags: ``icesql.statements.refs``).

Each statement becomes one metadata-only commit: the new schema / spec / sort order is
computed from the table as loaded (``icesql.write.schema_update`` and ``spec_update``), and
committed with the requirement that what it was computed from is still current, so a
concurrent change makes the statement fail rather than be overwritten. Spark's
conventions hold: ``ADD PARTITION FIELD bucket(16, id)`` is named ``id_bucket_16``,
``WRITE ORDERED BY`` also sets ``write.distribution-mode=range`` (``LOCALLY ORDERED BY``
leaves it, ``DISTRIBUTED BY PARTITION`` sets ``hash``, ``UNORDERED`` sets ``none``), and
``SET TBLPROPERTIES ('format-version'='3')`` upgrades the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pyarrow as pa
from sqlglot import exp

from icesql.catalog.table import Table
from icesql.errors import NoSuchTableError, NotSupportedError, ProgrammingError
from icesql.metadata.table_requirements import (
    AssertCurrentSchemaId,
    AssertDefaultSortOrderId,
    AssertDefaultSpecId,
    AssertLastAssignedFieldId,
    AssertLastAssignedPartitionId,
)
from icesql.metadata.table_updates import (
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    AddSortOrderUpdate,
    RemovePropertiesUpdate,
    SetCurrentSchemaUpdate,
    SetDefaultSortOrderUpdate,
    SetDefaultSpecUpdate,
    SetPropertiesUpdate,
    TableUpdate,
    UpgradeFormatVersionUpdate,
)
from icesql.session import Result, Session
from icesql.session.result import done
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import NestedField
from icesql.sql import nodes
from icesql.sql.defaults import Evaluate, check_defaults_supported, default_value
from icesql.sql.identifiers import catalog_and_table, name_parts
from icesql.sql.spark_types import column_field, iceberg_type
from icesql.sql.transform_terms import default_partition_name, new_sort_order, source_field
from icesql.statements.iceberg_views import alter_view
from icesql.statements.names import table_name
from icesql.statements.refs import change_ref
from icesql.statements.views import refuse_view_target
from icesql.write import schema_update as su
from icesql.write.commit import commit
from icesql.write.properties import DISTRIBUTION_MODE, FORMAT_VERSION, RESERVED
from icesql.write.snapshot import Change
from icesql.write.spec_update import add_partition_field, remove_partition_field

__all__ = ["alter"]


def alter(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    assert isinstance(statement, exp.Alter)
    actions = statement.args.get("actions") or []
    kind = str(statement.args.get("kind") or "").upper()
    if kind == "VIEW":
        return alter_view(session, statement)
    if kind != "TABLE" or len(actions) != 1:
        raise NotSupportedError("ALTER statements are not supported yet")
    parsed = actions[0]
    refuse_view_target(session, statement.this)
    catalog, identifier = table_name(session, name_parts(statement.this))
    table = session.tables.find(catalog, identifier)
    if table is None:
        raise NoSuchTableError(f"[TABLE_OR_VIEW_NOT_FOUND] table not found: {'.'.join(identifier)}")
    if isinstance(parsed, nodes.RenameTable):
        target_catalog, target = catalog_and_table(
            parsed.new_name, session.catalogs, catalog, identifier[:-1]
        )
        if target_catalog is not catalog:
            raise NotSupportedError(
                f"cannot rename {table.name} of catalog {catalog.name!r} into catalog"
                f" {target_catalog.name!r}: a rename stays in its catalog"
            )
        catalog.rename_table(identifier, target)
        session.tables.forget(catalog, identifier)
        return done()
    if isinstance(parsed, nodes.CreateOrReplaceRef | nodes.DropRef):
        change_ref(catalog, table, parsed)
        return done()
    change = _change(table, parsed, _evaluator(session, params))
    if change is not None:
        commit(catalog, table, change)
    return done()


def _evaluator(session: Session, params: Sequence[object]) -> Evaluate:
    """Runs ``SELECT <expression>`` for a constant DEFAULT expression (``icesql.sql.defaults``)."""

    def evaluate(node: exp.Expr) -> pa.Table:
        result = session.query(exp.select(node.copy()), params)
        try:
            assert result.reader is not None
            return result.reader.read_all()
        finally:
            result.close()

    return evaluate


def _change(table: Table, parsed: object, evaluate: Evaluate | None = None) -> Change | None:
    if isinstance(parsed, nodes.SetTableProperties | nodes.UnsetTableProperties):
        return _properties(table, parsed)
    if isinstance(
        parsed, nodes.AddPartitionField | nodes.DropPartitionField | nodes.ReplacePartitionField
    ):
        return _partitioning(table, parsed)
    if isinstance(parsed, nodes.WriteDistributionAndOrdering):
        return _ordering(table, parsed)
    schema = _new_schema(table, parsed, evaluate)
    if schema is None:
        return None
    md = table.metadata
    return Change(
        updates=(AddSchemaUpdate(schema), SetCurrentSchemaUpdate()),
        requirements=(
            AssertCurrentSchemaId(md.current_schema_id),
            AssertLastAssignedFieldId(md.last_column_id),
        ),
    )


# --- schema ----------------------------------------------------------------------------------


def _new_schema(table: Table, parsed: object, evaluate: Evaluate | None = None) -> Schema | None:
    md, name = table.metadata, table.name
    schema = md.schema()
    if isinstance(parsed, nodes.AddColumns):
        last = md.last_column_id
        for column in parsed.columns:
            field = column_field_of(column)
            su.check_type_version(
                field.type, md.format_version, f"cannot alter {name}", ".".join(column.path)
            )
            if column.default is not None:
                check_defaults_supported(md.format_version, name)
                value = default_value(column.default, field, name, evaluate)
                field = replace(field, initial_default=value, write_default=value)
            schema, last = su.add_column(
                schema, column.path, field, last, name, first=column.first, after=column.after
            )
        return schema
    if isinstance(parsed, nodes.DropColumns):
        for path in parsed.paths:
            if parsed.if_exists and not _exists(schema, path):
                continue
            schema = su.delete_column(schema, path, md.spec(), name)
        return schema
    if isinstance(parsed, nodes.RenameColumn):
        return su.rename_column(schema, parsed.path, parsed.new_name, name)
    if isinstance(parsed, nodes.AlterColumn):
        return _alter_column(table, schema, parsed, evaluate)
    if isinstance(parsed, nodes.SetIdentifierFields):
        return su.set_identifier_fields(schema, parsed.paths, name)
    if isinstance(parsed, nodes.DropIdentifierFields):
        current = set(schema.identifier_field_ids)
        drop = set()
        for path in parsed.paths:
            f = su._field(schema, path, su._Ctx(name))
            if f.field_id not in current:
                raise ProgrammingError(
                    f"cannot alter {name}: {'.'.join(path)!r} is not an identifier field"
                    f" (identifier fields: {', '.join(schema.identifier_field_names()) or 'none'})"
                )
            drop.add(f.field_id)
        return Schema(
            schema.fields,
            schema.schema_id,
            tuple(i for i in schema.identifier_field_ids if i not in drop),
        )
    raise ProgrammingError(f"unsupported ALTER TABLE action {type(parsed).__name__}")


def column_field_of(column: nodes.NewColumn) -> NestedField:
    node = exp.ColumnDef(this=exp.to_identifier(column.path[-1]), kind=column.data_type)
    field = column_field(node)
    return type(field)(field.field_id, field.name, field.type, column.not_null, column.comment)


def _exists(schema: Schema, path: nodes.Name) -> bool:
    try:
        schema.find_field_by_name(".".join(path))
        return True
    except ProgrammingError:
        return False


def _alter_column(
    table: Table, schema: Schema, parsed: nodes.AlterColumn, evaluate: Evaluate | None = None
) -> Schema:
    md, name = table.metadata, table.name
    if parsed.data_type is not None:
        schema = su.promote_type(
            schema, parsed.path, iceberg_type(parsed.data_type), md.format_version, md.specs, name
        )
    if parsed.comment is not None:
        schema = su.update_doc(schema, parsed.path, parsed.comment, name)
    if parsed.default is not None or parsed.drop_default:
        check_defaults_supported(md.format_version, name)
        target = su._field(schema, parsed.path, su._Ctx(name))
        value = (
            None
            if parsed.drop_default or parsed.default is None  # None: dropped (the if above)
            else default_value(parsed.default, target, name, evaluate)
        )
        schema = su.set_write_default(schema, parsed.path, value, name)
    if parsed.drop_not_null:
        schema = su.make_optional(schema, parsed.path, name)
    if parsed.set_not_null:
        f = schema.find_field_by_name(".".join(parsed.path))
        if not f.required:
            raise ProgrammingError(
                f"cannot alter {name}: cannot change column nullability of {'.'.join(parsed.path)!r}:"
                " optional -> required is an incompatible change"
            )
    if parsed.first or parsed.after is not None:
        schema = su.move_column(schema, parsed.path, parsed.first, parsed.after, name)
    return schema


# --- properties ------------------------------------------------------------------------------


def _properties(table: Table, parsed: object) -> Change:
    md = table.metadata
    updates: list[TableUpdate] = []
    if isinstance(parsed, nodes.SetTableProperties):
        props = dict(parsed.properties)
        version = props.pop(FORMAT_VERSION, None)
        _no_reserved(props, table.name)
        if version is not None:
            try:
                v = int(version)
            except ValueError:
                v = -1
            if v not in (1, 2, 3):
                raise ProgrammingError(
                    f"cannot alter {table.name}: unsupported format-version {version!r}"
                )
            if v < md.format_version:
                raise ProgrammingError(
                    f"cannot alter {table.name}: cannot downgrade format-version {md.format_version} to {v}"
                )
            if v > md.format_version:
                updates.append(UpgradeFormatVersionUpdate(v))
        if props:
            updates.append(SetPropertiesUpdate(props))
    else:
        assert isinstance(parsed, nodes.UnsetTableProperties)
        _no_reserved(dict.fromkeys(parsed.keys, ""), table.name)
        updates.append(RemovePropertiesUpdate(tuple(parsed.keys)))
    return Change(updates=tuple(updates))


def _no_reserved(props: dict[str, str], table: str) -> None:
    reserved = sorted(k for k in props if k in RESERVED)
    if reserved:
        raise ProgrammingError(
            f"cannot alter {table}: table properties {', '.join(reserved)} are reserved"
        )


# --- partitioning ----------------------------------------------------------------------------


def _find_partition_field(
    table: Table, spec: PartitionSpec, ref: nodes.DropPartitionField
) -> PartitionField:
    schema = table.metadata.schema()
    if ref.field_name is not None:
        for f in spec.fields:
            if f.name == ref.field_name:
                return f
    if ref.term is not None:
        try:
            source_id = source_field(schema, ref.term.column)
        except ProgrammingError:
            source_id = None
        for f in spec.fields:
            if f.source_id == source_id and str(f.transform) == ref.term.transform:
                return f
    wanted = ref.field_name or f"{ref.term.transform}({'.'.join(ref.term.column)})"
    names = ", ".join(f.name for f in spec.fields) or "none"
    raise ProgrammingError(
        f"cannot alter {table.name}: no partition field {wanted} (fields: {names})"
    )


def _partitioning(table: Table, parsed: object) -> Change:
    md = table.metadata
    schema = md.schema()
    spec = md.spec()
    last = md.last_partition_id
    if isinstance(parsed, nodes.DropPartitionField | nodes.ReplacePartitionField):
        old = parsed if isinstance(parsed, nodes.DropPartitionField) else parsed.old
        spec = remove_partition_field(md, spec, _find_partition_field(table, spec, old), table.name)
    if isinstance(parsed, nodes.AddPartitionField | nodes.ReplacePartitionField):
        term = parsed.term
        source_id = source_field(schema, term.column)
        name = parsed.field_name or default_partition_name(
            term, schema.find_column_name(source_id), evolving=True
        )
        spec, last = add_partition_field(
            md,
            spec,
            source_id,
            term.transform,
            name,
            parsed.field_name is not None,
            table.name,
            last,
        )
    return Change(
        updates=(AddPartitionSpecUpdate(spec), SetDefaultSpecUpdate()),
        requirements=(
            AssertCurrentSchemaId(md.current_schema_id),
            AssertDefaultSpecId(md.default_spec_id),
            AssertLastAssignedPartitionId(md.last_partition_id),
        ),
    )


# --- write order -----------------------------------------------------------------------------


def _ordering(table: Table, parsed: nodes.WriteDistributionAndOrdering) -> Change:
    md = table.metadata
    order = new_sort_order(md.schema(), parsed.order)
    updates: list[TableUpdate] = [AddSortOrderUpdate(order), SetDefaultSortOrderUpdate()]
    if parsed.distribution is not None:
        updates.append(SetPropertiesUpdate({DISTRIBUTION_MODE: parsed.distribution}))
    return Change(
        updates=tuple(updates),
        requirements=(
            AssertCurrentSchemaId(md.current_schema_id),
            AssertDefaultSortOrderId(md.default_sort_order_id),
        ),
    )
