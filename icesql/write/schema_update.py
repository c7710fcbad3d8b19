"""Schema evolution as pure functions: a schema and a change in, a new schema out.

The rules are the spec's (Schema Evolution) as Java's ``SchemaUpdate`` enforces them:

* a new column takes the next id after ``last-column-id`` and its nested fields the ids
  after it (Java's fresh-id order); it is optional (adding a required column without a
  default is an incompatible change) and goes last in its struct unless placed with
  ``FIRST`` / ``AFTER``;
* a column is found by its dotted name, case-insensitively as Spark resolves names; the
  struct inside a list or map is reached through the list's or map's name
  (``points.x`` for ``points.element.x``);
* type changes are the spec's promotions only: int -> long, float -> double,
  decimal(P, S) -> decimal(P', S) with P' > P (v3 adds date -> timestamp/timestamp_ns and
  unknown -> any type, except for the source of a bucket partition);
* required -> optional is allowed, optional -> required is not;
* identifier fields are required primitive fields, not float/double, not inside a list
  or map; they cannot be dropped while they are identifier fields.

Every error is a ``ProgrammingError`` naming the column and the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from icesql.errors import ProgrammingError
from icesql.spec.fresh_ids import fresh_schema_fields
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema, walk_fields
from icesql.spec.types import (
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    NestedType,
    StructType,
    TimestampNanoType,
    TimestampType,
    UnknownType,
    is_primitive,
    min_format_version,
)

__all__ = [
    "add_column",
    "check_type_version",
    "delete_column",
    "make_optional",
    "move_column",
    "promote_type",
    "rename_column",
    "set_identifier_fields",
    "update_doc",
]

Path = Sequence[str]


class _Ctx:
    def __init__(self, table: str):
        self.table = table

    def error(self, message: str) -> ProgrammingError:
        return ProgrammingError(f"cannot alter {self.table}: {message}")


def check_type_version(t: IcebergType, format_version: int, context: str, column: str) -> None:
    """Refuse a column of a type newer than the table's format version (nanosecond
    timestamps, unknown, variant, geometry: v3), as Java's ``Schema.checkCompatibility``
    does; ``context`` starts the message (``cannot create db.t``), which names the field."""
    leaves = (
        [((column, *path), f.type) for path, f in walk_fields(t) if is_primitive(f.type)]
        if isinstance(t, NestedType)  # as not is_primitive(t): a type is one or the other
        else [((column,), t)]
    )
    for path, leaf in leaves:
        needed = min_format_version(leaf)
        if needed > format_version:
            raise ProgrammingError(
                f"{context}: column {'.'.join(path)!r} of type {leaf} needs format-version"
                f" {needed} (the table is version {format_version}; ('format-version'='{needed}')"
                " upgrades it)"
            )


def _find(fields: Sequence[NestedField], name: str) -> int | None:
    lowered = name.lower()
    for i, f in enumerate(fields):
        if f.name.lower() == lowered:
            return i
    return None


def _struct_of(t: IcebergType) -> StructType | None:
    """The struct a name step goes into: a struct itself, or a list's/map's struct."""
    if isinstance(t, StructType):
        return t
    if isinstance(t, ListType) and isinstance(t.element_type, StructType):
        return t.element_type
    if isinstance(t, MapType) and isinstance(t.value_type, StructType):
        return t.value_type
    return None


def _rebuild(t: IcebergType, struct: StructType) -> IcebergType:
    """``t`` with its (possibly list/map-wrapped) struct replaced by ``struct``."""
    if isinstance(t, StructType):
        return struct
    if isinstance(t, ListType):
        return ListType(t.element_id, struct, t.element_required)
    assert isinstance(t, MapType)
    return MapType(t.key_id, t.key_type, t.value_id, struct, t.value_required)


def _edit_struct(
    fields: tuple[NestedField, ...],
    parent: Path,
    edit: Callable[[tuple[NestedField, ...]], tuple[NestedField, ...]],
    ctx: _Ctx,
    full: Path,
) -> tuple[NestedField, ...]:
    """Apply ``edit(fields) -> fields`` to the struct at ``parent`` below ``fields``."""
    if not parent:
        return edit(fields)
    step = _find(fields, parent[0])
    name = ".".join(full)
    if step is None:
        raise ctx.error(f"column {name!r} does not exist")
    f = fields[step]
    struct = _struct_of(f.type)
    if struct is None:
        raise ctx.error(f"column {name!r} does not exist ({f.name} has no fields)")
    new_struct = StructType(_edit_struct(struct.fields, parent[1:], edit, ctx, full))
    return fields[:step] + (replace(f, type=_rebuild(f.type, new_struct)),) + fields[step + 1 :]


def _with_fields(
    schema: Schema, fields: tuple[NestedField, ...], ids: Sequence[int] | None = None
) -> Schema:
    return Schema(
        fields, schema.schema_id, tuple(schema.identifier_field_ids if ids is None else ids)
    )


def _field(schema: Schema, path: Path, ctx: _Ctx) -> NestedField:
    try:
        return schema.find_field_by_name(".".join(path))
    except ProgrammingError:
        raise ctx.error(f"column {'.'.join(path)!r} does not exist") from None


def _positioned(
    fields: tuple[NestedField, ...], new: NestedField, first: bool, after: str | None, ctx: _Ctx
) -> tuple[NestedField, ...]:
    if first:
        return (new, *fields)
    if after is None:
        return (*fields, new)
    i = _find(fields, after)
    if i is None:
        raise ctx.error(
            f"cannot place {new.name!r} after {after!r}: no such column in the same struct"
        )
    return fields[: i + 1] + (new,) + fields[i + 1 :]


def add_column(
    schema: Schema,
    path: Path,
    field: NestedField,
    last_column_id: int,
    table: str,
    first: bool = False,
    after: str | None = None,
) -> tuple[Schema, int]:
    """Add ``field`` (ids are assigned here) at ``path``; returns the schema and the new
    last column id."""
    ctx = _Ctx(table)
    *parent, name = path
    if field.required and field.initial_default is None:
        raise ctx.error(
            f"incompatible change: cannot add required column {'.'.join(path)!r} without a default"
        )
    (fresh,) = fresh_schema_fields([replace(field, name=name)], last_column_id + 1)
    new_last = max([last_column_id, *(_ids(fresh))])

    def edit(fields: tuple[NestedField, ...]) -> tuple[NestedField, ...]:
        if _find(fields, name) is not None:
            raise ctx.error(f"cannot add column {'.'.join(path)!r}: a column of that name exists")
        return _positioned(fields, fresh, first, after, ctx)

    return _with_fields(schema, _edit_struct(schema.fields, parent, edit, ctx, path)), new_last


def _ids(f: NestedField) -> list[int]:
    out = [f.field_id]
    t = f.type
    if isinstance(t, StructType):
        for child in t.fields:
            out += _ids(child)
    elif isinstance(t, ListType):
        out += _ids(t.element_field)
    elif isinstance(t, MapType):
        out += _ids(t.key_field) + _ids(t.value_field)
    return out


def delete_column(schema: Schema, path: Path, spec: PartitionSpec | None, table: str) -> Schema:
    ctx = _Ctx(table)
    target = _field(schema, path, ctx)
    removed = set(_ids(target))
    name = schema.find_column_name(target.field_id)
    if removed & set(schema.identifier_field_ids):
        raise ctx.error(
            f"cannot drop identifier field {name!r}; drop it from the identifier fields first"
        )
    if spec is not None:
        for pf in spec.fields:
            if set(pf.all_source_ids) & removed and not pf.transform.is_void:
                raise ctx.error(
                    f"cannot drop column {name!r}: it is the source of partition field {pf.name!r}"
                )
    parts = name.split(".")
    if parts[-1] in ("element", "key", "value") and len(parts) > 1:
        raise ctx.error(
            f"cannot drop {name!r}: list elements and map keys/values cannot be dropped"
        )
    *parent, leaf = _name_path(schema, target)

    def edit(fields: tuple[NestedField, ...]) -> tuple[NestedField, ...]:
        return tuple(f for f in fields if f.field_id != target.field_id)

    fields = _edit_struct(schema.fields, parent, edit, ctx, path)
    if not fields:
        raise ctx.error(f"cannot drop {name!r}: a table needs at least one column")
    return _with_fields(schema, fields)


def _name_path(schema: Schema, f: NestedField) -> list[str]:
    """The name steps to ``f`` with list/map steps removed (how ``_edit_struct`` walks)."""
    full = schema.find_column_name(f.field_id).split(".")
    out: list[str] = []
    current: IcebergType = schema.as_struct()
    for part in full:
        if isinstance(current, ListType) and part == "element":
            current = current.element_type
            continue
        if isinstance(current, MapType) and part in ("key", "value"):
            current = current.value_type if part == "value" else current.key_type
            continue
        assert isinstance(current, StructType)
        child = current.field_by_name(part)
        assert child is not None
        out.append(child.name)
        current = child.type
    return out


def _replace_field(
    schema: Schema, target: NestedField, new: NestedField, ctx: _Ctx, path: Path
) -> Schema:
    *parent, _ = _name_path(schema, target)

    def edit(fields: tuple[NestedField, ...]) -> tuple[NestedField, ...]:
        return tuple(new if f.field_id == target.field_id else f for f in fields)

    return _with_fields(schema, _edit_struct(schema.fields, parent, edit, ctx, path))


def rename_column(schema: Schema, path: Path, new_name: str, table: str) -> Schema:
    ctx = _Ctx(table)
    target = _field(schema, path, ctx)
    *parent, _ = _name_path(schema, target)
    siblings = _siblings(schema, parent)
    clash = _find(siblings, new_name)
    if clash is not None and siblings[clash].field_id != target.field_id:
        raise ctx.error(
            f"cannot rename {'.'.join(path)!r} to {new_name!r}: a column of that name exists"
        )
    return _replace_field(schema, target, replace(target, name=new_name), ctx, path)


def _siblings(schema: Schema, parent: Sequence[str]) -> tuple[NestedField, ...]:
    fields = schema.fields
    for step in parent:
        i = _find(fields, step)
        assert i is not None
        struct = _struct_of(fields[i].type)
        assert struct is not None
        fields = struct.fields
    return fields


def update_doc(schema: Schema, path: Path, doc: str | None, table: str) -> Schema:
    ctx = _Ctx(table)
    target = _field(schema, path, ctx)
    return _replace_field(schema, target, replace(target, doc=doc), ctx, path)


def set_write_default(schema: Schema, path: Path, value: Any, table: str) -> Schema:
    """The column's ``write-default`` set (None clears it); ``initial-default`` never changes
    (spec: it is set when the field is added). A required column keeps a non-null one."""
    ctx = _Ctx(table)
    f = _field(schema, path, ctx)
    if value is None and f.required:
        raise ctx.error(f"cannot drop the default of the required column {'.'.join(path)!r}")
    return _replace_field(schema, f, replace(f, write_default=value), ctx, path)


def make_optional(schema: Schema, path: Path, table: str) -> Schema:
    ctx = _Ctx(table)
    target = _field(schema, path, ctx)
    if target.field_id in schema.identifier_field_ids:
        raise ctx.error(f"cannot make identifier field {'.'.join(path)!r} optional")
    return _replace_field(schema, target, replace(target, required=False), ctx, path)


def promote_type(
    schema: Schema,
    path: Path,
    new_type: IcebergType,
    format_version: int,
    specs: Sequence[PartitionSpec],
    table: str,
) -> Schema:
    """``path`` promoted to ``new_type``. ``specs``: every partition spec of the table, since
    old files keep the partition values of theirs: a date may not become a timestamp while
    any spec takes it through a transform whose value would change (identity, bucket)."""
    ctx = _Ctx(table)
    target = _field(schema, path, ctx)
    old = target.type
    if old == new_type:
        return schema
    if not is_primitive(old) or not is_primitive(new_type):
        raise ctx.error(
            f"cannot change the type of {'.'.join(path)!r} from {old} to {new_type}: only primitive types can be promoted"
        )
    if not _promotable(old, new_type, format_version):
        raise ctx.error(
            f"cannot change column type {'.'.join(path)}: {old} -> {new_type} (not a valid promotion)"
        )
    if isinstance(old, DateType):
        for spec in specs:
            for pf in spec.fields:
                kind = str(pf.transform).split("[")[0]
                if target.field_id in pf.all_source_ids and kind in _VALUE_CHANGING_ON_DATE:
                    raise ctx.error(
                        f"cannot promote {'.'.join(path)!r}: it is the source of {kind} partition"
                        f" field {pf.name!r} (spec {spec.spec_id}), whose values would change"
                    )
    return _replace_field(schema, target, replace(target, type=new_type), ctx, path)


# transforms whose value differs for a date and the same instant as a timestamp
_VALUE_CHANGING_ON_DATE = ("identity", "bucket")


def _promotable(old: IcebergType, new: IcebergType, version: int) -> bool:
    if isinstance(old, IntegerType) and isinstance(new, LongType):
        return True
    if isinstance(old, FloatType) and isinstance(new, DoubleType):
        return True
    if isinstance(old, DecimalType) and isinstance(new, DecimalType):
        return new.scale == old.scale and new.precision > old.precision
    if version >= 3:
        if isinstance(old, UnknownType):
            return True
        if isinstance(old, DateType) and isinstance(new, TimestampType | TimestampNanoType):
            return True
    return False


def move_column(schema: Schema, path: Path, first: bool, after: str | None, table: str) -> Schema:
    ctx = _Ctx(table)
    target = _field(schema, path, ctx)
    *parent, _ = _name_path(schema, target)
    if after is not None and after.lower() == target.name.lower():
        raise ctx.error(f"cannot move {'.'.join(path)!r} after itself")

    def edit(fields: tuple[NestedField, ...]) -> tuple[NestedField, ...]:
        rest = tuple(f for f in fields if f.field_id != target.field_id)
        return _positioned(rest, target, first, after, ctx)

    return _with_fields(schema, _edit_struct(schema.fields, parent, edit, ctx, path))


def set_identifier_fields(schema: Schema, paths: Sequence[Path], table: str) -> Schema:
    ctx = _Ctx(table)
    ids = []
    for path in paths:
        f = _field(schema, path, ctx)
        name = schema.find_column_name(f.field_id)
        if not is_primitive(f.type):
            raise ctx.error(f"cannot use {name!r} as an identifier field: not a primitive type")
        if isinstance(f.type, FloatType | DoubleType):
            raise ctx.error(
                f"cannot use {name!r} as an identifier field: float and double are not allowed"
            )
        if not f.required:
            raise ctx.error(
                f"cannot use {name!r} as an identifier field: it is not NOT NULL (required)"
            )
        if len(name.split(".")) != len(_name_path(schema, f)):
            raise ctx.error(
                f"cannot use {name!r} as an identifier field: it is inside a list or map"
            )
        if f.field_id not in ids:
            ids.append(f.field_id)
    return _with_fields(schema, schema.fields, ids)
