"""Avro schemas in the shape of Java's AvroSchemaUtil (optional unions, int-keyed maps as
arrays of key/value records, compatible names) and the Iceberg schema of such a schema, the
``iceberg.schema`` header key Java writes (checked against Java's own in test_manifest_list
and test_manifest_schema)."""

from __future__ import annotations

import io

import fastavro
import pytest

from icesql.metadata.avro.schema import (
    avro_field,
    avro_int_map,
    avro_list,
    compatible_name,
    iceberg_schema,
)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("ok_Name9", "ok_Name9"),
        ("_x", "_x"),
        ("", ""),
        ("cat-egory", "cat_x2Degory"),  # Java: '_x' + upper-case hex of the char
        ("1st", "_1st"),  # a leading digit is prefixed with '_'
        ("-a", "_x2Da"),
        ("a.b c", "a_x2Eb_x20c"),
        ("é", "_xE9"),
        ("a€", "a_x20AC"),
    ],
)
def test_compatible_name_like_java(name: str, expected: str) -> None:
    assert compatible_name(name) == expected
    if expected:
        fastavro.parse_schema({"type": "record", "name": "r", "fields": [
            {"name": expected, "type": "int"}]})  # fmt: skip


def test_avro_field_shapes() -> None:
    assert avro_field("a", "int", 1) == {"name": "a", "type": "int", "field-id": 1}
    assert list(avro_field("b", "long", 2, optional=True, doc="d").items()) == [
        ("name", "b"), ("type", ["null", "long"]), ("doc", "d"), ("default", None), ("field-id", 2),
    ]  # fmt: skip


def test_int_map_and_list_are_valid_avro_and_round_trip() -> None:
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            avro_field("sizes", avro_int_map(117, 118, "long"), 108, optional=True),
            avro_field("offsets", avro_list(133, "long"), 132, optional=True),
        ],
    }
    assert schema["fields"][0]["type"][1]["items"]["name"] == "k117_v118"
    parsed = fastavro.parse_schema(schema)
    rec = {"sizes": [{"key": 1, "value": 40}, {"key": 2, "value": -1}], "offsets": [4, 9]}
    buf = io.BytesIO()
    fastavro.writer(buf, parsed, [rec, {"sizes": None, "offsets": None}])
    assert list(fastavro.reader(io.BytesIO(buf.getvalue()))) == [
        rec,
        {"sizes": None, "offsets": None},
    ]


def test_iceberg_schema_of_every_shape() -> None:
    dec = {"type": "fixed", "name": "decimal_9_2", "size": 4, "logicalType": "decimal",
           "precision": 9, "scale": 2}  # fmt: skip
    record = {
        "type": "record",
        "name": "r",
        "fields": [
            avro_field("b", "bytes", 1, doc="raw"),
            avro_field("d1", dec, 2, optional=True),
            avro_field("d2", "decimal_9_2", 3, optional=True),  # a reference by name
            avro_field(
                "u", {"type": "fixed", "name": "uuid_fixed", "size": 16, "logicalType": "uuid"}, 4
            ),  # fmt: skip
            avro_field("f", {"type": "fixed", "name": "fixed_3", "size": 3}, 5),
            avro_field("t", {"type": "long", "logicalType": "time-micros"}, 6),
            avro_field(
                "ts", {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False}, 7
            ),  # fmt: skip
            avro_field("m", avro_int_map(9, 10, "bytes"), 8, optional=True),
            avro_field("l", avro_list(12, "int"), 11),
            {**avro_field("x_x2Dy", "string", 13), "iceberg-field-name": "x-y"},
            avro_field(
                "s", {"type": "record", "name": "r20", "fields": [avro_field("n", "int", 21)]}, 20
            ),  # fmt: skip
        ],
    }
    fastavro.parse_schema(record)
    out = iceberg_schema(record)
    assert (out["type"], out["schema-id"]) == ("struct", 0)
    got = {f["name"]: (f["id"], f["required"], f["type"]) for f in out["fields"]}
    assert got == {
        "b": (1, True, "binary"),
        "d1": (2, False, "decimal(9, 2)"),
        "d2": (3, False, "decimal(9, 2)"),
        "u": (4, True, "uuid"),
        "f": (5, True, "fixed[3]"),
        "t": (6, True, "time"),
        "ts": (7, True, "timestamp"),
        "m": (8, False, {"type": "map", "key-id": 9, "key": "int", "value-id": 10,
                         "value": "binary", "value-required": True}),
        "l": (11, True, {"type": "list", "element-id": 12, "element": "int",
                         "element-required": True}),
        "x-y": (13, True, "string"),
        "s": (20, True, {"type": "struct", "fields": [
            {"id": 21, "name": "n", "required": True, "type": "int"}]}),
    }  # fmt: skip
    assert out["fields"][0]["doc"] == "raw" and "doc" not in out["fields"][1]
