"""``spark.sql.groupByAliases = false``: GROUP BY names only the query's input columns.

With the setting true (Spark's default) a GROUP BY name that no input has may be a SELECT
alias; with it false Spark reports that name as unresolved. The query is qualified once more
without expanding alias references: a GROUP BY column left without a source that is a
SELECT alias of its SELECT is the name Spark cannot resolve. Only a session with the
setting false and a GROUP BY pays for it.

>>> import sqlglot
>>> q = sqlglot.parse_one("SELECT a + 1 AS k, count(*) FROM t GROUP BY k", read="spark")
>>> alias_references(q, {"t": ["a", "b"]})
['k']
>>> alias_references(q, {"t": ["a", "k"]})
[]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope
from sqlglot.schema import ensure_schema

from icesql.sql.dialect import DIALECT

__all__ = ["GROUP_BY_ALIASES", "alias_references"]

GROUP_BY_ALIASES = "spark.sql.groupByAliases"


def alias_references(statement: exp.Expr, columns: Mapping[str, Sequence[str]]) -> list[str]:
    """The GROUP BY names of ``statement`` that only a SELECT alias gives (``columns``: each
    source view's column names), in order."""
    if statement.find(exp.Group) is None:
        return []
    schema = ensure_schema(
        cast(
            dict[str, object], {v.lower(): dict.fromkeys(c, "STRING") for v, c in columns.items()}
        ),
        dialect=DIALECT,
    )
    try:
        tree = qualify(
            statement.copy(),
            dialect=DIALECT,
            schema=schema,
            expand_alias_refs=False,
            validate_qualify_columns=False,
            quote_identifiers=False,
        )
        scopes = traverse_scope(tree)
    except Exception:  # what cannot be qualified is left to DuckDB's binder
        return []
    found: dict[str, None] = {}
    for scope in scopes:
        select = scope.expression
        group = select.args.get("group") if isinstance(select, exp.Select) else None
        if group is None:
            continue
        aliases = {e.alias.lower() for e in select.expressions if isinstance(e, exp.Alias)}
        for column in group.find_all(exp.Column):
            if not column.table and column.name.lower() in aliases:
                found[column.name] = None
    return list(found)
