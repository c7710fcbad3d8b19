"""Test helpers for the expression tests: DuckDB as the reference answer for a predicate, and
the column metrics of Java Iceberg's metrics-evaluator tests.

* ``to_sql(expr)`` spells an Iceberg expression (bound or unbound) as DuckDB SQL, written
  here without icesql's visitors so that it can judge them; ``matching_rows(table, exprs)``
  runs each over a table and returns the indexes of the rows it keeps.
  DuckDB orders NaN above every number and equals itself, as Spark does.
* ``METRICS_SCHEMA`` / ``METRICS_FILE``...: the schema and file metrics of Java's
  TestInclusiveMetricsEvaluator / TestStrictMetricsEvaluator, shared by both test modules.
"""

from __future__ import annotations

import math
import os
import random
import struct
from decimal import Decimal
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from icesql.expressions.tree import (
    AlwaysFalse,
    AlwaysTrue,
    And,
    BooleanExpression,
    BoundPredicate,
    Not,
    Operation,
    Or,
    UnboundPredicate,
    and_,
    equal,
    greater_than,
    greater_than_or_equal,
    in_,
    is_nan,
    is_null,
    less_than,
    less_than_or_equal,
    not_,
    not_equal,
    not_in,
    not_nan,
    not_null,
    not_starts_with,
    or_,
    starts_with,
)
from icesql.spec.content_file import DataFile
from icesql.spec.schema import Schema
from icesql.spec.types import (
    BinaryType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
)
from icesql.spec.values import to_bytes


def sql_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if math.isnan(value):
            return "'nan'::DOUBLE"
        if math.isinf(value):
            return f"'{'-' if value < 0 else ''}inf'::DOUBLE"
        return f"{value!r}::DOUBLE"
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise TypeError(f"no SQL literal for {value!r}")


_COMPARISONS = {
    Operation.LT: "<",
    Operation.LT_EQ: "<=",
    Operation.GT: ">",
    Operation.GT_EQ: ">=",
    Operation.EQ: "=",
    Operation.NOT_EQ: "<>",
}


def _predicate_sql(op: Operation, column: str, literal: Any, literals: Any) -> str:
    if op in _COMPARISONS:
        return f"{column} {_COMPARISONS[op]} {sql_literal(literal)}"
    if op.is_set:
        items = ", ".join(sql_literal(v) for v in sorted(literals, key=repr))
        return f"{column} {'IN' if op is Operation.IN else 'NOT IN'} ({items})"
    if op in (Operation.STARTS_WITH, Operation.NOT_STARTS_WITH):
        prefix = "" if op is Operation.STARTS_WITH else "NOT "
        return f"{prefix}starts_with({column}, {sql_literal(literal)})"
    return {
        Operation.IS_NULL: f"{column} IS NULL",
        Operation.NOT_NULL: f"{column} IS NOT NULL",
        Operation.IS_NAN: f"isnan({column})",
        Operation.NOT_NAN: f"NOT isnan({column})",
    }[op]


def to_sql(expr: BooleanExpression) -> str:
    """DuckDB SQL that is TRUE exactly where ``expr`` should match (SQL semantics)."""
    if isinstance(expr, AlwaysTrue):
        return "TRUE"
    if isinstance(expr, AlwaysFalse):
        return "FALSE"
    if isinstance(expr, And):
        return f"({to_sql(expr.left)} AND {to_sql(expr.right)})"
    if isinstance(expr, Or):
        return f"({to_sql(expr.left)} OR {to_sql(expr.right)})"
    if isinstance(expr, Not):
        return f"(NOT {to_sql(expr.child)})"
    if isinstance(expr, UnboundPredicate | BoundPredicate):
        column = '"' + str(expr.term) + '"'
        return "(" + _predicate_sql(expr.op, column, expr.literal, expr.literals) + ")"
    raise TypeError(f"not an expression: {expr!r}")


