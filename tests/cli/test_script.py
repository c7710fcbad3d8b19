"""Input is cut into statements and dot-commands the same way for -c, files and the prompt."""

from __future__ import annotations

from icesql.cli.script import is_complete, units


def test_statements_and_meta_commands_in_order() -> None:
    text = "SELECT 1; SELECT 2;\n.mode csv\n-- a comment\nSELECT\n  3"
    assert [(u.kind, u.text, u.line) for u in units(text)] == [
        ("sql", "SELECT 1", 1),
        ("sql", "SELECT 2", 1),
        ("meta", ".mode csv", 2),
        ("sql", "-- a comment\nSELECT\n  3", 3),
    ]


def test_a_dot_inside_a_statement_is_sql() -> None:
    assert [u.kind for u in units("SELECT\n.5 AS x;")] == ["sql"]


def test_semicolons_in_strings_do_not_end_statements() -> None:
    assert not is_complete("SELECT ';")
    assert not is_complete("SELECT 'a;' AS x")
    assert is_complete("SELECT 'a;' AS x;")
    assert is_complete(".tables")
    assert not is_complete("SELECT 1 -- ;")


def test_comment_only_input_runs_nothing() -> None:
    assert list(units("-- nothing here;\n")) == []
