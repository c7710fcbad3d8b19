"""``x IN (subquery)`` with a NULL ``x``: NULL for a NULL literal (by default) and in a join's
ON condition, false where Spark rewrites the test into a join.

Every expected row is Spark 3.5.8's answer to the same query (``v_empty`` an empty view).
"""

from __future__ import annotations

import pytest

import icesql

_EMPTY = "(SELECT e FROM VALUES (1) AS z(e) WHERE false)"
_JOIN = (
    "SELECT * FROM VALUES (1), (NULL) AS v(c) LEFT JOIN VALUES (2) AS t2(d)"
    f" ON (v.c {{}} {_EMPTY}) IS NULL"
)


@pytest.fixture
def con(tmp_path):
    with icesql.connect(str(tmp_path)) as connection:
        yield connection


def _rows(con, query):
    return sorted((tuple(r) for r in con.execute(query).fetchall()), key=repr)


def test_in_a_join_condition_a_null_is_unknown(con):
    for test in ("IN", "NOT IN"):
        assert _rows(con, _JOIN.format(test)) == [(1, None), (None, 2)]


def test_in_a_join_condition_without_the_legacy_behaviour_is_refused(con):
    # Spark answers (NULL, NULL) here, but (NULL, 2) where the subquery reads an empty table
    con.execute("SET spark.sql.legacy.nullInEmptyListBehavior = false")
    with pytest.raises(icesql.NotSupportedError, match="ON condition"):
        con.execute(_JOIN.format("IN"))


def test_a_null_column_is_not_in_an_empty_subquery(con):
    rows = _rows(con, f"SELECT c, c IN {_EMPTY}, c NOT IN {_EMPTY} FROM VALUES (1), (NULL) AS v(c)")
    assert rows == [(1, False, True), (None, False, True)]


def test_a_null_literal_folds_to_null_by_default(con):
    query = f"SELECT NULL IN {_EMPTY}, NULL NOT IN {_EMPTY}"
    assert _rows(con, query) == [(None, None)]
    con.execute("SET spark.sql.legacy.nullInEmptyListBehavior = false")
    assert _rows(con, query) == [(False, True)]
