"""The ``manifest_entry`` Avro schemas: Java's exact schemas per format version (the golden
files Iceberg 1.10.2 wrote), Appendix A's Avro type of every partition type, the smallest
decimal ``fixed``, named types defined once, and Avro-compatible partition names."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import fastavro
import pytest

from icesql.errors import NotSupportedError
from icesql.metadata.avro.schema import iceberg_schema
from icesql.metadata.manifest_schema import (
    avro_type,
    decimal_required_bytes,
    manifest_entry_schema,
    partition_fields,
    partition_record,
)
from icesql.spec.partitioning import PartitionSpec
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
    LongType,
    StringType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UnknownType,
    UUIDType,
    VariantType,
)

# Avro schemas and iceberg.schema keys of manifests Java (Iceberg 1.10.2) wrote
SCHEMAS = json.loads(
    (Path(__file__).parent / "fixtures" / "java" / "avro_schemas.json").read_text()
)


@pytest.mark.parametrize(
    "name", ["manifest_v1", "manifest_v2", "manifest_v3", "delete_manifest_v3"]
)
def test_manifest_entry_schema_is_javas(name: str) -> None:
    java = SCHEMAS[name]
    schema = Schema.from_json(json.loads(java["schema"]))
    spec = PartitionSpec.from_json(
        {"spec-id": int(java["partition-spec-id"]), "fields": json.loads(java["partition-spec"])}
    )
    ours = manifest_entry_schema(int(java["format-version"]), partition_fields(spec, schema))
    assert ours == json.loads(java["avro.schema"])
    assert iceberg_schema(ours) == json.loads(java["iceberg.schema"])


def _max_precision(n: int) -> int:
    """Digits that always fit in an n-byte two's-complement integer (Appendix A's table)."""
    return math.floor(math.log10(2 ** (8 * n - 1) - 1))


@pytest.mark.parametrize("precision", range(1, 39))
def test_decimal_required_bytes_is_the_smallest_fixed(precision: int) -> None:
    n = decimal_required_bytes(precision)
    assert _max_precision(n) >= precision and (n == 1 or _max_precision(n - 1) < precision)


def test_decimal_required_bytes_matches_javas_table() -> None:
    # Java TypeUtil's MAX_PRECISION: the largest precision per byte count 1..16
    java = [2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38]
    assert [decimal_required_bytes(p) for p in java] == list(range(1, 17))
    assert [decimal_required_bytes(p + 1) for p in java[:-1]] == list(range(2, 17))


@pytest.mark.parametrize(
    "t, expected",
    [
        (BooleanType(), "boolean"),
        (IntegerType(), "int"),
        (LongType(), "long"),
        (FloatType(), "float"),
        (DoubleType(), "double"),
        (StringType(), "string"),
        (BinaryType(), "bytes"),
        (DateType(), {"type": "int", "logicalType": "date"}),
        (TimeType(), {"type": "long", "logicalType": "time-micros"}),
        (TimestampType(), {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False}),
        (TimestamptzType(), {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True}),
        (TimestampNanoType(), {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": False}),
        (TimestamptzNanoType(), {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": True}),
        (DecimalType(9, 2), {"type": "fixed", "name": "decimal_9_2", "size": 4,
                             "logicalType": "decimal", "precision": 9, "scale": 2}),
        (DecimalType(38, 0), {"type": "fixed", "name": "decimal_38_0", "size": 16,
                              "logicalType": "decimal", "precision": 38, "scale": 0}),
        (UUIDType(), {"type": "fixed", "name": "uuid_fixed", "size": 16, "logicalType": "uuid"}),
        (FixedType(3), {"type": "fixed", "name": "fixed_3", "size": 3}),
    ],
)  # fmt: skip
def test_appendix_a_avro_types(t, expected) -> None:
    assert avro_type(t, set()) == expected


@pytest.mark.parametrize("t", [UnknownType(), VariantType(), GeometryType(), GeographyType()])
def test_types_without_partition_values_are_refused(t) -> None:
    with pytest.raises(NotSupportedError, match=f"partition values of type {t}"):
        avro_type(t, set())


def test_a_named_fixed_is_defined_once_then_referenced() -> None:
    fields = [
        (1000, "a", DecimalType(9, 2)),
        (1001, "b", DecimalType(9, 2)),
        (1002, "c", UUIDType()),
        (1003, "d", UUIDType()),
        (1004, "e", DecimalType(10, 2)),
    ]
    record = partition_record(fields)
    types = [f["type"][1] for f in record["fields"]]
    assert [t if isinstance(t, str) else t["name"] for t in types] == [
        "decimal_9_2", "decimal_9_2", "uuid_fixed", "uuid_fixed", "decimal_10_2",
    ]  # fmt: skip
    assert isinstance(types[0], dict) and types[1] == "decimal_9_2"  # second: by name
    schema = manifest_entry_schema(2, fields)
    fastavro.parse_schema(schema)  # Avro forbids redefining a name; this must parse
    # and values round trip through the reference Avro implementation
    part = {"a": b"\x00\x00\x04\xd2", "b": None, "c": b"\x01" * 16, "d": None, "e": b"\xff" * 5}
    rec = fastavro.parse_schema(record)
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, rec, part)
    back = fastavro.schemaless_reader(io.BytesIO(buf.getvalue()), rec, return_record_name=False)
    assert back["b"] is None and back["d"] is None


def test_partition_fields_are_optional_with_their_ids_and_compatible_names() -> None:
    record = partition_record([(1000, "ok_name", IntegerType()), (1001, "1st-day", DateType())])
    assert record["name"] == "r102"
    ok, bad = record["fields"]
    assert ok == {"name": "ok_name", "type": ["null", "int"], "default": None, "field-id": 1000}
    # Java's AvroSchemaUtil: a leading digit gets "_", "-" becomes _x2D, original name kept
    assert bad == {
        "name": "_1st_x2Dday",
        "type": ["null", {"type": "int", "logicalType": "date"}],
        "default": None,
        "iceberg-field-name": "1st-day",
        "field-id": 1001,
    }
    assert iceberg_schema(record)["fields"][1]["name"] == "1st-day"


def test_partition_fields_from_a_spec_or_its_json() -> None:
    schema = Schema.from_json({"type": "struct", "fields": [
        {"id": 1, "name": "ts", "required": False, "type": "timestamptz"},
        {"id": 2, "name": "s", "required": False, "type": "string"},
    ]})  # fmt: skip
    spec_json = {"spec-id": 3, "fields": [
        {"name": "ts_hour", "transform": "hour", "source-id": 1, "field-id": 1000},
        {"name": "s_bucket", "transform": "bucket[8]", "source-id": 2, "field-id": 1001},
        {"name": "s", "transform": "truncate[2]", "source-id": 2, "field-id": 1002},
    ]}  # fmt: skip
    expected = [(1000, "ts_hour", IntegerType()), (1001, "s_bucket", IntegerType()),
                (1002, "s", StringType())]  # fmt: skip
    assert partition_fields(spec_json, schema) == expected
    assert partition_fields(PartitionSpec.from_json(spec_json), schema) == expected
    assert partition_fields({"spec-id": 0, "fields": []}, schema) == []


@pytest.mark.parametrize("version", [1, 2, 3])
def test_entry_schemas_are_valid_avro_with_unique_field_ids(version: int) -> None:
    fields = [(1000, "d", DateType()), (1001, "u", UUIDType()), (1002, "x", DecimalType(4, 1))]
    schema = manifest_entry_schema(version, fields)
    fastavro.parse_schema(schema)
    ids: list[int] = []

    def collect(t) -> None:
        if isinstance(t, list):
            for x in t:
                collect(x)
        elif isinstance(t, dict):
            for key in ("element-id",):
                if key in t:
                    ids.append(t[key])
            for f in t.get("fields", ()):
                ids.append(f["field-id"])
                collect(f["type"])
            collect(t.get("items"))

    collect(schema)
    assert len(ids) == len(set(ids))
    assert {1000, 1001, 1002} <= set(ids)
