"""Differential SQL fuzz: random Spark SQL run by icesql over Iceberg tables and by plain DuckDB
over the same Parquet files, read directly.

The grammar covers the supported surface: projections of arithmetic, string, date functions,
CASE and CAST; WHERE with AND / OR / NOT / IN / BETWEEN / IS NULL / LIKE; GROUP BY with
aggregates; ORDER BY; LIMIT; inner and left joins of two tables. Every construct is generated
twice, as Spark SQL (what icesql is given) and as the DuckDB SQL that means what Spark means
(the oracle): where the two engines differ — Spark's ``concat`` is NULL when an argument is,
``/`` and ``%`` by zero are NULL, ``CAST(double AS INT)`` truncates, ``ORDER BY`` puts NULLs
first ascending, ``isnan(NULL)`` is false — the DuckDB side spells Spark's meaning out, so a
missing translation in icesql shows up as a difference. The answers must be the same rows
(in order when the query orders every output column), or both engines must refuse.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from decimal import Decimal

import duckdb
import pytest
from fuzz_support import fuzz_settings, normal_rows
from hypothesis import event, given
from hypothesis import strategies as st

import icesql
from icesql.scan.planner import plan_scan

pytestmark = pytest.mark.slow

A_COLUMNS = {
    "id": "INT",
    "k": "INT",
    "l": "BIGINT",
    "s": "STRING",
    "d": "DATE",
    "x": "DOUBLE",
    "amt": "DECIMAL(10,2)",
    "flag": "BOOLEAN",
}
B_COLUMNS = {"k": "INT", "name": "STRING", "w": "BIGINT"}
INTS = ["id", "k", "l"]
STRINGS = ["s"]


def _value(rng: random.Random, column: str, type_: str) -> str:
    if rng.random() < 0.15 and column != "id":
        return "NULL"
    if type_ in ("INT", "BIGINT"):
        return str(rng.randint(-5, 9))
    if type_ == "STRING":
        return (
            "'"
            + rng.choice(["", "a", "ab", "abc", "Ab_c", "b%", "xyz", "é", "1", " 2", "-3"])
            + "'"
        )
    if type_ == "DATE":
        return f"DATE '{dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(-60, 60))}'"
    if type_ == "DOUBLE":
        return rng.choice(
            ["CAST('NaN' AS DOUBLE)", "-0.0", "0.0", "1.5", "-2.5", "2.5", "3.25", "-7.75", "100.5"]
        )
    if type_.startswith("DECIMAL"):
        return f"{rng.randint(-999, 999) / 100:.2f}"
    return rng.choice(["true", "false"])


def _create_tables(con: icesql.Connection, namespace: str) -> dict[str, list[str]]:
    """Tables ``a`` and ``b`` of seeded random rows, a few files each; their data files."""
    rng = random.Random(2323)
    con.execute(f"CREATE NAMESPACE {namespace}")
    out = {}
    for name, columns, batches in (("a", A_COLUMNS, 4), ("b", B_COLUMNS, 2)):
        ddl = ", ".join(f"{c} {t}" for c, t in columns.items())
        con.execute(f"CREATE TABLE {namespace}.{name} ({ddl}) USING iceberg")
        for batch in range(batches):
            rows = []
            for n in range(rng.randint(3, 8)):
                values = [_value(rng, c, t) for c, t in columns.items()]
                if name == "a":
                    values[0] = str(batch * 100 + n)  # id: unique, so ORDER BY id is total
                rows.append("(" + ", ".join(values) + ")")
            con.execute(f"INSERT INTO {namespace}.{name} VALUES {', '.join(rows)}")
        t = con.catalog.load_table((namespace, name))
        md = t.metadata
        out[name] = [
            task.data_file.file_path for task in plan_scan(md, md.current_snapshot(), t.io).tasks
        ]
    return out


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    """icesql over tables ``db.a`` and ``db.b``, and DuckDB with views ``a`` and ``b`` over
    the same data files."""
    con = icesql.connect(str(tmp_path_factory.mktemp("sql-fuzz")))
    duck = duckdb.connect()
    duck.execute("SET TimeZone = 'UTC'")
    for name, paths in _create_tables(con, "db").items():
        columns = A_COLUMNS if name == "a" else B_COLUMNS
        files = ", ".join(f"'{p}'" for p in paths)
        duck.execute(
            f"CREATE VIEW {name} AS SELECT {', '.join(columns)} FROM "
            f"read_parquet([{files}], hive_partitioning = false)"
        )
    yield con, duck
    con.close()


# --------------------------------------------------------------------------------------------
# The grammar: every strategy draws a pair (Spark SQL, DuckDB SQL with Spark's meaning)

Pair = tuple[str, str]


def same(text: str) -> Pair:
    return text, text


def column_of(kinds: list[str], tables: tuple[str, ...]) -> st.SearchStrategy[Pair]:
    cols = [f"a.{c}" for c in kinds if c in A_COLUMNS]
    if "b" in tables:
        cols += [f"b.{c}" for c in kinds if c in B_COLUMNS and c != "k"]
    return st.sampled_from(cols).map(same)


def int_expr(tables: tuple[str, ...]) -> st.SearchStrategy[Pair]:
    ints = ["id", "k", "l", "w"]
    leaf = st.one_of(column_of(ints, tables), st.integers(-3, 9).map(lambda n: same(str(n))))

    def extend(inner: st.SearchStrategy[Pair]) -> st.SearchStrategy[Pair]:
        def arith(t: tuple[Pair, str, Pair]) -> Pair:
            (ls, ld), op, (rs, rd) = t
            if op == "%":  # Spark: NULL for a zero divisor; DuckDB raises
                return f"({ls} % {rs})", f"({ld} % nullif({rd}, 0))"
            return f"({ls} {op} {rs})", f"({ld} {op} {rd})"

        def func(t: tuple[str, Pair]) -> Pair:
            name, (s, d) = t
            return {
                "abs": (f"abs({s})", f"abs({d})"),
                "neg": (f"(- {s})", f"(- {d})"),
                "sign": (f"CAST(signum({s}) AS INT)", f"CAST(sign({d}) AS INT)"),
            }[name]

        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "%"]), inner).map(arith),
            st.tuples(st.sampled_from(["abs", "neg", "sign"]), inner).map(func),
        )

    return st.recursive(leaf, extend, max_leaves=3)


def string_expr(tables: tuple[str, ...]) -> st.SearchStrategy[Pair]:
    cols = ["s", "name"]
    lit = st.sampled_from(["'a'", "'-'", "''", "'xY'"]).map(same)
    leaf = st.one_of(column_of(cols, tables), lit)

    def f(t: tuple[str, Pair, Pair]) -> Pair:
        name, (s, d), (s2, d2) = t
        return {
            "upper": (f"upper({s})", f"upper({d})"),
            "lower": (f"lower({s})", f"lower({d})"),
            # Spark's concat is NULL when any argument is; DuckDB's skips NULLs
            "concat": (f"concat({s}, {s2})", f"({d} || {d2})"),
            "substr": (f"substring({s}, 2, 2)", f"substring({d}, 2, 2)"),
            "trim": (f"trim({s})", f"trim({d})"),
            "coalesce": (f"coalesce({s}, {s2})", f"coalesce({d}, {d2})"),
            "cast_int": (f"CAST(length({s}) AS STRING)", f"CAST(length({d}) AS VARCHAR)"),
            "replace": (f"replace({s}, 'a', 'Z')", f"replace({d}, 'a', 'Z')"),
        }[name]

    names = ["upper", "lower", "concat", "substr", "trim", "coalesce", "cast_int", "replace"]
    return st.recursive(
        leaf, lambda inner: st.tuples(st.sampled_from(names), inner, inner).map(f), max_leaves=3
    )


def date_expr() -> st.SearchStrategy[Pair]:
    n = st.integers(-40, 40)
    return st.one_of(
        st.just(same("a.d")),
        n.map(lambda k: (f"date_add(a.d, {k})", f"CAST(a.d + INTERVAL ({k}) DAY AS DATE)")),
        n.map(lambda k: (f"date_sub(a.d, {k})", f"CAST(a.d - INTERVAL ({k}) DAY AS DATE)")),
    )


def scalar(tables: tuple[str, ...]) -> st.SearchStrategy[Pair]:
    """An expression of any type, for projections."""

    def date_part(t: tuple[str, Pair]) -> Pair:
        name, (s, d) = t
        duck = {"year": "year", "month": "month", "dayofmonth": "day"}[name]
        return f"{name}({s})", f"{duck}({d})"

    dbl = st.sampled_from(
        [
            same("a.x"),
            # Spark truncates (DuckDB rounds) and casts NaN to 0 (DuckDB refuses)
            (
                "CAST(a.x AS INT)",
                "CASE WHEN isnan(a.x) THEN 0 ELSE CAST(trunc(a.x) AS INT) END",
            ),
            # Spark (ANSI off) saturates out of range and casts NaN to 0, as the JVM does
            (
                "CAST(a.x * 1e8D AS INT)",
                "CASE WHEN isnan(a.x) THEN 0 WHEN a.x * 1e8 >= 2147483647 THEN 2147483647"
                " WHEN a.x * 1e8 <= -2147483648 THEN -2147483648 ELSE CAST(trunc(a.x * 1e8) AS INT) END",
            ),
            same("CAST(a.amt AS DOUBLE)"),
            same("(a.amt + a.amt)"),
            ("(a.id / a.k)", "(CAST(a.id AS DOUBLE) / nullif(a.k, 0))"),  # Spark: NULL on zero
            same("round(a.amt, 1)"),
            same("floor(a.x)") if False else same("a.amt * 2"),
            ("isnan(a.x)", "coalesce(isnan(a.x), false)"),
        ]
    )

    def cut(t: tuple[str, Pair, Pair]) -> Pair:
        name, (s, d), (n, m) = t
        if name == "locate":  # Spark: 0 for a NULL start or one below 1
            found = f"strpos(substring({d}, {m}), 'b')"
            return (
                f"locate('b', {s}, {n})",
                f"CASE WHEN ({m}) IS NULL THEN 0 WHEN {d} IS NULL THEN NULL WHEN {m} < 1 THEN 0"
                f" WHEN {found} = 0 THEN 0 ELSE {found} + {m} - 1 END",
            )
        # Spark: a length below 1 is '' (DuckDB counts a negative one from the end)
        return (
            f"{name}({s}, {n})",
            f"CASE WHEN ({m}) IS NULL THEN NULL ELSE {name}({d}, greatest({m}, 0)) END",
        )

    lengths = st.one_of(
        column_of(["k", "l", "w"], tables), st.integers(-3, 5).map(lambda n: same(str(n)))
    )
    cuts = st.tuples(
        st.sampled_from(["left", "right", "locate"]), column_of(["s", "name"], tables), lengths
    ).map(cut)
    return st.one_of(
        int_expr(tables),
        string_expr(tables),
        date_expr(),
        dbl,
        cuts,
        cuts,
        st.tuples(st.sampled_from(["year", "month", "dayofmonth"]), date_expr()).map(date_part),
        st.tuples(date_expr(), date_expr()).map(
            lambda t: (f"datediff({t[0][0]}, {t[1][0]})", f"date_diff('day', {t[1][1]}, {t[0][1]})")
        ),
        st.tuples(condition(tables), int_expr(tables), int_expr(tables)).map(
            lambda t: (
                f"CASE WHEN {t[0][0]} THEN {t[1][0]} ELSE {t[2][0]} END",
                f"CASE WHEN {t[0][1]} THEN {t[1][1]} ELSE {t[2][1]} END",
            )
        ),
        int_expr(tables).map(lambda p: (f"CAST({p[0]} AS STRING)", f"CAST({p[1]} AS VARCHAR)")),
    )


def condition(tables: tuple[str, ...]) -> st.SearchStrategy[Pair]:
    ints, strs = int_expr(tables), string_expr(tables)
    op = st.sampled_from(["=", "<>", "<", "<=", ">", ">="])

    def cmp(t: tuple[Pair, str, Pair]) -> Pair:
        (ls, ld), o, (rs, rd) = t
        return f"{ls} {o} {rs}", f"{ld} {o} {rd}"

    atoms = st.one_of(
        st.tuples(ints, op, ints).map(cmp),
        st.tuples(strs, op, strs).map(cmp),
        st.tuples(date_expr(), op, date_expr()).map(cmp),
        st.tuples(ints, st.lists(st.integers(-3, 9), min_size=1, max_size=4), st.booleans()).map(
            lambda t: (
                same(f"{t[0][0]} {'NOT ' if t[2] else ''}IN ({', '.join(map(str, t[1]))})")
                if t[0][0] == t[0][1]
                else (
                    f"{t[0][0]} IN ({', '.join(map(str, t[1]))})",
                    f"{t[0][1]} IN ({', '.join(map(str, t[1]))})",
                )
            )
        ),
        st.tuples(ints, st.integers(-3, 5), st.integers(0, 9)).map(
            lambda t: (
                f"{t[0][0]} BETWEEN {t[1]} AND {t[2]}",
                f"{t[0][1]} BETWEEN {t[1]} AND {t[2]}",
            )
        ),
        st.tuples(st.one_of(ints, strs, date_expr()), st.booleans()).map(
            lambda t: (
                f"{t[0][0]} IS {'NOT ' if t[1] else ''}NULL",
                f"{t[0][1]} IS {'NOT ' if t[1] else ''}NULL",
            )
        ),
        st.tuples(strs, st.sampled_from(["a%", "%b%", "_", "%", "A%", "a_c", ""])).map(
            lambda t: (f"{t[0][0]} LIKE '{t[1]}'", f"{t[0][1]} LIKE '{t[1]}'")
        ),
        st.just(same("a.flag")),
        st.tuples(st.sampled_from(["a.x"]), op, st.sampled_from(["0.0", "1.5", "-2.5"])).map(
            lambda t: same(f"{t[0]} {t[1]} {t[2]}")
        ),
    )
    return st.recursive(
        atoms,
        lambda inner: st.one_of(
            inner.map(lambda p: (f"NOT ({p[0]})", f"NOT ({p[1]})")),
            st.tuples(inner, st.sampled_from(["AND", "OR"]), inner).map(
                lambda t: (f"({t[0][0]}) {t[1]} ({t[2][0]})", f"({t[0][1]}) {t[1]} ({t[2][1]})")
            ),
        ),
        max_leaves=4,
    )


@st.composite
def queries(draw: st.DrawFn) -> tuple[str, str, bool]:
    """(Spark SQL, DuckDB SQL, whether the answer's order is defined)."""
    join = draw(st.sampled_from(["", "JOIN", "LEFT JOIN"]))
    tables = ("a", "b") if join else ("a",)
    source = f"db.a AS a {join} db.b AS b ON a.k = b.k" if join else "db.a AS a"
    duck_source = source.replace("db.", "")
    where = draw(st.none() | condition(tables))
    grouped = draw(st.booleans())
    if grouped:
        keys = draw(
            st.lists(
                st.one_of(int_expr(tables), string_expr(tables), date_expr()),
                min_size=0,
                max_size=2,
                unique=True,
            )
        )
        aggs = draw(
            st.lists(
                st.sampled_from(
                    [
                        same("count(*)"),
                        same("count(a.s)"),
                        same("sum(a.l)"),
                        same("min(a.s)"),
                        same("max(a.d)"),
                        same("sum(a.amt)"),
                        same("avg(a.id)"),
                        same("count(DISTINCT a.k)"),
                        same("min(a.x)"),
                        same("max(a.x)"),
                    ]
                ),
                min_size=1,
                max_size=3,
            )
        )
        items = keys + aggs
        group = (
            (
                " GROUP BY " + ", ".join(k[0] for k in keys),
                " GROUP BY " + ", ".join(k[1] for k in keys),
            )
            if keys
            else ("", "")
        )
    else:
        items = draw(st.lists(scalar(tables), min_size=1, max_size=4))
        group = ("", "")
    spark = "SELECT " + ", ".join(f"{s} AS c{i}" for i, (s, _) in enumerate(items))
    duck = "SELECT " + ", ".join(f"{d} AS c{i}" for i, (_, d) in enumerate(items))
    spark += f" FROM {source}"
    duck += f" FROM {duck_source}"
    if where:
        spark += f" WHERE {where[0]}"
        duck += f" WHERE {where[1]}"
    spark += group[0]
    duck += group[1]
    ordered = draw(st.booleans())
    if ordered:  # every output column, so the order (and any LIMIT) is fully defined
        desc = [draw(st.booleans()) for _ in items]
        spark += " ORDER BY " + ", ".join(
            f"{i + 1}{' DESC' if d else ''}" for i, d in enumerate(desc)
        )
        # Spark's default null order: first when ascending, last when descending
        duck += " ORDER BY " + ", ".join(
            f"{i + 1} {'DESC NULLS LAST' if d else 'ASC NULLS FIRST'}" for i, d in enumerate(desc)
        )
        limit = draw(st.none() | st.integers(0, 6))
        if limit is not None:
            spark += f" LIMIT {limit}"
            duck += f" LIMIT {limit}"
    return spark, duck, ordered


def _rounded(rows: list[tuple]) -> list[tuple]:
    """Sums and averages of doubles and decimals differ in the last digits between engines."""

    def r(v: object) -> object:
        if isinstance(v, (float, Decimal)) and not (isinstance(v, float) and math.isnan(v)):
            return float(f"{float(v):.9g}") + 0.0
        return v

    return [tuple(r(v) for v in row) for row in rows]


@fuzz_settings(examples=120)
@given(query=queries())
def test_icesql_answers_as_duckdb_on_the_same_files(engines, query: tuple[str, str, bool]) -> None:
    con, duck = engines
    spark_sql, duck_sql, ordered = query
    try:
        expected = duck.execute(duck_sql).fetchall()
    except duckdb.Error as e:
        with pytest.raises(icesql.Error):
            con.execute(spark_sql).fetchall()
        event(f"both refuse: {type(e).__name__}")
        return
    got = con.execute(spark_sql).fetchall()
    assert normal_rows(_rounded(got), ordered) == normal_rows(_rounded(expected), ordered), (
        f"\nicesql: {spark_sql}\nduckdb: {duck_sql}"
    )


@pytest.fixture(scope="module")
def spark_engines(spark, spark_warehouse):
    """icesql and Spark over the same tables ``fuzz_sql.a`` / ``fuzz_sql.b``."""
    spark.sql("DROP NAMESPACE IF EXISTS fuzz_sql CASCADE")
    con = icesql.connect(spark_warehouse)
    _create_tables(con, "fuzz_sql")
    spark.sql("REFRESH TABLE fuzz_sql.a")
    yield con, spark
    con.close()


@fuzz_settings(examples=25)
@given(query=queries())
def test_icesql_answers_as_spark(spark_engines, query: tuple[str, str, bool]) -> None:
    """The same grammar against Spark itself, fewer examples: checks the DuckDB oracle's
    spelling of Spark's meaning, and icesql beside it."""
    con, spark = spark_engines
    spark_sql = query[0].replace("db.", "fuzz_sql.")
    try:
        expected = [tuple(r) for r in spark.sql(spark_sql).collect()]
    except Exception as e:
        event(f"Spark refuses: {type(e).__name__}")
        with pytest.raises(icesql.Error):
            con.execute(spark_sql).fetchall()
        return
    got = con.execute(spark_sql).fetchall()
    assert normal_rows(_rounded(got), query[2]) == normal_rows(_rounded(expected), query[2]), (
        spark_sql
    )
