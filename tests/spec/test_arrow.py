"""Arrow conversion: the type table, and field ids at every nesting level."""

from __future__ import annotations

import pyarrow as pa
import pytest

from icesql.errors import NotSupportedError
from icesql.spec.arrow import (
    FIELD_ID_KEY,
    arrow_to_iceberg_type,
    field_to_arrow,
    schema_to_arrow,
    to_arrow_array,
    to_arrow_scalar,
    type_to_arrow,
)
from icesql.spec.schema import Schema
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    GeographyType,
    GeometryType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UnknownType,
    UUIDType,
    VariantType,
)

TABLE = [
    (BooleanType(), pa.bool_()),
    (IntegerType(), pa.int32()),
    (LongType(), pa.int64()),
    (FloatType(), pa.float32()),
    (DoubleType(), pa.float64()),
    (DecimalType(9, 2), pa.decimal128(9, 2)),
    (DateType(), pa.date32()),
    (TimeType(), pa.time64("us")),
    (TimestampType(), pa.timestamp("us")),
    (TimestamptzType(), pa.timestamp("us", tz="UTC")),
    (TimestampNanoType(), pa.timestamp("ns")),
    (TimestamptzNanoType(), pa.timestamp("ns", tz="UTC")),
    (StringType(), pa.string()),
    (UUIDType(), pa.binary(16)),
    (FixedType(5), pa.binary(5)),
    (BinaryType(), pa.binary()),
    (UnknownType(), pa.null()),
    (
        VariantType(),
        pa.struct(
            [
                pa.field("metadata", pa.binary(), nullable=False),
                pa.field("value", pa.binary(), nullable=False),
            ]
        ),
    ),
    (GeometryType(), pa.binary()),
    (GeographyType(), pa.binary()),
]


@pytest.mark.parametrize("iceberg, arrow", TABLE, ids=[str(t) for t, _ in TABLE])
def test_type_table(iceberg, arrow):
    assert type_to_arrow(iceberg) == arrow


REVERSIBLE = [
    t for t, _ in TABLE if not isinstance(t, UUIDType | VariantType | GeometryType | GeographyType)
]


@pytest.mark.parametrize("iceberg", REVERSIBLE, ids=[str(t) for t in REVERSIBLE])
def test_reverse_mapping(iceberg):
    assert arrow_to_iceberg_type(type_to_arrow(iceberg)) == iceberg


def test_reverse_mapping_of_wider_arrow_types():
    assert arrow_to_iceberg_type(pa.int16()) == IntegerType()
    assert arrow_to_iceberg_type(pa.uint32()) == LongType()
    assert arrow_to_iceberg_type(pa.large_string()) == StringType()
    assert arrow_to_iceberg_type(pa.large_binary()) == BinaryType()
    assert arrow_to_iceberg_type(pa.timestamp("ms", tz="Europe/Paris")) == TimestamptzType()
    assert arrow_to_iceberg_type(pa.date64()) == DateType()
    assert arrow_to_iceberg_type(pa.dictionary(pa.int32(), pa.string())) == StringType()
    with pytest.raises(NotSupportedError):
        arrow_to_iceberg_type(pa.uint64())
    with pytest.raises(NotSupportedError):
        arrow_to_iceberg_type(pa.decimal256(40, 2))


SCHEMA = Schema(
    (
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "tags", ListType(3, StringType(), element_required=True)),
        NestedField(
            4,
            "props",
            MapType(5, StringType(), 6, StructType((NestedField(7, "v", IntegerType()),)), False),
            required=True,
        ),
        NestedField(8, "point", StructType((NestedField(9, "x", DoubleType(), True),))),
    )
)


def _fid(f: pa.Field) -> int:
    return int(f.metadata[FIELD_ID_KEY])


def test_a_variant_field_carries_the_parquet_variant_extension_name():
    """What DuckDB imports as VARIANT; its children carry no field id (Appendix A)."""
    f = field_to_arrow(NestedField(3, "v", VariantType()))
    assert f.metadata[b"ARROW:extension:name"] == b"arrow.parquet.variant"
    assert f.metadata[FIELD_ID_KEY] == b"3"
    assert all(child.metadata is None for child in f.type)


def test_field_ids_and_nullability_at_every_level():
    s = schema_to_arrow(SCHEMA)
    assert s.names == ["id", "tags", "props", "point"]
    id_, tags, props, point = (s.field(i) for i in range(4))
    assert (_fid(id_), id_.nullable) == (1, False)
    assert (_fid(tags), tags.nullable) == (2, True)
    assert (_fid(tags.type.value_field), tags.type.value_field.nullable) == (3, False)
    assert (_fid(props), props.nullable) == (4, False)
    key, item = props.type.key_field, props.type.item_field
    assert (_fid(key), key.nullable) == (5, False)
    assert (_fid(item), item.nullable) == (6, True)
    assert (_fid(item.type.field(0)), item.type.field(0).nullable) == (7, True)
    assert (_fid(point.type.field(0)), point.type.field(0).nullable) == (9, False)


def test_arrow_schema_round_trips_with_ids():
    s = schema_to_arrow(SCHEMA)
    back = tuple(
        NestedField(_fid(f), f.name, arrow_to_iceberg_type(f.type), not f.nullable) for f in s
    )
    assert back == SCHEMA.fields


def test_nested_arrow_without_ids_uses_the_counter():
    t = pa.struct([pa.field("a", pa.int32()), pa.field("b", pa.list_(pa.string()))])
    counter = [10]
    assert arrow_to_iceberg_type(t, counter) == StructType(
        (
            NestedField(10, "a", IntegerType()),
            NestedField(11, "b", ListType(12, StringType(), False)),
        )
    )
    assert counter == [13]
    with pytest.raises(ValueError, match="no field id"):
        arrow_to_iceberg_type(t)


def test_convention_values_to_arrow():
    import uuid
    from decimal import Decimal

    u = uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
    assert to_arrow_scalar(UUIDType(), u).as_py() == u.bytes
    assert to_arrow_scalar(TimestampNanoType(), 1_000_000_001).value == 1_000_000_001
    assert to_arrow_scalar(DateType(), -1).cast(pa.int32()).as_py() == -1
    assert to_arrow_scalar(DecimalType(9, 2), Decimal("1.50")).as_py() == Decimal("1.50")
    assert not to_arrow_scalar(LongType(), None).is_valid
    struct_t = StructType((NestedField(1, "a", IntegerType()), NestedField(2, "b", StringType())))
    assert to_arrow_scalar(struct_t, {1: 5}).as_py() == {"a": 5, "b": None}
    map_t = MapType(3, StringType(), 4, ListType(5, LongType(), False), True)
    assert to_arrow_scalar(map_t, {"k": [1, None]}).as_py() == [("k", [1, None])]
    arr = to_arrow_array(TimestamptzType(), [0, None])
    assert arr.type == pa.timestamp("us", tz="UTC") and arr.null_count == 1
