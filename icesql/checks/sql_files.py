"""``test_*.sql`` files: each statement one check that passes when it returns no rows.

Comments just before a statement direct it (the dbt "singular test" convention)::

    -- name: no_negative_amounts
    -- mark: slow, nightly
    SELECT * FROM db.orders WHERE amount < 0;

    -- expect: 3 rows
    SELECT DISTINCT region FROM db.orders;

``name`` names the test item (else ``statement_<n>``, by position), ``mark`` adds pytest
markers, ``expect: N rows`` makes the check pass when exactly N rows come back. Statements are
split on ``;`` outside quotes, backquoted names and comments, so a ``;`` in a string is safe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from icesql.checks import CheckFileError

__all__ = ["SqlCheck", "SqlCheckFileError", "read_sql_checks"]

_DIRECTIVE = re.compile(r"--\s*(name|mark|expect)\s*:\s*(.*?)\s*$", re.IGNORECASE)
_EXPECT = re.compile(r"(\d+)\s*rows?", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z0-9_.\-]+")


class SqlCheckFileError(CheckFileError):
    """A test_*.sql file that cannot be read as checks."""


@dataclass(frozen=True)
class SqlCheck:
    """One statement of a check file; ``line`` is where its SQL starts (1-based)."""

    name: str
    sql: str
    line: int
    marks: tuple[str, ...] = ()
    expect_rows: int | None = None  # None: the check passes on no rows


def read_sql_checks(text: str) -> list[SqlCheck]:
    """The checks of a ``test_*.sql`` file, in order.

    >>> [c.name for c in read_sql_checks("-- name: a\\nSELECT ';' ;\\nSELECT 2")]
    ['a', 'statement_2']
    """
    checks: list[SqlCheck] = []
    seen: dict[str, int] = {}
    for position, (sql, line, directives) in enumerate(_statements(text), start=1):
        name, marks, expect = f"statement_{position}", [], None
        for key, value, at in directives:
            if key == "name":
                if not _NAME.fullmatch(value):
                    raise SqlCheckFileError(
                        f"a check name is letters, digits, '_', '.', '-': {value!r}", at
                    )
                name = value
            elif key == "mark":
                marks += [m.strip() for m in value.split(",") if m.strip()]
            else:
                m = _EXPECT.fullmatch(value)
                if m is None:
                    raise SqlCheckFileError(f"write '-- expect: N rows', not {value!r}", at)
                expect = int(m.group(1))
        if name in seen:
            raise SqlCheckFileError(f"two checks are named {name!r} (line {seen[name]})", line)
        seen[name] = line
        checks.append(SqlCheck(name, sql, line, tuple(marks), expect))
    return checks


def _statements(text: str) -> list[tuple[str, int, list[tuple[str, str, int]]]]:
    """(sql, first line, directives) per non-empty statement."""
    out = []
    directives: list[tuple[str, str, int]] = []
    start_line = 0
    start: int | None = None  # offset of the statement's first character that is not a comment
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            m = _DIRECTIVE.match(text[i:end])
            if m and start is None:
                directives.append((m.group(1).lower(), m.group(2), line))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise SqlCheckFileError("unterminated /* comment", line)
            line += text.count("\n", i, end)
            i = end + 2
        elif c in "'\"`":
            if start is None:
                start, start_line = i, line
            end = _closing(text, i)
            if end < 0:
                raise SqlCheckFileError(f"unterminated {c} quote", line)
            line += text.count("\n", i, end)
            i = end + 1
        elif c == ";":
            if start is not None:
                out.append((text[start:i].strip(), start_line, directives))
            elif directives:
                raise SqlCheckFileError("directives with no statement after them", directives[0][2])
            directives, start = [], None
            i += 1
        else:
            if start is None and not c.isspace():
                start, start_line = i, line
            i += 1
    if start is not None and text[start:].strip():
        out.append((text[start:].strip(), start_line, directives))
    elif directives:
        raise SqlCheckFileError("directives with no statement after them", directives[0][2])
    return out


def _closing(text: str, i: int) -> int:
    """The offset of the quote that closes the one at ``i`` (-1 if none); Spark's backslash
    escapes in strings, doubled backquotes in names."""
    quote = text[i]
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\" and quote != "`":
            j += 2
            continue
        if c == quote:
            if quote == "`" and text.startswith("``", j):
                j += 2
                continue
            return j
        j += 1
    return -1
