"""``readable_metrics``: a content file's column metrics decoded per column, as the files and
entries metadata tables show them in Spark (Iceberg's ``MetricsUtil.readableMetricsStruct``).

One struct field per primitive column of the table schema at any depth, named by its full
dotted name (``st.a``, ``arr.element``, ``m.key``) and sorted by that name, each a struct of
``column_size``, ``value_count``, ``null_value_count``, ``nan_value_count`` (longs from the
file's metric maps) and ``lower_bound`` / ``upper_bound`` (the single-value bounds decoded into
the column's own type). A metric the file does not carry for a column is NULL, so a delete file
(whose metrics are of the delete columns, not the table's) shows NULL everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from icesql.spec.arrow import to_arrow_array, type_to_arrow
from icesql.spec.content_file import DataFile
from icesql.spec.schema import Schema, walk_fields
from icesql.spec.types import NestedField, PrimitiveType
from icesql.spec.values import from_bytes

__all__ = ["readable_metrics", "readable_metrics_type"]

_COUNTS = ("column_size", "value_count", "null_value_count", "nan_value_count")


def _columns(schema: Schema) -> list[tuple[str, NestedField]]:
    """(full name, field) of every primitive column, sorted by name as Java sorts them."""
    found = [
        (".".join(path), f)
        for path, f in walk_fields(schema.as_struct())
        if isinstance(f.type, PrimitiveType)
    ]
    return sorted(found, key=lambda item: item[0])


def _metric_type(field: NestedField) -> pa.StructType:
    bound = type_to_arrow(field.type)
    return pa.struct(
        [
            *(pa.field(n, pa.int64()) for n in _COUNTS),
            pa.field("lower_bound", bound),
            pa.field("upper_bound", bound),
        ]
    )


def readable_metrics_type(schema: Schema) -> pa.StructType:
    """The Arrow type of the ``readable_metrics`` column of a table with ``schema``."""
    return pa.struct([pa.field(name, _metric_type(f)) for name, f in _columns(schema)])


def readable_metrics(schema: Schema, files: Sequence[DataFile]) -> pa.StructArray:
    """The ``readable_metrics`` value of each of ``files`` (one struct per file)."""
    columns = _columns(schema)
    children = []
    for _, field in columns:
        fid = field.field_id
        counts = [
            pa.array([(getattr(f, attr) or {}).get(fid) for f in files], pa.int64())
            for attr in ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts")
        ]
        bounds = [
            to_arrow_array(
                field.type, [_decode(field, (getattr(f, attr) or {}).get(fid)) for f in files]
            )
            for attr in ("lower_bounds", "upper_bounds")
        ]
        children.append(
            pa.StructArray.from_arrays([*counts, *bounds], fields=list(_metric_type(field)))
        )
    if not children:
        return pa.array([{}] * len(files), pa.struct([]))
    return pa.StructArray.from_arrays(children, names=[name for name, _ in columns])


def _decode(field: NestedField, raw: bytes | None) -> object:
    return None if raw is None else from_bytes(field.type, raw)
