"""Syntax errors name the token Spark's parser stops at, with its position and a caret, and
never sqlglot's classes or token reprs."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.sql.dialect import parse

CASES = {  # statement -> (what Spark says it stops at, line, column from 1)
    "SELEC 1": ("'SELEC'", 1, 1),
    "SELECT 1 +": ("end of input", 1, 11),
    "SELECT * FROM t WHERE AND n = 1": ("'n'", 1, 27),
    "SELECT n FROM t WHERE (n = 1": ("end of input", 1, 29),
    "SELECT n FROM t WHERE n = = 1": ("'='", 1, 27),
    "SELECT n\nFROM t\nWHERE n = = 1": ("'='", 3, 11),
}


@pytest.mark.parametrize("sql", sorted(CASES))
def test_the_offending_token_is_named_and_pointed_at(sql):
    near, line, column = CASES[sql]
    with pytest.raises(ProgrammingError) as info:
        parse(sql)
    message = str(info.value)
    assert message.startswith(
        f"[PARSE_SYNTAX_ERROR] Syntax error at or near {near}. SQLSTATE: 42601"
        f" (line {line}, pos {column - 1})\n"
    )
    assert info.value.position == (line, column)  # type: ignore[attr-defined]
    caret = message.splitlines()[-1]
    assert caret.index("^") - 2 == column - 1  # under the token, past the two-space indent
    assert "sqlglot" not in message and "<class" not in message and "<Token" not in message


def test_our_grammars_own_words_are_kept_as_the_hint():
    with pytest.raises(ProgrammingError, match=r"near 'db': REPLACE must be followed by TABLE\."):
        parse("REPLACE db.t")


def test_an_unclosed_quote_is_a_syntax_error_too():
    with pytest.raises(ProgrammingError, match=r"^\[PARSE_SYNTAX_ERROR\] .* never closed"):
        parse("SELECT 'abc")
