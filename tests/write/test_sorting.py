"""Row keys of a batch: partition tuples (checked against each transform's scalar ``apply``,
row by row) and sort order indices (checked against Python's sort with the same directions
and null orders), for nested columns, nulls and uuids."""

from __future__ import annotations

import functools
import uuid
from collections import defaultdict

import pyarrow as pa
import pytest

from icesql.errors import NotSupportedError
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortField, SortOrder
from icesql.spec.transforms import Bucket, Day, Identity, Truncate
from icesql.spec.types import (
    IntegerType,
    ListType,
    NestedField,
    StringType,
    StructType,
    TimestamptzType,
    UUIDType,
)
from icesql.write.sorting import column_array, partition_keys, sort_indices

SCHEMA = Schema((
    NestedField(1, "id", IntegerType()),
    NestedField(2, "s", StructType((NestedField(3, "ts", TimestamptzType()),
                                    NestedField(4, "name", StringType())))),
    NestedField(5, "u", UUIDType()),
    NestedField(6, "tags", ListType(7, StringType(), False)),
))  # fmt: skip
U1, U2 = uuid.UUID(int=1), uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
DAY_US = 86_400_000_000
ROWS = [
    {"id": 1, "s": {"ts": 0, "name": "b"}, "u": U1},
    {"id": 2, "s": {"ts": DAY_US - 1, "name": "a"}, "u": U2},
    {"id": None, "s": {"ts": -1, "name": None}, "u": U1},
    {"id": 17, "s": None, "u": None},
    {"id": 1, "s": {"ts": 5 * DAY_US, "name": "b"}, "u": U1},
    {"id": -4, "s": {"ts": None, "name": "c"}, "u": U2},
]


def _batch(rows: list[dict]) -> pa.RecordBatch:
    arrow = schema_to_arrow(SCHEMA)
    columns = {
        "id": [r["id"] for r in rows],
        "s": [r["s"] for r in rows],
        "u": [None if r["u"] is None else r["u"].bytes for r in rows],
        "tags": [["x"] for _ in rows],
    }
    return pa.record_batch([pa.array(columns[f.name], f.type) for f in arrow], schema=arrow)


def _value(row: dict, field_id: int):
    if field_id == 1:
        return row["id"]
    if field_id == 5:
        return row["u"]
    s = row["s"]
    return None if s is None else s["ts" if field_id == 3 else "name"]


SPEC = PartitionSpec(1, (
    PartitionField(1, 1000, Bucket(4), "id_bucket"),
    PartitionField(3, 1001, Day(), "ts_day"),
    PartitionField(5, 1002, Identity(), "u"),
    PartitionField(4, 1003, Truncate(1), "name_trunc"),
))  # fmt: skip


def test_partition_keys_group_rows_like_the_scalar_transforms() -> None:
    expected: dict[tuple, list[int]] = defaultdict(list)
    for i, row in enumerate(ROWS):
        key = tuple(f.transform.apply(SCHEMA.find_type(f.source_id), _value(row, f.source_id))
                    for f in SPEC.fields)  # fmt: skip
        expected[key].append(i)
    got = {key: rows.to_pylist() for key, rows in partition_keys(_batch(ROWS), SCHEMA, SPEC)}
    assert got == dict(expected)
    assert any(isinstance(k[2], uuid.UUID) for k in got)  # uuids as UUID, as manifests store


def test_one_partition_needs_no_indices() -> None:
    rows = [ROWS[0], ROWS[4]]  # same bucket, uuid and name prefix; day 0 vs day 5
    spec = PartitionSpec(1, (PartitionField(1, 1000, Identity(), "id"),
                             PartitionField(5, 1001, Identity(), "u")))  # fmt: skip
    assert partition_keys(_batch(rows), SCHEMA, spec) == [((1, U1), None)]
    assert partition_keys(_batch(ROWS), SCHEMA, PartitionSpec(0, ())) == [((), None)]
    assert partition_keys(_batch([]), SCHEMA, spec) == []


def test_a_null_struct_makes_its_fields_null() -> None:
    array = column_array(_batch(ROWS), SCHEMA, 4)
    assert array.to_pylist() == ["b", "a", None, None, "b", "c"]


def test_columns_inside_a_list_cannot_be_keys() -> None:
    with pytest.raises(NotSupportedError, match="column tags.element is inside a list or map"):
        column_array(_batch(ROWS), SCHEMA, 7)


def _reference_order(order: SortOrder) -> list[int]:
    def compare(i: int, j: int) -> int:
        for f in order.fields:
            t = SCHEMA.find_type(f.source_id)
            a = f.transform.apply(t, _value(ROWS[i], f.source_id))
            b = f.transform.apply(t, _value(ROWS[j], f.source_id))
            if a == b:
                continue
            if a is None or b is None:
                null_first = f.null_order == "nulls-first"
                return (-1 if null_first else 1) * (1 if a is None else -1)
            result = -1 if a < b else 1
            return result if f.direction == "asc" else -result
        return 0

    return sorted(range(len(ROWS)), key=functools.cmp_to_key(compare))


@pytest.mark.parametrize(
    "fields",
    [
        (SortField(1),),  # asc, nulls first by default
        (SortField(1, direction="desc"),),  # desc, nulls last by default
        (SortField(4, direction="desc", null_order="nulls-first"), SortField(1)),
        (SortField(3, Day(), null_order="nulls-last"), SortField(1, direction="desc")),
        (SortField(1, Bucket(4)), SortField(3, direction="desc", null_order="nulls-first")),
    ],
)
def test_sort_indices_match_a_reference_sort(fields: tuple) -> None:
    order = SortOrder(1, fields)
    got = sort_indices(_batch(ROWS), SCHEMA, order).to_pylist()
    assert got == _reference_order(order)
    table = pa.Table.from_batches([_batch(ROWS[:3]), _batch(ROWS[3:])])  # a chunked table
    assert sort_indices(table, SCHEMA, order).to_pylist() == got


def test_unsorted_keeps_the_row_order() -> None:
    assert sort_indices(_batch(ROWS), SCHEMA, SortOrder(0, ())).to_pylist() == list(range(6))
