"""Handlers of the statements that are not queries: DDL, INSERT, DELETE, UPDATE, MERGE,
SHOW, DESCRIBE, ALTER, USE, CALL (``icesql.statements.procedures``).

``statement_handler`` is the engine's table of handlers by statement type; each handler
takes ``(session, statement, params)`` and returns a ``Result``: the session
(``icesql.session.Session``) is all a handler sees of its connection, never the engine.
``ALTER TABLE`` and ``SHOW`` arrive as the typed nodes of ``icesql.sql.nodes``; ``SET`` /
``RESET`` as a ``Command``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from icesql.session import Result, Session

Handler = Callable[[Session, exp.Expr, Sequence[object]], Result]


def _handlers() -> list[tuple[type, Handler]]:
    from icesql.sql.nodes import Call, ShowViews
    from icesql.statements import (
        alter,
        commands,
        ddl,
        delete,
        insert,
        merge,
        show,
        update,
        use,
        views,
    )
    from icesql.statements.procedures import call

    return [
        (exp.Create, ddl.create),
        (exp.Drop, ddl.drop),
        (exp.Insert, insert.insert),
        (exp.Merge, merge.merge),
        (exp.Delete, delete.delete),
        (exp.Update, update.update),
        (exp.Describe, views.describe_or_view),
        (exp.Alter, alter.alter),
        (ShowViews, views.show_views),
        (exp.Show, show.show),
        (exp.Use, use.use),
        (exp.Command, commands.command),
        (Call, call),
    ]


_TABLE: list[tuple[type, Handler]] | None = None


def statement_handler(statement: exp.Expr) -> Handler | None:
    """The handler for ``statement``'s type, or None when icesql has none."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _handlers()
    for node_type, handler in _TABLE:
        if isinstance(statement, node_type):
            return handler
    return None
