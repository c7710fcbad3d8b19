"""Iceberg types to Arrow types and back; every Arrow field carries its Iceberg field id.

The id travels as ``PARQUET:field_id`` field metadata, which is what pyarrow's Parquet writer
turns into Parquet field ids (and what its reader hands back), at every level: struct
fields, list elements and map keys/values::

    >>> s = Schema((NestedField(1, "tags", ListType(2, StringType(), False)),))
    >>> f = schema_to_arrow(s).field("tags")
    >>> f.metadata[FIELD_ID_KEY], f.type.value_field.metadata[FIELD_ID_KEY]
    (b'1', b'2')

``uuid`` maps to ``fixed_size_binary(16)`` because that is how Spark and the Parquet spec
store it. ``variant`` is the Parquet variant
encoding's unshredded group, ``struct<metadata: binary, value: binary>`` (both required),
and its field carries the ``arrow.parquet.variant`` extension name: DuckDB imports such a
column as its native ``VARIANT`` and exports ``VARIANT`` the same way. ``geometry`` /
``geography`` are WKB in ``binary`` fields that carry GeoArrow's extension name
(``geoarrow.wkb``) as field metadata, which is how DuckDB, importing the stream, knows them as
its ``GEOMETRY``; ``geoarrow_type`` is the real extension type, which pyarrow's Parquet writer
(21 and later) annotates as Parquet's GEOMETRY / GEOGRAPHY with the CRS and edge algorithm.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from icesql.errors import NotSupportedError
from icesql.spec.dispatch import PerPrimitiveType, constant
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DEFAULT_CRS,
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    GeographyType,
    GeometryType,
    IcebergType,
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

__all__ = [
    "FIELD_ID_KEY",
    "VARIANT_EXTENSION",
    "VARIANT_EXTENSION_NAME",
    "arrow_field_type",
    "VARIANT_STORAGE",
    "PYARROW_READS_VARIANT",
    "check_variant_support",
    "GEOARROW_WKB",
    "GeoArrowWkb",
    "arrow_to_iceberg_type",
    "field_to_arrow",
    "geoarrow_field_type",
    "geoarrow_type",
    "schema_to_arrow",
    "to_arrow_array",
    "to_arrow_scalar",
    "type_to_arrow",
]

FIELD_ID_KEY = b"PARQUET:field_id"
EXTENSION_NAME_KEY = b"ARROW:extension:name"
EXTENSION_METADATA_KEY = b"ARROW:extension:metadata"
VARIANT_EXTENSION_NAME = EXTENSION_NAME_KEY
VARIANT_EXTENSION = {EXTENSION_NAME_KEY: b"arrow.parquet.variant", EXTENSION_METADATA_KEY: b""}
# the Parquet spec's unshredded variant group; its children carry no field ids (Appendix A)
VARIANT_STORAGE = pa.struct(
    [
        pa.field("metadata", pa.binary(), nullable=False),
        pa.field("value", pa.binary(), nullable=False),
    ]
)
GEOARROW_WKB = "geoarrow.wkb"
_GEO_FIELD_METADATA = {EXTENSION_NAME_KEY: GEOARROW_WKB.encode(), EXTENSION_METADATA_KEY: b"{}"}

_ARROW_TYPES: PerPrimitiveType[Any] = PerPrimitiveType(
    "Arrow type",
    {
        BooleanType: constant(pa.bool_()),
        IntegerType: constant(pa.int32()),
        LongType: constant(pa.int64()),
        FloatType: constant(pa.float32()),
        DoubleType: constant(pa.float64()),
        DecimalType: lambda t: pa.decimal128(t.precision, t.scale),
        DateType: constant(pa.date32()),
        TimeType: constant(pa.time64("us")),
        TimestampType: constant(pa.timestamp("us")),
        TimestamptzType: constant(pa.timestamp("us", tz="UTC")),
        TimestampNanoType: constant(pa.timestamp("ns")),
        TimestamptzNanoType: constant(pa.timestamp("ns", tz="UTC")),
        StringType: constant(pa.string()),
        UUIDType: constant(pa.binary(16)),
        FixedType: lambda t: pa.binary(t.length),
        (BinaryType, GeometryType, GeographyType): constant(pa.binary()),
        VariantType: lambda t: VARIANT_STORAGE,
        UnknownType: constant(pa.null()),
        StructType: lambda t: pa.struct([field_to_arrow(f) for f in t.fields]),
        ListType: lambda t: pa.list_(field_to_arrow(t.element_field)),
        MapType: lambda t: pa.map_(field_to_arrow(t.key_field), field_to_arrow(t.value_field)),
    },
)


# pyarrow 20 and 21 cannot open a Parquet file holding a group annotated VARIANT (any writer's:
# "Logical type ... cannot be applied to group node"); 22 reads it as the plain struct
PYARROW_READS_VARIANT = int(pa.__version__.split(".")[0]) >= 22


def check_variant_support(schema: Schema, action: str) -> None:
    """NotSupportedError naming the column when ``schema`` has a variant column and this
    pyarrow cannot open files holding one (DuckDB's own reader still reads them)."""
    if PYARROW_READS_VARIANT:
        return
    for fid in schema.field_ids():
        if isinstance(schema.find_type(fid), VariantType):
            raise NotSupportedError(
                f"{action} variant column {schema.find_column_name(fid)!r} needs pyarrow 22 or"
                f" later (pyarrow {pa.__version__} cannot open Parquet files with variant columns)"
            )


def _metadata(field_id: int) -> dict[bytes, bytes]:
    return {FIELD_ID_KEY: str(field_id).encode()}


def field_to_arrow(f: NestedField) -> pa.Field:
    """One Iceberg field as an Arrow field: nullable unless required, id in the metadata."""
    metadata = _metadata(f.field_id)
    if isinstance(f.type, VariantType):
        metadata.update(VARIANT_EXTENSION)
    if isinstance(f.type, GeometryType | GeographyType):
        # without a CRS: DuckDB refuses CRSs it cannot resolve (e.g. ``srid:4326``) and the
        # table's schema holds the CRS anyway
        metadata.update(_GEO_FIELD_METADATA)
    return pa.field(f.name, type_to_arrow(f.type), nullable=not f.required, metadata=metadata)


class GeoArrowWkb(pa.ExtensionType):
    """GeoArrow's ``geoarrow.wkb`` over ``binary``, with the CRS and edge algorithm of an Iceberg
    geospatial type in its JSON metadata. Deliberately not registered with pyarrow (that would
    clash with the geoarrow package, and readers here want plain binary)."""

    def __init__(self, metadata: bytes = b"{}"):
        self._metadata = metadata
        super().__init__(pa.binary(), GEOARROW_WKB)

    def __arrow_ext_serialize__(self) -> bytes:
        return self._metadata

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: pa.DataType, serialized: bytes) -> GeoArrowWkb:
        return cls(serialized)


