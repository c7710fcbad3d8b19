"""Queries of no table fetched by DuckDB as tuples (``icesql.engine.tuple_rows``) give what the Arrow
path gives: the same rows, Python values and description, whichever way they are read."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from decimal import Decimal

import duckdb
import pyarrow as pa
import pytest

import icesql
from icesql.engine import tuple_rows
from icesql.errors import DataError

PLAIN = (
    "SELECT true AS a, CAST(1 AS TINYINT) AS b, CAST(1 AS SMALLINT) AS c, 1 AS d, 1L AS e,"
    " CAST(1.5 AS FLOAT) AS f, 1.5D AS g, 'x' AS h, CAST('x' AS BINARY) AS i,"
    " DATE '2020-01-01' AS j, CAST(1.5 AS DECIMAL(10, 2)) AS k,"
    " TIMESTAMP_NTZ '2020-01-01 10:00:00.123456' AS l, NULL AS m,"
    " CAST(1 AS DECIMAL(38, 0)) AS n, CAST('NaN' AS DOUBLE) AS o"
)
NOT_PLAIN = (
    "SELECT TIMESTAMP '2020-01-01 10:00:00' AS ts, map(1, 2) AS m, array(1) AS a,"
    " named_struct('x', 1) AS s"
)


@pytest.fixture
def con(tmp_path) -> Iterator[icesql.Connection]:
    connection = icesql.connect(str(tmp_path))
    yield connection
    connection.close()


def _through_arrow(con: icesql.Connection, sql: str) -> tuple[list, list]:
    """The description and rows of ``sql`` read through Arrow: with a progress listener the
    engine hands every query's rows over as an Arrow stream."""
    stop = con.add_progress_listener(lambda progress: None)
    try:
        cur = con.execute(sql)
        return cur.description, cur.fetchall()
    finally:
        stop()


def _rows(values: list) -> list:
    return [tuple("nan" if v != v else v for v in row) for row in values]  # NaN != NaN


@pytest.mark.parametrize("sql", [PLAIN, NOT_PLAIN, "SELECT id, id * 2 FROM range(3000) t(id)"])
def test_tuples_match_the_arrow_path(con: icesql.Connection, sql: str) -> None:
    cur = con.execute(sql)
    native = cur._result.duck_rows is not None
    assert native == (sql != NOT_PLAIN)
    description, rows = _through_arrow(con, sql)
    assert cur.description == description
    fetched = cur.fetchall()
    assert _rows(fetched) == _rows(rows)
    assert [type(v) for v in fetched[0]] == [type(v) for v in rows[0]]


def test_the_plain_types_and_their_values(con: icesql.Connection) -> None:
    cur = con.execute(PLAIN)
    assert [d[1] for d in cur.description] == [
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "STRING",
        "BINARY",
        "DATE",
        "DECIMAL(10,2)",
        "TIMESTAMP_NTZ",
        "VOID",
        "DECIMAL(38,0)",
        "DOUBLE",
    ]
    assert cur.description[10][4:6] == (10, 2)
    row = cur.fetchone()
    assert row[:12] == (
        True,
        1,
        1,
        1,
        1,
        1.5,
        1.5,
        "x",
        b"x",
        datetime.date(2020, 1, 1),
        Decimal("1.50"),
        datetime.datetime(2020, 1, 1, 10, 0, 0, 123456),
    )
    assert row[12] is None and row[13] == Decimal("1") and row[14] != row[14]
    assert cur.fetchone() is None


def test_rows_fetched_then_the_rest_as_arrow(con: icesql.Connection) -> None:
    """One DuckDB result read on: tuples first, then the rest as an Arrow table."""
    cur = con.execute("SELECT id FROM range(5000) t(id)")
    assert cur._result.duck_rows is not None
    assert cur.fetchmany(0) == [] and cur.fetchmany(-1) == []
    assert cur.fetchmany(3) == [(0,), (1,), (2,)]
    rest = cur.fetch_arrow_table()
    assert rest.num_rows == 4997 and rest.column(0)[0].as_py() == 3
    assert rest.schema == pa.schema([pa.field("id", pa.int64())])


def test_arrow_first(con: icesql.Connection) -> None:
    table = con.execute("SELECT 1 AS one, 'a' AS s").fetch_arrow_table()
    assert table.to_pylist() == [{"one": 1, "s": "a"}]
    assert con.execute("SELECT 1 AS one").df().to_dict("list") == {"one": [1]}


def test_an_overflow_before_the_first_rows_reruns_with_wrapping(con: icesql.Connection) -> None:
    """Spark wraps integer overflow around: DuckDB refuses, and the query runs again with
    wrapping arithmetic, whether the overflow comes at execute or at the first fetch."""
    assert con.execute("SELECT 2147483647 + 1 AS x").fetchall() == [(-2147483648,)]
    cur = con.execute("SELECT CAST(id AS INT) + 2147483647 AS x FROM range(1, 3) t(id)")
    assert cur._result.duck_rows is not None
    assert cur.fetchall() == [(-2147483648,), (-2147483647,)]
    cur = con.execute("SELECT CAST(id AS INT) + 2147483647 AS x FROM range(1, 3) t(id)")
    assert cur.fetch_arrow_table().column(0).to_pylist() == [-2147483648, -2147483647]


class _Cursor:
    """A DuckDB result that fails on its second fetch with ``error``."""

    description = duckdb.connect().execute("SELECT 1 AS x").description

    def __init__(self, error: Exception):
        self.error = error
        self.fetches = 0

    def fetchmany(self, n: int) -> list[tuple]:
        self.fetches += 1
        if self.fetches > 1:
            raise self.error
        return [(1,)]


def test_an_overflow_after_rows_were_returned_is_an_error() -> None:
    """Rows were delivered: a rerun would deliver them twice, so a later overflow is an
    error naming Spark's rule and what to do (as the Arrow path's ``_wrapping_stream``)."""
    reruns = []
    cursor = _Cursor(duckdb.OutOfRangeException("Overflow in addition of INT32 (1 + 2147483647)!"))
    description = tuple_rows.plain_description(cursor.description)
    rows = tuple_rows.DuckRows(cursor, description, lambda: reruns.append(1), lambda r: r, 8)
    assert rows.fetch(1) == [(1,)]
    with pytest.raises(DataError, match="wraps integer overflow around"):
        rows.fetch(1)
    assert reruns == []


def test_errors_are_translated() -> None:
    cursor = _Cursor(duckdb.InvalidInputException("Invalid Input Error: Assertion failed"))
    description = tuple_rows.plain_description(cursor.description)
    rows = tuple_rows.DuckRows(cursor, description, lambda: None, lambda r: r, 8)
    rows.fetch(1)
    with pytest.raises(DataError, match="Assertion failed"):
        rows.fetch(1)


def test_a_runtime_error_of_a_query(con: icesql.Connection) -> None:
    with pytest.raises(DataError, match="Assertion failed"):
        con.execute("SELECT assert_true(id < 1) AS x FROM range(3) t(id)").fetchall()


def test_a_table_query_reads_through_arrow(con: icesql.Connection) -> None:
    """Rows of a table scan stay on the Arrow stream (its scans, deletes and progress)."""
    con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    cur = con.execute("SELECT id FROM db.t")
    assert cur._result.duck_rows is None and cur.fetchall() == [(1,)]
