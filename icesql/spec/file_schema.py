"""The schema data files store, and its Arrow form: a table schema with its v3 ``unknown``
fields left out at every level of structs ("omit from data files", in every format).

The writers shape their files by it and the SQL layer's store assignment shapes the rows it
hands them by the same schema, so it lives here, below both.

>>> from icesql.spec.types import IntegerType, NestedField, UnknownType
>>> s = Schema((NestedField(1, "id", IntegerType()), NestedField(2, "u", UnknownType())))
>>> [f.name for f in file_schema(s).fields], arrow_write_schema(s).names
(['id'], ['id'])
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from icesql.errors import NotSupportedError
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.schema import Schema
from icesql.spec.types import IcebergType, ListType, MapType, NestedField, StructType, UnknownType

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["arrow_write_schema", "file_schema"]


def file_schema(schema: Schema) -> Schema:
    """``schema`` as data files store it: v3 ``unknown`` fields left out at every level of
    structs ("omit from data files", in every format); readers give them NULL."""
    return Schema(_known_fields(schema.fields), schema.schema_id, schema.identifier_field_ids)


def _known_fields(fields: tuple[NestedField, ...]) -> tuple[NestedField, ...]:
    return tuple(
        replace(f, type=_known(f.type)) for f in fields if not isinstance(f.type, UnknownType)
    )


def _known(t: IcebergType) -> IcebergType:
    if isinstance(t, StructType):
        return StructType(_known_fields(t.fields))
    if any(isinstance(f.type, UnknownType) for f in getattr(t, "fields", ())):
        raise NotSupportedError(
            f"cannot write {t}: a list element or map key/value of type unknown has no"
            " representation in data files (only struct fields and columns can be left out)"
        )
    if isinstance(t, ListType):
        return replace(t, element_type=_known(t.element_type))
    if isinstance(t, MapType):
        return replace(t, key_type=_known(t.key_type), value_type=_known(t.value_type))
    return t


def arrow_write_schema(schema: Schema) -> pa.Schema:
    """The Arrow schema of the data files of ``schema`` (unknown fields left out)."""
    return schema_to_arrow(file_schema(schema))
