"""Which columns of each scanned table a query uses, so scans read only those.

sqlglot's qualifier resolves every column to its source with the tables' schemas; anything
it cannot resolve makes us give up and read every column, which costs speed, never rows.
"""

from __future__ import annotations

import logging

from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope

log = logging.getLogger(__name__)


def used_columns(
    statement: exp.Expr, schemas: dict[str, list[str]], dialect: object
) -> dict[str, set[str]] | None:
    """Per view name, the lower-cased top-level columns the statement reads; None if unsure.

    ``schemas`` maps each registered view name to its column names.
    """
    views = {name.lower() for name in schemas}
    try:
        qualified = qualify(
            statement.copy(),
            dialect=dialect,
            schema={name: {c: "INT" for c in cols} for name, cols in schemas.items()},
            validate_qualify_columns=True,
            expand_stars=True,
            quote_identifiers=False,
        )
        used: dict[str, set[str]] = {name.lower(): set() for name in schemas}
        for scope in traverse_scope(qualified):
            for column in scope.columns:
                source = scope.sources.get(column.table)
                if isinstance(source, exp.Table) and source.name.lower() in views:
                    used[source.name.lower()].add(column.name.lower())
                elif not column.table:
                    return None
            for star in scope.stars:
                table = star.table if isinstance(star, exp.Column) else None
                source = scope.sources.get(table) if table else None
                if isinstance(source, exp.Table) and source.name.lower() in views:
                    used[source.name.lower()].update(c.lower() for c in schemas[source.name])
                else:
                    return None
        return used
    except Exception as e:  # noqa: BLE001 - any failure only means "read all columns"
        log.debug("column pruning skipped: %s", e)
        return None
