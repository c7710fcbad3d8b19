"""Column metrics of a data file, as Iceberg's Parquet writer computes them: metrics modes
from table properties, Java's truncation of bounds, leaf columns in Parquet order, and the
metrics maps of a real Parquet file checked against pyarrow's own footer and compute."""

from __future__ import annotations

import io
import math
import struct
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import icesql
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortField, SortOrder
from icesql.spec.types import (
    BinaryType,
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
    TimeType,
    UnknownType,
    UUIDType,
)
from icesql.spec.values import from_bytes
from icesql.write.column_metrics import (
    FileMetricsCollector,
    MetricsConfig,
    leaf_columns,
    parse_metrics_mode,
    truncate_lower,
    truncate_upper,
)


def test_truncation_like_java():
    s = StringType()
    assert truncate_lower(s, "ünïcödé", 3) == "ünï"
    assert truncate_upper(s, "ünïcödé", 3) == "ünð"
    assert truncate_upper(s, "a\U0010ffff\U0010ffffb", 3) == "b"
    assert truncate_upper(s, "\U0010ffff" * 4, 2) is None
    assert truncate_upper(s, "ab", 16) == "ab"
    b = BinaryType()
    assert truncate_upper(b, b"\x01\xff\x02", 2) == b"\x02"
    assert truncate_upper(b, b"\xff\xff\x00", 2) is None
    assert truncate_lower(b, b"\x01\x02\x03", 2) == b"\x01\x02"


def test_metrics_config_parsing():
    schema = Schema((NestedField(1, "a", LongType()), NestedField(2, "b", StringType())))
    config = MetricsConfig.for_table(schema, {"write.metadata.metrics.column.b": "truncate(8)"})
    assert str(config.mode(1)) == "truncate(16)" and str(config.mode(2)) == "truncate(8)"
    with pytest.raises(icesql.ProgrammingError, match="write.metadata.metrics.default"):
        parse_metrics_mode("truncate(0)")


@pytest.mark.parametrize(
    "value, length, upper",
    [
        ("a\ud7ffz", 2, "a\ue000"),  # the code point after U+D7FF skips the surrogates
        ("abc", -1, "abc"),  # full: untruncated
        ("", 0, ""),
    ],
)
def test_truncate_upper_edges(value: str, length: int, upper: str) -> None:
    assert truncate_upper(StringType(), value, length) == upper
    assert truncate_upper(LongType(), 5, 1) == 5 and truncate_lower(LongType(), 5, 1) == 5


@pytest.mark.parametrize(
    "text, mode, bounds",
    [("none", "none", False), (" Counts ", "counts", False), ("FULL", "full", True),
     ("truncate(8)", "truncate(8)", True), ("TRUNCATE(1)", "truncate(1)", True)],
)  # fmt: skip
def test_parse_metrics_mode(text: str, mode: str, bounds: bool) -> None:
    parsed = parse_metrics_mode(text)
    assert (str(parsed), parsed.bounds, parsed.counts) == (mode, bounds, mode != "none")


@pytest.mark.parametrize("text", ["truncate(-1)", "truncate()", "trunc(3)", "", "all"])
def test_bad_metrics_modes_name_the_property(text: str) -> None:
    key = "write.metadata.metrics.column.x"
    with pytest.raises(icesql.ProgrammingError) as info:
        parse_metrics_mode(text, key)
    assert key in str(info.value) and repr(text) in str(info.value)


def _wide(n: int) -> Schema:
    return Schema(tuple(NestedField(i, f"c{i}", IntegerType()) for i in range(1, n + 1)))


