"""Planner fuzz: random predicates never make the planner skip a file holding a matching row.

One table of many small files written under five partition specs (identity, bucket, truncate,
day, month, and fields dropped on the way), with nulls, NaN, -0.0, infinities and empty strings.
Each example is a random WHERE clause over int / long / string / date / timestamp / decimal /
double columns (comparisons, IN, NOT IN, IS [NOT] NULL, isnan, NOT, AND, OR, LIKE 'prefix%',
startswith). The oracle is DuckDB evaluating the same condition over each data file read
directly: every file with a matching row must be in icesql's plan (the filter the engine pushes,
planned by ``icesql.scan.planner``), and the query's rows must equal DuckDB's over all files.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

import duckdb
import pytest
from fuzz_support import fuzz_settings, normal_rows
from hypothesis import event, given
from hypothesis import strategies as st

import icesql
from icesql.expressions.file_filter import FileFilter, RowsMatch
from icesql.scan.planner import plan_scan
from icesql.sql.bound_query import TableSource, bind_query
from icesql.sql.dialect import DIALECT, parse_one
from icesql.sql.predicates import exact_filter, pushed_filters

pytestmark = pytest.mark.slow

COLUMNS = "i INT, l BIGINT, s STRING, d DATE, ts TIMESTAMP, amt DECIMAL(10,2), f DOUBLE"
INTS = [None, -3, -1, 0, 1, 2, 3, 7]
LONGS = [None, -(2**40), -100, -1, 0, 1, 50, 99, 2**40]
STRINGS = [None, "", "a", "ab", "abc", "abd", "b", "ba", "é", "éa", "zz", "a%"]
DATES = [None, *(dt.date(2024, 1, 1) + dt.timedelta(days=k) for k in (-400, -31, -1, 0, 1, 30, 59))]
TIMES = [
    None,
    *(dt.datetime(2024, 1, 1) + dt.timedelta(hours=k) for k in (-25, -1, 0, 1, 23, 24, 48)),
]
DECIMALS = [
    None,
    Decimal("-1.50"),
    Decimal("0.00"),
    Decimal("0.01"),
    Decimal("1.50"),
    Decimal("99999999.99"),
]
FLOATS = [None, float("nan"), float("-inf"), -1.5, -0.0, 0.0, 1.5, float("inf")]
DOMAINS = {
    "i": INTS,
    "l": LONGS,
    "s": STRINGS,
    "d": DATES,
    "ts": TIMES,
    "amt": DECIMALS,
    "f": FLOATS,
}
# each stage: the partition spec change, then several INSERTs of random rows under it
STAGES = [
    ["ALTER TABLE db.p ADD PARTITION FIELD bucket(4, l)"],
    ["ALTER TABLE db.p ADD PARTITION FIELD truncate(2, s)"],
    ["ALTER TABLE db.p ADD PARTITION FIELD days(ts)", "ALTER TABLE db.p DROP PARTITION FIELD i"],
    [
        "ALTER TABLE db.p ADD PARTITION FIELD months(d)",
        "ALTER TABLE db.p DROP PARTITION FIELD s_trunc_2",
    ],
]


def sql_literal(value: object) -> str:
    """The literal as both Spark SQL and DuckDB read it."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, Decimal):
        return f"CAST('{value}' AS DECIMAL(10,2))" if value.copy_abs() > 10**6 else str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return f"CAST('{value}' AS DOUBLE)"
        return f"CAST({value!r} AS DOUBLE)"
    return str(value)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The table, its connection and its data files, written in seeded random batches."""
    rng = random.Random(23)
    warehouse = str(tmp_path_factory.mktemp("planner-fuzz"))
    con = icesql.connect(warehouse)
    con.execute("CREATE NAMESPACE db")
    con.execute(f"CREATE TABLE db.p ({COLUMNS}) USING iceberg PARTITIONED BY (i)")
    for stage in [[], *STAGES]:
        for statement in stage:
            con.execute(statement)
        for _ in range(3):
            rows = [
                tuple(rng.choice(DOMAINS[c]) for c in DOMAINS) for _ in range(rng.randint(1, 6))
            ]
            values = ", ".join("(" + ", ".join(sql_literal(v) for v in r) + ")" for r in rows)
            con.execute(f"INSERT INTO db.p VALUES {values}")
    t = con.catalog.load_table(("db", "p"))
    md = t.metadata
    files = [task.data_file.file_path for task in plan_scan(md, md.current_snapshot(), t.io).tasks]
    assert len(md.specs) == 7 and len(files) >= 30
    yield con, t, files
    con.close()


def comparison(column: str) -> st.SearchStrategy[str]:
    values = DOMAINS[column]
    value = st.sampled_from(values).map(sql_literal)
    op = st.sampled_from(["=", "!=", "<", "<=", ">", ">=", "<=>"])
    options = [
        st.tuples(op, value).map(lambda t: f"{column} {t[0]} {t[1]}"),
        st.tuples(value, op).map(lambda t: f"{t[0]} {t[1]} {column}"),
        st.lists(value, min_size=1, max_size=4).map(lambda v: f"{column} IN ({', '.join(v)})"),
        st.lists(value, min_size=1, max_size=3).map(lambda v: f"{column} NOT IN ({', '.join(v)})"),
        st.just(f"{column} IS NULL"),
        st.just(f"{column} IS NOT NULL"),
    ]
    if column == "s":
        prefix = st.sampled_from(["", "a", "ab", "é", "b", "z"])
        options += [
            prefix.map(lambda p: f"s LIKE '{p}%'"),
            prefix.map(lambda p: f"s NOT LIKE '{p}%'"),
            prefix.map(lambda p: f"startswith(s, '{p}')"),
        ]
    if column == "f":
        options += [st.just("isnan(f)"), st.just("NOT isnan(f)")]
    return st.one_of(options)


ATOMS = st.sampled_from(list(DOMAINS)).flatmap(comparison)
PREDICATES = st.recursive(
    ATOMS,
    lambda inner: st.one_of(
        inner.map(lambda p: f"NOT ({p})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]}) AND ({t[1]})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]}) OR ({t[1]})"),
    ),
    max_leaves=5,
)


def duckdb_predicate(predicate: str) -> str:
    """The condition in DuckDB's words, with Spark's meaning: ``startswith`` and ``<=>`` are
    spelled differently, and Spark's ``isnan(NULL)`` is false where DuckDB's is NULL."""
    return (
        predicate.replace("startswith(", "starts_with(")
        .replace("<=>", "IS NOT DISTINCT FROM")
        .replace("isnan(f)", "coalesce(isnan(f), false)")
    )


def planned(t, predicate: str) -> set[str]:
    """The files icesql's planner keeps for the filter the engine pushes from ``predicate``."""
    md = t.metadata
    bound = bind_query(
        parse_one(f"SELECT * FROM v WHERE {predicate}"), {"v": TableSource(md.schema())}
    )
    row_filter = pushed_filters(bound, ()).get("v")
    plan = (
        plan_scan(md, md.current_snapshot(), t.io, row_filter=row_filter)
        if row_filter
        else plan_scan(md, md.current_snapshot(), t.io)
    )
    return {task.data_file.file_path for task in plan.tasks}


