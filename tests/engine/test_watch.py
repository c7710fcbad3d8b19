"""Progress around a run: with a listener, DuckDB's own reads reach it; with none, the
query runs as it would."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import icesql


@pytest.fixture
def con(tmp_path) -> Iterator[icesql.Connection]:
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE TABLE t (id BIGINT)")
    for i in range(3):
        connection.execute(f"INSERT INTO t VALUES ({i})")
    yield connection
    connection.close()


def test_a_listener_hears_the_files_duckdb_reads_itself(con):
    reports = []
    con.add_progress_listener(reports.append)
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(3,)]
    last = reports[-1]
    assert last.finished
    assert last.files_planned == 3 and last.files_done == 3


def test_without_a_listener_nothing_is_reported(con):
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(3,)]
    cursor = con._engine.duck_cursor()
    # the progress setting is per cursor, and only a watched run turns it on
    assert cursor.sql("SELECT current_setting('enable_progress_bar')").fetchall() == [(False,)]
    cursor.close()
