"""Which columns of each scanned table a query uses, so scans read only those.

Read from the scopes of the query's qualified tree (``icesql.sql.bound_query``), where every
column names its source; anything not resolved to a source makes us give up and read every
column, which costs speed, never rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sqlglot import exp
from sqlglot.optimizer.scope import Scope


def used_columns(
    scopes: Sequence[Scope], columns: Mapping[str, Iterable[str]]
) -> dict[str, set[str]] | None:
    """Per view name (lower-case), the lower-cased top-level columns the query reads; None if
    unsure. ``scopes`` are those of the qualified tree with its stars expanded; ``columns``
    maps each scanned view name (lower-case) to its column names."""
    used: dict[str, set[str]] = {name: set() for name in columns}
    for scope in scopes:
        for named in scope.sources.values():
            if isinstance(named, exp.Table) and named.args.get("pivots"):
                # a PIVOT groups by every column it does not name; an UNPIVOT keeps them
                name = named.name.lower()
                if name in used:
                    used[name].update(c.lower() for c in columns[name])
        for column in scope.columns:
            source = scope.sources.get(column.table)
            if isinstance(source, exp.Table) and source.args.get("pivots"):
                continue  # a column of the pivot's output, its source read whole above
            if isinstance(source, exp.Table) and source.name.lower() in used:
                used[source.name.lower()].add(column.name.lower())
            elif not column.table:
                return None
        for star in scope.stars:
            table = star.table if isinstance(star, exp.Column) else None
            source = scope.sources.get(table) if table else None
            if isinstance(source, exp.Table) and source.name.lower() in used:
                used[source.name.lower()].update(c.lower() for c in columns[source.name.lower()])
            else:
                return None
    return used
