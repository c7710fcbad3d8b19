"""Spark's ANSI store assignment (``sql/store_assignment.py``), against ``can_assign`` and
``Assignment`` directly: which source types are accepted before any row is read, and what
each row becomes (truncation, half-up rounding, overflow and NOT NULL errors)."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from decimal import Decimal

import pyarrow as pa
import pytest

from icesql.errors import DataError, IntegrityError, ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
    UnknownType,
    UUIDType,
)
from icesql.sql.store_assignment import Assignment, arity_error, can_assign

TABLE = "db.t"


def _one(name: str, t, required: bool = False) -> Schema:
    return Schema((NestedField(1, name, t, required),))


def _store(t, values, source_type: pa.DataType, required: bool = False) -> list:
    """``values`` (of ``source_type``) stored in a one-column table of type ``t``."""
    schema = _one("c", t, required)
    source = pa.schema([pa.field("x", source_type)])
    batch = pa.record_batch([pa.array(values, source_type)], schema=source)
    return Assignment(TABLE, schema, source).convert(batch).column(0).to_pylist()


# --- can_assign: decided from types alone ---------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (pa.int64(), IntegerType()),  # numbers to any number (checked per row)
        (pa.float64(), IntegerType()),
        (pa.decimal128(20, 5), DecimalType(5, 2)),
        (pa.int32(), DoubleType()),
        (pa.bool_(), StringType()),  # anything atomic to string
        (pa.date32(), StringType()),
        (pa.timestamp("us"), DateType()),  # date <-> timestamp
        (pa.date32(), TimestamptzType()),
        (pa.timestamp("us", "UTC"), TimestampType()),
        (pa.null(), IntegerType()),
        (pa.string(), UUIDType()),
        (pa.struct([("p", pa.int32())]), StructType((NestedField(2, "a", LongType()),))),
        (pa.list_(pa.int32()), ListType(2, LongType(), False)),
        (pa.map_(pa.string(), pa.int32()), MapType(2, StringType(), 3, DoubleType(), False)),
        (pa.dictionary(pa.int32(), pa.string()), StringType()),
        (pa.null(), UnknownType()),  # a v3 unknown column takes NULL only
        (
            pa.struct([("p", pa.int32()), ("q", pa.null())]),
            StructType((NestedField(2, "a", LongType()), NestedField(3, "b", UnknownType()))),
        ),
    ],
)
def test_can_assign_reasonable_conversions(source, target):
    assert can_assign(source, target)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (pa.string(), IntegerType()),  # never string to a number or a date
        (pa.string(), DateType()),
        (pa.bool_(), IntegerType()),  # never boolean to a number
        (pa.int32(), BooleanType()),
        (pa.int64(), DateType()),
        (pa.list_(pa.int32()), StringType()),  # containers are not atomic
        (
            pa.struct([("p", pa.int32()), ("q", pa.int32())]),
            StructType((NestedField(2, "a", LongType()),)),
        ),
        (pa.struct([("p", pa.string())]), StructType((NestedField(2, "a", LongType()),))),
        (pa.list_(pa.string()), ListType(2, LongType(), False)),
        (pa.map_(pa.string(), pa.string()), MapType(2, StringType(), 3, DoubleType(), False)),
        (pa.string(), FixedType(4)),
        (pa.int32(), UnknownType()),  # Spark: cannot safely cast INT to VOID, even all NULL
        (pa.string(), UnknownType()),
        (pa.struct([("q", pa.string())]), StructType((NestedField(3, "b", UnknownType()),))),
    ],
)
def test_can_assign_refuses_unsafe_conversions(source, target):
    assert not can_assign(source, target)


def test_unsafe_cast_is_refused_before_any_row_with_spark_error_class_naming_the_column():
    schema = Schema((NestedField(1, "id", LongType()), NestedField(2, "flag", IntegerType())))
    source = pa.schema([("a", pa.int64()), ("b", pa.bool_())])
    with pytest.raises(
        ProgrammingError, match=r"\[INCOMPATIBLE_DATA_FOR_TABLE\.CANNOT_SAFELY_CAST\]"
    ) as e:
        Assignment(TABLE, schema, source)
    assert "`flag`" in str(e.value) and TABLE in str(e.value)
    assert "BOOLEAN" in str(e.value) and "INT" in str(e.value)


# --- columns: by position or by the statement's column list ---------------------------------


def test_arity_mismatch_names_both_column_lists():
    schema = Schema((NestedField(1, "a", LongType()), NestedField(2, "b", LongType())))
    with pytest.raises(
        ProgrammingError, match=r"INSERT_COLUMN_ARITY_MISMATCH\.NOT_ENOUGH_DATA_COLUMNS.*a, b.*x"
    ):
        Assignment(TABLE, schema, pa.schema([("x", pa.int64())]))
    three = pa.schema([("x", pa.int64()), ("y", pa.int64()), ("z", pa.int64())])
    with pytest.raises(ProgrammingError, match=r"TOO_MANY_DATA_COLUMNS.*data columns: x, y, z"):
        Assignment(TABLE, schema, three)
    assert "NOT_ENOUGH" in str(arity_error(TABLE, ["a", "b"], ["x"]))
    assert "TOO_MANY" in str(arity_error(TABLE, ["a"], ["x", "y"]))


def test_column_list_reorders_by_name_case_insensitively():
    schema = Schema((NestedField(1, "a", LongType()), NestedField(2, "b", StringType())))
    source = pa.schema([("x", pa.string()), ("y", pa.int32())])
    batch = pa.record_batch([pa.array(["s"]), pa.array([7], pa.int32())], schema=source)
    out = Assignment(TABLE, schema, source, ["B", "A"]).convert(batch)
    assert out.schema.names == ["a", "b"]
    assert out.to_pylist() == [{"a": 7, "b": "s"}]


@pytest.mark.parametrize(
    ("columns", "pattern"),
    [
        (["a", "A"], r"named twice"),
        (["a", "zz"], r"no column 'zz'"),
        (["a"], r"CANNOT_FIND_DATA.*`b`"),
    ],
)
def test_column_list_refusals(columns, pattern):
    schema = Schema((NestedField(1, "a", LongType()), NestedField(2, "b", LongType())))
    source = pa.schema([(f"c{i}", pa.int64()) for i in range(len(columns))])
    with pytest.raises(ProgrammingError, match=pattern):
        Assignment(TABLE, schema, source, columns)


# --- numbers --------------------------------------------------------------------------------


def test_integer_overflow_is_an_error_not_null():
    with pytest.raises(DataError, match=r"\[CAST_OVERFLOW_IN_TABLE_INSERT\].*`c`") as e:
        _store(IntegerType(), [1, 2**31], pa.int64())
    assert TABLE in str(e.value)
    assert _store(IntegerType(), [2**31 - 1, -(2**31)], pa.int64()) == [2**31 - 1, -(2**31)]


def test_fractions_truncate_toward_zero_in_integer_columns():
    assert _store(IntegerType(), [2.7, -2.7, None], pa.float64()) == [2, -2, None]
    assert _store(LongType(), [Decimal("9.99"), Decimal("-9.99")], pa.decimal128(5, 2)) == [9, -9]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2.0**31])
def test_float_out_of_int_range_overflows(value):
    with pytest.raises(DataError, match="CAST_OVERFLOW_IN_TABLE_INSERT"):
        _store(IntegerType(), [value], pa.float64())


def test_decimals_round_half_up_to_the_column_scale():
    # half-up, not banker's: 0.125 -> 0.13 and -0.125 -> -0.13 (banker's would give 0.12)
    assert _store(
        DecimalType(5, 2),
        [Decimal("0.125"), Decimal("-0.125"), Decimal("1.114")],
        pa.decimal128(6, 3),
    ) == [Decimal("0.13"), Decimal("-0.13"), Decimal("1.11")]
    assert _store(DecimalType(5, 2), [0.125, 2.5], pa.float64()) == [
        Decimal("0.13"),
        Decimal("2.50"),
    ]
    assert _store(DecimalType(10, 0), [12345], pa.int64()) == [Decimal(12345)]


@pytest.mark.parametrize(
    ("values", "source_type"),
    [
        ([Decimal("1234.5")], pa.decimal128(6, 1)),  # 1234.50 needs precision 6
        ([1234.5], pa.float64()),
        ([100000], pa.int64()),
    ],
)
def test_decimal_overflow_is_an_error(values, source_type):
    with pytest.raises(DataError, match="CAST_OVERFLOW_IN_TABLE_INSERT"):
        _store(DecimalType(5, 2), values, source_type)


# --- strings, dates, uuids ------------------------------------------------------------------


def test_atomic_values_become_spark_strings():
    assert _store(StringType(), [True, False, None], pa.bool_()) == ["true", "false", None]
    # Java's Double.toString: scientific notation from 1e7 on, always a fraction digit
    assert _store(StringType(), [1e10, 1.5, 100.0], pa.float64()) == ["1.0E10", "1.5", "100.0"]
    ts = [dt.datetime(2024, 1, 2, 3, 4, 5, 120000), dt.datetime(2024, 1, 2)]
    assert _store(StringType(), ts, pa.timestamp("us")) == [
        "2024-01-02 03:04:05.12",
        "2024-01-02 00:00:00",
    ]


_TS = [dt.datetime(1969, 12, 31, 23, 0), dt.datetime(2024, 3, 1, 23, 59, 59)]


@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_timestamp_to_date_floors_before_the_epoch(unit):
    assert _store(DateType(), _TS, pa.timestamp(unit)) == [
        dt.date(1969, 12, 31),
        dt.date(2024, 3, 1),
    ]


def test_nanosecond_timestamp_near_the_epoch_to_date():
    near = [dt.datetime(1969, 12, 31, 23, 0), dt.datetime(1970, 1, 2, 1, 0)]
    assert _store(DateType(), near, pa.timestamp("ns")) == [
        dt.date(1969, 12, 31),
        dt.date(1970, 1, 2),
    ]


def test_nanosecond_timestamp_of_today_to_date():
    assert _store(DateType(), _TS, pa.timestamp("ns")) == [
        dt.date(1969, 12, 31),
        dt.date(2024, 3, 1),
    ]


def test_timestamps_with_and_without_zone_convert_in_utc():
    naive = dt.datetime(2024, 1, 1, 12, 0)
    aware = naive.replace(tzinfo=dt.UTC)
    assert _store(TimestampType(), [aware], pa.timestamp("us", "UTC")) == [naive]
    assert _store(TimestamptzType(), [naive], pa.timestamp("us")) == [aware]
    assert _store(TimestampType(), [dt.date(2024, 1, 1)], pa.date32()) == [dt.datetime(2024, 1, 1)]


def test_uuid_text_is_parsed_and_bad_text_names_the_column():
    u = "12345678-1234-5678-1234-567812345678"
    assert _store(UUIDType(), [u], pa.string()) == [uuid.UUID(u).bytes]
    with pytest.raises(DataError, match=r"'nope'.*`c`"):
        _store(UUIDType(), ["nope"], pa.string())


def test_fixed_length_mismatch_names_the_column():
    assert _store(FixedType(2), [b"ab"], pa.binary()) == [b"ab"]
    with pytest.raises(DataError, match=r"3 bytes.*fixed\(2\).*`c`"):
        _store(FixedType(2), [b"abc"], pa.binary())


# --- NOT NULL -------------------------------------------------------------------------------


def test_null_in_not_null_column_is_an_integrity_error():
    with pytest.raises(IntegrityError, match=r"\[NOT_NULL_ASSERT_VIOLATION\].*`c`"):
        _store(LongType(), [1, None], pa.int64(), required=True)
    with pytest.raises(IntegrityError, match="NOT_NULL_ASSERT_VIOLATION"):
        _store(LongType(), [None], pa.null(), required=True)
    assert _store(LongType(), [1, 2], pa.int64(), required=True) == [1, 2]


# --- nested ---------------------------------------------------------------------------------

_ST = StructType((NestedField(2, "a", IntegerType(), True), NestedField(3, "b", StringType())))


def test_struct_fields_convert_by_position():
    source = pa.struct([("p", pa.int64()), ("q", pa.bool_())])
    out = _store(_ST, [{"p": 5, "q": True}, None], source)
    assert out == [{"a": 5, "b": "true"}, None]


def test_struct_child_overflow_names_the_nested_column():
    source = pa.struct([("p", pa.int64()), ("q", pa.string())])
    with pytest.raises(DataError, match=r"CAST_OVERFLOW_IN_TABLE_INSERT.*`st\.a`"):
        schema = _one("st", _ST)
        src = pa.schema([pa.field("x", source)])
        batch = pa.record_batch([pa.array([{"p": 2**40, "q": "x"}], source)], schema=src)
        Assignment(TABLE, schema, src).convert(batch)


def test_null_required_struct_child_fails_only_under_a_non_null_struct():
    source = pa.struct([("p", pa.int64()), ("q", pa.string())])
    with pytest.raises(IntegrityError, match=r"NOT_NULL_ASSERT_VIOLATION.*`c\.a`"):
        _store(_ST, [{"p": None, "q": "x"}], source)
    # a NULL struct whose required child is NULL too is fine: the child is never read
    assert _store(_ST, [None, {"p": 1, "q": None}], source) == [None, {"a": 1, "b": None}]


def test_lists_and_maps_convert_element_by_element():
    assert _store(ListType(2, LongType(), False), [[1, 2], None, []], pa.list_(pa.int32())) == [
        [1, 2],
        None,
        [],
    ]
    target = MapType(2, StringType(), 3, DoubleType(), False)
    out = _store(target, [[("k", 1)], None], pa.map_(pa.string(), pa.int32()))
    assert out == [[("k", 1.0)], None]


def test_required_list_element_and_map_value_refuse_nulls():
    with pytest.raises(IntegrityError, match=re.escape("`c.element`")):
        _store(ListType(2, LongType(), True), [[1, None]], pa.list_(pa.int64()))
    target = MapType(2, StringType(), 3, LongType(), True)
    with pytest.raises(IntegrityError, match=re.escape("`c.value`")):
        _store(target, [[("k", None)]], pa.map_(pa.string(), pa.int64()))


def test_sliced_list_input_keeps_its_own_rows():
    """A batch sliced out of a larger one (offsets not starting at 0) keeps its rows."""
    array = pa.array([[1], [2, 3], [4]], pa.list_(pa.int64())).slice(1, 2)
    source = pa.schema([pa.field("x", array.type)])
    batch = pa.record_batch([array], schema=source)
    out = Assignment(TABLE, _one("c", ListType(2, LongType(), False)), source).convert(batch)
    assert out.column(0).to_pylist() == [[2, 3], [4]]


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_timestamps_of_every_unit_to_date_floor_to_the_utc_day(unit):
    values = [
        dt.datetime(1969, 12, 31, 23, 59, 59),
        None,
        dt.datetime(1900, 1, 1, 0, 0, 1),
        dt.datetime(2262, 4, 11),
    ]
    expected = [None if v is None else v.date() for v in values]
    assert _store(DateType(), values, pa.timestamp(unit)) == expected
