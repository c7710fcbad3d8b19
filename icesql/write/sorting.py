"""Row keys computed from a table's columns: partition tuples and sort order keys.

Both follow a field id to its (possibly nested) column, apply a transform to the Arrow
array and compare the results. Partition values come back in icesql's value convention
(dates as days, timestamps as micros, decimals as ``Decimal``, uuids as ``UUID``), as
manifests store them::

    >>> from icesql.spec.schema import Schema
    >>> from icesql.spec.sorting import SortField, SortOrder
    >>> from icesql.spec.types import LongType, NestedField
    >>> schema = Schema((NestedField(1, "id", LongType()),))
    >>> batch = pa.record_batch([pa.array([3, 1, None, 2])], names=["id"])
    >>> order = SortOrder(1, (SortField(1, direction="desc", null_order="nulls-last"),))
    >>> sort_indices(batch, schema, order).to_pylist()
    [0, 3, 1, 2]
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from icesql.errors import NotSupportedError
from icesql.spec.arrays import int_array, ints
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import ASC, NULLS_FIRST, SortOrder
from icesql.spec.types import IcebergType, StructType, UUIDType

__all__ = ["column_array", "partition_keys", "sort_indices", "sort_keys"]


def _struct_path(schema: Schema, field_id: int) -> list[int]:
    """Child indexes from the top-level struct down to ``field_id`` (structs only)."""
    names = schema.find_column_name(field_id).split(".")
    path: list[int] = []
    current: StructType = schema.as_struct()
    for i, name in enumerate(names):
        index = next((j for j, f in enumerate(current.fields) if f.name == name), None)
        if index is None:
            raise NotSupportedError(
                f"column {'.'.join(names)} is inside a list or map and cannot be a key"
            )
        path.append(index)
        child = current.fields[index].type
        if i < len(names) - 1:
            if not isinstance(child, StructType):
                raise NotSupportedError(
                    f"column {'.'.join(names)} is inside a list or map and cannot be a key"
                )
            current = child
    return path


def column_array(batch: pa.RecordBatch, schema: Schema, field_id: int) -> pa.Array:
    """The Arrow array of a (possibly nested) primitive column; nulls of enclosing structs
    make the value null."""
    path = _struct_path(schema, field_id)
    array = batch.column(path[0])
    if len(path) > 1:
        array = pc.struct_field(array, path[1:])
    return array


def _comparable(array: pa.Array) -> pa.Array:
    """An array Arrow can group and sort that keeps the value order."""
    t = array.type
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        return array.cast(pa.int64())
    if pa.types.is_date32(t):
        return array.cast(pa.int32())
    if pa.types.is_fixed_size_binary(t):
        return array.cast(pa.binary())
    return array


def _to_convention(result_type: IcebergType, values: list[Any]) -> list[Any]:
    if isinstance(result_type, UUIDType):
        return [None if v is None else uuid.UUID(bytes=v) for v in values]
    return [Decimal(v) if isinstance(v, Decimal) else v for v in values]


def partition_keys(
    batch: pa.RecordBatch, schema: Schema, spec: PartitionSpec
) -> list[tuple[tuple[Any, ...], pa.Array | None]]:
    """The batch's rows grouped by partition: ``(partition tuple, row indices)`` per group;
    indices are None when every row falls in one partition (no copy needed)."""
    if not spec.fields:
        return [((), None)]
    keys: list[pa.Array] = []
    result_types: list[IcebergType] = []
    for f in spec.fields:
        source_type = schema.find_type(f.source_id)
        array = column_array(batch, schema, f.source_id)
        keys.append(_comparable(f.transform.apply_arrow(source_type, array)))
        result_types.append(f.transform.result_type(source_type))
    if batch.num_rows > 0 and all(pc.count_distinct(k, mode="all").as_py() == 1 for k in keys):
        values = tuple(_to_convention(t, [k[0].as_py()])[0] for t, k in zip(result_types, keys))
        return [(values, None)]
    if batch.num_rows == 0:
        return []
    # group by the keys' dictionary codes in numpy (a NULL key is a code of its own): Arrow's
    # group_by runs on Acero, whose import brings in pandas in pyarrow 26 (icesql.spec.arrays)
    encoded = [pc.dictionary_encode(k, null_encoding="encode") for k in keys]
    codes = np.stack([ints(e.indices).astype(np.int64) for e in encoded], axis=1)
    _, first, inverse = np.unique(codes, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    by_first = np.argsort(first, kind="stable")  # groups in order of their first row
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(len(by_first))
    group_of_row = rank[inverse]
    order = np.argsort(group_of_row, kind="stable")
    bounds = np.flatnonzero(np.diff(group_of_row[order])) + 1
    groups = np.split(order, bounds)
    out = []
    for rows in groups:
        row = int(rows[0])
        values = tuple(
            _to_convention(t, [e.dictionary[e.indices[row].as_py()].as_py()])[0]
            for t, e in zip(result_types, encoded)
        )
        out.append((values, int_array(rows.astype(np.int64))))
    return out


def sort_keys(batch: pa.RecordBatch, schema: Schema, order: SortOrder) -> list[pa.Array]:
    """The values ``batch`` sorts by, one array per field of ``order`` (its transform
    applied, in a type Arrow and DuckDB compare as Iceberg orders them)."""
    return [
        _comparable(
            f.transform.apply_arrow(
                schema.find_type(f.source_id), column_array(batch, schema, f.source_id)
            )
        )
        for f in order.fields
    ]


def sort_indices(batch: pa.RecordBatch | pa.Table, schema: Schema, order: SortOrder) -> pa.Array:
    """Row indices that put ``batch`` in ``order`` (transforms, directions, null orders)."""
    arrays: list[pa.Array] = []
    keys: list[tuple[str, str]] = []
    if isinstance(batch, pa.Table):
        batch = batch.combine_chunks().to_batches()[0] if batch.num_rows else batch
    for i, (f, value) in enumerate(zip(order.fields, sort_keys(batch, schema, order))):
        is_null = pc.is_null(value)
        arrays += [is_null, value]
        keys += [
            (f"n{i}", "descending" if f.null_order == NULLS_FIRST else "ascending"),
            (f"v{i}", "ascending" if f.direction == ASC else "descending"),
        ]
    if not arrays:
        return pa.array(range(batch.num_rows), pa.int64())
    table = pa.table(arrays, names=[name for name, _ in keys])
    return pc.sort_indices(table, sort_keys=keys)
