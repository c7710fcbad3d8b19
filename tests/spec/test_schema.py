"""Schema: lookups by id and dotted name, JSON round trip, projection."""

from __future__ import annotations

import json

import pytest

from icesql.errors import ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DoubleType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
)

SCHEMA = Schema(
    (
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "Data", StringType()),
        NestedField(
            3,
            "location",
            StructType((NestedField(4, "lat", DoubleType()), NestedField(5, "long", DoubleType()))),
        ),
        NestedField(6, "tags", ListType(7, StringType(), element_required=True)),
        NestedField(
            8,
            "points",
            ListType(9, StructType((NestedField(10, "x", IntegerType(), True),)), False),
        ),
        NestedField(
            11,
            "props",
            MapType(12, StringType(), 13, StructType((NestedField(14, "v", LongType()),)), False),
        ),
    ),
    schema_id=3,
    identifier_field_ids=(1,),
)


@pytest.mark.parametrize(
    "name, field_id",
    [
        ("id", 1),
        ("data", 2),
        ("DATA", 2),
        ("location", 3),
        ("location.lat", 4),
        ("Location.LONG", 5),
        ("tags", 6),
        ("tags.element", 7),
        ("points.element", 9),
        ("points.element.x", 10),
        ("points.x", 10),
        ("props.key", 12),
        ("props.value", 13),
        ("props.value.v", 14),
        ("props.v", 14),
    ],
)
def test_find_field_by_name(name, field_id):
    assert SCHEMA.find_field_by_name(name).field_id == field_id


def test_case_sensitive_lookup():
    assert SCHEMA.find_field_by_name("Data", case_sensitive=True).field_id == 2
    with pytest.raises(ProgrammingError):
        SCHEMA.find_field_by_name("data", case_sensitive=True)


def test_unknown_name_lists_available_columns():
    with pytest.raises(ProgrammingError) as e:
        SCHEMA.find_field_by_name("nope")
    message = str(e.value)
    assert "'nope'" in message
    assert "id, Data, location, tags, points, props" in message
    with pytest.raises(ProgrammingError):
        SCHEMA.find_field_by_name("location.alt")


@pytest.mark.parametrize(
    "field_id, name",
    [
        (1, "id"),
        (4, "location.lat"),
        (7, "tags.element"),
        (10, "points.element.x"),
        (12, "props.key"),
        (14, "props.value.v"),
    ],
)
def test_find_field_and_column_name(field_id, name):
    assert SCHEMA.find_column_name(field_id) == name
    assert SCHEMA.find_field(field_id).field_id == field_id


def test_find_type_and_missing_ids():
    assert SCHEMA.find_type(4) == DoubleType()
    assert SCHEMA.find_type(9) == StructType((NestedField(10, "x", IntegerType(), True),))
    assert SCHEMA.find_field(7).name == "element"
    with pytest.raises(ProgrammingError, match="99"):
        SCHEMA.find_field(99)
    assert not SCHEMA.has_field_id(99) and SCHEMA.has_field_id(14)


def test_highest_field_id_and_ids():
    assert SCHEMA.highest_field_id() == 14
    assert Schema(()).highest_field_id() == 0
    assert sorted(SCHEMA.field_ids()) == list(range(1, 15))
    assert SCHEMA.identifier_field_names() == ["id"]


def test_json_round_trip_keeps_order_and_ids():
    encoded = SCHEMA.to_json()
    assert list(encoded) == ["type", "schema-id", "identifier-field-ids", "fields"]
    assert [f["name"] for f in encoded["fields"]] == SCHEMA.column_names
    decoded = Schema.from_json(json.loads(json.dumps(encoded)))
    assert decoded == SCHEMA
    assert decoded.schema_id == 3 and decoded.identifier_field_ids == (1,)


def test_v1_schema_without_id():
    s = Schema.from_json(
        {"type": "struct", "fields": [{"id": 1, "name": "a", "required": False, "type": "int"}]}
    )
    assert s.schema_id == 0 and s.identifier_field_ids == ()
    assert "identifier-field-ids" not in s.to_json()


def test_select_keeps_ids_and_requested_order():
    projected = SCHEMA.select("location", "ID")
    assert projected.column_names == ["location", "id"]
    assert projected.find_field_by_name("location.long").field_id == 5
    assert projected.identifier_field_ids == (1,)
    assert SCHEMA.select("data").identifier_field_ids == ()
    with pytest.raises(ProgrammingError, match="'missing'"):
        SCHEMA.select("missing")


def test_schema_accepts_lists():
    s = Schema([NestedField(1, "a", IntegerType())], identifier_field_ids=[1])
    assert s.fields == (NestedField(1, "a", IntegerType()),)
    assert hash(s) == hash(Schema((NestedField(1, "a", IntegerType()),), 0, (1,)))