def geoarrow_field_type(f: pa.Field) -> GeometryType | GeographyType | None:
    """The geospatial type of an Arrow field holding GeoArrow WKB (DuckDB's ``GEOMETRY`` marks
    its fields so), or None: a plain CRS string is kept, ``edges`` makes a geography."""
    if isinstance(f.type, pa.ExtensionType):
        name, raw = f.type.extension_name, f.type.__arrow_ext_serialize__()
    else:
        meta = f.metadata or {}
        name, raw = meta.get(EXTENSION_NAME_KEY, b"").decode(), meta.get(EXTENSION_METADATA_KEY)
    if name != GEOARROW_WKB:
        return None
    try:
        meta = json.loads(raw or b"{}")
    except ValueError:
        meta = {}
    meta = meta if isinstance(meta, dict) else {}
    crs = meta.get("crs")
    crs = crs if isinstance(crs, str) and crs else DEFAULT_CRS
    edges = meta.get("edges")
    if isinstance(edges, str) and edges != "planar":
        return GeographyType(crs, edges)
    return GeometryType(crs)


def geoarrow_type(t: GeometryType | GeographyType) -> GeoArrowWkb:
    """The ``geoarrow.wkb`` type of a geospatial column: the default CRS (OGC:CRS84) is left
    out, as the Parquet spec's default; ``edges`` marks a geography.

    >>> geoarrow_type(GeographyType("srid:4326", "karney")).__arrow_ext_serialize__()
    b'{"crs": "srid:4326", "edges": "karney"}'
    """
    meta: dict[str, str] = {}
    if t.crs != DEFAULT_CRS:
        meta["crs"] = t.crs
    if isinstance(t, GeographyType):
        meta["edges"] = t.algorithm
    return GeoArrowWkb(json.dumps(meta).encode())


def type_to_arrow(t: IcebergType) -> pa.DataType:
    """The Arrow type icesql uses for an Iceberg type (nested children carry field ids)."""
    return _ARROW_TYPES(t)


def schema_to_arrow(schema: Schema) -> pa.Schema:
    """An Arrow schema with ``PARQUET:field_id`` metadata on every field at every depth."""
    return pa.schema([field_to_arrow(f) for f in schema.fields])


def _same(t: IcebergType, value: Any) -> Any:
    return value


_ARROW_VALUES: PerPrimitiveType[Any] = PerPrimitiveType(
    "Arrow value",
    {
        UUIDType: lambda t, value: value.bytes if hasattr(value, "bytes") else bytes(value),
        StructType: lambda t, value: {
            f.name: _arrow_py(f.type, value.get(f.field_id)) for f in t.fields
        },
        ListType: lambda t, value: [_arrow_py(t.element_type, v) for v in value],
        MapType: lambda t, value: [
            (_arrow_py(t.key_type, k), _arrow_py(t.value_type, v)) for k, v in value.items()
        ],
        (
            BooleanType,
            IntegerType,
            LongType,
            FloatType,
            DoubleType,
            DecimalType,
            DateType,
            TimeType,
            TimestampType,
            TimestamptzType,
            TimestampNanoType,
            TimestamptzNanoType,
            StringType,
            FixedType,
            BinaryType,
            UnknownType,
            VariantType,
            GeometryType,
            GeographyType,
        ): _same,
    },
)


