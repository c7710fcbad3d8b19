"""Columns before functions: ``current_date`` without parentheses names a column when one
of that name is in scope.

Spark resolves ``current_date``, ``current_timestamp``, ``current_user`` and
``session_user`` written without ``()`` as columns first, and as the functions only when no
column of the query's sources has that name (its ``LiteralFunctionResolution``); sqlglot
reads them as the functions always. The parser marks the bare words
(``icesql.sql.dialect.BARE_FUNCTION``); here each one that a source of its scope has a
column for becomes that column, before the query is typed, so ``typeof(current_date)`` of
an INT column is ``int``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.resolver import Resolver
from sqlglot.optimizer.scope import traverse_scope, walk_in_scope
from sqlglot.schema import Schema

from icesql.sql.dialect import BARE_FUNCTION, DIALECT

__all__ = ["columns_before_functions"]

log = logging.getLogger(__name__)

_KINDS = (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentUser, exp.SessionUser)
_ID_KEY = "icesql_bare_function"


def _bare(statement: exp.Expr) -> list[exp.Expr]:
    return [n for n in statement.find_all(*_KINDS) if n.meta.get(BARE_FUNCTION)]


def _name(node: exp.Expr) -> str:
    return str(node.meta[BARE_FUNCTION]).lower()


def _may_be_columns(
    statement: exp.Expr, names: set[str], columns: Mapping[str, Mapping[str, str]]
) -> bool:
    """Whether a source can have a column of one of ``names``: a scanned table's, or a name
    the statement writes (a VALUES alias, a subquery's item)."""
    if any(c.lower() in names for types in columns.values() for c in types):
        return True
    return any(i.name.lower() in names for i in statement.find_all(exp.Identifier))


def columns_before_functions(
    statement: exp.Expr, columns: Mapping[str, Mapping[str, str]], schema: Schema
) -> None:
    """Replace, in place, each bare ``current_date`` (and the like) of ``statement`` that a
    source in its scope has a column for by that column. ``columns`` are the scanned views'
    columns, ``schema`` the same as sqlglot's schema."""
    bare = _bare(statement)
    if not bare or not _may_be_columns(statement, {_name(n) for n in bare}, columns):
        return
    for index, node in enumerate(bare):
        node.meta[_ID_KEY] = index
    try:
        tree = qualify(
            statement.copy(),
            dialect=DIALECT,
            schema=schema,
            validate_qualify_columns=False,
            quote_identifiers=False,
        )
        shadowed: set[int] = set()
        for scope in traverse_scope(tree):
            visible = {c.lower() for c in Resolver(scope, schema).all_columns}
            for node in walk_in_scope(scope.expression):
                found = node.meta.get(_ID_KEY)
                if found is not None and _name(node) in visible:
                    shadowed.add(found)
    except Exception as e:  # unbound, the words stay the functions sqlglot read
        log.debug("column lookup of bare functions skipped: %s", e)
        return
    for found in shadowed:
        node = bare[found]
        node.replace(exp.column(exp.to_identifier(_name(node), quoted=True)))
