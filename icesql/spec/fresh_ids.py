"""Fresh field ids, assigned in the order of Java's ``TypeUtil.assignFreshIds``.

The fields of a struct take the next ids in order, then each field's own nested type is
numbered, a list's element and a map's key and value taking their ids before their
contents. Spark's Iceberg catalog numbers a new table's columns this way, so icesql must
too for the same DDL to give the same ids::

    >>> from icesql.spec.types import IntegerType, StructType
    >>> b = NestedField(0, "b", StructType((NestedField(0, "c", IntegerType()),)))
    >>> [str(f) for f in fresh_schema_fields([NestedField(0, "a", IntegerType()), b], 1)]
    ['1: a: optional int', '2: b: optional struct<3: c: optional int>']
"""

from __future__ import annotations

from collections.abc import Sequence

from icesql.errors import ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.types import IcebergType, ListType, MapType, NestedField, StructType

__all__ = ["fresh_schema_fields"]


def fresh_schema_fields(
    fields: Sequence[NestedField], first_id: int, base: Schema | None = None
) -> tuple[NestedField, ...]:
    """``fields`` with ids from ``first_id`` on, in Java's order; names found in ``base``
    keep their ids there (a REPLACE TABLE keeps the ids of columns it keeps)."""
    counter = [first_id]

    def next_id(path: tuple[str, ...]) -> int:
        if base is not None:
            try:
                return base.find_field_by_name(".".join(path), case_sensitive=True).field_id
            except ProgrammingError:
                pass
        value = counter[0]
        counter[0] += 1
        return value

    def struct(fs: Sequence[NestedField], prefix: tuple[str, ...]) -> tuple[NestedField, ...]:
        ids = [next_id((*prefix, f.name)) for f in fs]
        return tuple(
            NestedField(
                i,
                f.name,
                typ(f.type, (*prefix, f.name)),
                f.required,
                f.doc,
                f.initial_default,
                f.write_default,
            )
            for f, i in zip(fs, ids)
        )

    def typ(t: IcebergType, path: tuple[str, ...]) -> IcebergType:
        if isinstance(t, StructType):
            return StructType(struct(t.fields, path))
        if isinstance(t, ListType):
            element_id = next_id((*path, "element"))
            return ListType(element_id, typ(t.element_type, (*path, "element")), t.element_required)
        if isinstance(t, MapType):
            key_id, value_id = next_id((*path, "key")), next_id((*path, "value"))
            return MapType(
                key_id,
                typ(t.key_type, (*path, "key")),
                value_id,
                typ(t.value_type, (*path, "value")),
                t.value_required,
            )
        return t

    return struct(fields, ())
