"""Statements sqlglot's Spark keeps as a ``Command``: ``SET`` / ``RESET`` (read from their raw
text by ``icesql.statements.settings``), the rest refused by name."""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from icesql.errors import NotSupportedError
from icesql.session import Result, Session
from icesql.sql.dialect import command_parts


def command(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    assert isinstance(statement, exp.Command)
    keyword, _ = command_parts(statement)
    if keyword.upper() in ("SET", "RESET"):
        from icesql.statements import settings

        handler = settings.set_ if keyword.upper() == "SET" else settings.reset
        return handler(session.settings, statement)
    raise NotSupportedError(f"{keyword.upper()} statements are not supported yet")
