"""Partition specs and sort orders from the transform terms a statement names.

Names follow Java exactly, because Spark reads them back: a spec built for a new table
(``PartitionSpec.Builder``) names fields ``id_bucket``, ``s_trunc``, ``ts_day`` ...; a field
added later (``ALTER TABLE ... ADD PARTITION FIELD``, Java's ``BaseUpdatePartitionSpec``)
also carries the parameter: ``id_bucket_16``, ``s_trunc_4``::

    >>> default_partition_name(Term("bucket[16]", ("id",)), "id", evolving=False)
    'id_bucket'
    >>> default_partition_name(Term("bucket[16]", ("id",)), "id", evolving=True)
    'id_bucket_16'
"""

from __future__ import annotations

from collections.abc import Sequence

from icesql.errors import ProgrammingError
from icesql.spec.partitioning import PARTITION_DATA_ID_START, PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortField, SortOrder
from icesql.spec.transforms import parse_transform
from icesql.sql.nodes import SortTerm, Term

__all__ = [
    "default_partition_name",
    "new_partition_spec",
    "new_sort_order",
    "source_field",
]

_SUFFIX = {"year": "year", "month": "month", "day": "day", "hour": "hour", "void": "null"}


def source_field(schema: Schema, column: Sequence[str], what: str = "partition") -> int:
    """The field id of a (dotted) column name; ProgrammingError naming the column."""
    name = ".".join(column)
    try:
        return schema.find_field_by_name(name).field_id
    except ProgrammingError:
        available = ", ".join(schema.column_names)
        raise ProgrammingError(
            f"cannot {what} by {name!r}: no such column (columns: {available})"
        ) from None


def default_partition_name(term: Term, source_name: str, evolving: bool) -> str:
    kind = term.transform.split("[", 1)[0]
    if kind == "identity":
        return source_name
    if kind in ("bucket", "truncate"):
        base = f"{source_name}_{'bucket' if kind == 'bucket' else 'trunc'}"
        if evolving:
            return f"{base}_{term.transform.split('[', 1)[1].rstrip(']')}"
        return base
    return f"{source_name}_{_SUFFIX[kind]}"


def partition_field(
    schema: Schema, term: Term, field_id: int, name: str | None, evolving: bool
) -> PartitionField:
    source_id = source_field(schema, term.column)
    source_name = schema.find_column_name(source_id)
    return PartitionField(
        source_id,
        field_id,
        parse_transform(term.transform),
        name or default_partition_name(term, source_name, evolving),
    )


def new_partition_spec(schema: Schema, terms: Sequence[Term], spec_id: int = 0) -> PartitionSpec:
    """The spec of a new table, field ids from 1000."""
    fields = []
    for i, term in enumerate(terms):
        fields.append(partition_field(schema, term, PARTITION_DATA_ID_START + i, None, False))
    spec = PartitionSpec(spec_id, tuple(fields))
    spec.validate_new(schema)
    return spec


def new_sort_order(schema: Schema, terms: Sequence[SortTerm], order_id: int = 1) -> SortOrder:
    """A sort order over ``terms``; the unsorted order when there are none."""
    if not terms:
        return SortOrder(0, ())
    fields = []
    for t in terms:
        source_id = source_field(schema, t.term.column, "sort")
        fields.append(
            SortField(source_id, parse_transform(t.term.transform), t.direction, t.null_order)
        )
    order = SortOrder(order_id, tuple(fields))
    order.validate(schema)
    return order
