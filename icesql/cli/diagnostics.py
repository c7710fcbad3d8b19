"""Errors as a person reads them: the message, then the statement with a caret under the
failing position, and never a traceback (``--debug`` shows it).

The position comes from the error when the parser gave one (``position``, ``length``); for
errors that name a table, column or function the statement spells once, the caret points at
that name.

>>> class E(Exception): pass
>>> print(describe(E("table not found: db.missing"), "SELECT *\\nFROM db.missing"))
error: table not found: db.missing
  SELECT *
  FROM db.missing
       ^^^^^^^^^^
"""

from __future__ import annotations

import re
import traceback

# messages that name what failed (ours and DuckDB's), so the caret can point at the name
_NAMED = (
    re.compile(r"table not found: (\S+)"),
    re.compile(r'column "([^"]+)"', re.IGNORECASE),
    re.compile(r"Function with name (\w+) does not exist", re.IGNORECASE),
)
CONTEXT_LINES = 4  # lines of the statement shown above the failing one


def describe(error: BaseException, statement: str | None = None) -> str:
    """``error: message`` and, when the position is known, the statement and a caret."""
    message = str(error)
    where = error_position(error, statement) if statement else None
    if where is None:
        return f"error: {message}"
    summary = message.split("\n  ", 1)[0]  # the parser's own one-line pointer is redrawn below
    return f"error: {summary}\n{pointer(statement or '', *where)}"


def describe_internal(error: BaseException, debug: bool) -> str:
    """An exception icesql did not expect (a bug): one line, or the traceback with --debug."""
    if debug:
        return "".join(traceback.format_exception(error)).rstrip("\n")
    return f"internal error: {type(error).__name__}: {error} (run with --debug for the traceback)"


def error_position(error: BaseException, statement: str) -> tuple[int, int, int] | None:
    """(line, column, length) of what failed in ``statement``, lines and columns from 1."""
    position = getattr(error, "position", None)
    if position is not None:
        line, column = position
        return line, column, getattr(error, "length", 1)
    for pattern in _NAMED:
        match = pattern.search(str(error))
        if match:
            return _find_name(statement, match.group(1))
    return None


def _find_name(statement: str, name: str) -> tuple[int, int, int] | None:
    """The name's only occurrence as a whole word outside quotes, or None."""
    parts = [re.escape(p.strip("`")) for p in name.split(".")]
    pattern = re.compile(r"(?<![\w.`])`?" + r"`?\.`?".join(parts) + r"`?(?![\w`])", re.IGNORECASE)
    hits = list(pattern.finditer(statement))
    if len(hits) != 1:
        return None
    start = hits[0].start()
    line = statement.count("\n", 0, start) + 1
    column = start - (statement.rfind("\n", 0, start) + 1) + 1
    return line, column, hits[0].end() - start


def pointer(statement: str, line: int, column: int, length: int = 1) -> str:
    """The statement up to the failing line, indented, and a caret line under it."""
    lines = statement.splitlines() or [""]
    line = min(max(line, 1), len(lines))
    shown = lines[max(0, line - 1 - CONTEXT_LINES) : line]
    caret = " " * (column - 1) + "^" * max(length, 1)
    return "\n".join(f"  {text}" for text in [*shown, caret]).rstrip(" ")
