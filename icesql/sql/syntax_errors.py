"""Syntax errors as Spark's parser reports them: ``[PARSE_SYNTAX_ERROR] Syntax error at or
near 'X'`` with the position of the offending token and a caret under it.

sqlglot's own report names its expression classes and the token it stopped at, which is
often the one after the mistake (``WHERE AND x`` fails on ``x``'s side). The offending
token is found the way Spark's ANTLR parser would stop: a statement that starts with a word
no statement starts with stops there; an operator with nothing on its left stops at the
operator (at the token after it for ``AND``/``OR``, which Spark reads as a column name
there); one with nothing on its right, or an unclosed parenthesis, stops at the next token
or at the end of the input.

>>> from sqlglot.errors import ParseError
>>> import sqlglot
>>> try:
...     sqlglot.parse("SELEC 1", dialect="spark")
... except ParseError as e:
...     print(parse_error("SELEC 1", e))
[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601 (line 1, pos 0)
  SELEC 1
  ^^^^^
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, Tokenizer, TokenType

from icesql.errors import ProgrammingError

__all__ = ["caret_lines", "parse_error", "token_error"]

# tokens after which an expression must follow: an operator there has nothing on its left
_EXPECTS_OPERAND = {
    TokenType.SELECT, TokenType.WHERE, TokenType.HAVING, TokenType.ON, TokenType.AND,
    TokenType.OR, TokenType.NOT, TokenType.L_PAREN, TokenType.COMMA, TokenType.WHEN,
    TokenType.THEN, TokenType.ELSE, TokenType.EQ, TokenType.NEQ, TokenType.LT, TokenType.LTE,
    TokenType.GT, TokenType.GTE, TokenType.PLUS, TokenType.DASH, TokenType.SLASH,
    TokenType.STAR, TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.SET,
}  # fmt: skip
# tokens that only join two operands
_BINARY = {
    TokenType.AND, TokenType.OR, TokenType.EQ, TokenType.NEQ, TokenType.LT, TokenType.LTE,
    TokenType.GT, TokenType.GTE, TokenType.SLASH, TokenType.PERCENT, TokenType.DPIPE,
    TokenType.IS, TokenType.IN, TokenType.LIKE, TokenType.BETWEEN,
}  # fmt: skip


_TOKEN = re.compile(r" but got <Token .*?>$|<Token .*?>")
_GENERIC = ("Invalid expression", "Unexpected token", "Required keyword", "Expecting")


def caret_lines(sql: str, line: int, column: int, length: int) -> str:
    """The failing line of ``sql`` and a caret line under ``column`` (both from 1), each
    indented by two spaces: how every positioned error of icesql ends."""
    lines = sql.splitlines() or [""]
    text = lines[min(max(line, 1), len(lines)) - 1]
    return f"\n  {text}\n  {' ' * max(column - 1, 0)}{'^' * max(length, 1)}"


def parse_error(
    sql: str, e: ParseError, tokenize: Callable[[str], list[Token]] | None = None
) -> ProgrammingError:
    """The user's error for sqlglot's ``e`` on ``sql``, with ``position`` (line, column, both
    from 1) and ``length`` for a front that points at the offending token."""
    first: Mapping[str, Any] = e.errors[0] if e.errors else {}
    try:
        tokens = tokenize(sql) if tokenize is not None else Tokenizer().tokenize(sql)
    except TokenError:
        tokens = []
    description = _TOKEN.sub("", str(first.get("description") or ""))
    offending = _offending(tokens, first, description)
    # our own grammar's words ("Expected table name") say more than sqlglot's generic ones
    hint = "" if description.startswith(_GENERIC) or "<class" in description else f": {description}"
    if offending is None:  # the end of the input
        last = tokens[-1] if tokens else None
        line = last.line if last else 1
        column = last.col + 1 if last else 1
        near, length = "end of input", 1
    else:
        line, column = offending.line, offending.col - len(offending.text) + 1
        near, length = f"'{offending.text}'", len(offending.text)
    error = ProgrammingError(
        f"[PARSE_SYNTAX_ERROR] Syntax error at or near {near}{hint}. SQLSTATE: 42601"
        f" (line {line}, pos {column - 1})" + caret_lines(sql, line, column, length)
    )
    error.position = (line, column)  # type: ignore[attr-defined]
    error.length = length  # type: ignore[attr-defined]
    return error


def token_error(e: TokenError) -> ProgrammingError:
    """A text that does not even split into tokens: an unclosed quote or comment."""
    detail = str(e).removeprefix("Error tokenizing ")
    return ProgrammingError(
        f"[PARSE_SYNTAX_ERROR] Syntax error at or near end of input: a quote or comment is"
        f" never closed near {detail}. SQLSTATE: 42601"
    )


def _offending(tokens: Sequence[Token], first: Mapping[str, Any], description: str) -> Token | None:
    """The token Spark's parser stops at (None: the end of the input)."""
    if not tokens:
        return None
    if tokens[0].token_type == TokenType.VAR:
        return tokens[0]  # no statement starts with a plain word (``SELEC 1``)
    at = next(
        (
            i
            for i, t in enumerate(tokens)
            if t.line == first.get("line") and t.col == first.get("col")
        ),
        None,
    )
    if at is None:
        return None
    if "'this' missing" in description:
        # an operator with nothing on its left: Spark reads a keyword operator (AND, OR)
        # there as a column name, then stops at the token after it
        for i, (prev, token) in enumerate(zip(tokens, tokens[1 : at + 1]), 1):
            if token.token_type in _BINARY and prev.token_type in _EXPECTS_OPERAND:
                keyword = token.text.isalpha()
                return tokens[i + 1] if keyword and i + 1 < len(tokens) else token
    last = at == len(tokens) - 1
    if description.startswith(("Expecting )", "Required keyword")) and last:
        return None  # a parenthesis left open, nothing on an operator's right: the end
    return tokens[at]
