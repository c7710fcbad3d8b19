"""Quoting for the DuckDB SQL the scan writes itself (``read_parquet`` calls, positional
joins): a string literal, an identifier.

>>> print(sql_string("it's"), quoted('a"b'))
'it''s' "a""b"
"""

from __future__ import annotations

__all__ = ["quoted", "sql_string"]


def sql_string(text: str) -> str:
    """``text`` as a DuckDB string literal."""
    return "'" + text.replace("'", "''") + "'"


def quoted(name: str) -> str:
    """``name`` as a DuckDB quoted identifier."""
    return '"' + name.replace('"', '""') + '"'
