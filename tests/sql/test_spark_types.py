"""Spark SQL types read as Iceberg types, as Iceberg's Spark catalog converts them
(``TypeToSparkType``/``SparkTypeToType``): TIMESTAMP is timestamptz, TIMESTAMP_NTZ
timestamp, TINYINT/SMALLINT widen to int, CHAR/VARCHAR to string; and column definitions."""

from __future__ import annotations

import pytest
from sqlglot import exp

import icesql
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
from icesql.sql.dialect import parse_one
from icesql.sql.spark_types import column_field, fresh_schema_fields, iceberg_type, struct_fields


def _type(text: str) -> exp.DataType:
    return exp.DataType.build(text, dialect="spark")


def _columns(ddl: str) -> list[exp.ColumnDef]:
    """The table's top-level column definitions (not the fields of its structs)."""
    schema = parse_one(f"CREATE TABLE t ({ddl}) USING iceberg").find(exp.Schema)
    return [c for c in schema.expressions if isinstance(c, exp.ColumnDef)]


@pytest.mark.parametrize(
    "spark, iceberg",
    [
        ("BOOLEAN", BooleanType()),
        ("TINYINT", IntegerType()),
        ("SMALLINT", IntegerType()),
        ("INT", IntegerType()),
        ("BIGINT", LongType()),
        ("FLOAT", FloatType()),
        ("DOUBLE", DoubleType()),
        ("DECIMAL", DecimalType(10, 0)),
        ("DECIMAL(9)", DecimalType(9, 0)),
        ("DECIMAL(9, 2)", DecimalType(9, 2)),
        ("DECIMAL(38, 38)", DecimalType(38, 38)),
        ("STRING", StringType()),
        ("VARCHAR(10)", StringType()),
        ("CHAR(3)", StringType()),
        ("BINARY", BinaryType()),
        ("DATE", DateType()),
        ("TIMESTAMP", TimestamptzType()),
        ("TIMESTAMP_NTZ", TimestampType()),
        ("TIMESTAMP_LTZ", TimestamptzType()),
        ("NULL", UnknownType()),
    ],
)
def test_spark_types(spark, iceberg):
    assert iceberg_type(_type(spark)) == iceberg


@pytest.mark.parametrize(
    "ddl, iceberg",
    [
        ("u UUID", UUIDType()),
        ("f FIXED(16)", FixedType(16)),
        ("t TIME", TimeType()),
        ("n TIMESTAMP_NS", TimestampNanoType()),
        ("n timestamptz_ns", TimestamptzNanoType()),
        ("n STRUCT<a: TIMESTAMPTZ_NS>", StructType((NestedField(0, "a", TimestamptzNanoType()),))),
        ("v VARIANT", VariantType()),
        ("v VOID", UnknownType()),
    ],
)
def test_iceberg_types_beyond_spark(ddl, iceberg):
    (column,) = _columns(ddl)
    assert column_field(column).type == iceberg


@pytest.mark.parametrize(
    "spark, iceberg",
    [
        ("ARRAY<INT>", ListType(0, IntegerType(), False)),
        (
            "MAP<STRING, ARRAY<DATE>>",
            MapType(0, StringType(), 0, ListType(0, DateType(), False), False),
        ),
        (
            "STRUCT<a: INT, b: STRING NOT NULL>",
            StructType(
                (NestedField(0, "a", IntegerType()), NestedField(0, "b", StringType(), True))
            ),
        ),
    ],
)
def test_nested_types_have_placeholder_ids(spark, iceberg):
    assert iceberg_type(_type(spark)) == iceberg


@pytest.mark.parametrize(
    "spark, error, message",
    [
        ("DECIMAL(39, 0)", icesql.ProgrammingError, r"DECIMAL\(39,0\)"),
        ("DECIMAL(5, 6)", icesql.ProgrammingError, r"DECIMAL\(5,6\)"),
        ("DECIMAL(0, 0)", icesql.ProgrammingError, r"DECIMAL\(0,0\)"),
        ("INTERVAL", icesql.NotSupportedError, "INTERVAL cannot be stored"),
    ],
)
def test_types_iceberg_cannot_store_are_refused(spark, error, message):
    with pytest.raises(error, match=message):
        iceberg_type(_type(spark))


