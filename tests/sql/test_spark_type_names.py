"""Iceberg types spelled as Spark prints them: ``DataType.simpleString`` (DESCRIBE, typeof)
and ``DataType.sql`` (SHOW CREATE TABLE).

The expected spellings are Spark 3.5's (``IntegerType.simpleString`` is ``int``,
``TimestampNTZType`` is ``timestamp_ntz``, ``StructType.sql`` is ``STRUCT<a: INT>``), with
Iceberg's Spark type mapping for the types Spark lacks (uuid as string, fixed as binary).
"""

from __future__ import annotations

import pytest

from icesql.spec.dispatch import UnhandledTypeError
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
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
from icesql.sql.spark_type_names import spark_ddl_type, spark_primitive_name, spark_type


@pytest.mark.parametrize(
    "iceberg, spark",
    [
        (BooleanType(), "boolean"),
        (IntegerType(), "int"),
        (LongType(), "bigint"),
        (FloatType(), "float"),
        (DoubleType(), "double"),
        (DecimalType(9, 2), "decimal(9,2)"),
        (DecimalType(38, 0), "decimal(38,0)"),
        (DateType(), "date"),
        (TimeType(), "time"),
        (TimestampType(), "timestamp_ntz"),
        (TimestampNanoType(), "timestamp_ntz"),
        (TimestamptzType(), "timestamp"),
        (TimestamptzNanoType(), "timestamp"),
        (StringType(), "string"),
        (UUIDType(), "string"),
        (FixedType(16), "binary"),
        (BinaryType(), "binary"),
        (UnknownType(), "void"),
        (VariantType(), "variant"),
    ],
)
def test_primitive_names(iceberg, spark):
    assert spark_primitive_name(iceberg) == spark
    assert spark_type(iceberg) == spark
    assert spark_ddl_type(iceberg) == spark.upper()


NESTED = StructType(
    (
        NestedField(1, "a", IntegerType()),
        NestedField(2, "tags", ListType(3, StringType(), False)),
        NestedField(4, "m", MapType(5, StringType(), 6, DecimalType(9, 2), False)),
        NestedField(7, "s", StructType((NestedField(8, "ts", TimestamptzType()),))),
    )
)


@pytest.mark.parametrize(
    "iceberg, simple, ddl",
    [
        (ListType(1, IntegerType(), True), "array<int>", "ARRAY<INT>"),
        (
            MapType(1, StringType(), 2, LongType(), False),
            "map<string,bigint>",
            "MAP<STRING, BIGINT>",
        ),
        (
            ListType(1, ListType(2, DateType(), False), False),
            "array<array<date>>",
            "ARRAY<ARRAY<DATE>>",
        ),
        (
            NESTED,
            "struct<a:int,tags:array<string>,m:map<string,decimal(9,2)>,s:struct<ts:timestamp>>",
            "STRUCT<a: INT, tags: ARRAY<STRING>, m: MAP<STRING, DECIMAL(9,2)>, s: STRUCT<ts: TIMESTAMP>>",
        ),
        (StructType(()), "struct<>", "STRUCT<>"),
    ],
)
def test_nested_names(iceberg, simple, ddl):
    assert spark_type(iceberg) == simple
    assert spark_ddl_type(iceberg) == ddl


def test_a_nested_type_has_no_primitive_name():
    with pytest.raises(UnhandledTypeError, match=r"Spark type name .* list<int> \(ListType\)"):
        spark_primitive_name(ListType(1, IntegerType(), True))


def test_geospatial_ddl_spelling_parses_back():
    """SHOW CREATE TABLE quotes the CRS (``:`` is no SQL token), so the DDL runs again."""
    from sqlglot import exp

    from icesql.spec.types import GeographyType, GeometryType
    from icesql.sql.spark_types import iceberg_type

    for t, ddl in [
        (GeometryType(), "GEOMETRY"),
        (GeometryType("srid:4326"), "GEOMETRY('srid:4326')"),
        (GeographyType(), "GEOGRAPHY"),
        (GeographyType("srid:4269"), "GEOGRAPHY('srid:4269')"),
        (GeographyType("OGC:CRS84", "karney"), "GEOGRAPHY('OGC:CRS84', 'karney')"),
    ]:
        assert spark_ddl_type(t) == ddl
        assert iceberg_type(exp.DataType.build(ddl, dialect="spark")) == t