def matching_rows(
    columns: pa.Table | dict[str, Any], exprs: list[BooleanExpression]
) -> list[set[int]]:
    """For each expression, the indexes of the rows of ``columns`` (a table, or its columns)
    for which DuckDB finds ``to_sql(expr)`` TRUE."""
    table = columns if isinstance(columns, pa.Table) else pa.table(columns)
    table = table.append_column("__i", pa.array(range(table.num_rows), pa.int64()))
    con = duckdb.connect()
    try:
        con.register("t", table)
        return [
            {i for (i,) in con.execute(f"SELECT __i FROM t WHERE {to_sql(e)}").fetchall()}
            for e in exprs
        ]
    finally:
        con.close()


# ---------------------------------------------------------------------------------------------
# Java's metrics-evaluator fixture: one file of 50 rows, per column a different null/NaN story


def float_bytes(v: float) -> bytes:
    """Appendix D: a float bound is 4 bytes, IEEE 754 little-endian."""
    return struct.pack("<f", v)


def double_bytes(v: float) -> bytes:
    return struct.pack("<d", v)


def int_bytes(v: int) -> bytes:
    return struct.pack("<i", v)


def data_file(record_count: int = 50, **metrics: Any) -> DataFile:
    return DataFile(
        file_path="f.parquet",
        file_format="PARQUET",
        partition=(),
        record_count=record_count,
        file_size_in_bytes=10,
        **metrics,
    )


METRICS_SCHEMA = Schema(
    (
        NestedField(1, "id", IntegerType(), required=True),
        NestedField(2, "no_stats", IntegerType()),
        NestedField(3, "required", StringType(), required=True),
        NestedField(4, "all_nulls", StringType()),
        NestedField(5, "some_nulls", StringType()),
        NestedField(6, "no_nulls", StringType()),
        NestedField(7, "all_nans", DoubleType()),
        NestedField(8, "some_nans", FloatType()),
        NestedField(9, "no_nans", FloatType()),
        NestedField(10, "all_nulls_double", DoubleType()),
        NestedField(11, "all_nans_v1_stats", FloatType()),
        NestedField(12, "nan_and_null_only", DoubleType()),
        NestedField(13, "no_nan_stats", DoubleType()),
    )
)
NAN_F = float_bytes(float("nan"))
METRICS_FILE = data_file(
    value_counts={i: 50 for i in range(4, 14)},
    null_value_counts={1: 0, 3: 0, 4: 50, 5: 10, 6: 0, 7: 0, 8: 0, 9: 0, 10: 50, 11: 0, 12: 1},
    nan_value_counts={7: 50, 8: 10, 9: 0, 11: 50, 12: 49},
    lower_bounds={
        1: int_bytes(30),
        3: b"aa",
        5: b"b",
        6: b"b",
        8: float_bytes(-1.0),
        9: float_bytes(0.0),
        11: NAN_F,
        13: double_bytes(0.0),
    },
    upper_bounds={
        1: int_bytes(79),
        3: b"dC",
        5: b"y",
        6: b"y",
        8: float_bytes(10.0),
        9: float_bytes(5.0),
        11: NAN_F,
        13: double_bytes(5.0),
    },
)
FILE_ABC = data_file(
    value_counts={3: 50},
    null_value_counts={3: 0},
    lower_bounds={3: b"abc"},
    upper_bounds={3: b"abd"},
)
FILE_42 = data_file(
    value_counts={1: 50},
    null_value_counts={1: 0},
    lower_bounds={1: int_bytes(42)},
    upper_bounds={1: int_bytes(42)},
)


# ---------------------------------------------------------------------------------------------
# Real Parquet files, their metrics taken from the Parquet footer, DuckDB counting the matches

_BOUND_FORMATS = {IntegerType: "<i", LongType: "<q", FloatType: "<f", DoubleType: "<d"}


