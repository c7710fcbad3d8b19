"""Spark's semantics where sqlglot's DuckDB output would silently answer differently.

Each rule is a pure rewrite of one node kind, kept by area in ``icesql.sql.spark``. Rules
that depend on an argument's type (a cast of a DOUBLE to INT truncates in Spark but rounds in
DuckDB) read the types that the binding pass (``icesql.sql.bound_query``) found on its qualified,
type-annotated copy of the statement and recorded here (``record_operand_types``).

>>> from icesql.sql.dialect import parse_one
>>> apply_spark_semantics(parse_one("SELECT dayofweek(d) FROM t")).sql("duckdb")
'SELECT (DAYOFWEEK(CAST(d AS DATE)) + 1) FROM t'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.spark import (
    aggregates,
    arrays,
    binary,
    casts,
    comparisons,
    datetimes,
    geo,
    interval_arithmetic,
    interval_literals,
    literals,
    numbers,
    overflow,
    percentiles,
    pivots,
    relations,
    subqueries,
    text,
    try_arithmetic,
    variants,
)
from icesql.sql.spark.base import TYPES_KEY, Rule, arg_key

_AREAS = (
    try_arithmetic,  # first: it types a try_ function's operands before the others
    literals,
    interval_literals,
    interval_arithmetic,
    casts,
    variants,
    numbers,
    text,
    binary,
    datetimes,
    comparisons,
    arrays,
    aggregates,
    percentiles,
    relations,
    subqueries,
    pivots,
    geo,
    overflow,
)
RULES: dict[type, list[Rule]] = {}
for _area in _AREAS:
    for _cls, _rule_of_area in _area.RULES.items():
        RULES.setdefault(_cls, []).append(_rule_of_area)
FUNCTIONS: dict[str, Rule] = {
    name: rule for area in _AREAS for name, rule in area.FUNCTIONS.items()
}
_TYPED_FUNCTIONS = {name for area in _AREAS for name in area.TYPED_FUNCTIONS}
_ID_KEY = "icesql_node"


def _never(node: exp.Expr) -> bool:
    return False


def _needs_types(node: exp.Expr, decimals: bool = True, nanos: bool = True) -> bool:
    """Whether a rule reads the types of ``node``'s arguments. Without ``decimals``, an area's
    ``DECIMAL_ONLY`` nodes (sum, avg, decimal arithmetic: rules for DECIMAL operands alone)
    need none from it, though another area's rule may still want them (date + interval);
    without ``nanos``, likewise its ``NANOS_ONLY`` nodes (comparisons)."""
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower() in _TYPED_FUNCTIONS
    for area in _AREAS:
        if not isinstance(node, tuple(area.TYPED)):
            continue
        if (
            not decimals
            and isinstance(node, tuple(getattr(area, "DECIMAL_ONLY", ())))
            and not getattr(area, "typed_without_decimals", _never)(node)
        ):
            continue
        if not nanos and isinstance(node, tuple(getattr(area, "NANOS_ONLY", ()))):
            continue
        if getattr(area, "needs_types", bool)(node):
            return True
    return False


def typed_nodes(statement: exp.Expr, decimals: bool = True, nanos: bool = True) -> list[exp.Expr]:
    """The nodes of ``statement`` whose rules read their arguments' types, each numbered in its
    ``meta`` so that a qualified copy (``icesql.sql.bound_query``) can find it again. Without
    ``decimals`` (no DECIMAL can reach the query) the rules for decimals alone need none, and
    without ``nanos`` (no nanosecond timestamp) those for comparisons: annotating types costs
    about as much as qualifying, so a plain ``sum(x)`` or ``x > 5`` does not pay it."""
    nodes = [n for n in statement.walk() if _needs_types(n, decimals, nanos)]
    for i, node in enumerate(nodes):
        node.meta[_ID_KEY] = i
    return nodes


def record_operand_types(typed: exp.Expr, nodes: list[exp.Expr]) -> None:
    """Record on each of ``nodes`` (from ``typed_nodes``) the types of its direct arguments,
    read from ``typed``: a type-annotated copy of the statement the nodes belong to."""
    for node in typed.walk():
        index = node.meta.get(_ID_KEY)
        if index is None or index >= len(nodes) or not _needs_types(node):
            continue
        found = {}
        for key, value in node.args.items():
            values = value if isinstance(value, list) else [value]
            for i, child in enumerate(values):
                child_type = child.type if isinstance(child, exp.Expr) else None
                if child_type is not None and child_type.this != exp.DataType.Type.UNKNOWN:
                    found[arg_key(key, i if isinstance(value, list) else None)] = child_type
        nodes[index].meta[TYPES_KEY] = found


def _rule(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.Anonymous):
        rule = FUNCTIONS.get(str(node.this).lower())
        return rule(node) if rule is not None else node
    for cls in type(node).__mro__:  # TryCast is a Cast
        for rule in RULES.get(cls, ()):
            new = rule(node)
            if new is not node:
                return new  # a rule that replaced the node is the last one for it
    return node


def apply_spark_semantics(statement: exp.Expr) -> exp.Expr:
    """A copy of ``statement`` rewritten so DuckDB computes what Spark would.

    Bottom-up, so a rule that wraps its node (``dayofweek(x) + 1``) never hides the
    node's arguments from their own rules.
    """
    tree = statement.copy()
    for node in reversed(list(tree.dfs())):
        parent, key, index = node.parent, node.arg_key, node.index
        new = _rule(node)
        if new is node:
            continue
        if parent is None:
            tree = new
        else:
            assert key is not None  # a node with a parent has its key there
            parent.set(key, new, index)
    return tree
