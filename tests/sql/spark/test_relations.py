"""Spark's table-valued range() and generators (explode, posexplode, inline, their _outer
forms, LATERAL VIEW) in DuckDB, with Spark's column names and rows.

Spark's answers are those of the Spark 3.5 SQL reference (range, LATERAL VIEW, the
generator functions' examples).
"""

from __future__ import annotations

import pytest

import icesql


@pytest.mark.parametrize(
    "query, names, rows",
    [
        ("SELECT * FROM range(3)", ["id"], [(0,), (1,), (2,)]),
        ("SELECT id FROM range(1, 3)", ["id"], [(1,), (2,)]),
        ("SELECT * FROM range(1, 10, 4, 2)", ["id"], [(1,), (5,), (9,)]),
        ("SELECT * FROM range(5, 0, -2)", ["id"], [(1,), (3,), (5,)]),
        ("SELECT x FROM range(2) AS t(x)", ["x"], [(0,), (1,)]),
        ("SELECT t.id FROM range(2) t", ["id"], [(0,), (1,)]),
        ("SELECT * FROM range(2.5)", ["id"], [(0,), (1,)]),
        ("SELECT * FROM range(-1.5, 1)", ["id"], [(-1,), (0,)]),
        ("SELECT * FROM range(0)", ["id"], []),
    ],
)
def test_range_table_has_sparks_id_column(duck_named_answer, query, names, rows):
    got_names, got_rows = duck_named_answer(query)
    assert got_names == names
    assert sorted(got_rows) == rows


@pytest.mark.parametrize(
    "query, message",
    [
        ("SELECT * FROM range(1, 5, 1, 0)", "positive number of partitions"),
        ("SELECT * FROM range(NULL)", "NULL"),
    ],
)
def test_range_table_refuses_what_spark_refuses(spark_rules, query, message):
    with pytest.raises(icesql.ProgrammingError, match=message):
        spark_rules(query)


@pytest.mark.parametrize(
    "query, names, rows",
    [
        ("SELECT explode(array(10, 20))", ["col"], [(10,), (20,)]),
        ("SELECT explode(array(10, 20)) AS v", ["v"], [(10,), (20,)]),
        ("SELECT explode(map('a', 1, 'b', 2))", ["key", "value"], [("a", 1), ("b", 2)]),
        ("SELECT explode_outer(array())", ["col"], [(None,)]),
        ("SELECT explode_outer(CAST(NULL AS ARRAY<INT>))", ["col"], [(None,)]),
        ("SELECT explode(array())", ["col"], []),
        ("SELECT posexplode(array(10, 20))", ["pos", "col"], [(0, 10), (1, 20)]),
        (
            "SELECT inline(array(struct(1, 'a'), struct(2, 'b')))",
            ["col1", "col2"],
            [(1, "a"), (2, "b")],
        ),
        ("SELECT inline_outer(CAST(NULL AS ARRAY<STRUCT<a: INT>>))", ["a"], [(None,)]),
    ],
)
def test_generators_in_a_select_list(duck_named_answer, query, names, rows):
    got_names, got_rows = duck_named_answer(query)
    assert (got_names, sorted(got_rows, key=repr)) == (names, sorted(rows, key=repr))


@pytest.mark.parametrize(
    "query, rows",
    [
        (
            "SELECT id, x FROM range(3) LATERAL VIEW OUTER explode(CASE WHEN id > 0 THEN"
            " sequence(1, id) END) e AS x ORDER BY id, x",
            [(0, None), (1, 1), (2, 1), (2, 2)],
        ),
        (
            "SELECT id, x FROM range(3) LATERAL VIEW explode(CASE WHEN id > 0 THEN"
            " sequence(1, id) END) e AS x ORDER BY id, x",
            [(1, 1), (2, 1), (2, 2)],
        ),
        ("SELECT k, v FROM range(1) LATERAL VIEW explode(map('a', 1)) e AS k, v", [("a", 1)]),
        (
            "SELECT id, p, c FROM range(1) LATERAL VIEW posexplode(array('x', 'y')) e AS p, c"
            " ORDER BY p",
            [(0, 0, "x"), (0, 1, "y")],
        ),
        ("SELECT id, e.col FROM range(1) LATERAL VIEW explode(array(7)) e", [(0, 7)]),
        (
            "SELECT a, b FROM range(1) LATERAL VIEW inline(array(struct(1, 'q'))) e AS a, b",
            [(1, "q")],
        ),
    ],
)
def test_lateral_views(duck_answer, query, rows):
    assert duck_answer(query) == rows


def test_posexplode_outer_in_a_select_list_is_refused(spark_rules):
    with pytest.raises(icesql.NotSupportedError, match="posexplode_outer"):
        spark_rules("SELECT posexplode_outer(array(1))")


@pytest.mark.parametrize(
    "query, rows",
    [
        # Spark 3.5.8: a CROSS JOIN with a condition is the inner join on it
        (
            "SELECT * FROM VALUES (1, 2), (2, 3) a(k, v) CROSS JOIN VALUES (1, 5) b(k, w)"
            " ON (a.k = b.k)",
            [(1, 2, 1, 5)],
        ),
        (
            "SELECT * FROM VALUES (1, 2), (2, 3) a(k, v) CROSS JOIN VALUES (1, 5) b(k, w)"
            " USING (k)",
            [(1, 2, 5)],
        ),
        ("SELECT count(*) FROM VALUES (1), (2) a(k) CROSS JOIN VALUES (1) b(k)", [(2,)]),
    ],
)
def test_cross_join_with_a_condition(duck_answer, query, rows):
    assert duck_answer(query) == rows