@fuzz_settings(examples=60)
@given(predicate=PREDICATES)
def test_planner_never_skips_a_matching_file(table, predicate: str) -> None:
    con, t, files = table
    duck = duckdb.connect()
    duck.execute("SET TimeZone = 'UTC'")
    where = duckdb_predicate(predicate)
    keep = planned(t, predicate)
    listing = ", ".join(f"'{p}'" for p in files)
    source = f"read_parquet([{listing}], hive_partitioning = false, filename = true)"
    matching = duck.execute(
        f"SELECT filename, count(*) FROM {source} WHERE {where} GROUP BY filename"
    ).fetchall()
    skipped = {path: n for path, n in matching if path not in keep}
    assert not skipped, f"files holding rows matching {predicate} were skipped: {skipped}"
    expected = duck.execute(f"SELECT i, l, s, d, ts, amt, f FROM {source} WHERE {where}").fetchall()
    got = con.execute(f"SELECT i, l, s, d, ts, amt, f FROM db.p WHERE {predicate}").fetchall()
    assert normal_rows(got) == normal_rows(expected), predicate


@fuzz_settings(examples=40)
@given(predicate=PREDICATES)
def test_whole_file_verdicts_of_an_exact_filter_hold(table, predicate: str) -> None:
    """What a DELETE relies on to drop or keep whole files unread: where the condition
    converts exactly (``exact_filter``), a file judged to match in all rows holds only
    matching rows, and one judged to match none holds none."""
    con, t, files = table
    md = t.metadata
    condition = parse_one(f"SELECT 1 FROM v WHERE {predicate}").args["where"].this
    exact = exact_filter(condition, "v", md.schema(), (), DIALECT)
    if exact is None:
        event("not exact")
        return
    duck = duckdb.connect()
    duck.execute("SET TimeZone = 'UTC'")
    where = duckdb_predicate(predicate)
    verdicts = FileFilter(md.schema(), md.specs, exact)
    for task in plan_scan(md, md.current_snapshot(), t.io).tasks:
        f = task.data_file
        verdict = verdicts.rows_match(task.spec_id, f)
        event(f"rows match: {verdict.value}")
        if verdict is RowsMatch.SOME:
            continue
        (n,) = duck.execute(
            f"SELECT count(*) FROM read_parquet('{f.file_path}', "
            f"hive_partitioning = false) WHERE {where}"
        ).fetchone()
        wanted = f.record_count if verdict is RowsMatch.ALL else 0
        assert n == wanted, (
            f"{predicate} ({exact}): {f.file_path} judged {verdict.value}, {n} match"
        )