def test_config_limits_inferred_defaults_and_keeps_explicit_ones() -> None:
    wide = _wide(5)
    config = MetricsConfig.for_table(
        wide,
        {"write.metadata.metrics.max-inferred-column-defaults": "3",
         "write.metadata.metrics.column.c5": "counts",
         "write.metadata.metrics.column.gone": "full"},  # a dropped column is ignored
        SortOrder(1, (SortField(4),)),
    )  # fmt: skip
    assert [str(config.mode(i)) for i in range(1, 6)] == [
        "truncate(16)", "truncate(16)", "truncate(16)",
        "truncate(16)",  # sorted: keeps bounds though past the limit
        "counts",  # explicit
    ]  # fmt: skip
    # an explicit default lifts the limit; a sort column in counts mode is raised to bounds
    config = MetricsConfig.for_table(
        wide, {"write.metadata.metrics.default": "counts"}, SortOrder(1, (SortField(2),))
    )
    assert [str(config.mode(i)) for i in (1, 2, 5)] == ["counts", "truncate(16)", "counts"]
    with pytest.raises(icesql.ProgrammingError, match="max-inferred-column-defaults"):
        MetricsConfig.for_table(wide, {"write.metadata.metrics.max-inferred-column-defaults": "x"})


NESTED = Schema(
    (
        NestedField(1, "id", LongType()),
        NestedField(2, "s", StructType((NestedField(3, "a", IntegerType()),
                                        NestedField(4, "b", StringType())))),
        NestedField(5, "l", ListType(6, StructType((NestedField(7, "x", DoubleType()),)), False)),
        NestedField(8, "m", MapType(9, StringType(), 10, LongType(), False)),
        NestedField(11, "u", UnknownType()),
        NestedField(12, "d", DoubleType()),
    )
)  # fmt: skip


def test_leaf_columns_follow_parquet_order() -> None:
    leaves = [(leaf.field.field_id, leaf.path) for leaf in leaf_columns(NESTED)]
    assert leaves == [(1, (0,)), (3, (1, 0)), (4, (1, 1)), (7, None), (9, None), (10, None),
                      (12, (5,))]  # fmt: skip
    # pyarrow's own Parquet column order for the same schema (unknown columns are not written)
    arrow = schema_to_arrow(Schema(tuple(f for f in NESTED.fields if f.field_id != 11)))
    buf = io.BytesIO()
    pq.write_table(arrow.empty_table(), buf)
    parquet = pq.ParquetFile(buf).schema
    paths = [parquet.column(j).path for j in range(len(parquet))]
    assert paths == ["id", "s.a", "s.b", "l.list.element.x", "m.key_value.key",
                     "m.key_value.value", "d"]  # fmt: skip
    assert [p.rsplit(".", 1)[-1] for p in paths] == [
        leaf.field.name for leaf in leaf_columns(NESTED)
    ]


def _metrics(schema: Schema, table: pa.Table, props: dict, row_group_size: int = 3):
    collector = FileMetricsCollector(schema, MetricsConfig.for_table(schema, props))
    for batch in table.to_batches(max_chunksize=2):
        collector.add(batch)
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=row_group_size)
    footer = pq.ParquetFile(buf).metadata
    return collector.metrics(footer), footer


def _double(b: bytes) -> float:
    return struct.unpack("<d", b)[0]  # the spec's single-value serialization of a double


