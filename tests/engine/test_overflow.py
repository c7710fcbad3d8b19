"""The overflow rerun: a query DuckDB refuses with an integer overflow runs again with
Spark's wrapping arithmetic over the same reads, before any row was delivered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import icesql
from icesql.engine import overflow, pipeline, run, to_duckdb
from icesql.errors import DataError
from icesql.sql.dialect import parse

MAX_INT = 2147483647


@pytest.fixture
def con(tmp_path) -> Iterator[icesql.Connection]:
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE TABLE t (id INT)")
    connection.execute(f"INSERT INTO t VALUES (1), ({MAX_INT})")
    yield connection
    connection.close()


def test_the_wrapping_translation_reads_the_same_sources(con):
    engine = con._engine
    planned = pipeline.plan_query(engine, parse("SELECT id + 1 AS n FROM t")[0], ())
    translated = to_duckdb.to_duckdb(engine, planned, ())
    wrapped = overflow.wrapping(translated)
    assert wrapped.sources == translated.sources and wrapped.views == translated.views
    assert wrapped.sql != translated.sql
    with pytest.raises(DataError, match="Overflow"):  # DuckDB's own arithmetic refuses
        run.run(engine, translated, lambda ran: ran.relation.fetchall())
    _, rows = run.run(engine, wrapped, lambda ran: sorted(ran.relation.fetchall()))
    assert rows == [(-MAX_INT - 1,), (2,)]  # Spark's answer: it wraps around
    planned.release()


def test_a_query_that_overflows_reruns_wrapping(con):
    assert sorted(con.execute("SELECT id + 1 FROM t").fetchall()) == [(-MAX_INT - 1,), (2,)]
    # Spark's int * int is an int: the product wraps to -2 before the sum
    assert con.execute("SELECT sum(id * 2) FROM t").fetchall() == [(0,)]


def test_an_overflow_after_the_first_rows_is_an_error(con):
    con.execute("CREATE TABLE big (id INT)")
    # one file, the overflowing value last: DuckDB streams rows in file order
    con.execute(
        "INSERT INTO big SELECT CAST(CASE WHEN id = 1999999 THEN"
        f" {MAX_INT} ELSE id END AS INT) FROM range(2000000) AS r(id)"
    )
    cursor = con.execute("SELECT id + 1 FROM big")
    with pytest.raises(DataError, match="before the first rows"):
        while cursor.fetchmany(50000):
            pass
