"""Spark's aggregates in DuckDB: percentiles, first/last ignoring NULLs, every/some/any,
population skewness and kurtosis, typeof's type names, sum and avg of decimals.

Spark's answers are those of the Spark 3.5 SQL function reference (its examples); the
moments are also computed here from their definitions.
"""

from __future__ import annotations

import datetime
import math
from decimal import ROUND_HALF_UP, Decimal

import pytest

import icesql


def _moments(values: list[float]) -> tuple[float, float]:
    """Population skewness and excess kurtosis, from the definitions."""
    n = len(values)
    mean = sum(values) / n
    m2, m3, m4 = (sum((v - mean) ** k for v in values) / n for k in (2, 3, 4))
    return m3 / m2**1.5, m4 / m2**2 - 3


@pytest.mark.parametrize(
    "query, rows",
    [
        (
            "SELECT percentile_approx(col, 0.5, 100) FROM VALUES (0), (6), (7), (9), (10) AS tab(col)",
            [(7,)],
        ),
        ("SELECT percentile_approx(id, 0.5), percentile(id, 0.5) FROM range(4)", [(1, 1.5)]),
        ("SELECT percentile(col, 0.3) FROM VALUES (0), (10) AS tab(col)", [(3.0,)]),
        ("SELECT percentile(col, 0.5, 1) FROM VALUES (0), (10) AS tab(col)", [(5.0,)]),
        ("SELECT first(col) FROM VALUES (10), (5), (20) AS tab(col)", [(10,)]),
        ("SELECT first(col, true) FROM VALUES (NULL), (5), (20) AS tab(col)", [(5,)]),
        ("SELECT last(col, true) FROM VALUES (10), (20), (NULL) AS tab(col)", [(20,)]),
        (
            "SELECT first(x, true), last(x, true) FROM VALUES (NULL), (1), (2), (NULL) AS t(x)",
            [(1, 2)],
        ),
        ("SELECT first(x, true) FROM VALUES (CAST(NULL AS INT)) AS t(x)", [(None,)]),
        ("SELECT every(col) FROM VALUES (true), (true), (true) AS tab(col)", [(True,)]),
        ("SELECT every(col) FROM VALUES (NULL), (true), (true) AS tab(col)", [(True,)]),
        ("SELECT every(col) FROM VALUES (true), (false), (true) AS tab(col)", [(False,)]),
        ("SELECT some(col) FROM VALUES (true), (false), (false) AS tab(col)", [(True,)]),
        ("SELECT any(col) FROM VALUES (NULL), (true), (false) AS tab(col)", [(True,)]),
        ("SELECT every(id > 0), some(id > 0), any(id > 5) FROM range(3)", [(False, True, False)]),
        ("SELECT skewness(id), kurtosis(id) FROM range(1)", [(None, None)]),
        ("SELECT skewness(x), kurtosis(x) FROM VALUES (2), (2), (2) AS t(x)", [(None, None)]),
        ("SELECT skewness(x) FROM VALUES (1), (5) AS t(x)", [(0.0,)]),
        (
            "SELECT typeof(1), typeof(CAST(1 AS BIGINT)), typeof(1.5), typeof(array('a'))",
            [("int", "bigint", "decimal(2,1)", "array<string>")],
        ),
        (
            "SELECT typeof(0.05), typeof(CAST(1 AS TINYINT)), typeof(map('a', 1.5D))",
            [("decimal(2,2)", "tinyint", "map<string,double>")],
        ),
        (
            "SELECT typeof(named_struct('a', 1, 'b', 'x')), typeof(DATE '2024-01-01')",
            [("struct<a:int,b:string>", "date")],
        ),
    ],
)
def test_spark_answer(duck_answer, query, rows):
    assert duck_answer(query) == rows


@pytest.mark.parametrize(
    "values", [[-10, -20, 100, 1000], [-1000, -100, 10, 20], [1, 10, 100, 10, 1]]
)
def test_skewness_and_kurtosis_are_the_population_moments(duck_answer, values):
    rows = ", ".join(f"({v})" for v in values)
    ((skewness, kurtosis),) = duck_answer(
        f"SELECT skewness(x), kurtosis(x) FROM VALUES {rows} AS t(x)"
    )
    want_skewness, want_kurtosis = _moments([float(v) for v in values])
    assert math.isclose(skewness, want_skewness, rel_tol=1e-12)
    assert math.isclose(kurtosis, want_kurtosis, rel_tol=1e-12)


def test_spark_reference_moments(duck_answer):
    # the examples of Spark's reference
    ((skewness, kurtosis),) = duck_answer(
        "SELECT skewness(col), kurtosis(col) FROM VALUES (-10), (-20), (100), (1000) AS tab(col)"
    )
    assert math.isclose(skewness, 1.1135657469022011, rel_tol=1e-12)
    assert math.isclose(kurtosis, -0.7014368047529627, rel_tol=1e-12)


def test_first_and_last_over_a_window(duck_answer):
    tables = {"t": ({"k": "INT", "x": "INT"}, [(1, None), (2, 5), (3, 7), (4, None)])}
    rows = duck_answer(
        "SELECT k, first(x) OVER (ORDER BY k), first(x, true) OVER (ORDER BY k),"
        " last(x, true) OVER (ORDER BY k) FROM t ORDER BY k",
        tables,
    )
    assert rows == [(1, None, None, None), (2, None, 5, 5), (3, None, 5, 7), (4, None, 5, 7)]


