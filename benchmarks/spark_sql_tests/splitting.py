"""An input file of Spark's SQL tests split into queries as ``SQLQueryTestSuite`` splits it.

The rules are those of Spark 3.5's ``SQLQueryTestHelper.runSqlTestCase``:

* a line whose trimmed text starts with ``--`` is a comment (``--QUERY-DELIMITER`` lines
  excepted); the rest is code;
* ``--IMPORT other.sql`` puts the code of another input file (named from the inputs folder)
  before this file's code;
* code between ``--QUERY-DELIMITER-START`` and ``--QUERY-DELIMITER-END`` lines is one query;
  other code is split at every ``;`` not preceded by a backslash (anywhere in a line, as
  Spark's ``(?<=[^\\\\]);`` does), each piece trimmed, empty ones dropped, and lines starting
  with ``--`` inside a piece dropped once more;
* ``--SET k=v[,k2=v2]`` lines are settings applied before the file's queries.

``--CONFIG_DIM`` lines are kept aside, not applied: Spark runs the file once per combination
of their settings and requires the same answer from each (join strategies, codegen modes,
``timestampType`` for ``timestamp-ntz.sql``), so one run with none of them is a run Spark's
suite checks too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["InputFile", "read_input", "split_input"]

_SEMICOLON = re.compile(r"(?<=[^\\]);")


@dataclass(frozen=True)
class InputFile:
    """One input file: its name (path under the inputs folder), queries and directives."""

    name: str
    queries: tuple[str, ...]
    settings: tuple[tuple[str, str], ...]
    config_dims: tuple[str, ...]  # the --CONFIG_DIM lines, not applied (module docstring)


def _is_comment(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("--") and not stripped.startswith("--QUERY-DELIMITER")


def _comments_and_code(text: str) -> tuple[list[str], list[str]]:
    lines = text.split("\n")
    return [x for x in lines if _is_comment(x)], [x for x in lines if not _is_comment(x)]


def _split_with_semicolon(lines: Sequence[str]) -> list[str]:
    return _SEMICOLON.split("\n".join(lines))


def _pieces(code: Sequence[str]) -> list[str]:
    if not any(line.strip().startswith("--QUERY-DELIMITER") for line in code):
        return _split_with_semicolon(code)
    pieces: list[str] = []
    others: list[str] = []
    current, inside = "", False
    for line in code:
        if line.strip().startswith("--QUERY-DELIMITER-START"):
            inside = True
            pieces += _split_with_semicolon(others)
            others = []
        elif line.strip().startswith("--QUERY-DELIMITER-END"):
            inside = False
            pieces.append("\n" + current.removesuffix(";"))
            current = ""
        elif inside:
            current += "\n" + line
        else:
            others.append(line)
    if others:
        pieces += _split_with_semicolon(others)
    return pieces


def _pairs(text: str) -> list[tuple[str, str]]:
    """``k=v,k2=v2`` as Spark reads it: split at commas, each at its first ``=``."""
    pairs = []
    for item in text.split(","):
        key, _, value = item.partition("=")
        pairs.append((key.strip(), value.strip()))
    return pairs


def split_input(name: str, text: str, read_other: Callable[[str], str]) -> InputFile:
    """The queries and directives of input file ``name`` whose content is ``text``;
    ``read_other(name)`` returns the text of a file named by ``--IMPORT``."""
    comments, code = _comments_and_code(text)
    imported: list[str] = []
    for line in comments:
        if line.startswith("--IMPORT "):
            imported += _comments_and_code(read_other(line[len("--IMPORT ") :]))[1]
    queries = []
    for piece in _pieces(imported + code):
        piece = piece.strip()
        if not piece:
            continue
        kept = "\n".join(x for x in piece.split("\n") if not x.startswith("--")).strip()
        if kept:
            queries.append(kept)
    settings = [p for line in comments if line.startswith("--SET ") for p in _pairs(line[6:])]
    dims = [line for line in comments if line.startswith("--CONFIG_DIM")]
    return InputFile(name, tuple(queries), tuple(settings), tuple(dims))


def read_input(inputs: str, name: str) -> InputFile:
    """Input file ``name`` (a path under the folder ``inputs``), split."""

    def read(other: str) -> str:
        with open(os.path.join(inputs, other), encoding="utf-8") as f:
            return f.read()

    return split_input(name, read(name), read)
