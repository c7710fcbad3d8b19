"""Statements sqlglot leaves as a ``Command``: parsed by ``icesql.sql.extensions`` and
dispatched by the type of what that parser returns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlglot import exp

from icesql.errors import NotSupportedError
from icesql.sql import extensions as ext

if TYPE_CHECKING:
    from icesql.engine import Engine, Result


def command(engine: Engine, statement: exp.Expr, params: Sequence[object]) -> Result:
    assert isinstance(statement, exp.Command)
    keyword, text = ext.command_parts(statement)
    if keyword.upper() in ("SET", "RESET"):
        from icesql.statements import settings

        handler = settings.set_ if keyword.upper() == "SET" else settings.reset
        return handler(engine.settings, statement)
    if keyword.upper() not in ("ALTER", "SHOW"):
        raise NotSupportedError(f"{keyword.upper()} statements are not supported yet")
    parsed = ext.parse_command(keyword, text)
    from icesql.statements import alter, show

    if isinstance(parsed, ext.ShowNamespaces | ext.ShowTables | ext.ShowCreateTable | ext.ShowTableProperties):
        return show.show(engine, parsed)
    return alter.alter(engine, parsed)
