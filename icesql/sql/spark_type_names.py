"""Spark SQL's names of types: the one table from Iceberg types to what Spark prints.

``DESCRIBE``, ``typeof()``, ``Cursor.description``, the types named in cast and
store-assignment errors and ``SHOW CREATE TABLE`` all spell a type the way Spark's
``DataType.simpleString`` does; they all read ``SPARK_TYPE_NAMES``::

    >>> from icesql.spec.types import DecimalType, MapType, NestedField, StringType
    >>> from icesql.spec.types import StructType, TimestampType
    >>> spark_type(MapType(1, StringType(), 2, TimestampType(), False))
    'map<string,timestamp_ntz>'
    >>> spark_ddl_type(StructType((NestedField(1, "d", DecimalType(9, 2)),)))
    'STRUCT<d: DECIMAL(9,2)>'

Spark has no nanosecond timestamps, uuid or fixed: it shows them as the type it reads them
as (``timestamp_ntz``/``timestamp``, ``string``, ``binary``). ``tinyint`` and ``smallint``
are Spark types without an Iceberg counterpart (Iceberg widens them to ``int``).
"""

from __future__ import annotations

from typing import Any

from icesql.spec.dispatch import PerPrimitiveType
from icesql.spec.types import (
    DEFAULT_ALGORITHM,
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
    "SMALLINT",
    "SPARK_TYPE_NAMES",
    "TINYINT",
    "spark_ddl_type",
    "spark_primitive_name",
    "spark_type",
]

TINYINT = "tinyint"
SMALLINT = "smallint"

SPARK_TYPE_NAMES: PerPrimitiveType[Any] = PerPrimitiveType(
    "Spark type name",
    {
        BooleanType: "boolean",
        IntegerType: "int",
        LongType: "bigint",
        FloatType: "float",
        DoubleType: "double",
        DecimalType: lambda t: f"decimal({t.precision},{t.scale})",
        DateType: "date",
        TimeType: "time",
        (TimestampType, TimestampNanoType): "timestamp_ntz",
        (TimestamptzType, TimestamptzNanoType): "timestamp",
        (StringType, UUIDType): "string",
        (FixedType, BinaryType): "binary",
        UnknownType: "void",
        VariantType: "variant",
        (GeometryType, GeographyType): str,  # no Spark type: the Iceberg spelling
    },
)
"""Iceberg primitive type class -> Spark's name (a function of the type where it has
parameters)."""


def spark_primitive_name(t: IcebergType) -> str:
    """Spark's name of a primitive type: ``bigint``, ``decimal(9,2)``, ``timestamp_ntz``."""
    name = SPARK_TYPE_NAMES[t]
    return name(t) if callable(name) else name


def spark_type(t: IcebergType) -> str:
    """Spark's ``DESCRIBE`` spelling: ``struct<a:int,b:string>``, ``map<string,int>``."""
    if isinstance(t, StructType):
        return "struct<" + ",".join(f"{f.name}:{spark_type(f.type)}" for f in t.fields) + ">"
    if isinstance(t, ListType):
        return f"array<{spark_type(t.element_type)}>"
    if isinstance(t, MapType):
        return f"map<{spark_type(t.key_type)},{spark_type(t.value_type)}>"
    return spark_primitive_name(t)


def spark_ddl_type(t: IcebergType) -> str:
    """Spark's ``SHOW CREATE TABLE`` spelling: ``STRUCT<a: INT, b: STRING>``."""
    if isinstance(t, StructType):
        return "STRUCT<" + ", ".join(f"{f.name}: {spark_ddl_type(f.type)}" for f in t.fields) + ">"
    if isinstance(t, ListType):
        return f"ARRAY<{spark_ddl_type(t.element_type)}>"
    if isinstance(t, MapType):
        return f"MAP<{spark_ddl_type(t.key_type)}, {spark_ddl_type(t.value_type)}>"
    if isinstance(t, GeometryType | GeographyType):
        return _geo_ddl(t)
    return spark_primitive_name(t).upper()


def _geo_ddl(t: GeometryType | GeographyType) -> str:
    """icesql's DDL spelling (CRS quoted: ``:`` is no SQL token), which CREATE TABLE takes back:
    ``GEOMETRY('srid:4326')``, ``GEOGRAPHY('OGC:CRS84', 'karney')``."""
    params = [] if t.crs == DEFAULT_CRS else [t.crs]
    if isinstance(t, GeographyType) and t.algorithm != DEFAULT_ALGORITHM:
        params = [t.crs, t.algorithm]
    name = "GEOGRAPHY" if isinstance(t, GeographyType) else "GEOMETRY"
    quoted = ", ".join("'" + p.replace("'", "''") + "'" for p in params)
    return f"{name}({quoted})" if params else name
