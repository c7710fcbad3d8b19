"""Partition spec evolution, as Java's ``BaseUpdatePartitionSpec`` does it.

* An added field reuses the field id (and name, unless another is given) of a field with
  the same source and transform in any earlier spec (v2+), otherwise takes the id after
  ``last-partition-id``; its default name carries the transform's parameter
  (``id_bucket_16``, ``s_trunc_4``, ``ts_day``).
* Adding a field the spec already has is an error; a second time-based field on the same
  column (``hours(ts)`` next to ``days(ts)``) is not: Java checks redundant time fields only
  among the fields one change adds, and ``ALTER TABLE`` adds one.
* A removed field disappears from a v2+ spec; in v1, where partition field ids are
  positional, it stays as a ``void`` transform renamed ``<name>_<field id>``.
* The result is validated: names unique and not a column's name (except an identity
  partition of that column), each transform applies to its column's type.
"""

from __future__ import annotations

from dataclasses import replace

from icesql.errors import ProgrammingError
from icesql.metadata.table_metadata import TableMetadata
from icesql.spec.partitioning import PartitionField, PartitionSpec, check_partition_names
from icesql.spec.schema import Schema
from icesql.spec.transforms import Void, parse_transform

__all__ = ["add_partition_field", "check_partition_names", "remove_partition_field"]


def _error(table: str, message: str) -> ProgrammingError:
    return ProgrammingError(f"cannot change the partitioning of {table}: {message}")


def add_partition_field(
    md: TableMetadata,
    spec: PartitionSpec,
    source_id: int,
    transform_text: str,
    name: str,
    explicit_name: bool,
    table: str,
    last_partition_id: int,
) -> tuple[PartitionSpec, int]:
    """``spec`` plus one field; returns the new spec and the new last partition id."""
    transform = parse_transform(transform_text)
    schema = md.schema()
    column = schema.find_column_name(source_id)
    for f in spec.fields:
        if f.source_id == source_id and str(f.transform) == str(transform):
            raise _error(
                table, f"it is already partitioned by {transform}({column}) (field {f.name!r})"
            )
    field_id = None
    if md.format_version >= 2:
        for old in md.specs:
            for f in old.fields:
                if f.source_id == source_id and str(f.transform) == str(transform):
                    if not explicit_name or f.name == name:
                        field_id = f.field_id
                        if not explicit_name:
                            name = f.name
                        break
            if field_id is not None:
                break
    if field_id is None:
        last_partition_id += 1
        field_id = last_partition_id
    new = PartitionField(source_id, field_id, transform, name)
    return _checked(
        schema, PartitionSpec(spec.spec_id, (*spec.fields, new)), table
    ), last_partition_id


def remove_partition_field(
    md: TableMetadata, spec: PartitionSpec, field: PartitionField, table: str
) -> PartitionSpec:
    if md.format_version >= 2:
        fields = tuple(f for f in spec.fields if f.field_id != field.field_id)
    else:
        fields = tuple(
            replace(f, transform=Void(), name=f"{f.name}_{f.field_id}")
            if f.field_id == field.field_id
            else f
            for f in spec.fields
        )
    return PartitionSpec(spec.spec_id, fields)


def _checked(schema: Schema, spec: PartitionSpec, table: str) -> PartitionSpec:
    try:
        check_partition_names(schema, spec)
        spec.validate(schema)
    except ProgrammingError as e:
        raise _error(table, str(e)) from None
    return spec
