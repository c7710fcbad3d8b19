"""Spark's ``SET`` and ``RESET`` statements, on the session's settings store.

As in Spark, ``SET key = value`` stores the value's text (trimmed, quotes kept) and shows
it back; ``SET key`` shows a value (a known setting's default when unset, ``<undefined>``
otherwise); ``SET`` lists what this session set; ``SET -v`` lists the settings icesql knows
with their meaning; ``RESET`` forgets every setting, ``RESET key`` one. The store, and the
settings icesql knows and checks, are ``icesql.session.settings``.
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.session import Result
from icesql.session.result import done, rows
from icesql.session.settings import KNOWN, UNDEFINED, Settings
from icesql.sql.dialect import command_parts

__all__ = ["reset", "set_"]


_PAIR = (("key", pa.string()), ("value", pa.string()))


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "`":
        return text[1:-1].replace("``", "`")
    return text


def set_(settings: Settings, statement: exp.Command) -> Result:
    """``SET``, ``SET -v``, ``SET key``, ``SET key = value``."""
    _, text = command_parts(statement)
    text = text.strip()
    if not text:
        return rows(_PAIR, settings.items())
    if text == "-v":
        return rows(
            (*_PAIR, ("meaning", pa.string()), ("Since version", pa.string())),
            [(s.key, settings.get(s.key), s.meaning, s.since) for s in KNOWN.values()],
        )
    key, eq, value = text.partition("=")
    key = _unquote(key)
    if not key:
        raise ProgrammingError(f"SET needs a key before '=': SET {text}")
    if not eq:
        return rows(_PAIR, [(key, settings.get(key) or UNDEFINED)])
    value = _unquote(value)
    settings.set(key, value)
    return rows(_PAIR, [(key, value)])


def reset(settings: Settings, statement: exp.Command) -> Result:
    """``RESET`` (every setting) or ``RESET key``."""
    _, text = command_parts(statement)
    key = _unquote(text)
    settings.reset(key or None)
    return done()