def _bound_bytes(t: Any, value: Any) -> bytes:
    if isinstance(t, StringType):
        return value.encode()
    return struct.pack(_BOUND_FORMATS[type(t)], value)


def write_parquet_file(path: str, schema: Schema, table: pa.Table) -> DataFile:
    """Write ``table`` with pyarrow and describe it as a manifest entry would: value, null and
    NaN counts per field id, and bounds from the footer statistics pyarrow wrote (NaN is never
    a bound)."""
    pq.write_table(table, path)
    row_group = pq.ParquetFile(path).metadata.row_group(0)
    values, nulls, nans, lower, upper = {}, {}, {}, {}, {}
    for i, field in enumerate(schema.fields):
        column = table.column(field.name)
        stats = row_group.column(i).statistics
        values[field.field_id] = len(column)
        nulls[field.field_id] = stats.null_count
        if isinstance(field.type, FloatType | DoubleType):
            nans[field.field_id] = pc.sum(pc.is_nan(column).fill_null(False)).as_py() or 0
        if stats.has_min_max:
            lower[field.field_id] = _bound_bytes(field.type, stats.min)
            upper[field.field_id] = _bound_bytes(field.type, stats.max)
    return DataFile(
        file_path=path,
        file_format="PARQUET",
        partition=(),
        record_count=table.num_rows,
        file_size_in_bytes=os.path.getsize(path),
        value_counts=values,
        null_value_counts=nulls,
        nan_value_counts=nans,
        lower_bounds=lower,
        upper_bounds=upper,
    )


def count_matches_in_parquet(path: str, exprs: list[BooleanExpression]) -> list[int]:
    """For each expression, how many rows of the Parquet file at ``path`` DuckDB finds
    ``to_sql(expr)`` TRUE for (one scan for all of them)."""
    counts = ", ".join(f"count(*) FILTER (WHERE {to_sql(e)})" for e in exprs)
    con = duckdb.connect()
    try:
        return list(con.execute(f"SELECT {counts} FROM read_parquet('{path}')").fetchall()[0])
    finally:
        con.close()


NAN = float("nan")
PARQUET_SCHEMA = Schema(
    (
        NestedField(1, "i", IntegerType()),
        NestedField(2, "x", DoubleType()),
        NestedField(3, "s", StringType()),
    )
)
PARQUET_TABLES = {
    "mixed": {
        "i": [1, 5, 9, None, 3],
        "x": [0.5, NAN, -2.0, None, 7.0],
        "s": ["ab", "abc", None, "b", "zz"],
    },
    "nulls_and_nans": {"i": [None] * 5, "x": [NAN, None, NAN, NAN, None], "s": [None] * 5},
    "all_nan": {"i": [None] * 5, "x": [NAN] * 5, "s": [None] * 5},
    "one_value": {"i": [42] * 5, "x": [1.0] * 5, "s": ["abc"] * 5},
    "no_nulls": {
        "i": [-3, 0, 7, 7, 100],
        "x": [-0.0, 0.0, 1e300, -1e300, 3.0],
        "s": ["", "a", "ab", "abd", "b"],
    },
}
PARQUET_ARROW_TYPES = {"i": pa.int32(), "x": pa.float64(), "s": pa.string()}


def parquet_table(name: str) -> pa.Table:
    return pa.table(
        {c: pa.array(v, PARQUET_ARROW_TYPES[c]) for c, v in PARQUET_TABLES[name].items()}
    )