def _arrow_py(t: IcebergType, value: Any) -> Any:
    """A convention value in the shape pyarrow builds from: ints stay ints (exact, also for
    nanoseconds), structs keyed by name, maps as key/value pairs, uuids as bytes."""
    return None if value is None else _ARROW_VALUES(t, value)


def to_arrow_scalar(t: IcebergType, value: Any) -> pa.Scalar:
    """An Arrow scalar of ``type_to_arrow(t)`` for a convention value (None gives a null)."""
    return pa.scalar(_arrow_py(t, value), type=type_to_arrow(t))


def to_arrow_array(t: IcebergType, values: list[Any]) -> pa.Array:
    """An Arrow array of ``type_to_arrow(t)`` from convention values."""
    return pa.array([_arrow_py(t, v) for v in values], type=type_to_arrow(t))


def arrow_to_iceberg_type(t: pa.DataType, next_id: list[int] | None = None) -> IcebergType:
    """The Iceberg type for an Arrow type (e.g. for CREATE TABLE AS).

    Nested children take their id from ``PARQUET:field_id`` metadata when present; otherwise
    from ``next_id``, a one-element counter list that is advanced for each id handed out
    (pass ``[last_column_id + 1]``). Without metadata and without a counter, nested types
    raise ValueError.
    """
    if pa.types.is_boolean(t):
        return BooleanType()
    if pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t):
        return IntegerType()
    if pa.types.is_uint8(t) or pa.types.is_uint16(t):
        return IntegerType()
    if pa.types.is_int64(t) or pa.types.is_uint32(t):
        return LongType()
    if pa.types.is_float16(t) or pa.types.is_float32(t):
        return FloatType()
    if pa.types.is_float64(t):
        return DoubleType()
    if pa.types.is_decimal(t):
        if t.precision > 38:
            raise NotSupportedError(f"Iceberg decimals hold at most 38 digits, not {t}")
        return DecimalType(t.precision, t.scale)
    if pa.types.is_date(t):
        return DateType()
    if pa.types.is_time(t):
        return TimeType()
    if pa.types.is_timestamp(t):
        nanos = t.unit == "ns"
        if t.tz is None:
            return TimestampNanoType() if nanos else TimestampType()
        return TimestamptzNanoType() if nanos else TimestamptzType()
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return StringType()
    if pa.types.is_fixed_size_binary(t):
        return FixedType(t.byte_width)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return BinaryType()
    if pa.types.is_null(t):
        return UnknownType()
    if pa.types.is_dictionary(t):
        return arrow_to_iceberg_type(t.value_type, next_id)
    if pa.types.is_struct(t):
        fields = tuple(_arrow_field(t.field(i), next_id) for i in range(t.num_fields))
        return StructType(fields)
    if pa.types.is_map(t):
        key = _arrow_field(t.key_field, next_id)
        value = _arrow_field(t.item_field, next_id)
        return MapType(key.field_id, key.type, value.field_id, value.type, value.required)
    if (
        pa.types.is_list(t)
        or pa.types.is_large_list(t)
        or pa.types.is_fixed_size_list(t)
        or pa.types.is_list_view(t)
        or pa.types.is_large_list_view(t)
    ):
        element = _arrow_field(t.value_field, next_id)
        return ListType(element.field_id, element.type, element.required)
    raise NotSupportedError(f"no Iceberg type for Arrow type {t}")


def arrow_field_type(f: pa.Field, next_id: list[int] | None = None) -> IcebergType:
    """``arrow_to_iceberg_type`` of a field's type, except that a field named as the
    ``arrow.parquet.variant`` extension (DuckDB's VARIANT) is a variant, and one holding
    GeoArrow WKB (DuckDB's GEOMETRY) is a geospatial type."""
    if (f.metadata or {}).get(VARIANT_EXTENSION_NAME) == VARIANT_EXTENSION[VARIANT_EXTENSION_NAME]:
        return VariantType()
    return geoarrow_field_type(f) or arrow_to_iceberg_type(f.type, next_id)


def _arrow_field(f: pa.Field, next_id: list[int] | None) -> NestedField:
    """A nested Arrow field as a NestedField; its id is assigned before its children's."""
    meta = f.metadata or {}
    if FIELD_ID_KEY in meta:
        field_id = int(meta[FIELD_ID_KEY])
    elif next_id is not None:
        field_id = next_id[0]
        next_id[0] += 1
    else:
        raise ValueError(f"Arrow field {f.name!r} has no field id and no id counter was given")
    return NestedField(field_id, f.name, arrow_field_type(f, next_id), not f.nullable)
