"""Partition specs: JSON (v1/v2/v3 forms), partition type, Java-compatible paths."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.spec.partitioning import (
    UNPARTITIONED_SPEC,
    PartitionField,
    PartitionSpec,
    escape_path_part,
)
from icesql.spec.schema import Schema
from icesql.spec.transforms import (
    Bucket,
    Day,
    Hour,
    Identity,
    Month,
    Truncate,
    UnknownTransform,
    Void,
)
from icesql.spec.types import (
    BinaryType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    ListType,
    LongType,
    NestedField,
    StringType,
    StructType,
    TimestamptzType,
    UnknownType,
)

SCHEMA = Schema(
    (
        NestedField(1, "id", LongType(), True),
        NestedField(2, "data", StringType()),
        NestedField(3, "ts", TimestamptzType()),
        NestedField(4, "d", DateType()),
        NestedField(5, "amount", DecimalType(9, 2)),
        NestedField(6, "s", StructType((NestedField(7, "inner", IntegerType()),))),
        NestedField(8, "xs", ListType(9, IntegerType(), True)),
        NestedField(10, "bin", BinaryType()),
        NestedField(11, "score", DoubleType()),
    )
)

SPEC = PartitionSpec(
    2,
    (
        PartitionField(3, 1000, Day(), "ts_day"),
        PartitionField(1, 1001, Bucket(16), "id_bucket"),
        PartitionField(2, 1002, Truncate(4), "data_trunc"),
    ),
)


def test_spec_example_json_round_trip():
    obj = {
        "spec-id": 2,
        "fields": [
            {"source-id": 3, "field-id": 1000, "name": "ts_day", "transform": "day"},
            {"source-id": 1, "field-id": 1001, "name": "id_bucket", "transform": "bucket[16]"},
            {"source-id": 2, "field-id": 1002, "name": "data_trunc", "transform": "truncate[4]"},
        ],
    }
    assert PartitionSpec.from_json(obj) == SPEC
    assert SPEC.to_json() == obj


def test_v1_fields_without_ids_start_at_1000():
    spec = PartitionSpec.from_json(
        [
            {"source-id": 3, "name": "ts_hour", "transform": "hour"},
            {"source-id": 2, "name": "data", "transform": "identity"},
        ]
    )
    assert spec.spec_id == 0
    assert [f.field_id for f in spec.fields] == [1000, 1001]
    assert spec.fields[0].transform == Hour()


def test_v3_source_ids():
    f = PartitionField.from_json(
        {"source-ids": [1, 2], "field-id": 1000, "name": "multi", "transform": "zorder"}
    )
    assert f.source_id == 1 and f.all_source_ids == (1, 2)
    assert f.transform == UnknownTransform("zorder")
    assert f.to_json() == {
        "source-ids": [1, 2],
        "field-id": 1000,
        "name": "multi",
        "transform": "zorder",
    }
    single = PartitionField.from_json(
        {"source-ids": [4], "field-id": 1001, "name": "d", "transform": "identity"}
    )
    assert single.to_json() == {
        "source-id": 4,
        "field-id": 1001,
        "name": "d",
        "transform": "identity",
    }


def test_partition_type_uses_partition_ids_and_result_types():
    t = SPEC.partition_type(SCHEMA)
    assert t == StructType(
        (
            NestedField(1000, "ts_day", DateType()),
            NestedField(1001, "id_bucket", IntegerType()),
            NestedField(1002, "data_trunc", StringType()),
        )
    )
    assert all(not f.required for f in t.fields)


def test_partition_type_with_dropped_source_column():
    spec = PartitionSpec(1, (PartitionField(99, 1000, Identity(), "gone"),))
    assert spec.partition_type(SCHEMA).fields[0].type == UnknownType()


def test_partition_path_matches_java():
    assert SPEC.partition_path([-1, 5, "a b/c=d"], SCHEMA) == (
        "ts_day=1969-12-31/id_bucket=5/data_trunc=a+b%2Fc%3Dd"
    )
    assert SPEC.partition_path([17486, None, None], SCHEMA) == (
        "ts_day=2017-11-16/id_bucket=null/data_trunc=null"
    )
    hourly = PartitionSpec(
        0, (PartitionField(3, 1000, Hour(), "ts_hour"), PartitionField(10, 1001, Identity(), "bin"))
    )
    assert hourly.partition_path([-1, b"\x01\x02\x03"], SCHEMA) == (
        "ts_hour=1969-12-31-23/bin=AQID"
    )
    identity_ts = PartitionSpec(0, (PartitionField(3, 1000, Identity(), "ts"),))
    assert identity_ts.partition_path([1512151975038194], SCHEMA) == (
        "ts=2017-12-01T18%3A12%3A55.038194Z"
    )
    with pytest.raises(ValueError):
        SPEC.partition_path([1], SCHEMA)


def test_escape_is_java_url_encoder():
    assert escape_path_part("a-b_c.d*e") == "a-b_c.d*e"
    assert escape_path_part("a b") == "a+b"
    assert escape_path_part("~%+") == "%7E%25%2B"
    assert escape_path_part("é") == "%C3%A9"


def test_unpartitioned():
    assert UNPARTITIONED_SPEC.is_unpartitioned()
    assert UNPARTITIONED_SPEC.partition_type(SCHEMA) == StructType(())
    assert UNPARTITIONED_SPEC.partition_path([], SCHEMA) == ""
    assert PartitionSpec(1, (PartitionField(1, 1000, Void(), "id_null"),)).is_unpartitioned()
    assert SPEC.is_partitioned()
    assert UNPARTITIONED_SPEC.last_assigned_field_id == 999
    assert SPEC.last_assigned_field_id == 1002


def test_equivalence_ignores_ids():
    other = PartitionSpec(
        7,
        tuple(
            PartitionField(f.source_id, f.field_id + 10, f.transform, f.name) for f in SPEC.fields
        ),
    )
    assert SPEC.is_equivalent(other)
    assert not SPEC.is_equivalent(PartitionSpec(7, SPEC.fields[:2]))
    assert [f.name for f in SPEC.fields_by_source_id(1)] == ["id_bucket"]


@pytest.mark.parametrize(
    "field, message",
    [
        (PartitionField(8, 1000, Identity(), "xs"), "not a primitive"),
        (PartitionField(9, 1000, Identity(), "x"), "inside a list"),
        (PartitionField(11, 1000, Bucket(4), "score_bucket"), "does not apply"),
        (PartitionField(4, 1000, Hour(), "d_hour"), "does not apply"),
        (PartitionField(42, 1000, Identity(), "nope"), "missing column id 42"),
    ],
)
def test_validate_rejects(field, message):
    with pytest.raises(ProgrammingError, match=message):
        PartitionSpec(1, (field,)).validate(SCHEMA)


def test_validate_accepts_nested_struct_source_and_rejects_duplicates():
    PartitionSpec(1, (PartitionField(7, 1000, Identity(), "inner"),)).validate(SCHEMA)
    SPEC.validate(SCHEMA)
    dup = PartitionSpec(
        1, (PartitionField(1, 1000, Identity(), "a"), PartitionField(2, 1001, Identity(), "a"))
    )
    with pytest.raises(ProgrammingError, match="duplicate"):
        dup.validate(SCHEMA)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            (PartitionField(3, 1000, Day(), "ts_day"), PartitionField(3, 1001, Hour(), "ts_hour")),
            r"cannot partition by hour\(ts\) \(partition field 'ts_hour'\): redundant with 'ts_day'",
        ),
        (
            (PartitionField(4, 1000, Day(), "d_day"), PartitionField(4, 1001, Month(), "d_month")),
            "redundant with 'd_day'",
        ),
        (
            (PartitionField(1, 1000, Bucket(4), "a"), PartitionField(1, 1001, Bucket(4), "b")),
            r"bucket\[4\]\(id\) twice \(partition fields 'a' and 'b'\)",
        ),
        (
            (PartitionField(1, 1000, Identity(), "a"), PartitionField(1, 1001, Identity(), "b")),
            r"identity\(id\) twice",
        ),
        ((PartitionField(1, 1000, Bucket(4), "data"),), "a column of that name exists"),
        (
            (PartitionField(11, 1000, Bucket(4), "score_bucket"),),
            r"bucket\[4\]\(score\) \(partition field 'score_bucket'\): bucket\[4\] does not apply to double",
        ),
    ],
)
def test_validate_new_refuses_what_the_java_builder_refuses(fields, message):
    spec = PartitionSpec(0, fields)
    with pytest.raises(ProgrammingError, match=message):
        spec.validate_new(SCHEMA)


def test_validate_new_allows_what_the_java_builder_allows():
    PartitionSpec(
        0,
        (
            PartitionField(3, 1000, Day(), "ts_day"),
            PartitionField(4, 1001, Month(), "d_month"),
            PartitionField(1, 1002, Bucket(4), "id_b4"),
            PartitionField(1, 1003, Bucket(8), "id_b8"),
            PartitionField(1, 1004, Identity(), "id"),
        ),
    ).validate_new(SCHEMA)
    # a spec a table already has (evolved by ALTER) may hold two time fields of one column
    PartitionSpec(
        1, (PartitionField(3, 1000, Day(), "ts_day"), PartitionField(3, 1001, Hour(), "ts_hour"))
    ).validate(SCHEMA)


def test_validate_checks_every_source_of_a_multi_argument_field():
    ok = PartitionField(1, 1000, Bucket(8), "b", source_ids=(1, 2))
    PartitionSpec(0, (ok,)).validate(SCHEMA)
    bad = PartitionField(1, 1000, Bucket(8), "b", source_ids=(1, 11))
    with pytest.raises(
        ProgrammingError, match=r"bucket\[8\]\(score\).*'b'.*does not apply to double"
    ):
        PartitionSpec(0, (bad,)).validate(SCHEMA)