def parquet_predicates() -> list[BooleanExpression]:
    """Every operator on every column of ``PARQUET_SCHEMA``, with literals on, between and
    beyond the values of ``PARQUET_TABLES``."""
    from icesql.expressions import tree as t

    comparisons = (
        t.less_than,
        t.less_than_or_equal,
        t.greater_than,
        t.greater_than_or_equal,
        t.equal,
        t.not_equal,
    )
    literals = {
        "i": [-5, -3, 0, 1, 5, 7, 9, 42, 100, 101],
        "x": [-3.0, 0.0, 0.5, 1.0, 7.0, 8.0],
        "s": ["", "a", "ab", "abc", "abd", "b", "c", "zz", "zzz"],
    }
    preds: list[BooleanExpression] = []
    for column, values in literals.items():
        preds += [t.is_null(column), t.not_null(column)]
        preds += [make(column, v) for make in comparisons for v in values]
        preds += [
            t.in_(column, values[:2]),
            t.in_(column, values[3:5]),
            t.in_(column, values[-2:]),
            t.not_in(column, values[:2]),
            t.not_in(column, values[3:5]),
        ]
    preds += [t.is_nan("x"), t.not_nan("x")]
    preds += [
        make("s", v)
        for make in (t.starts_with, t.not_starts_with)
        for v in literals["s"] + ["abcd", "y"]
    ]
    preds += [
        t.and_(t.greater_than("i", 0), t.less_than("x", 1.0)),
        t.or_(t.is_null("s"), t.starts_with("s", "b")),
        t.not_(t.greater_than_or_equal("i", 5)),
    ]
    return preds


def write_parquet_files(folder: Any) -> dict[str, DataFile]:
    """Every table of ``PARQUET_TABLES`` written to ``folder`` (a path), by name."""
    return {
        name: write_parquet_file(
            str(folder / f"{name}.parquet"), PARQUET_SCHEMA, parquet_table(name)
        )
        for name in PARQUET_TABLES
    }


# for a file of one value, no null and no NaN, the bounds answer these operators exactly
EXACT_ON_ONE_VALUE = frozenset(
    {
        Operation.LT,
        Operation.LT_EQ,
        Operation.GT,
        Operation.GT_EQ,
        Operation.EQ,
        Operation.NOT_EQ,
        Operation.IN,
        Operation.STARTS_WITH,
    }
)


# ---------------------------------------------------------------------------------------------
# Random files and predicates, for differential tests of the bulk (columnar) planning path


RANDOM_SCHEMA = Schema(
    (
        NestedField(1, "i", IntegerType()),
        NestedField(2, "l", LongType()),
        NestedField(3, "s", StringType()),
        NestedField(4, "d", DateType()),
        NestedField(5, "ts", TimestampType()),
        NestedField(6, "amt", DecimalType(10, 2)),
        NestedField(7, "f", DoubleType()),
        NestedField(8, "fl", FloatType()),
        NestedField(9, "b", BinaryType()),
    )
)
LONG_STRING = "x" * 70  # a bound of 64 bytes or more leaves the regular-expression path
RANDOM_DOMAINS: dict[str, list[Any]] = {
    "i": [-3, -1, 0, 1, 2, 3, 7, 2**31 - 1],
    "l": [-(2**40), -100, -1, 0, 1, 50, 99, 2**40],
    "s": ["", "a", "ab", "abc", "abd", "b", "ba", "é", "zz", LONG_STRING],
    "d": [-400, -1, 0, 1, 30, 19_000],
    "ts": [-(10**12), -1, 0, 1, 86_400_000_000, 10**15],
    "amt": [
        Decimal("-1.50"),
        Decimal("0.00"),
        Decimal("0.01"),
        Decimal("1.50"),
        Decimal("99999999.99"),
    ],
    "f": [float("-inf"), -1.5, -0.0, 0.0, 1.5, float("inf")],
    "fl": [-1.5, -0.0, 0.0, 0.5, 1.5],
    "b": [b"", b"\x00", b"\x01\x02", b"zz"],
}
_FLOATING = ("f", "fl")


