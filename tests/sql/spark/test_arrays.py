"""Spark's array and map functions in DuckDB: NULL elements kept in order, three-valued
answers where an array holds NULL, -1 for size(NULL), sequences that count down.

Spark's answers are those of the Spark 3.5 SQL function reference (its examples) and of the
queries checked against Spark in ``tests/interop/test_sql_compat.py``.
"""

from __future__ import annotations

import datetime

import pytest

import icesql


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("size(array('b', 'd', 'c', 'a'))", 4),
        ("size(map('a', 1, 'b', 2))", 2),
        ("size(array())", 0),
        ("size(CAST(NULL AS ARRAY<INT>))", -1),
        ("size(array(1, 2, 3))", 3),
        ("cardinality(array('b', 'd', 'c', 'a'))", 4),
        ("cardinality(CAST(NULL AS MAP<STRING, INT>))", -1),
        ("array_size(array('b', 'd', 'c', 'a'))", 4),
        ("array_size(CAST(NULL AS ARRAY<INT>))", None),
        ("array_contains(array(1, 2, 3), 2)", True),
        ("array_contains(array(1, NULL), 1)", True),
        ("array_contains(array(1, NULL), 2)", None),
        ("array_contains(array(1, 3), 2)", False),
        ("array_contains(array(1, 3), NULL)", None),
        ("array_distinct(array(1, 2, 3, NULL, 3))", [1, 2, 3, None]),
        ("array_distinct(array(2, NULL, 2, 1, NULL))", [2, None, 1]),
        ("array_except(array(1, 2, 3), array(1, 3, 5))", [2]),
        ("array_except(array(1, NULL, 2), array(2))", [1, None]),
        ("array_except(array(1, NULL), array(NULL))", [1]),
        ("array_except(array(1), CAST(NULL AS ARRAY<INT>))", None),
        ("array_intersect(array(1, 2, 3), array(1, 3, 5))", [1, 3]),
        ("array_intersect(array(3, NULL, 3), array(NULL, 3))", [3, None]),
        ("array_union(array(1, 2, 3), array(1, 3, 5))", [1, 2, 3, 5]),
        ("array_union(array(1, 2), array(3, 1))", [1, 2, 3]),
        ("array_union(array(NULL), array(NULL, 1))", [None, 1]),
        ("array_union(array(1), CAST(NULL AS ARRAY<INT>))", None),
        ("array_join(array('hello', 'world'), ' ')", "hello world"),
        ("array_join(array('hello', NULL, 'world'), ' ')", "hello world"),
        ("array_join(array('hello', NULL, 'world'), ' ', ',')", "hello , world"),
        ("array_join(array('a', NULL, 'b'), ',')", "a,b"),
        ("array_join(array(CAST(NULL AS STRING)), ',')", ""),
        ("array_position(array(3, 2, 1), 1)", 3),
        ("array_position(array(1, 2), 3)", 0),
        ("array_position(array(1, 2), NULL)", None),
        ("array_remove(array(1, 2, 3, NULL, 3), 3)", [1, 2, None]),
        ("array_remove(array(1, NULL, 2), 2)", [1, None]),
        ("array_remove(array(1, 2), NULL)", None),
        ("array_repeat('123', 2)", ["123", "123"]),
        ("array_repeat('x', 2)", ["x", "x"]),
        ("array_repeat('x', -1)", []),
        ("array_repeat('x', NULL)", None),
        (
            "arrays_zip(array(1, 2, 3), array(2, 3, 4))",
            [{"0": 1, "1": 2}, {"0": 2, "1": 3}, {"0": 3, "1": 4}],
        ),
        ("arrays_zip(array(1, 2), array('a'))", [{"0": 1, "1": "a"}, {"0": 2, "1": None}]),
        ("arrays_zip(array(1), CAST(NULL AS ARRAY<INT>))", None),
        ("flatten(array(array(1, 2), array(3, 4)))", [1, 2, 3, 4]),
        ("flatten(array(array(1), NULL))", None),
        ("map_contains_key(map(1, 'a', 2, 'b'), 1)", True),
        ("map_contains_key(map(1, 'a', 2, 'b'), 3)", False),
        ("map_contains_key(map(1, 'a'), NULL)", None),
        ("map_concat(map(1, 'a', 2, 'b'), map(3, 'c'))", {1: "a", 2: "b", 3: "c"}),
        ("map_concat(map(1, 'a'), CAST(NULL AS MAP<INT, STRING>))", None),
        ("sequence(1, 5)", [1, 2, 3, 4, 5]),
        ("sequence(5, 1)", [5, 4, 3, 2, 1]),
        ("sequence(3, 1)", [3, 2, 1]),
        ("sequence(1, 5, 2)", [1, 3, 5]),
        (
            "sequence(DATE '2024-02-28', DATE '2024-03-01')",
            [datetime.date(2024, 2, 28), datetime.date(2024, 2, 29), datetime.date(2024, 3, 1)],
        ),
        (
            "sequence(DATE '2024-01-02', DATE '2024-01-01')",
            [datetime.date(2024, 1, 2), datetime.date(2024, 1, 1)],
        ),
        ("get(array(1, 2, 3), 0)", 1),
        ("get(array(1, 2, 3), 3)", None),
        ("get(array(1, 2, 3), -1)", None),
        ("get(array(1, 2), -1)", None),
        ("exists(array(1, 2, 3), x -> x % 2 == 0)", True),
        ("exists(array(1, NULL, 3), x -> x % 2 == 0)", None),
        ("exists(array(0, NULL, 2, 3, NULL), x -> x IS NULL)", True),
        ("exists(array(1, 3), x -> x % 2 == 0)", False),
        ("exists(array(1, NULL), x -> x > 1)", None),
        ("exists(CAST(NULL AS ARRAY<INT>), x -> x > 1)", None),
        ("forall(array(1, 2, 3), x -> x % 2 == 0)", False),
        ("forall(array(2, 4, 8), x -> x % 2 == 0)", True),
        ("forall(array(2, NULL, 8), x -> x % 2 == 0)", None),
        ("forall(array(1, NULL), x -> x % 2 == 0)", False),
        ("forall(array(1, 2), x -> x > 0)", True),
        # a lambda's index counts from 0 (Spark 3.5.8's answers)
        ("transform(array(10, 20), (x, i) -> x + i)", [10, 21]),
        ("filter(array(0, 2, 3), (x, i) -> x > i)", [2, 3]),
        (
            "transform(array(array(1, 2)), (y, i) -> transform(y, (z, j) -> z * 10 + i * 100 + j))",
            [[10, 21]],
        ),
        ("transform(array(5), (y, i) -> transform(array(7), i -> i))", [[7]]),
    ],
)
def test_spark_answer(duck_answer, expr, spark_answer):
    assert duck_answer(f"SELECT {expr}") == [(spark_answer,)]


def test_size_of_a_map_column_counts_its_entries(duck_answer):
    # which size (list or map) the rule writes depends on the column's type from the binder
    tables = {
        "t": ({"m": "MAP<STRING, INT>", "a": "ARRAY<INT>"}, [({"a": 1, "b": 2}, [1]), (None, None)])
    }
    rows = duck_answer("SELECT size(m), size(a), cardinality(m) FROM t", tables)
    assert sorted(rows) == [(-1, -1, -1), (2, 1, 2)]


def test_arrays_zip_names_fields_after_the_array_columns(duck_answer):
    tables = {"t": ({"a": "ARRAY<INT>", "b": "ARRAY<STRING>"}, [([1, 2], ["x"])])}
    rows = duck_answer("SELECT arrays_zip(a, b) FROM t", tables)
    assert rows == [([{"a": 1, "b": "x"}, {"a": 2, "b": None}],)]


def test_arrays_zip_of_arrays_with_one_name_is_refused(duck_answer):
    tables = {"t": ({"a": "ARRAY<INT>"}, [])}
    with pytest.raises(icesql.NotSupportedError, match="same name"):
        duck_answer("SELECT arrays_zip(a, a) FROM t", tables)
