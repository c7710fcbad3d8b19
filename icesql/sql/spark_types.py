"""Iceberg types spelled as Spark SQL type names (``BIGINT``, ``DECIMAL(9,2)``, ``STRUCT<..>``)."""

from __future__ import annotations

from icesql.spec import types as t

_PRIMITIVES: dict[type, str] = {
    t.BooleanType: "BOOLEAN",
    t.IntegerType: "INT",
    t.LongType: "BIGINT",
    t.FloatType: "FLOAT",
    t.DoubleType: "DOUBLE",
    t.DateType: "DATE",
    t.TimeType: "TIME",
    t.TimestampType: "TIMESTAMP_NTZ",
    t.TimestamptzType: "TIMESTAMP",
    t.TimestampNanoType: "TIMESTAMP_NTZ",
    t.TimestamptzNanoType: "TIMESTAMP",
    t.StringType: "STRING",
    t.UUIDType: "BINARY",
    t.FixedType: "BINARY",
    t.BinaryType: "BINARY",
    t.UnknownType: "VOID",
    t.VariantType: "BINARY",
    t.GeometryType: "BINARY",
    t.GeographyType: "BINARY",
}


def spark_type_name(iceberg_type: t.IcebergType) -> str:
    """The Spark SQL name of an Iceberg type, as Spark's ``DESCRIBE`` shows it."""
    if isinstance(iceberg_type, t.DecimalType):
        return f"DECIMAL({iceberg_type.precision},{iceberg_type.scale})"
    if isinstance(iceberg_type, t.StructType):
        inner = ",".join(f"{f.name}:{spark_type_name(f.type)}" for f in iceberg_type.fields)
        return f"STRUCT<{inner}>"
    if isinstance(iceberg_type, t.ListType):
        return f"ARRAY<{spark_type_name(iceberg_type.element_type)}>"
    if isinstance(iceberg_type, t.MapType):
        key, value = spark_type_name(iceberg_type.key_type), spark_type_name(iceberg_type.value_type)
        return f"MAP<{key},{value}>"
    return _PRIMITIVES[type(iceberg_type)]
