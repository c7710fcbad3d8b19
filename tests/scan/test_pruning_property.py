"""Property: pruning never loses a row.

Over random rows (nulls, NaN, -0.0, dates and timestamps on both sides of 1970), random
partition specs (every transform, with partition evolution) and random SQL conditions
(comparisons either way round, BETWEEN, IN, LIKE, IS NULL, isnan, AND / OR / NOT, and
conditions that cannot be pushed), two things hold:

* the planned files include every file that holds a row matching the condition;
* the query returns exactly what DuckDB returns reading every file (no pushdown).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from decimal import Decimal
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import icesql.engine.plan as plan_stage
from icesql.catalog.filesystem import FileSystemCatalog
from icesql.engine import Engine
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import Bucket, Day, Hour, Identity, Month, Truncate, Year
from icesql.spec.types import (
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestamptzType,
)

SCHEMA = Schema(
    (
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "i", IntegerType()),
        NestedField(3, "s", StringType()),
        NestedField(4, "d", DateType()),
        NestedField(5, "ts", TimestamptzType()),
        NestedField(6, "x", DoubleType()),
        NestedField(7, "dec", DecimalType(9, 2)),
    )
)
FIELD_IDS = {f.name: f.field_id for f in SCHEMA.fields}
HOUR = 3_600_000_000
PARTITIONINGS = [
    ("i", Identity()),
    ("s", Identity()),
    ("d", Identity()),
    ("x", Identity()),
    ("i", Bucket(3)),
    ("s", Bucket(2)),
    ("dec", Bucket(4)),
    ("d", Bucket(3)),
    ("ts", Bucket(2)),
    ("i", Truncate(3)),
    ("s", Truncate(1)),
    ("s", Truncate(2)),
    ("dec", Truncate(50)),
    ("d", Year()),
    ("d", Month()),
    ("d", Day()),
    ("ts", Year()),
    ("ts", Month()),
    ("ts", Day()),
    ("ts", Hour()),
]
STRINGS = ["", "a", "aa", "ab", "abc", "b", "ba", "é", "éa", "z"]
XS = [-2.5, -0.0, 0.0, 1.5, 3.0, float("nan"), float("inf")]
DECS = [Decimal("-1.25"), Decimal("0.00"), Decimal("0.49"), Decimal("0.50"), Decimal("3.10")]

_tables = itertools.count()


def _maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.none(), strategy)


ROWS = st.lists(
    st.fixed_dictionaries(
        {
            "i": _maybe(st.integers(-12, 12)),
            "s": _maybe(st.sampled_from(STRINGS)),
            "d": _maybe(st.integers(-800, 800)),
            "ts": _maybe(st.integers(-72, 72).map(lambda h: h * HOUR + 1)),
            "x": _maybe(st.sampled_from(XS)),
            "dec": _maybe(st.sampled_from(DECS)),
        }
    ),
    max_size=40,
)


def _date_sql(days: int) -> str:
    return f"DATE '{dt.date(1970, 1, 1) + dt.timedelta(days=days)}'"


def _ts_sql(micros: int) -> str:
    t = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=micros)
    return f"TIMESTAMP '{t:%Y-%m-%d %H:%M:%S.%f}'"


LITERALS = {
    "i": st.one_of(st.integers(-14, 14).map(str), st.sampled_from(["5.5", "-0.5", "'3'", "2.0"])),
    "s": st.sampled_from(STRINGS).map(lambda v: f"'{v}'"),
    "d": st.one_of(
        st.integers(-810, 810).map(_date_sql), st.integers(-72, 72).map(lambda h: _ts_sql(h * HOUR))
    ),
    "ts": st.one_of(
        st.integers(-73, 73).map(lambda h: _ts_sql(h * HOUR)),
        st.integers(-4, 4).map(_date_sql),
        st.integers(-73, 73).map(lambda h: _ts_sql(h * HOUR + 1)),
    ),
    "x": st.sampled_from(
        ["1.5", "-2.5", "0", "-0.0", "3", "0.1", "1e300", "CAST('NaN' AS DOUBLE)"]
    ),
    "dec": st.sampled_from(["0.5", "0.49", "-1.25", "3.1", "0.495", "1"]),
}
COLUMNS = list(LITERALS)


@st.composite
def atoms(draw: st.DrawFn) -> str:
    col = draw(st.sampled_from(COLUMNS))
    lit = LITERALS[col]
    kind = draw(st.integers(0, 8))
    if kind == 0:
        op = draw(st.sampled_from(["=", "<>", "<", "<=", ">", ">="]))
        return f"{draw(lit)} {op} {col}"
    if kind == 1:
        return f"{col} BETWEEN {draw(lit)} AND {draw(lit)}"
    if kind == 2:
        values = ", ".join(draw(st.lists(lit, min_size=1, max_size=3)))
        return f"{col} {draw(st.sampled_from(['IN', 'NOT IN']))} ({values})"
    if kind == 3:
        return f"{col} IS {draw(st.sampled_from(['', 'NOT ']))}NULL"
    if kind == 4:
        prefix = draw(st.sampled_from(STRINGS))
        return f"s {draw(st.sampled_from(['LIKE', 'NOT LIKE']))} '{prefix}%'"
    if kind == 5:
        return draw(st.sampled_from(["isnan(x)", "NOT isnan(x)", "length(s) = 2", "i + 1 = 3"]))
    op = draw(st.sampled_from(["=", "<>", "<", "<=", ">", ">="]))
    return f"{col} {op} {draw(lit)}"


CONDITIONS = st.recursive(
    atoms(),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda t: f"({t[0]} AND {t[1]})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]} OR {t[1]})"),
        inner.map(lambda c: f"NOT ({c})"),
    ),
    max_leaves=5,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    rows=ROWS,
    specs=st.lists(
        st.lists(st.sampled_from(PARTITIONINGS), max_size=2, unique_by=repr), min_size=1, max_size=2
    ),
    rows_per_file=st.integers(1, 8),
    condition=CONDITIONS,
)
def test_pruning_keeps_every_matching_row(
    warehouse, make_table, rows, specs, rows_per_file, condition
) -> None:
    rows = [{"id": n, **r} for n, r in enumerate(rows)]
    table = make_table(f"db.t{next(_tables)}", SCHEMA, _spec(specs[0], 1000))
    half = len(rows) // 2 if len(specs) > 1 else len(rows)
    table.append(rows[:half], rows_per_file)
    if len(specs) > 1:  # partition evolution: later files use the next spec
        table.evolve_spec(_spec(specs[1], 1100))
        table.append(rows[half:], rows_per_file)

    engine = Engine(FileSystemCatalog(str(warehouse)))
    name = table.location.rsplit("/", 2)
    sql = f"SELECT id FROM {name[-2]}.{name[-1]} WHERE {condition} ORDER BY id"
    try:
        result = engine.execute(sql)
        got = [row["id"] for row in result.reader.read_all().to_pylist()]
        planned = {t.data_file.file_path for t in result.scans[0].tasks()}
        result.close()
        with mock.patch.object(plan_stage, "pushed_filters", lambda *a, **k: {}):
            expected_result = engine.execute(sql)
            expected = [row["id"] for row in expected_result.reader.read_all().to_pylist()]
            expected_result.close()
    finally:
        engine.close()
    assert got == expected, condition
    matching = set(expected)
    needed = {
        path
        for path, written in table.file_rows.items()
        if any(r["id"] in matching for r in written)
    }
    assert needed <= planned, condition


def _spec(fields: list[tuple[str, object]], first_id: int) -> PartitionSpec:
    return PartitionSpec(
        0,
        tuple(
            PartitionField(FIELD_IDS[col], first_id + k, transform, f"p{first_id + k}")
            for k, (col, transform) in enumerate(fields)
        ),
    )


def _qualified(condition: str, alias: str) -> str:
    return re.sub(r"\b(i|s|d|ts|x|dec)\b(?!')", rf"{alias}.\1", condition)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    rows=ROWS,
    spec=st.lists(st.sampled_from(PARTITIONINGS), max_size=2, unique_by=repr),
    rows_per_file=st.integers(1, 8),
    join=st.sampled_from(
        ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN"]
    ),
    on_a=CONDITIONS,
    on_b=CONDITIONS,
    where_a=CONDITIONS,
    where_b=CONDITIONS,
    use=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_pruning_in_joins_never_changes_results(
    warehouse, make_table, rows, spec, rows_per_file, join, on_a, on_b, where_a, where_b, use
) -> None:
    rows = [{"id": n % 7, **r} for n, r in enumerate(rows)]  # repeated ids: real joins
    table = make_table(f"db.j{next(_tables)}", SCHEMA, _spec(spec, 1000))
    table.append(rows, rows_per_file)
    ns, name = table.location.rsplit("/", 2)[-2:]
    on = " AND ".join(
        ["a.id = b.id"]
        + [_qualified(c, t) for c, t, u in ((on_a, "a", use[0]), (on_b, "b", use[1])) if u]
    )
    where = [
        _qualified(c, t)
        for c, t, u in ((where_a, "a", use[2]), (where_b, "b", use[3]))
        if u and not (t == "b" and ("SEMI" in join or "ANTI" in join))
    ]
    columns = "a.id" if "SEMI" in join or "ANTI" in join else "a.id, b.id"
    sql = (
        f"SELECT {columns} FROM {ns}.{name} a {join} {ns}.{name} b ON {on}"
        + (f" WHERE {' AND '.join(where)}" if where else "")
        + " ORDER BY ALL"
    )
    engine = Engine(FileSystemCatalog(str(warehouse)))
    try:
        got = engine.execute(sql).reader.read_all().to_pylist()
        with mock.patch.object(plan_stage, "pushed_filters", lambda *a, **k: {}):
            expected = engine.execute(sql).reader.read_all().to_pylist()
    finally:
        engine.close()
    assert got == expected, sql
