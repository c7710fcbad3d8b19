"""Name mapping: the spec's example, lookups, and the mapping built from a schema."""

from __future__ import annotations

import json

import pytest

from icesql.spec.name_mapping import MappedField, NameMapping, create_mapping_from_schema
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DoubleType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
)

SPEC_EXAMPLE = """
[ { "field-id": 1, "names": ["id", "record_id"] },
  { "field-id": 2, "names": ["data"] },
  { "field-id": 3, "names": ["location"], "fields": [
    { "field-id": 4, "names": ["latitude", "lat"] },
    { "field-id": 5, "names": ["longitude", "long"] }
  ] } ]
"""


def test_spec_example():
    m = NameMapping.from_json(SPEC_EXAMPLE)
    assert m.find(["id"]) == 1 and m.find("record_id") == 1
    assert m.find(["location", "lat"]) == 4
    assert m.find(["location", "latitude"]) == 4
    assert m.find(["location", "long"]) == 5
    assert m.find(["location"]) == 3
    assert m.find(["lat"]) is None
    assert m.find(["ID"]) is None  # names match exactly
    assert m.to_json() == json.loads(SPEC_EXAMPLE)
    assert NameMapping.from_json(m.to_json_string()) == m


def test_field_without_id_still_maps_children():
    m = NameMapping.from_json([{"names": ["wrapper"], "fields": [{"field-id": 7, "names": ["x"]}]}])
    assert m.find(["wrapper"]) is None
    assert m.find(["wrapper", "x"]) == 7
    assert m.fields[0] == MappedField(None, ("wrapper",), (MappedField(7, ("x",)),))


def test_rejects_non_list():
    with pytest.raises(ValueError):
        NameMapping.from_json('{"field-id": 1}')


def test_create_from_schema():
    schema = Schema(
        (
            NestedField(1, "id", LongType(), True),
            NestedField(2, "loc", StructType((NestedField(3, "lat", DoubleType()),))),
            NestedField(4, "tags", ListType(5, StringType(), True)),
            NestedField(6, "m", MapType(7, StringType(), 8, DoubleType(), False)),
        )
    )
    m = create_mapping_from_schema(schema)
    assert m.to_json() == [
        {"field-id": 1, "names": ["id"]},
        {"field-id": 2, "names": ["loc"], "fields": [{"field-id": 3, "names": ["lat"]}]},
        {"field-id": 4, "names": ["tags"], "fields": [{"field-id": 5, "names": ["element"]}]},
        {
            "field-id": 6,
            "names": ["m"],
            "fields": [{"field-id": 7, "names": ["key"]}, {"field-id": 8, "names": ["value"]}],
        },
    ]
    assert m.find(["m", "value"]) == 8
    assert m.find(["tags", "element"]) == 5
