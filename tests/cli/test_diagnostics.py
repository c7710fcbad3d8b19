"""Errors point at the failing position of the statement, as the parser reported it or where
the statement names what failed; no traceback without --debug."""

from __future__ import annotations

import pytest

import icesql
from icesql.cli.diagnostics import describe, describe_internal, error_position


def _error(con: icesql.Connection, sql: str) -> icesql.Error:
    with pytest.raises(icesql.Error) as info:
        con.execute(sql).fetchall()
    return info.value


def test_syntax_error_has_a_caret_under_the_token(tmp_path) -> None:
    with icesql.connect(str(tmp_path)) as con:
        sql = "SELECT 1,\n  2 +\nFROM x"
        text = describe(_error(con, sql), sql)
    lines = text.splitlines()
    assert lines[0] == (
        "error: [PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. SQLSTATE: 42601"
        " (line 3, pos 0)"
    )
    assert lines[1:] == ["  SELECT 1,", "    2 +", "  FROM x", "  ^^^^"]


def test_missing_table_and_column_are_pointed_at(tmp_path) -> None:
    with icesql.connect(str(tmp_path)) as con:
        sql = "SELECT * FROM db.missing"
        assert describe(_error(con, sql), sql).splitlines()[-1] == " " * 16 + "^" * 10
        sql = "SELECT nope AS z FROM (SELECT 1 AS a) t"
        assert error_position(_error(con, sql), sql) == (1, 8, 4)


def test_a_name_spelt_twice_gets_no_caret() -> None:
    error = Exception("table not found: t")
    assert describe(error, "SELECT * FROM t JOIN t") == "error: table not found: t"


def test_internal_errors_are_one_line_without_debug() -> None:
    try:
        raise KeyError("x")
    except KeyError as e:
        assert describe_internal(e, debug=False).startswith("internal error: KeyError: 'x'")
        assert "Traceback" in describe_internal(e, debug=True)