def test_metrics_of_a_real_file_match_pyarrow() -> None:
    ids = [5, None, -7, 9, 3]
    doubles = [-0.0, math.nan, 0.0, None, 2.5]
    strings = ["b" * 20, "a", None, "c", "bb"]
    table = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "s": pa.array(
                [{"a": 1, "b": s} for s in strings], schema_to_arrow(NESTED).field("s").type
            ),  # fmt: skip
            "l": pa.array(
                [[{"x": 1.0}], [], None, [{"x": math.nan}], [{"x": 3.0}]],
                schema_to_arrow(NESTED).field("l").type,
            ),  # fmt: skip
            "m": pa.array(
                [[("k", 1)], None, [], [], [("k", 2), ("j", 3)]],
                schema_to_arrow(NESTED).field("m").type,
            ),  # fmt: skip
            "d": pa.array(doubles, pa.float64()),
        },
        schema=schema_to_arrow(Schema(tuple(f for f in NESTED.fields if f.field_id != 11))),
    )
    schema = Schema(tuple(f for f in NESTED.fields if f.field_id != 11))
    metrics, footer = _metrics(schema, table, {"write.metadata.metrics.column.s.b": "truncate(4)"})
    # counts: only non-repeated leaves; value counts include nulls; NaN counted for doubles
    assert metrics["value_counts"] == {1: 5, 3: 5, 4: 5, 12: 5}
    assert metrics["null_value_counts"] == {1: ids.count(None), 3: 0, 4: 1, 12: 1}
    assert metrics["nan_value_counts"] == {12: 1}
    # sizes: every leaf, summed over row groups, as the footer reports them
    for j, leaf in enumerate(leaf_columns(schema)):
        size = sum(footer.row_group(r).column(j).total_compressed_size
                   for r in range(footer.num_row_groups))  # fmt: skip
        assert metrics["column_sizes"][leaf.field.field_id] == size
    lower, upper = metrics["lower_bounds"], metrics["upper_bounds"]
    assert set(lower) == {1, 3, 4, 12}
    col = table.column("id")
    assert struct.unpack("<q", lower[1])[0] == pc.min(col).as_py() == -7
    assert struct.unpack("<q", upper[1])[0] == pc.max(col).as_py() == 9
    assert (lower[4], upper[4]) == (b"a", b"c")  # "bbbb..." is inside the bounds
    # NaN never takes part; -0.0 is the lower bound, +0.0 loses to 2.5
    assert str(_double(lower[12])) == "-0.0" and _double(upper[12]) == 2.5


def test_truncated_string_bounds_and_modes_per_column() -> None:
    schema = Schema((NestedField(1, "s", StringType()), NestedField(2, "t", StringType()),
                     NestedField(3, "n", LongType())))  # fmt: skip
    table = pa.table({"s": ["abcdefgh", "zzzzzz"], "t": ["x", "y"], "n": [1, 2]},
                     schema=schema_to_arrow(schema))  # fmt: skip
    metrics, _ = _metrics(
        schema, table,
        {"write.metadata.metrics.default": "truncate(3)",
         "write.metadata.metrics.column.t": "none",
         "write.metadata.metrics.column.n": "counts"},
    )  # fmt: skip
    assert (metrics["lower_bounds"], metrics["upper_bounds"]) == ({1: b"abc"}, {1: b"zz{"})
    assert set(metrics["column_sizes"]) == {1, 3} and metrics["value_counts"] == {1: 2, 3: 2}


def test_all_null_and_all_nan_columns_have_counts_but_no_bounds() -> None:
    schema = Schema((NestedField(1, "n", LongType()), NestedField(2, "d", DoubleType())))
    table = pa.table({"n": pa.array([None, None], pa.int64()), "d": [math.nan, math.nan]},
                     schema=schema_to_arrow(schema))  # fmt: skip
    metrics, _ = _metrics(schema, table, {})
    assert metrics["null_value_counts"] == {1: 2, 2: 0} and metrics["nan_value_counts"] == {2: 2}
    assert metrics["lower_bounds"] == {} and metrics["upper_bounds"] == {}


def test_binary_upper_bound_dropped_when_it_cannot_be_incremented() -> None:
    schema = Schema((NestedField(1, "b", BinaryType()),))
    table = pa.table({"b": [b"\x00", b"\xff" * 20]}, schema=schema_to_arrow(schema))
    metrics, _ = _metrics(schema, table, {})
    assert metrics["lower_bounds"] == {1: b"\x00"} and metrics["upper_bounds"] == {}


def _aligned_metrics(schema: Schema, table: pa.Table, props: dict, rows: int) -> dict:
    """Metrics as ``ParquetDataWriter`` takes them: one ``add`` per row group."""
    collector = FileMetricsCollector(schema, MetricsConfig.for_table(schema, props))
    for batch in table.to_batches(max_chunksize=rows):
        collector.add(batch)
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=rows, store_decimal_as_integer=True)
    return collector.metrics(pq.ParquetFile(buf).metadata)


