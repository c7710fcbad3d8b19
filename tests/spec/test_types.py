"""Types: spec type strings and Appendix C JSON round trips."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest

from icesql.errors import NotSupportedError
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
    effective_default,
    field_from_json,
    field_to_json,
    is_nested,
    is_primitive,
    min_format_version,
    type_from_json,
    type_to_json,
)

PRIMITIVES = {
    "boolean": BooleanType(),
    "int": IntegerType(),
    "long": LongType(),
    "float": FloatType(),
    "double": DoubleType(),
    "date": DateType(),
    "time": TimeType(),
    "timestamp": TimestampType(),
    "timestamptz": TimestamptzType(),
    "timestamp_ns": TimestampNanoType(),
    "timestamptz_ns": TimestamptzNanoType(),
    "string": StringType(),
    "uuid": UUIDType(),
    "binary": BinaryType(),
    "unknown": UnknownType(),
    "variant": VariantType(),
    "fixed[16]": FixedType(16),
    "decimal(9,2)": DecimalType(9, 2),
    "geometry": GeometryType(),
    "geometry(srid:4326)": GeometryType("srid:4326"),
    "geography": GeographyType(),
    "geography(srid:4326)": GeographyType("srid:4326"),
    "geography(srid:4326, vincenty)": GeographyType("srid:4326", "vincenty"),
}


@pytest.mark.parametrize("text", list(PRIMITIVES))
def test_primitive_string_round_trip(text):
    t = PRIMITIVES[text]
    assert str(t) == text
    assert type_to_json(t) == text
    assert type_from_json(text) == t
    assert is_primitive(t) and not is_nested(t)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("decimal(9, 2)", DecimalType(9, 2)),  # Java writes the space
        ("DECIMAL( 38 , 10 )", DecimalType(38, 10)),
        ("fixed[ 3 ]", FixedType(3)),
        ("geometry(OGC:CRS84)", GeometryType()),
        ("geography(srid:4326, spherical)", GeographyType("srid:4326")),
        ("TimestampTZ", TimestamptzType()),
    ],
)
def test_lenient_type_strings(text, expected):
    assert type_from_json(text) == expected


def test_unknown_type_string_names_it():
    with pytest.raises(NotSupportedError, match="varchar"):
        type_from_json("varchar(10)")


def test_decimal_precision_limit():
    with pytest.raises(ValueError):
        DecimalType(39, 0)


def test_types_are_hashable_values():
    assert DecimalType(9, 2) == DecimalType(9, 2)
    assert len({DecimalType(9, 2), DecimalType(9, 2), FixedType(2)}) == 2
    assert LongType() != IntegerType()
    assert TimestampType() != TimestamptzType()


def test_nested_type_json_round_trip():
    t = StructType(
        (
            NestedField(1, "id", UUIDType(), required=True, doc="row id"),
            NestedField(
                2, "tags", ListType(3, StringType(), element_required=True), required=False
            ),
            NestedField(
                4,
                "props",
                MapType(5, StringType(), 6, DoubleType(), value_required=False),
                required=True,
            ),
            NestedField(7, "point", StructType((NestedField(8, "x", IntegerType(), True),))),
        )
    )
    encoded = type_to_json(t)
    assert encoded["fields"][1]["type"] == {
        "type": "list",
        "element-id": 3,
        "element": "string",
        "element-required": True,
    }
    assert encoded["fields"][2]["type"] == {
        "type": "map",
        "key-id": 5,
        "key": "string",
        "value-id": 6,
        "value": "double",
        "value-required": False,
    }
    assert encoded["fields"][0]["doc"] == "row id"
    assert "doc" not in encoded["fields"][1]
    assert type_from_json(json.loads(json.dumps(encoded))) == t
    assert str(t.fields[2].type) == "map<string, double>"
    assert t.field(8) is None and t.field(7).name == "point"
    assert t.field_by_name("POINT", case_sensitive=False).field_id == 7
    assert t.field_by_name("POINT") is None


def test_spec_example_field_with_uuid_defaults():
    obj = {
        "id": 1,
        "name": "id",
        "required": True,
        "type": "uuid",
        "initial-default": "0db3e2a8-9d1d-42b9-aa7b-74ebe558dceb",
        "write-default": "ec5911be-b0a7-458c-8438-c9a3e53cffae",
    }
    f = field_from_json(obj)
    assert f.initial_default == uuid.UUID("0db3e2a8-9d1d-42b9-aa7b-74ebe558dceb")
    assert f.write_default == uuid.UUID("ec5911be-b0a7-458c-8438-c9a3e53cffae")
    assert field_to_json(f) == obj


@pytest.mark.parametrize(
    "ftype, default_json, value",
    [
        (IntegerType(), 34, 34),
        (DecimalType(4, 2), "14.20", Decimal("14.20")),
        (DateType(), "2017-11-16", (dt.date(2017, 11, 16) - dt.date(1970, 1, 1)).days),
        (TimestamptzType(), "1969-12-31T23:59:59.999999+00:00", -1),
        (BinaryType(), "000102ff", b"\x00\x01\x02\xff"),
        (
            StructType((NestedField(2, "x", IntegerType()), NestedField(3, "y", StringType()))),
            {"2": 1, "3": "bar"},
            {2: 1, 3: "bar"},
        ),
        (StructType((NestedField(2, "x", IntegerType()),)), {}, {}),
    ],
)
def test_field_defaults_use_json_single_value_form(ftype, default_json, value):
    obj = {
        "id": 1,
        "name": "c",
        "required": False,
        "type": type_to_json(ftype),
        "initial-default": default_json,
        "write-default": default_json,
    }
    f = field_from_json(obj)
    assert f.initial_default == value and f.write_default == value
    assert field_to_json(f) == obj


def test_nested_field_str_and_optional():
    f = NestedField(2, "bar", LongType(), required=True, doc="Just a long")
    assert str(f) == "2: bar: required long (Just a long)"
    assert not f.optional
    assert NestedField(3, "x", IntegerType()).optional


def test_list_and_map_expose_their_fields():
    lt = ListType(3, StringType(), False)
    assert lt.element_field == NestedField(3, "element", StringType(), False)
    mt = MapType(4, StringType(), 5, LongType(), True)
    assert [f.name for f in mt.fields] == ["key", "value"]
    assert mt.key_field.required and mt.value_field.required


def test_malformed_nested_json():
    with pytest.raises(ValueError, match="element-id"):
        type_from_json({"type": "list", "element": "int", "element-required": True})
    with pytest.raises(NotSupportedError):
        type_from_json({"type": "union"})


@pytest.mark.parametrize(
    ("t", "version"),
    [
        (TimestampType(), 1),
        (UUIDType(), 1),
        (TimestampNanoType(), 3),
        (TimestamptzNanoType(), 3),
        (UnknownType(), 3),
        (VariantType(), 3),
        (GeometryType(), 3),
        (GeographyType(), 3),
        (MapType(1, StringType(), 2, ListType(3, TimestamptzNanoType(), False), False), 3),
        (StructType((NestedField(1, "a", IntegerType()),)), 1),
        (StructType(()), 1),
    ],
    ids=str,
)
def test_min_format_version_follows_the_spec_type_table(t, version):
    assert min_format_version(t) == version


def test_effective_default_of_a_struct_is_its_fields_defaults():
    inner = StructType((NestedField(3, "z", IntegerType(), initial_default=1, write_default=2),))
    f = NestedField(
        1,
        "p",
        StructType(
            (
                NestedField(2, "x", IntegerType(), initial_default=0),
                NestedField(4, "q", inner, initial_default={}, write_default=None),
            )
        ),
        initial_default={},
        write_default={},
    )
    assert effective_default(f) == {2: 0, 4: {3: 1}}
    assert effective_default(f, initial=False) == {2: None, 4: None}
    assert (
        effective_default(NestedField(5, "n", IntegerType(), write_default=7), initial=False) == 7
    )
    assert effective_default(NestedField(6, "s", inner)) is None