def test_typeof_of_a_column_names_its_spark_type(duck_answer):
    tables = {
        "t": (
            {"a": "ARRAY<DECIMAL(9, 2)>", "s": "SMALLINT", "m": "MAP<STRING, BIGINT>"},
            [([], 1, {})],
        )
    }
    rows = duck_answer("SELECT typeof(a), typeof(s), typeof(m) FROM t", tables)
    assert rows == [("array<decimal(9,2)>", "smallint", "map<string,bigint>")]


@pytest.mark.parametrize(
    "query, message",
    [
        ("SELECT percentile(id, 0.5, 2) FROM range(3)", "frequency"),
        ("SELECT typeof(x) FROM t", "unknown type"),  # t is not known to the binder
    ],
)
def test_refusals(spark_rules, query, message):
    with pytest.raises(icesql.NotSupportedError, match=message):
        spark_rules(query)


def test_sum_and_avg_of_a_timestamp_add_its_seconds(duck_answer):
    # Spark 3.5.8's answers: the timestamp implicitly cast to DOUBLE seconds
    tables = {
        "t": (
            {"ts": "TIMESTAMP"},
            [(datetime.datetime(2020, 1, 1, 0, 0, 0, 500000),), (datetime.datetime(2020, 1, 2),)],
        )
    }
    assert duck_answer("SELECT avg(ts), sum(ts) FROM t", tables) == [(1577880000.25, 3155760000.5)]
    assert duck_answer("SELECT avg(ts) OVER () FROM t", tables) == [(1577880000.25,)] * 2
    literal = duck_answer("SELECT sum(TIMESTAMP'2020-01-01 00:00:00')")
    assert literal == [(1577836800.0,)]


def test_sum_of_a_timestamp_ntz_is_an_error(spark_rules):
    tables = {"t": ({"ts": "TIMESTAMP_NTZ"}, [])}
    with pytest.raises(icesql.ProgrammingError, match="TIMESTAMP_NTZ"):
        spark_rules("SELECT avg(ts) FROM t", tables)


def _spark_avg(values: list[Decimal], scale: int) -> Decimal | None:
    """Spark's avg of a DECIMAL(p, s): the exact mean, rounded half up to s + 4 digits."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    return (sum(present) / len(present)).quantize(Decimal(1).scaleb(-(scale + 4)), ROUND_HALF_UP)


# ties at the fifth extra digit (1/8 = 0.125 -> 0.1250 stays; 0.00005 rounds away from zero),
# negatives, NULLs, one value, a group of only NULLs
DECIMAL_VALUES = [Decimal("1.25"), Decimal("2.50"), Decimal("3.10"), None, Decimal("-0.01")]
DECIMAL_TIES = [
    Decimal("0.01"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
    Decimal("0.00"),
]  # 0.01 / 16 = 0.000625 -> 0.000625 (exact at scale 6)


@pytest.mark.parametrize(
    "values",
    [
        DECIMAL_VALUES,
        DECIMAL_TIES,
        [-v if v is not None else None for v in DECIMAL_TIES[:8]],
        [Decimal("0.01")] * 3 + [Decimal("0.00")] * 3,
        [None, None],
    ],
)
def test_sum_and_avg_of_a_decimal_have_spark_types_and_values(duck_named_answer, values):
    tables = {"t": ({"x": "DECIMAL(10, 2)"}, [(v,) for v in values])}
    names, rows = duck_named_answer(
        "SELECT sum(x), avg(x), typeof(sum(x)), typeof(avg(x)) FROM t", tables
    )
    present = [v for v in values if v is not None]
    assert rows == [
        (sum(present) if present else None, _spark_avg(values, 2), "decimal(20,2)", "decimal(14,6)")
    ]


def test_avg_of_a_decimal_over_a_window_and_with_a_filter(duck_answer):
    # (Spark refuses FILTER on a window aggregate, so the two are tested apart)
    values = [Decimal("1.25"), Decimal("2.50"), Decimal("3.10"), None, Decimal("-0.01")]
    tables = {"t": ({"k": "INT", "x": "DECIMAL(10, 2)"}, list(enumerate(values)))}
    rows = duck_answer(
        "SELECT k, avg(x) OVER (ORDER BY k), sum(x) OVER (), avg(x) OVER () FROM t ORDER BY k",
        tables,
    )
    assert rows == [
        (
            k,
            _spark_avg(values[: k + 1], 2),
            sum(v for v in values if v is not None),
            _spark_avg(values, 2),
        )
        for k in range(len(values))
    ]
    assert duck_answer(
        "SELECT avg(x) FILTER (WHERE x > 2), sum(x) FILTER (WHERE x < 0) FROM t", tables
    ) == [(_spark_avg([Decimal("2.50"), Decimal("3.10")], 2), Decimal("-0.01"))]


def test_sum_of_a_decimal_is_bounded_at_38_digits(duck_answer):
    # DECIMAL(28, 0) sums to DECIMAL(38, 0) (p + 10), not DECIMAL(38, 0) by DuckDB's rule alone:
    # check the bound with a sum that needs 29 digits
    nines = Decimal("9" * 28)
    tables = {"t": ({"x": "DECIMAL(28, 0)"}, [(nines,), (nines,)])}
    twice = Decimal("1" + "9" * 27 + "8")  # (Python's default context would round 2 * nines)
    assert duck_answer("SELECT sum(x), typeof(sum(x)) FROM t", tables) == [(twice, "decimal(38,0)")]
    small = {"t": ({"x": "DECIMAL(3, 1)"}, [(Decimal("99.9"),), (Decimal("99.9"),)])}
    assert duck_answer("SELECT sum(x), typeof(sum(x)), typeof(avg(x)) FROM t", small) == [
        (Decimal("199.8"), "decimal(13,1)", "decimal(7,5)")
    ]
