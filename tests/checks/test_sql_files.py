"""icesql.checks.sql_files: statements, their names, marks, expectations and lines."""

from __future__ import annotations

import pytest

from icesql.checks.sql_files import SqlCheck, SqlCheckFileError, read_sql_checks

TEXT = """\
-- checks of the orders table
-- name: no_negative
-- mark: slow, nightly
SELECT * FROM db.orders   -- not a directive: name: x
WHERE note = 'a;b' AND `odd;col` = "c;d" AND s = 'it\\'s;';

/* a block comment; with a semicolon
   -- name: ignored */
-- expect: 3 rows
SELECT DISTINCT status
FROM db.orders;
SELECT 1
"""


def test_statements_with_names_marks_expectations_and_lines() -> None:
    first, second, third = read_sql_checks(TEXT)
    assert first == SqlCheck(
        "no_negative",
        "SELECT * FROM db.orders   -- not a directive: name: x\n"
        "WHERE note = 'a;b' AND `odd;col` = \"c;d\" AND s = 'it\\'s;'",
        4,
        ("slow", "nightly"),
        None,
    )
    assert (second.name, second.line, second.expect_rows, second.marks) == (
        "statement_2",
        10,
        3,
        (),
    )
    assert second.sql == "SELECT DISTINCT status\nFROM db.orders"
    assert (third.name, third.sql, third.line) == ("statement_3", "SELECT 1", 12)


def test_empty_statements_and_comment_only_files() -> None:
    assert read_sql_checks(";;\n-- just a note\n") == []
    assert [c.line for c in read_sql_checks("\n\n;SELECT 1;\n\nSELECT 2;")] == [3, 5]


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("-- expect: many\nSELECT 1", 1, "expect: N rows"),
        ("-- name: a b\nSELECT 1", 1, "check name"),
        ("-- name: a\nSELECT 1;\n-- name: a\nSELECT 2", 4, "two checks are named 'a'"),
        ("SELECT 1;\n-- name: orphan\n", 2, "no statement"),
        ("SELECT 'open", 1, "unterminated ' quote"),
        ("SELECT 1 /* open", 1, "unterminated /*"),
    ],
)
def test_malformed_files_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(SqlCheckFileError, match=message) as info:
        read_sql_checks(text)
    assert info.value.line == line
