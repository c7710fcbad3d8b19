"""Spark's grouping analytics (``GROUPING SETS``, ``CUBE``, ``ROLLUP``) as DuckDB reads them.

Spark resolves the grouping expressions of all the sets together: ``b + a`` and ``a + b``
are one expression (Spark compares them canonicalized: operands of ``+``, ``*``, ``AND``,
``OR``, ``=`` in any order), so a select item ``a + b`` shows the value of a set that
groups by ``b + a``; DuckDB compares them as written and answers NULL there. A number in
a grouping set is a position in the select list (``spark.sql.groupByOrdinal``), where
DuckDB's ``GROUPING SETS`` take it as a constant. And ``GROUP BY a, b WITH ROLLUP`` (or
``WITH CUBE``) is ``ROLLUP (a, b)``, which DuckDB spells only that way.

This runs on the parsed statement, before binding, so that what it writes is typed and
rewritten like the rest of the query.

>>> from icesql.sql.dialect import parse_one
>>> tree = parse_one("SELECT a + b FROM t GROUP BY GROUPING SETS ((a + b), (b + a), (1))")
>>> resolve_grouping_sets(tree).sql("duckdb")
'SELECT a + b FROM t GROUP BY GROUPING SETS ((a + b), (a + b), (a + b))'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.errors import ProgrammingError

__all__ = ["canonical_key", "resolve_grouping_sets"]

_SETS = (exp.GroupingSets, exp.Cube, exp.Rollup, exp.Tuple)
_COMMUTATIVE = (exp.Add, exp.Mul, exp.And, exp.Or, exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor)
_SYMMETRIC = (exp.EQ, exp.NEQ, exp.NullSafeEQ)
_MIRRORED: dict[type, type] = {exp.GT: exp.LT, exp.GTE: exp.LTE}


def _operands(node: exp.Expr, kind: type) -> list[exp.Expr]:
    """The operands of a chain of one commutative operator, parentheses seen through."""
    while isinstance(node, exp.Paren):
        node = node.this
    if type(node) is not kind:
        return [node]
    return [*_operands(node.this, kind), *_operands(node.expression, kind)]


def canonical_key(node: exp.Expr) -> str:
    """A text equal for two expressions Spark's canonical forms make equal: parentheses and
    the case of names dropped, commutative operands sorted, ``a > b`` read as ``b < a``."""
    while isinstance(node, exp.Paren):
        node = node.this
    kind = type(node)
    if isinstance(node, _COMMUTATIVE):
        keys = sorted(canonical_key(o) for o in _operands(node, kind))
        return f"{kind.__name__}({','.join(keys)})"
    if isinstance(node, _SYMMETRIC):
        keys = sorted((canonical_key(node.this), canonical_key(node.expression)))
        return f"{kind.__name__}({','.join(keys)})"
    if kind in _MIRRORED:
        mirrored = _MIRRORED[kind]
        return f"{mirrored.__name__}({canonical_key(node.expression)},{canonical_key(node.this)})"
    if kind in _MIRRORED.values():
        return f"{kind.__name__}({canonical_key(node.this)},{canonical_key(node.expression)})"
    if isinstance(node, exp.Identifier):
        return node.name.lower()  # names resolve case-insensitively
    parts = []
    for key, value in node.args.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, exp.Expr):
                parts.append(f"{key}={canonical_key(item)}")
            elif item is not None and item is not False:
                parts.append(f"{key}={str(item).lower()}")
    return f"{kind.__name__}({','.join(parts)})"


def _leaves(node: exp.Expr) -> list[exp.Expr]:
    """The grouping expressions inside a set, a cube, a rollup (a ``(x)`` set is ``x``)."""
    if isinstance(node, _SETS):
        return [leaf for child in node.expressions for leaf in _leaves(child)]
    if isinstance(node, exp.Paren) and isinstance(node.parent, _SETS):
        return _leaves(node.this)
    return [node]


def _select_item(select: exp.Select, position: int) -> exp.Expr:
    items = select.expressions
    if not 1 <= position <= len(items):
        raise ProgrammingError(
            f"GROUP BY position {position} is not in select list (valid range is [1, {len(items)}])"
        )
    item = items[position - 1]
    item = item.this if isinstance(item, exp.Alias) else item
    if isinstance(item, exp.Star) or item.find(exp.AggFunc) is not None:
        raise ProgrammingError(f"GROUP BY position {position} is an aggregate function or a *")
    return item.copy()


def _with_rollup(group: exp.Group) -> None:
    """``GROUP BY a, b WITH ROLLUP`` / ``WITH CUBE`` as ``ROLLUP (a, b)`` / ``CUBE (a, b)``."""
    for key, kind in (("rollup", exp.Rollup), ("cube", exp.Cube)):
        marks = group.args.get(key) or []
        if any(not m.expressions for m in marks):
            group.set(key, None)
            group.set("expressions", [kind(expressions=list(group.expressions))])


def _resolve_group(select: exp.Select, group: exp.Group) -> None:
    _with_rollup(group)
    analytic = [
        e for e in group.expressions if isinstance(e, (exp.GroupingSets, exp.Cube, exp.Rollup))
    ]
    if not analytic:
        return
    first: dict[str, exp.Expr] = {}
    for item in group.expressions:
        for leaf in _leaves(item):
            if isinstance(leaf, exp.Literal) and leaf.is_int and any(item is a for a in analytic):
                leaf = leaf.replace(_select_item(select, int(leaf.this)))
            key = canonical_key(leaf)
            seen = first.setdefault(key, leaf)
            if seen is not leaf and seen.sql() != leaf.sql():
                leaf.replace(seen.copy())


def resolve_grouping_sets(statement: exp.Expr) -> exp.Expr:
    """``statement`` with each query's grouping sets as Spark resolves them (module
    docstring), changed in place."""
    for group in list(statement.find_all(exp.Group)):
        select = group.parent
        if isinstance(select, exp.Select):
            _resolve_group(select, group)
    return statement
