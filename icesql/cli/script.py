"""Cutting input into the units the shell runs: SQL statements ended by ``;`` and
meta-commands (a line starting with ``.`` where no statement is pending), the same way for a
``-c`` argument, a piped script, ``-f`` / ``.read`` files and the prompt.

>>> [(u.kind, u.text, u.line) for u in units("SELECT 1;\\n.mode csv\\nSELECT ';'\\n  AS x;")]
[('sql', 'SELECT 1', 1), ('meta', '.mode csv', 2), ('sql', "SELECT ';'\\n  AS x", 3)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from icesql.errors import Error


@dataclass(frozen=True)
class Unit:
    """One statement (``kind == "sql"``) or meta-command, and the line of the input it starts on."""

    kind: str
    text: str
    line: int


def is_meta(text: str) -> bool:
    return text.lstrip().startswith(".")


def is_complete(text: str) -> bool:
    """True when the text ends a statement: its last token is ``;`` (not one inside a string
    or comment), or it is a meta-command. The prompt submits on Enter only then."""
    if is_meta(text) or not text.strip():
        return True
    if ";" not in text:
        return False
    from icesql.sql.dialect import DIALECT  # sqlglot: not needed before the first statement

    try:
        tokens = DIALECT.tokenize(text)
    except Exception:  # an unterminated string or comment: more is coming
        return False
    return bool(tokens) and tokens[-1].token_type.name == "SEMICOLON"


def units(text: str) -> Iterator[Unit]:
    """The statements and meta-commands of ``text`` in order. A syntax error the tokenizer
    finds (an unterminated string) is raised when its statement is reached."""
    pending: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if not "".join(pending).strip():
            if is_meta(line):
                pending = []
                yield Unit("meta", line.strip(), number)
                continue
            pending, start = [], number
        pending.append(line)
        if ";" in line and is_complete("\n".join(pending)):
            yield from _statements("\n".join(pending), start)
            pending = []
    if "".join(pending).strip():
        yield from _statements("\n".join(pending), start)


def _statements(text: str, line: int) -> Iterator[Unit]:
    from icesql.sql.dialect import split_statements

    try:
        pieces = split_statements(text)
    except Error:
        yield Unit("sql", text.strip(), line)  # running it reports the error
        return
    offset = 0
    for piece in pieces:
        at = text.find(piece, offset)
        offset = at + len(piece) if at >= 0 else offset
        if _has_tokens(piece):
            yield Unit("sql", piece, line + text.count("\n", 0, max(at, 0)))


def _has_tokens(text: str) -> bool:
    from icesql.sql.dialect import DIALECT

    try:
        return bool(DIALECT.tokenize(text))
    except Exception:
        return True