def random_data_file(rng: random.Random, index: int, partition: tuple[Any, ...] = ()) -> DataFile:
    """A data file with random, sometimes partial or odd, metrics for ``RANDOM_SCHEMA``:
    absent counts or bounds, null-only and NaN-only columns, NaN bounds, 4-byte bounds under
    a long (written before a promotion), long string bounds, empty and unknown-size files."""
    values: dict[int, int] = {}
    nulls: dict[int, int] = {}
    nans: dict[int, int] = {}
    lower: dict[int, bytes] = {}
    upper: dict[int, bytes] = {}
    rows = rng.choice([0, -1, 1, 5, 100, 100, 100])
    for f in RANDOM_SCHEMA.fields:
        name, fid, t = f.name, f.field_id, f.type
        total = max(rows, 0)
        if rng.random() < 0.85:
            values[fid] = total
        if rng.random() < 0.85:
            nulls[fid] = rng.choice([0, 0, 1, total])
        if name in _FLOATING and rng.random() < 0.8:
            nans[fid] = rng.choice([0, 0, 1, total])
        if rng.random() < 0.8:
            lo, hi = sorted(rng.sample(RANDOM_DOMAINS[name], 2), key=_order)
            if name == "l" and rng.random() < 0.2 and -(2**31) <= lo <= hi < 2**31:
                lower[fid], upper[fid] = int_bytes(lo), int_bytes(hi)  # before a promotion
            else:
                lower[fid], upper[fid] = to_bytes(t, lo), to_bytes(t, hi)
            if name in _FLOATING and rng.random() < 0.1:
                lower[fid] = upper[fid] = to_bytes(t, float("nan"))  # an old writer's
            if rng.random() < 0.1:
                del (lower if rng.random() < 0.5 else upper)[fid]
    return DataFile(
        file_path=f"data/{index:05d}-{rng.getrandbits(64):016x}.parquet",
        file_format="PARQUET",
        partition=partition,
        record_count=rows,
        file_size_in_bytes=1000 + index,
        column_sizes={fid: 10 for fid in values},
        value_counts=values if rng.random() < 0.95 else None,
        null_value_counts=nulls if rng.random() < 0.95 else None,
        nan_value_counts=nans,
        lower_bounds=lower,
        upper_bounds=upper,
        split_offsets=(4,) if rng.random() < 0.5 else None,
    )


def _order(v: Any) -> Any:
    return (v, math.copysign(1.0, v)) if isinstance(v, float) else v


def random_predicate(rng: random.Random, depth: int = 0) -> BooleanExpression:
    """A random filter over ``RANDOM_SCHEMA``: every comparison kind, IN / NOT IN, null and
    NaN tests, prefixes, NOT, AND, OR."""
    if depth < 2 and rng.random() < 0.35:
        a, b = random_predicate(rng, depth + 1), random_predicate(rng, depth + 1)
        return rng.choice([and_, or_])(a, b)
    if depth < 2 and rng.random() < 0.1:
        return not_(random_predicate(rng, depth + 1))
    name = rng.choice(list(RANDOM_DOMAINS))
    literal = rng.choice(RANDOM_DOMAINS[name])
    kinds = ["eq", "ne", "lt", "le", "gt", "ge", "in", "not_in", "null", "not_null"]
    if name in _FLOATING:
        kinds += ["nan", "not_nan"]
    if name == "s":
        kinds += ["starts", "not_starts"]
    kind = rng.choice(kinds)
    if kind == "in" or kind == "not_in":
        chosen = rng.sample(RANDOM_DOMAINS[name], rng.randint(1, 3))
        return (in_ if kind == "in" else not_in)(name, chosen)
    if kind in ("starts", "not_starts"):
        prefix = rng.choice(["", "a", "ab", "b", "é", "z", "xx"])
        return (starts_with if kind == "starts" else not_starts_with)(name, prefix)
    unary = {"null": is_null, "not_null": not_null, "nan": is_nan, "not_nan": not_nan}
    if kind in unary:
        return unary[kind](name)
    return {
        "eq": equal,
        "ne": not_equal,
        "lt": less_than,
        "le": less_than_or_equal,
        "gt": greater_than,
        "ge": greater_than_or_equal,
    }[kind](name, literal)
