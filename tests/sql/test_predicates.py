"""SQL conditions to pushed Iceberg filters: what converts, what does not, and where it goes.

Each case is SQL text and the filter pushed per table (as text); ``None`` means nothing is
pushed for that table. Pruning must keep every row the SQL keeps, so when in doubt the
expected answer is "not pushed".
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from icesql.spec.schema import Schema
from icesql.spec.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
)
from icesql.sql.bound_query import TableSource, bind_query
from icesql.sql.dialect import DIALECT, number_parameters, parse_one
from icesql.sql.predicates import pushed_filters

T = Schema(
    (
        NestedField(1, "id", IntegerType()),
        NestedField(2, "name", StringType()),
        NestedField(3, "d", DateType()),
        NestedField(4, "ts", TimestamptzType()),
        NestedField(5, "ntz", TimestampType()),
        NestedField(6, "amount", DecimalType(9, 2)),
        NestedField(7, "x", DoubleType()),
        NestedField(8, "f", FloatType()),
        NestedField(9, "flag", BooleanType()),
        NestedField(10, "big", LongType()),
        NestedField(11, "s", StructType((NestedField(12, "inner", IntegerType()),))),
        NestedField(13, "ns", TimestampNanoType()),
        NestedField(14, "nstz", TimestamptzNanoType()),
    )
)


def pushed(sql: str, params: tuple = (), views: tuple[str, ...] = ("t",)) -> dict[str, str]:
    statement = parse_one(sql)
    number_parameters(statement)
    filters = pushed_filters(bind_query(statement, {v: TableSource(T) for v in views}), params)
    return {k: str(v) for k, v in filters.items()}


def one(sql: str, params: tuple = ()) -> str | None:
    return pushed(f"SELECT * FROM t WHERE {sql}", params).get("t")


CASES = [
    # comparisons, either side
    ("id = 5", "id = 5"),
    ("5 < id", "id > 5"),
    ("id <> 5", "id != 5"),
    ("id != 5 AND name = 'a'", "(id != 5 AND name = 'a')"),
    ("id BETWEEN 1 AND 10", "(id >= 1 AND id <= 10)"),
    ("id NOT BETWEEN 1 AND 10", "(id < 1 OR id > 10)"),
    ("id IN (1, 2, 3)", "id IN (1, 2, 3)"),
    ("id NOT IN (1, 2)", "id NOT IN (1, 2)"),
    ("id IN (1, NULL)", "id = 1"),
    ("id NOT IN (1, NULL)", "false"),  # never TRUE in SQL
    ("id IS NULL", "id IS NULL"),
    ("id IS NOT NULL", "id IS NOT NULL"),
    ("name LIKE 'ab%'", "name STARTS WITH 'ab'"),
    ("name NOT LIKE 'ab%'", "name NOT STARTS WITH 'ab'"),
    ("name LIKE 'abc'", "name = 'abc'"),
    ("name LIKE '%'", "name IS NOT NULL"),
    ("name LIKE 'a_c%'", None),
    ("name LIKE '%bc'", None),
    ("name LIKE 'a%c'", None),
    ("name ILIKE 'ab%'", None),
    ("isnan(x)", "x IS NAN"),
    ("NOT isnan(x)", "(x IS NOT NAN OR x IS NULL)"),  # Spark: isnan(NULL) is false
    ("flag", "flag = True"),
    ("NOT flag", "flag = False"),
    # NOT is pushed down with SQL's three-valued logic
    ("NOT (id = 5)", "id != 5"),
    ("NOT (id < 5 OR name IS NULL)", "(id >= 5 AND name IS NOT NULL)"),
    ("NOT (id = 5 AND length(name) = 3)", None),  # NOT of a partly known AND
    ("NOT (id = 5 OR length(name) = 3)", "id != 5"),
    # AND keeps the convertible part; OR needs both sides
    ("id = 5 AND length(name) = 3", "id = 5"),
    ("id = 5 OR length(name) = 3", None),
    ("(id = 5 OR id = 7) AND upper(name) = 'X'", "(id = 5 OR id = 7)"),
    ("id = id + 0", None),
    ("id = NULL", None),
    # literals: exact, widened, or not pushed
    ("id < 5.5", "id <= 5"),
    ("id >= 5.5", "id > 5"),
    ("id = 5.5", "false"),
    ("id = 5.0", "id = 5"),
    ("id = '5'", "id = 5"),
    ("id = '5.5'", None),  # DuckDB rounds the string to 6
    ("id = 3000000000", None),  # outside int
    ("big = 3000000000", "big = 3000000000"),
    ("amount = 10.5", "amount = 10.50"),
    ("amount < 10.555", "amount <= 10.55"),
    ("amount = CAST('10.5' AS DECIMAL(9, 2))", "amount = 10.50"),
    ("amount = CAST('10.555' AS DECIMAL(9, 2))", None),  # the cast rounds
    ("x = 0.5", "x = 0.5"),
    ("x < 0.1", "x <= 0.10000000000000002"),  # DuckDB rounds 0.1 to a double; widened
    ("x = 0.1", None),
    ("f = 0.5", "f = 0.5"),
    ("f = 0.1", None),  # float32 0.1 vs decimal 0.1: engines differ
    ("x = CAST('NaN' AS DOUBLE)", None),
    ("d = DATE '2024-01-02'", "d = '2024-01-02'"),
    ("d = '2024-01-02'", "d = '2024-01-02'"),
    ("d = '2024-01-02 10:00:00'", None),  # DuckDB truncates the string to a date
    ("d = TIMESTAMP '2024-01-02 10:00:00'", "false"),
    ("d < TIMESTAMP '2024-01-02 10:00:00'", "d <= '2024-01-02'"),
    ("d >= TIMESTAMP '2024-01-02 00:00:00'", "d >= '2024-01-02'"),
    ("ts >= TIMESTAMP '2024-01-01 00:00:00'", "ts >= '2024-01-01T00:00Z'"),
    ("ts >= '2024-01-01 02:00:00+02:00'", "ts >= '2024-01-01T00:00Z'"),
    ("ts < '2024-01-01'", "ts < '2024-01-01T00:00Z'"),
    ("ntz = TIMESTAMP '2024-01-01 10:00:00'", "ntz = '2024-01-01T10:00'"),
    ("ntz = '2024-01-01 10:00:00+02:00'", None),
    ("ts = '2024-01-01 10:00:00.1234567'", None),  # more than micros
    ("d = DATE '2024-01-02' + INTERVAL 1 DAY", None),
    ("s.inner = 5", None),  # nested fields are not pushed
    ("CAST(ts AS DATE) = DATE '2024-01-01'", None),
    # nanosecond timestamps compare at nanoseconds (icesql.sql.spark.datetimes)
    ("ns > TIMESTAMP '2024-01-01 00:00:00'", "ns > '2024-01-01T00:00'"),
    (
        "ns BETWEEN DATE '2024-01-01' AND TIMESTAMP_NTZ '2024-01-02 00:00:00.5'",
        "(ns >= '2024-01-01T00:00' AND ns <= '2024-01-02T00:00:00.500')",
    ),
    (
        "ns IN (TIMESTAMP '2024-01-01 00:00:00', '2024-01-01 00:00:00.000000001')",
        "ns IN ('2024-01-01T00:00', '2024-01-01T00:00:00.000000001')",
    ),
    ("ns = '2024-01-01 00:00:00.000000001'", "ns = '2024-01-01T00:00:00.000000001'"),
    (
        "ns = CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS)",
        "ns = '2024-01-01T00:00:00.000000001'",
    ),
    ("ns = '2024-01-01 00:00:00+01:00'", None),  # a zone on a zoneless column
    (
        "nstz < CAST('2024-01-01 00:00:00.000000001+01:00' AS TIMESTAMPTZ_NS)",
        "nstz < '2023-12-31T23:00:00.000000001Z'",
    ),
    ("nstz >= TIMESTAMP '2024-01-01 00:00:00'", "nstz >= '2024-01-01T00:00Z'"),
    ("ntz > CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS)", "ntz > '2024-01-01T00:00'"),
    ("ntz = CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS)", "false"),
    ("ntz = CAST(CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS) AS TIMESTAMP)", None),
    (
        "ntz = CAST(CAST('2024-01-01 00:00:00.000001' AS TIMESTAMP_NS) AS TIMESTAMP)",
        "ntz = '2024-01-01T00:00:00.000001'",
    ),
]


@pytest.mark.parametrize(("condition", "expected"), CASES, ids=[c[0] for c in CASES])
def test_condition(condition: str, expected: str | None) -> None:
    assert one(condition) == expected


def test_parameters() -> None:
    assert one("id = ? AND d >= ?", (7, dt.date(2024, 1, 2))) == "(id = 7 AND d >= '2024-01-02')"
    assert one("amount > ?", (Decimal("1.5"),)) == "amount > 1.50"
    assert (
        one("ts < ?", (dt.datetime(2024, 1, 1, 2, tzinfo=dt.timezone(dt.timedelta(hours=2))),))
        == "ts < '2024-01-01T00:00Z'"
    )
    assert one("name IN (?, ?)", ("a", "b")) == "name IN ('a', 'b')"


def test_joins_and_scopes() -> None:
    def both(sql: str) -> tuple[str | None, str | None]:
        p = pushed(sql, views=("a", "b"))
        return p.get("a"), p.get("b")

    base = "SELECT * FROM a JOIN b ON a.id = b.id"
    assert both(base + " AND b.d = DATE '2024-01-01' AND a.x > 1") == (
        "x > 1.0",
        "d = '2024-01-01'",
    )
    assert both(base + " WHERE a.name = 'n' AND b.id < 3 AND a.id = b.big") == (
        "name = 'n'",
        "id < 3",
    )
    left = "SELECT * FROM a LEFT JOIN b ON a.id = b.id AND b.id > 3 AND a.id < 9"
    assert both(left) == (None, "id > 3")  # never to the preserved side
    assert both(left + " WHERE a.name = 'x'") == ("name = 'x'", "id > 3")
    assert both(left + " WHERE b.name IS NULL") == (None, "id > 3")  # b is padded with nulls
    assert both(left + " WHERE b.name = 'y'") == (None, "(name = 'y' AND id > 3)")
    right = "SELECT * FROM a RIGHT JOIN b ON a.id = b.id AND b.id > 3 AND a.id < 9"
    assert both(right) == ("id < 9", None)
    full = "SELECT * FROM a FULL JOIN b ON a.id = b.id AND b.id > 3 AND a.id < 9 WHERE a.x > 1"
    assert both(full) == ("x > 1.0", None)  # a.x > 1 rejects a's padded nulls
    assert both("SELECT * FROM a LEFT SEMI JOIN b ON a.id = b.id AND b.id > 3 AND a.id < 9") == (
        None,
        "id > 3",
    )
    assert both("SELECT * FROM a LEFT ANTI JOIN b ON a.id = b.id AND b.id > 3") == (None, "id > 3")
    assert both("SELECT * FROM a, b WHERE a.id = b.id AND b.id = 1") == (None, "id = 1")
    # subqueries keep their own conditions
    assert both("SELECT * FROM a WHERE a.id IN (SELECT id FROM b WHERE b.id > 5)") == (
        None,
        "id > 5",
    )
    assert both("SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id AND b.x < 2)") == (
        None,
        "x < 2.0",
    )
    assert both("SELECT * FROM (SELECT * FROM a WHERE id = 1) q JOIN b ON q.id = b.id") == (
        "id = 1",
        None,
    )
    assert both(
        "WITH c AS (SELECT * FROM a WHERE id = 2) SELECT * FROM c, b WHERE b.id = c.id"
    ) == ("id = 2", None)
    assert both("SELECT id FROM a WHERE id = 1 UNION ALL SELECT id FROM b WHERE id = 2") == (
        "id = 1",
        "id = 2",
    )


def test_unknown_columns_or_bad_sql_push_nothing() -> None:
    assert pushed("SELECT * FROM t WHERE nope = 1") == {}
    assert pushed("SELECT * FROM t JOIN u ON t.id = u.id WHERE u.nope = 1", views=("t",)) == {}


def test_metadata_columns_do_not_stop_the_rest_from_being_pushed() -> None:
    """A row-level DELETE selects ``_file, _pos``: its condition still prunes the scan and is
    its conflict filter; conditions on the hidden columns themselves stay with DuckDB."""
    statement = parse_one(
        "SELECT _file, _pos FROM t WHERE id = 5 AND _pos > 2 AND length(name) > 0"
    )
    bound = bind_query(statement, {"t": TableSource(T)})
    assert bound.metadata_columns == ("_file", "_pos")  # the binder knows them from the text
    filters = pushed_filters(bound, ())
    assert {k: str(v) for k, v in filters.items()} == {"t": "id = 5"}
    # a column neither the schema nor the metadata columns know: nothing
    assert pushed("SELECT _file, _nope FROM t WHERE id = 5") == {}


# ---------------------------------------------------------------------------------------------
# Exact filters: what a DELETE may use to drop whole files


def _exact(condition: str, alias: str = "t", params=()):
    from icesql.sql.predicates import exact_filter

    statement = parse_one(f"SELECT 1 FROM t WHERE {condition}")
    number_parameters(statement)
    where = statement.args["where"].this
    converted = exact_filter(where, alias, T, params, DIALECT)
    return None if converted is None else str(converted)


@pytest.mark.parametrize(
    "condition, expected",
    [
        ("id = 5", "id = 5"),
        ("t.id = 5 AND name = 'x'", "(id = 5 AND name = 'x')"),
        ("NOT (id < 3 OR name IS NULL)", "(id >= 3 AND name IS NOT NULL)"),
        ("id IN (1, 2) OR name LIKE 'ab%'", "(id IN (1, 2) OR name STARTS WITH 'ab')"),
        ("id < 5.5", "id <= 5"),  # no int between 5 and 5.5: still exact
        ("id = 5.5", "false"),
        ("id IN (1, NULL)", "id = 1"),
        ("id NOT IN (1, NULL)", "false"),
        ("d = '2024-01-02'", "d = '2024-01-02'"),
        ("id = ?", "id = 7"),
    ],
)
def test_exact_filters_convert_every_part(condition, expected):
    assert _exact(condition, params=(7,)) == expected


@pytest.mark.parametrize(
    "condition",
    [
        "id + 1 = 5",  # arithmetic
        "id = 1 AND length(name) = 3",  # a dropped conjunct would widen the filter
        "id IN (SELECT id FROM u)",
        "EXISTS (SELECT 1 FROM u WHERE u.id = t.id)",
        "id = NULL",
        "name LIKE '%x'",
        "x < 0.1",  # 0.1 is not a double: binding would widen by an ulp
        "x BETWEEN 0.1 AND 1",
        "id = other",
        "nope = 1",
        "id <=> 1",
    ],
)
def test_inexact_filters_are_refused(condition):
    assert _exact(condition) is None


def test_exact_filters_follow_the_alias():
    assert _exact("a.id = 1", alias="a") == "id = 1"
    assert _exact("b.id = 1", alias="a") is None


def test_a_where_reaches_a_subquery_that_only_filters_and_renames() -> None:
    """A temporary view is such a subquery: its files are pruned by the outer WHERE."""
    view = "(SELECT id AS k, name FROM t WHERE x > 1) AS v"
    assert pushed(f"SELECT * FROM {view} WHERE v.k = 3") == {"t": "(x > 1.0 AND id = 3)"}
    nested = f"SELECT * FROM (SELECT k AS j FROM {view}) AS w WHERE j < 5"
    assert pushed(nested) == {"t": "(x > 1.0 AND id < 5)"}
    computed = "SELECT * FROM (SELECT id + 1 AS k FROM t) AS v WHERE k = 3"
    for inner in ("LIMIT 5", "GROUP BY id", "ORDER BY id LIMIT 2"):
        assert pushed(f"SELECT * FROM (SELECT id AS k FROM t {inner}) AS v WHERE k = 3") == {}
    assert pushed(computed) == {}
    outer = "SELECT * FROM a LEFT JOIN (SELECT id AS k FROM b) AS v ON a.id = v.k"
    assert pushed(outer + " WHERE v.k IS NULL", views=("a", "b")) == {}
    assert pushed(outer + " WHERE v.k = 2", views=("a", "b")) == {"b": "id = 2"}
