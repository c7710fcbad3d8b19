"""Metadata columns on the SQL side (``icesql.sql.hidden_columns``): which ones a query names,
and stars that leave them out. The rewritten SQL runs in DuckDB over tables shaped as the scans
(data columns, then the metadata columns); the columns it returns are the ones Spark returns."""

from __future__ import annotations

import duckdb
import pytest
import sqlglot

from icesql.spec.reserved import SCAN_COLUMN_NAMES
from icesql.sql.hidden_columns import (
    SPARK_TYPES,
    hide_metadata_columns,
    referenced_metadata_columns,
)


def _spark(sql: str):
    return sqlglot.parse_one(sql, read="spark")


@pytest.mark.parametrize(
    ("sql", "names"),
    [
        ("SELECT a FROM v", []),
        ("SELECT _FILE, v._pos, _file FROM v", ["_file", "_pos"]),  # lower-cased, first mention
        ("SELECT a FROM v WHERE _spec_id = 0 ORDER BY _row_id", ["_spec_id", "_row_id"]),
        ("SELECT '_file', a AS _deleted FROM v", []),  # a string and an alias are no columns
        (
            "SELECT _partition._x, _last_updated_sequence_number FROM v",
            ["_last_updated_sequence_number"],
        ),  # `_partition._x` is column _x of table _partition
        ("SELECT _pos FROM (SELECT _file FROM v)", ["_pos", "_file"]),
    ],
)
def test_referenced_metadata_columns(sql, names):
    assert referenced_metadata_columns(_spark(sql)) == names


def test_every_metadata_column_but_partition_has_a_spark_type():
    assert set(SPARK_TYPES) == SCAN_COLUMN_NAMES - {"_partition"}


@pytest.fixture
def duck():
    con = duckdb.connect()
    con.execute("CREATE TABLE v AS SELECT 1 AS a, 'f' AS _file, 7::BIGINT AS _pos")
    con.execute("CREATE TABLE w AS SELECT 1 AS a, 'mine' AS _file")  # data `_file`, no metadata
    con.execute("CREATE TABLE u AS SELECT 1 AS a, 2 AS b, 5::BIGINT AS _pos")
    yield con
    con.close()


VIEWS = {"v": ("_file", "_pos"), "U": ("_pos",)}  # view names match case-insensitively


@pytest.mark.parametrize(
    ("sql", "columns"),
    [
        ("SELECT * FROM v", ["a"]),
        ("SELECT *, _pos FROM v", ["a", "_pos"]),
        ("SELECT v.*, _file FROM v", ["a", "_file"]),
        ("SELECT * FROM V", ["a"]),
        ("SELECT * FROM v AS x", ["a"]),
        ("SELECT * FROM (SELECT * FROM v)", ["a"]),  # the inner star hides them
        ("SELECT *, 0 AS b FROM v UNION ALL SELECT * FROM u", ["a", "b"]),
        # joins: each star hides its own source's columns
        ("SELECT * FROM v JOIN u ON v.a = u.a", ["a", "a", "b"]),
        ("SELECT u.* FROM v JOIN u ON v.a = u.a", ["a", "b"]),
        ("SELECT x.*, y.* FROM v x JOIN u y ON x.a = y.a", ["a", "a", "b"]),
        ("SELECT *, x._pos FROM v x JOIN v y ON x.a = y.a", ["a", "a", "_pos"]),
        # a table without metadata columns keeps all of its own, a data `_file` included
        ("SELECT w.* FROM v JOIN w ON v.a = w.a", ["a", "_file"]),
        ("SELECT *, v._file FROM v JOIN w ON v.a = w.a", ["a", "a", "_file", "_file"]),
    ],
)
def test_stars_leave_out_metadata_columns_as_spark_does(duck, sql, columns):
    rewritten = hide_metadata_columns(_spark(sql), VIEWS).sql("duckdb")
    assert [d[0] for d in duck.execute(rewritten).description] == columns, rewritten


def test_the_values_behind_a_hidden_star_are_the_right_ones(duck):
    sql = "SELECT *, v._file FROM v JOIN w ON v.a = w.a"
    rewritten = hide_metadata_columns(_spark(sql), VIEWS).sql("duckdb")
    assert duck.execute(rewritten).fetchall() == [(1, 1, "mine", "f")]


@pytest.mark.parametrize(
    ("sql", "views"),
    [
        ("SELECT * FROM v", {}),  # no views with metadata columns: nothing to hide
        ("SELECT * FROM v JOIN (SELECT 1 AS a) s ON v.a = s.a", VIEWS),  # a subquery source
        ("SELECT * FROM w", VIEWS),  # not a view with metadata columns
    ],
)
def test_statements_left_unchanged(sql, views):
    assert hide_metadata_columns(_spark(sql), views).sql("duckdb") == _spark(sql).sql("duckdb")


def test_the_rewrite_is_in_place():
    statement = _spark("SELECT * FROM v")
    assert hide_metadata_columns(statement, VIEWS) is statement
    assert statement.sql("duckdb") == "SELECT * EXCLUDE (_file, _pos) FROM v"
