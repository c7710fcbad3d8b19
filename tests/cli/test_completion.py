"""Completion candidates: keywords, functions, tables and namespaces where a table goes,
columns of the tables the statement names (also through aliases), metadata tables after t."""

from __future__ import annotations

import pytest

import icesql
from icesql.cli.completion import Names, suggest


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    con = icesql.connect(str(tmp_path_factory.mktemp("wh")))
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.events (event_id INT, kind STRING)")
    con.execute("CREATE TABLE db.users (user_id INT, name STRING)")
    con.execute("CREATE NAMESPACE default")
    con.execute("CREATE TABLE default.top (x INT)")
    yield Names(lambda: con)
    con.close()


def _texts(before: str, names: Names, text: str | None = None) -> list[str]:
    return [s.text for s in suggest(before, text if text is not None else before, names)]


def test_keywords_follow_the_case_typed_and_functions_follow(names: Names) -> None:
    assert _texts("SEL", names) == ["SELECT"]
    assert _texts("sel", names) == ["select"]
    assert "date_trunc" in _texts("SELECT date_t", names)


def test_tables_namespaces_and_catalogs_after_from(names: Names) -> None:
    assert _texts("SELECT * FROM ", names) == ["top", "db", "default", "local"]
    assert _texts("SELECT * FROM db.", names) == ["events", "users"]
    assert _texts("SELECT * FROM db.ev", names) == ["events"]
    assert _texts("SELECT * FROM local.", names) == ["db", "default"]


def test_columns_of_the_tables_in_the_statement(names: Names) -> None:
    full = "SELECT ev FROM db.events e JOIN db.users u ON e.event_id = u.user_id"
    assert _texts("SELECT ev", names, full)[0] == "event_id"
    assert _texts("SELECT u.", names, full) == ["user_id", "name"]
    assert _texts("SELECT * FROM db.events WHERE ki", names) == ["kind"]


def test_metadata_tables_after_a_table(names: Names) -> None:
    found = _texts("SELECT * FROM db.events.sn", names)
    assert found == ["snapshots"]
    assert "files" in _texts("SELECT * FROM db.events.", names)


def test_names_are_cached_until_cleared(names: Names) -> None:
    con = names.connection()
    assert "late" not in _texts("SELECT * FROM db.", names)
    con.execute("CREATE TABLE db.late (y INT)")
    assert "late" not in _texts("SELECT * FROM db.", names)
    names.clear()
    assert "late" in _texts("SELECT * FROM db.", names)


def test_nothing_but_keywords_while_connecting() -> None:
    assert _texts("SELECT * FROM ", Names(lambda: None)) == []
