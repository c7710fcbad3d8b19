"""The to_duckdb stage: a planned query as DuckDB SQL over what DuckDB reads, built without
touching DuckDB, and leaving the planned statement as it was."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import icesql
from icesql.engine import pipeline, to_duckdb
from icesql.engine.dispatch import Engine
from icesql.sql.dialect import parse


@pytest.fixture
def con(tmp_path) -> Iterator[icesql.Connection]:
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE TABLE t (id BIGINT, v STRING)")
    connection.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    yield connection
    connection.close()


def _engine(con: icesql.Connection) -> Engine:
    engine = con._engine
    assert engine is not None
    return engine


def _translated(con: icesql.Connection, sql: str, **kw) -> to_duckdb.Translated:
    engine = _engine(con)
    planned = pipeline.plan_query(engine, parse(sql)[0], ())
    return to_duckdb.to_duckdb(engine, planned, (), **kw)


def test_a_scan_of_plain_files_is_read_by_duckdb_in_place_of_its_view(con):
    translated = _translated(con, "SELECT v FROM t WHERE id > 1")
    (view,) = translated.planned.scans
    assert set(translated.sources) == {view}
    assert view not in translated.views  # the native read stands in for the view
    assert "read_parquet" in translated.sql.lower()
    assert translated.native_files[view][0] == 1  # one data file, read by DuckDB
    assert any("streaming_buffer_size" in s for s in translated.setup)


def test_with_native_parquet_off_the_scan_is_registered_as_its_view(con):
    con.execute("SET icesql.scan.nativeParquet = false")
    translated = _translated(con, "SELECT v FROM t")
    (view,) = translated.planned.scans
    assert translated.sources == {}
    assert translated.views[view] is translated.planned.scans[view]
    assert "read_parquet" not in translated.sql.lower()


def test_an_explain_is_translated_as_duckdb_explain(con):
    assert _translated(con, "SELECT * FROM t", explain=True).sql.startswith("EXPLAIN ")


def test_metadata_columns_are_left_out_of_stars_on_a_copy(con):
    translated = _translated(con, "SELECT *, _pos FROM t")
    planned = translated.planned
    assert planned.hidden  # the star must leave out the scan's metadata columns
    assert "EXCEPT" not in planned.statement.sql()  # the planned tree is left as bound
    assert "EXCEPT (_pos)" in to_duckdb.duckdb_statement(planned).sql()
    assert sorted(con.execute("SELECT *, _pos FROM t").fetchall()) == [(1, "a", 0), (2, "b", 1)]


def test_planning_leaves_the_parsed_statement_as_it_was(con):
    statement = parse("SELECT v FROM t WHERE id > 1")[0]
    before = statement.sql()
    pipeline.plan_query(_engine(con), statement, ())
    assert statement.sql() == before


def test_a_kept_query_reuses_its_translation_while_it_reads_the_same_files(con, monkeypatch):
    con.execute("INSERT INTO t VALUES (3, 'c')")  # a second data file
    calls = []
    translate = to_duckdb.to_duckdb_sql
    monkeypatch.setattr(
        to_duckdb, "to_duckdb_sql", lambda *a, **kw: calls.append(1) or translate(*a, **kw)
    )
    sql = "SELECT v FROM t WHERE id = ?"
    for key, value in ((1, "a"), (2, "b")):  # planned, then kept with its translation
        assert con.execute(sql, (key,)).fetchall() == [(value,)]
    before = len(calls)
    assert con.execute(sql, (1,)).fetchall() == [("a",)]  # the same file: the same read
    assert len(calls) == before
    assert con.execute(sql, (3,)).fetchall() == [("c",)]  # another file, translated again
    assert len(calls) == before + 1
