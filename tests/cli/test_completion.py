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


@pytest.fixture(scope="module")
def refs(names: Names) -> Names:
    con = names.connection()
    con.execute("CREATE TABLE db.versioned (x INT)")
    con.execute("INSERT INTO db.versioned VALUES (1)")
    con.execute("ALTER TABLE db.versioned CREATE BRANCH audit")
    con.execute("ALTER TABLE db.versioned CREATE BRANCH `dev-2`")
    con.execute("ALTER TABLE db.versioned CREATE TAG nightly")
    names.clear()
    return names


def test_branches_and_tags_after_version_as_of(refs: Names) -> None:
    before = "SELECT * FROM db.versioned VERSION AS OF "
    assert _texts(before, refs) == ["'audit'", "'dev-2'", "'main'", "'nightly'"]
    assert _texts(before + "'a", refs) == ["audit'"]  # the quote typed already
    assert _texts(before + "n", refs) == ["'nightly'"]
    found = suggest("SELECT * FROM db.versioned FOR SYSTEM_VERSION AS OF 'm", "", refs)
    assert [(s.text, s.length, s.kind) for s in found] == [("main'", 1, "branch")]
    assert _texts("SELECT * FROM db.events VERSION AS OF ", refs) == []  # no snapshot yet
    assert _texts("SELECT * FROM db.nothing VERSION AS OF ", refs) == []


def test_branch_and_tag_suffixes_after_a_table(refs: Names) -> None:
    assert _texts("SELECT * FROM db.versioned.branch_", refs) == [
        "branch_audit",
        "branch_dev-2",
        "branch_main",
    ]
    assert _texts("SELECT * FROM db.versioned.tag_", refs) == ["tag_nightly"]


def test_procedures_after_call_system(names: Names) -> None:
    from icesql.statements.procedures import PROCEDURES

    assert _texts("CALL ", names) == ["system", "local"]
    assert _texts("CALL local.", names) == ["system"]
    every = _texts("CALL system.", names)
    assert every == sorted(PROCEDURES) and "rollback_to_snapshot" in every
    assert _texts("CALL local.system.rollback_to_t", names) == ["rollback_to_timestamp"]
    assert _texts("call system.fast", names) == ["fast_forward"]
    assert _texts("CALL db.", names) == []  # procedures live in namespace system only


def test_procedures_are_read_from_the_registry_as_it_is(names: Names, monkeypatch) -> None:
    from icesql.statements import procedures

    monkeypatch.setitem(
        procedures.PROCEDURES, "zz_new_procedure", procedures.PROCEDURES["fast_forward"]
    )
    assert _texts("CALL system.zz", names) == ["zz_new_procedure"]


def test_a_column_named_call_is_no_call_statement(names: Names) -> None:
    assert "FROM" in _texts("SELECT call FR", names)
