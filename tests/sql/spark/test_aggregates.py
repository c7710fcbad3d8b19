"""Spark's aggregates in DuckDB: percentiles, first/last ignoring NULLs, every/some/any,
population skewness and kurtosis, typeof's type names.

Spark's answers are those of the Spark 3.5 SQL function reference (its examples); the
moments are also computed here from their definitions.
"""

from __future__ import annotations

import math

import pytest

import icesql


def _moments(values: list[float]) -> tuple[float, float]:
    """Population skewness and excess kurtosis, from the definitions."""
    n = len(values)
    mean = sum(values) / n
    m2, m3, m4 = (sum((v - mean) ** k for v in values) / n for k in (2, 3, 4))
    return m3 / m2 ** 1.5, m4 / m2 ** 2 - 3


@pytest.mark.parametrize(
    "query, rows",
    [
        ("SELECT percentile_approx(col, 0.5, 100) FROM VALUES (0), (6), (7), (9), (10) AS tab(col)",
         [(7,)]),
        ("SELECT percentile_approx(id, 0.5), percentile(id, 0.5) FROM range(4)", [(1, 1.5)]),
        ("SELECT percentile(col, 0.3) FROM VALUES (0), (10) AS tab(col)", [(3.0,)]),
        ("SELECT percentile(col, 0.5, 1) FROM VALUES (0), (10) AS tab(col)", [(5.0,)]),
        ("SELECT first(col) FROM VALUES (10), (5), (20) AS tab(col)", [(10,)]),
        ("SELECT first(col, true) FROM VALUES (NULL), (5), (20) AS tab(col)", [(5,)]),
        ("SELECT last(col, true) FROM VALUES (10), (20), (NULL) AS tab(col)", [(20,)]),
        ("SELECT first(x, true), last(x, true) FROM VALUES (NULL), (1), (2), (NULL) AS t(x)",
         [(1, 2)]),
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
        ("SELECT typeof(1), typeof(CAST(1 AS BIGINT)), typeof(1.5), typeof(array('a'))",
         [("int", "bigint", "decimal(2,1)", "array<string>")]),
        ("SELECT typeof(0.05), typeof(CAST(1 AS TINYINT)), typeof(map('a', 1.5D))",
         [("decimal(2,2)", "tinyint", "map<string,double>")]),
        ("SELECT typeof(named_struct('a', 1, 'b', 'x')), typeof(DATE '2024-01-01')",
         [("struct<a:int,b:string>", "date")]),
    ],
)
def test_spark_answer(duck_answer, query, rows):
    assert duck_answer(query) == rows


@pytest.mark.parametrize("values", [[-10, -20, 100, 1000], [-1000, -100, 10, 20], [1, 10, 100, 10, 1]])
def test_skewness_and_kurtosis_are_the_population_moments(duck_answer, values):
    rows = ", ".join(f"({v})" for v in values)
    ((skewness, kurtosis),) = duck_answer(f"SELECT skewness(x), kurtosis(x) FROM VALUES {rows} AS t(x)")
    want_skewness, want_kurtosis = _moments([float(v) for v in values])
    assert math.isclose(skewness, want_skewness, rel_tol=1e-12)
    assert math.isclose(kurtosis, want_kurtosis, rel_tol=1e-12)


def test_spark_reference_moments(duck_answer):
    # the examples of Spark's reference
    ((skewness, kurtosis),) = duck_answer(
        "SELECT skewness(col), kurtosis(col) FROM VALUES (-10), (-20), (100), (1000) AS tab(col)")
    assert math.isclose(skewness, 1.1135657469022011, rel_tol=1e-12)
    assert math.isclose(kurtosis, -0.7014368047529627, rel_tol=1e-12)


def test_first_and_last_over_a_window(duck_answer):
    tables = {"t": ({"k": "INT", "x": "INT"}, [(1, None), (2, 5), (3, 7), (4, None)])}
    rows = duck_answer(
        "SELECT k, first(x) OVER (ORDER BY k), first(x, true) OVER (ORDER BY k),"
        " last(x, true) OVER (ORDER BY k) FROM t ORDER BY k", tables)
    assert rows == [(1, None, None, None), (2, None, 5, 5), (3, None, 5, 7), (4, None, 5, 7)]


def test_typeof_of_a_column_names_its_spark_type(duck_answer):
    tables = {"t": ({"a": "ARRAY<DECIMAL(9, 2)>", "s": "SMALLINT", "m": "MAP<STRING, BIGINT>"},
                    [([], 1, {})])}
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
