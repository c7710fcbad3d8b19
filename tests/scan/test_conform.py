"""Reading by field id: renames, reorders, promotions and added fields at every level."""

import pyarrow as pa

from icesql.scan.conform import conform
from icesql.spec.types import (
    DoubleType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    UnknownType,
)


def fid(name, type_, i, nullable=True):
    return pa.field(name, type_, nullable, metadata={b"PARQUET:field_id": str(i).encode()})


def test_struct_children_matched_by_id_renamed_reordered_added():
    file_type = pa.struct([fid("x", pa.int32(), 2), fid("old_name", pa.string(), 3)])
    array = pa.array([{"x": 1, "old_name": "a"}, None, {"x": 3, "old_name": None}], file_type)
    target = NestedField(
        1,
        "s",
        StructType(
            (
                NestedField(3, "new_name", StringType()),
                NestedField(2, "x", LongType()),
                NestedField(4, "added", IntegerType()),
            )
        ),
    )
    out = conform(array, fid("s", file_type, 1), target, "f.parquet")
    assert out.to_pylist() == [
        {"new_name": "a", "x": 1, "added": None},
        None,
        {"new_name": None, "x": 3, "added": None},
    ]
    assert out.type.field("x").type == pa.int64()


def test_sliced_list_and_map_promote_values():
    list_type = pa.list_(fid("element", pa.float32(), 6))
    array = pa.array([[1.5], None, [2.5, 3.5]], list_type).slice(1)
    target = NestedField(5, "l", ListType(6, DoubleType(), False))
    assert conform(array, fid("l", list_type, 5), target, "f").to_pylist() == [None, [2.5, 3.5]]

    map_type = pa.map_(fid("key", pa.string(), 8, False), fid("value", pa.int32(), 9))
    marray = pa.array([[("a", 1)], None, [("b", 2), ("c", None)]], map_type).slice(1)
    mtarget = NestedField(7, "m", MapType(8, StringType(), 9, LongType(), False))
    out = conform(marray, fid("m", map_type, 7), mtarget, "f")
    assert out.to_pylist(maps_as_pydicts="strict") == [None, {"b": 2, "c": None}]
    assert out.type.item_type == pa.int64()


def test_promotion_int_to_long_and_float_to_double():
    out = conform(
        pa.array([1, None], pa.int32()),
        fid("a", pa.int32(), 1),
        NestedField(1, "a", LongType()),
        "f",
    )
    assert out.type == pa.int64() and out.to_pylist() == [1, None]
    out = conform(
        pa.array([0.5], pa.float32()),
        fid("b", pa.float32(), 2),
        NestedField(2, "b", FloatType()),
        "f",
    )
    assert out.type == pa.float32()


def test_unknown_fields_read_as_null_whatever_the_file_holds():
    """Spec: "when reading an unknown column, any corresponding column must be ignored and
    replaced with null values" (a file another engine wrote before the type became unknown)."""
    file_type = pa.struct([fid("a", pa.int32(), 2), fid("b", pa.string(), 3)])
    array = pa.array([{"a": 1, "b": "x"}, None], file_type)
    target = NestedField(
        1, "s", StructType((NestedField(2, "a", IntegerType()), NestedField(3, "b", UnknownType())))
    )
    out = conform(array, fid("s", file_type, 1), target, "f.parquet")
    assert out.to_pylist() == [{"a": 1, "b": None}, None]
    assert out.type.field("b").type == pa.null()
    column = conform(
        pa.array(["x", "y"]),
        fid("n", pa.string(), 4),
        NestedField(4, "n", UnknownType()),
        "f.parquet",
    )
    assert column.type == pa.null() and column.null_count == 2