def test_fixed_needs_a_positive_length():
    (column,) = _columns("f FIXED(0)")
    with pytest.raises(icesql.ProgrammingError, match="positive length"):
        column_field(column)


def test_column_definitions_carry_name_nullability_and_comment():
    a, b, c = _columns("a INT NOT NULL COMMENT 'the key', b STRING, c STRUCT<x: INT> COMMENT 'c'")
    assert column_field(a) == NestedField(0, "a", IntegerType(), True, "the key")
    assert column_field(b) == NestedField(0, "b", StringType(), False, None)
    assert column_field(c).doc == "c" and not column_field(c).required


def test_other_column_constraints_are_refused_by_name():
    (column,) = _columns("a INT DEFAULT 1")
    with pytest.raises(icesql.NotSupportedError, match="DEFAULT 1"):
        column_field(column)


def test_a_column_without_a_type_is_refused():
    with pytest.raises(icesql.ProgrammingError, match="column a needs a type"):
        column_field(exp.ColumnDef(this=exp.to_identifier("a")))


def test_struct_fields_need_names():
    unnamed = exp.DataType(this=exp.DataType.Type.STRUCT, expressions=[_type("INT")], nested=True)
    with pytest.raises(icesql.ProgrammingError, match="struct fields need names"):
        struct_fields(unnamed)


def test_fresh_ids_follow_javas_order():
    # Java's TypeUtil.assignFreshIds: a struct's own fields first, then their children
    fields = fresh_schema_fields(
        struct_fields(
            _type("STRUCT<a: INT, b: STRUCT<c: INT, d: ARRAY<INT>>, e: MAP<STRING, INT>>")
        ),
        1,
    )
    assert [str(f) for f in fields] == [
        "1: a: optional int",
        "2: b: optional struct<4: c: optional int, 5: d: optional list<int>>",
        "3: e: optional map<string, int>",
    ]
    assert fields[1].type.fields[1].type.element_id == 6
    assert (fields[2].type.key_id, fields[2].type.value_id) == (7, 8)


@pytest.mark.parametrize(
    ("ddl", "expected"),
    [
        ("GEOMETRY", "geometry"),
        ("GEOMETRY('OGC:CRS84')", "geometry"),
        ("GEOMETRY('srid:4326')", "geometry(srid:4326)"),
        ("GEOMETRY(3857)", "geometry(srid:3857)"),
        ("GEOMETRY('projjson:crs_prop')", "geometry(projjson:crs_prop)"),
        ("GEOGRAPHY", "geography"),
        ("GEOGRAPHY('srid:4269')", "geography(srid:4269)"),
        ("GEOGRAPHY('OGC:CRS84', 'spherical')", "geography"),
        ("GEOGRAPHY('OGC:CRS84', karney)", "geography(OGC:CRS84, karney)"),
        ("GEOGRAPHY('srid:4326', 'VINCENTY')", "geography(srid:4326, vincenty)"),
    ],
)
def test_geospatial_types(ddl, expected):
    """The spec's ``geometry(C)`` / ``geography(C, A)``, defaults OGC:CRS84 and spherical left
    out of the type string as Iceberg writes it."""
    assert str(iceberg_type(exp.DataType.build(ddl, dialect="spark"))) == expected


@pytest.mark.parametrize(
    ("ddl", "error", "pattern"),
    [
        (
            "CREATE TABLE t (g GEOGRAPHY('OGC:CRS84', 'great_circle'))",
            icesql.NotSupportedError,
            "algorithm 'great_circle'",
        ),
        ("CREATE TABLE t (g GEOMETRY(OGC:CRS84))", icesql.ProgrammingError, "CRS as a string"),
        ("CREATE TABLE t (g GEOMETRY('a', 'b'))", icesql.ProgrammingError, "one CRS"),
        (
            "CREATE TABLE t (g GEOGRAPHY('a', 'spherical', 'x'))",
            icesql.ProgrammingError,
            "a CRS and",
        ),
        ("CREATE TABLE t (g GEOMETRY('srid 4326'))", icesql.ProgrammingError, "invalid CRS"),
    ],
)
def test_bad_geospatial_types(ddl, error, pattern):
    create = parse_one(ddl)
    with pytest.raises(error, match=pattern):
        column_field(create.this.expressions[0])
