"""Grouping sets as Spark resolves them: one grouping expression for ``a + b`` and ``b + a``,
positions in the select list, ``WITH ROLLUP`` / ``WITH CUBE``.

Every expected row is Spark 3.5.8's answer to the same query.
"""

from __future__ import annotations

import pytest

import icesql
from icesql.sql.dialect import parse_one
from icesql.sql.grouping_sets import canonical_key

_PAIRS = "FROM VALUES (1, 1), (1, 2), (2, 1) AS t(a, b)"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    with icesql.connect(str(tmp_path_factory.mktemp("wh"))) as connection:
        yield connection


@pytest.mark.parametrize(
    "query, rows",
    [
        (
            "SELECT a + b, b, sum(c) FROM VALUES (1, 1, 1), (2, 2, 2) AS t(a, b, c)"
            " GROUP BY GROUPING SETS ((a + b), (b + a), (b)) ORDER BY 1, 2, 3",
            [(None, 1, 1), (None, 2, 2), (2, None, 1), (2, None, 1), (4, None, 2), (4, None, 2)],
        ),
        (
            f"SELECT a, b, count(1) {_PAIRS} GROUP BY GROUPING SETS ((1), (b), (a, 2))"
            " ORDER BY 1, 2, 3",
            [
                (None, 1, 2),
                (None, 2, 1),
                (1, None, 2),
                (1, 1, 1),
                (1, 2, 1),
                (2, None, 1),
                (2, 1, 1),
            ],
        ),
        (
            f"SELECT a, b, count(1) {_PAIRS} GROUP BY a, b WITH ROLLUP ORDER BY 1, 2",
            [(None, None, 3), (1, None, 2), (1, 1, 1), (1, 2, 1), (2, None, 1), (2, 1, 1)],
        ),
        (
            "SELECT a > b, count(1) FROM VALUES (1, 1), (2, 1) AS t(a, b)"
            " GROUP BY GROUPING SETS ((a > b), (b < a)) ORDER BY 1",
            [(False, 1), (False, 1), (True, 1), (True, 1)],
        ),
    ],
)
def test_spark_answer(con, query, rows):
    assert [tuple(r) for r in con.execute(query).fetchall()] == rows


def test_a_position_of_an_aggregate_is_an_error(con):
    # Spark: GROUP_BY_POS_AGGREGATE
    with pytest.raises(icesql.ProgrammingError, match="aggregate"):
        con.execute("SELECT a, count(1) FROM VALUES (1, 1) AS t(a, b) GROUP BY GROUPING SETS ((2))")


@pytest.mark.parametrize(
    "left, right, same",
    [
        ("a + b", "(b + a)", True),
        ("a * (b * c)", "c * b * a", True),
        ("A = b", "b = a", True),
        ("a > b", "b < a", True),
        ("a - b", "b - a", False),
        ("a + b", "a + c", False),
    ],
)
def test_canonical_key(left, right, same):
    assert (canonical_key(parse_one(left)) == canonical_key(parse_one(right))) is same
