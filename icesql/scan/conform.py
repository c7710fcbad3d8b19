"""Reshaping what a Parquet file holds into what the table's schema says, by field id.

Columns are matched by Iceberg field id, never by name, so renames, reorders, drops and adds
read correctly (spec: Column Projection). Nested structs, lists and maps are matched the same
way at every level. Allowed type promotions (int→long, float→double, decimal precision) are
casts; a field the file does not have reads as its ``initial-default`` or NULL, and so does
a v3 ``unknown`` field whatever the file holds for its id (spec: "any corresponding column must
be ignored and replaced with null values"). A variant group is its unshredded ``metadata``
and ``value``; a shredded one (``typed_value``) only DuckDB's own Parquet reader reassembles
(``icesql.scan.native_read``), so here it is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.errors import CorruptFileError, NotSupportedError
from icesql.spec.arrow import to_arrow_scalar, type_to_arrow
from icesql.spec.types import (
    IcebergType,
    ListType,
    MapType,
    NestedField,
    StructType,
    UnknownType,
    VariantType,
    effective_default,
)

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # Arrow kernels load with the first batch that needs one, not with the module
    pc = lazy_module("pyarrow.compute")

FIELD_ID_KEY = b"PARQUET:field_id"


def field_id(field: pa.Field) -> int | None:
    meta = field.metadata
    if meta and FIELD_ID_KEY in meta:
        return int(meta[FIELD_ID_KEY])
    return None


def children_by_id(fields: list[pa.Field]) -> dict[int, tuple[int, pa.Field]]:
    out: dict[int, tuple[int, pa.Field]] = {}
    for i, f in enumerate(fields):
        fid = field_id(f)
        if fid is not None:
            out[fid] = (i, f)
    return out


def constant_array(iceberg_type: IcebergType, value: object, length: int) -> pa.Array:
    """``length`` copies of one Iceberg value (in icesql's value convention), or NULLs."""
    arrow_type = type_to_arrow(iceberg_type)
    if value is None:
        return pa.nulls(length, type=arrow_type)
    return pa.repeat(to_arrow_scalar(iceberg_type, value), length)


def missing_field_array(field: NestedField, length: int) -> pa.Array:
    return constant_array(field.type, effective_default(field), length)


def conform(array: pa.Array, file_field: pa.Field, target: NestedField, path: str) -> pa.Array:
    """``array`` (as the file typed it) re-shaped to the target field's Arrow type."""
    target_type = type_to_arrow(target.type)
    if array.type.equals(target_type, check_metadata=False) and _same_names(
        array.type, target_type
    ):
        return array
    return _conform_type(array, file_field.type, target.type, target_type, path)


def _same_names(a: pa.DataType, b: pa.DataType) -> bool:
    if pa.types.is_struct(a):
        return [f.name for f in a] == [f.name for f in b] and all(
            _same_names(x.type, y.type) for x, y in zip(a, b)
        )
    return True


def _conform_type(
    array: pa.Array,
    file_type: pa.DataType,
    iceberg_type: IcebergType,
    target_type: pa.DataType,
    path: str,
) -> pa.Array:
    if isinstance(iceberg_type, UnknownType):
        return pa.nulls(len(array), target_type)
    if isinstance(array.type, pa.ExtensionType):  # e.g. arrow.uuid over fixed[16]
        array = array.storage
        file_type = array.type
    if isinstance(iceberg_type, VariantType):
        return _variant(array, path)
    if isinstance(iceberg_type, StructType):
        return _conform_struct(array, file_type, iceberg_type, target_type, path)
    if isinstance(iceberg_type, ListType):
        offsets, values, mask = _list_parts(array)
        element = NestedField(
            iceberg_type.element_id,
            "element",
            iceberg_type.element_type,
            iceberg_type.element_required,
        )
        new_values = _conform_type(
            values, file_type.value_type, element.type, target_type.value_type, path
        )
        return pa.ListArray.from_arrays(offsets, new_values, type=target_type, mask=mask)
    if isinstance(iceberg_type, MapType):
        offsets, _, mask = _list_parts(array)
        start, end = array.offsets[0].as_py(), array.offsets[-1].as_py()
        keys = array.keys.slice(start, end - start)
        items = array.items.slice(start, end - start)
        new_keys = _conform_type(
            keys, file_type.key_type, iceberg_type.key_type, target_type.key_type, path
        )
        new_items = _conform_type(
            items, file_type.item_type, iceberg_type.value_type, target_type.item_type, path
        )
        return pa.MapArray.from_arrays(offsets, new_keys, new_items, type=target_type, mask=mask)
    if array.type.equals(target_type):
        return array
    try:
        return array.cast(target_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise CorruptFileError(
            path, f"column type {array.type} cannot be read as {iceberg_type}: {e}"
        ) from None


def _variant(array: pa.Array, path: str) -> pa.Array:
    names = [f.name for f in array.type] if pa.types.is_struct(array.type) else []
    if "typed_value" in names:
        raise NotSupportedError(
            f"{path}: a shredded variant column (typed_value) is read only by DuckDB's Parquet"
            " reader, for local files and queries without metadata columns (_file, _pos ...)"
        )
    if sorted(names) != ["metadata", "value"] or array.field("value").null_count > array.null_count:
        raise CorruptFileError(path, f"column type {array.type} is not the variant encoding")
    return pa.StructArray.from_arrays(
        [array.field("metadata"), array.field("value")],
        fields=list(type_to_arrow(VariantType())),
        mask=array.is_null(),
    )


def _list_parts(array: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array | None]:
    """Offsets starting at 0, the values they index, and the null mask of a list array."""
    offsets = array.offsets
    start = offsets[0].as_py()
    end = offsets[-1].as_py()
    values = array.values.slice(start, end - start)
    offsets = pc.subtract(offsets, pa.scalar(start, offsets.type)) if start else offsets
    if offsets.offset:
        offsets = pa.concat_arrays([offsets])
    mask = array.is_null() if array.null_count else None
    return offsets, values, mask


def _conform_struct(
    array: pa.Array,
    file_type: pa.DataType,
    struct: StructType,
    target_type: pa.DataType,
    path: str,
) -> pa.StructArray:
    by_id = children_by_id(list(file_type))
    children = []
    for target_field in struct.fields:
        found = by_id.get(target_field.field_id)
        if found is None or isinstance(target_field.type, UnknownType):
            children.append(missing_field_array(target_field, len(array)))
            continue
        index, file_child = found
        child_arrow = target_type.field(target_field.name).type
        children.append(
            _conform_type(array.field(index), file_child.type, target_field.type, child_arrow, path)
        )
    mask = array.is_null() if array.null_count else None
    return pa.StructArray.from_arrays(children, fields=list(target_type), mask=mask)
