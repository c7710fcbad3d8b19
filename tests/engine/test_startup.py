"""The DuckDB database the ``icesql`` command opens while the engine loads."""

import duckdb
import pytest

import icesql
from icesql.engine import startup


@pytest.fixture(autouse=True)
def nothing_left_open():
    yield
    startup.take()  # a test that fails halfway leaves no database to the next


def test_the_first_engine_takes_the_database_and_the_next_opens_its_own(tmp_path):
    assert startup.take() is None  # none started
    startup.start()
    startup.start()  # one database at a time
    with icesql.connect(str(tmp_path)) as first:
        assert startup.take() is None  # taken by the engine
        assert first.execute("SELECT 40 + 2").fetchone() == (42,)
        with icesql.connect(str(tmp_path)) as second:
            assert second.engine.duck is not first.engine.duck
            assert second.execute("SELECT 1").fetchone() == (1,)


def test_a_database_that_fails_to_open_leaves_the_engine_to_open_its_own(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise duckdb.IOException("no memory for a database")

    monkeypatch.setattr(duckdb, "connect", refuse)
    startup.start()
    assert startup.take() is None
    monkeypatch.undo()
    with icesql.connect(str(tmp_path)) as con:
        assert con.execute("SELECT 2").fetchone() == (2,)


def test_a_database_no_engine_took_is_closed_by_discard() -> None:
    startup.start()
    startup.discard()
    assert startup.take() is None
    startup.discard()  # nothing started: nothing to do
