"""The run stage: a translated query tried on a cursor of its own, its views registered;
a failure closes the cursor and leaves the plan's scans to the caller."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import duckdb
import pytest

import icesql
from icesql.engine import pipeline, run, to_duckdb
from icesql.engine.dispatch import Engine
from icesql.errors import ProgrammingError
from icesql.sql.dialect import parse


@pytest.fixture
def con(tmp_path) -> Iterator[icesql.Connection]:
    connection = icesql.connect(str(tmp_path))
    connection.execute("SET icesql.scan.nativeParquet = false")  # the scan is a view
    connection.execute("CREATE TABLE t (id BIGINT)")
    connection.execute("INSERT INTO t VALUES (1), (2)")
    yield connection
    connection.close()


def _translated(engine: Engine, sql: str) -> to_duckdb.Translated:
    return to_duckdb.to_duckdb(engine, pipeline.plan_query(engine, parse(sql)[0], ()), ())


def test_the_query_runs_over_the_registered_views(con):
    engine = con._engine
    translated = _translated(engine, "SELECT sum(id) FROM t")
    cursor, rows = run.run(engine, translated, lambda ran: ran.relation.fetchall())
    assert rows == [(3,)]
    (view,) = translated.views
    assert cursor.sql(f"SELECT count(*) FROM {view}").fetchall() == [(2,)]  # registered
    cursor.close()
    translated.planned.release()


def test_a_failed_query_closes_its_cursor_and_leaves_the_scans(con):
    engine = con._engine
    translated = _translated(engine, "SELECT id FROM t")
    broken = dataclasses.replace(translated, sql="SELECT no_such_column FROM no_such_table")
    opened = []

    def tried(runner, cursor, t, take):
        opened.append(cursor)
        return run.attempt(runner, cursor, t, take)

    with pytest.raises(ProgrammingError, match="no_such_table"):
        run.run(engine, broken, lambda ran: ran.relation.fetchall(), tried)
    with pytest.raises(duckdb.ConnectionException):
        opened[0].execute("SELECT 1")  # closed
    # the scans are still the caller's: the same plan runs with the right SQL
    _, rows = run.run(engine, translated, lambda ran: sorted(ran.relation.fetchall()))
    assert rows == [(1,), (2,)]
    translated.planned.release()