def test_bounds_from_the_footer_are_the_extremes_of_every_type() -> None:
    """Bounds of non-float columns come from the row groups' statistics: decoded, they are the
    exact extremes of the values in Iceberg's order (signed numbers and decimals, unsigned
    bytes, code points), with strings and binaries beyond pyarrow's statistics size measured
    from the data."""
    f = NestedField
    schema = Schema((
        f(1, "i", IntegerType()), f(2, "d", DateType()), f(3, "ts", TimestampType()),
        f(4, "t", TimeType()), f(5, "dec", DecimalType(9, 2)), f(6, "big", DecimalType(30, 3)),
        f(7, "s", StringType()), f(8, "b", BinaryType()), f(9, "fx", FixedType(2)),
        f(10, "u", UUIDType()), f(11, "bo", BooleanType()),
        f(12, "st", StructType((f(13, "x", StringType()),))),
    ))  # fmt: skip
    values = {
        "i": [3, -2**31, None, 2**31 - 1], "d": [-719162, 2932896, 0, None],
        "ts": [0, -2**63 + 1, 2**63 - 1, None], "t": [86_399_999_999, 0, None, 1],
        "dec": [Decimal("-9999999.99"), Decimal("0.01"), None, Decimal("9999999.99")],
        "big": [Decimal("-" + "9" * 27 + ".999"), Decimal("1.000"), None, Decimal("5.5")],
        "s": ["é", "z" * 5000, "a\U0001f600", None], "b": [b"\xff" * 5000, b"\x00", b"\x7f", None],
        "fx": [b"\x80\x00", b"\x7f\xff", None, b"\x00\x01"],
        "u": [b"\xff" * 16, b"\x00" * 16, None, b"\x80" + b"\x00" * 15],
        "bo": [True, None, True, False], "st": [{"x": "q"}, {"x": "Q"}, None, {"x": None}],
    }  # fmt: skip
    arrow = schema_to_arrow(schema)
    columns = []
    for name, vals in values.items():
        t = arrow.field(name).type
        if pa.types.is_temporal(t):
            columns.append(
                pa.array(vals, pa.int32() if pa.types.is_date(t) else pa.int64()).cast(t)
            )
        else:
            columns.append(pa.array(vals, t))
    table = pa.Table.from_arrays(columns, schema=arrow)
    for rows in (1, 2, 4):
        metrics = _aligned_metrics(schema, table, {"write.metadata.metrics.default": "full"}, rows)
        lower, upper = metrics["lower_bounds"], metrics["upper_bounds"]
        assert set(lower) == set(upper) == {*range(1, 12), 13}, rows
        for field in (*schema.fields[:11], schema.fields[11].type.fields[0]):
            vals = values["st"] if field.field_id == 13 else values[field.name]
            if field.field_id == 13:
                vals = [v and v["x"] for v in vals]
            present = [v for v in vals if v is not None]
            decoded = (from_bytes(field.type, lower[field.field_id]),
                       from_bytes(field.type, upper[field.field_id]))  # fmt: skip
            if isinstance(field.type, UUIDType):
                decoded = (decoded[0].bytes, decoded[1].bytes)
            assert decoded == (min(present), max(present)), (field.name, rows)


def test_a_row_group_without_statistics_that_the_data_did_not_cover_gets_no_bounds() -> None:
    """Rows measured apart from their row group (not how the writer adds them): where the
    footer has no min/max for a chunk holding values, the field gets no bounds, never
    bounds that leave some value out."""
    schema = Schema((NestedField(1, "s", StringType()), NestedField(2, "n", LongType())))
    table = pa.table({"s": ["m", "b" * 5000], "n": [1, 2]}, schema=schema_to_arrow(schema))
    collector = FileMetricsCollector(schema, MetricsConfig.for_table(schema, {}))
    for batch in table.to_batches(max_chunksize=1):
        collector.add(batch)
    buf = io.BytesIO()
    pq.write_table(table, buf)  # one row group: its statistics for s are dropped
    metrics = collector.metrics(pq.ParquetFile(buf).metadata)
    assert set(metrics["lower_bounds"]) == set(metrics["upper_bounds"]) == {2}
    assert metrics["value_counts"] == {1: 2, 2: 2}
