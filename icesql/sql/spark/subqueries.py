"""Spark's ``x IN (subquery)`` where ``x`` is NULL, as Spark 3.5 answers it.

SQL says ``NULL IN (an empty subquery)`` is false. Spark 3.5 says so only where it rewrites
the predicate into a join (a WHERE, a select item). In a join's ON condition, which is
evaluated as written, a NULL value answers NULL even against an empty subquery (with the
setting below false, Spark answers false there when its optimizer proves the subquery
empty: icesql refuses that case). And by
default (``spark.sql.legacy.nullInEmptyListBehavior = true``) a NULL literal is folded to
NULL (``NullPropagation``) whatever the subquery holds; with the setting false it is false
against an empty one, as in DuckDB. DuckDB answers false in all these places. The binder
marks each ``IN (subquery)`` with the session's value of the setting (``mark_in_subqueries``).

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT NULL IN (SELECT e FROM t)")).sql("duckdb")
'SELECT CAST(NULL AS BOOLEAN)'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.spark.base import refuse

NULL_IN_EMPTY_LIST = "spark.sql.legacy.nullInEmptyListBehavior"
_FOLD_NULL_KEY = "icesql_fold_null_in"


def mark_in_subqueries(statement: exp.Expr, legacy: bool) -> None:
    """Record on each ``IN (subquery)`` of ``statement`` whether a NULL literal tested is
    folded to NULL (``legacy``: the setting's value)."""
    for node in statement.find_all(exp.In):
        if node.args.get("query") is not None:
            node.meta[_FOLD_NULL_KEY] = legacy


def _null_literal(node: exp.Expr) -> bool:
    while isinstance(node, (exp.Cast, exp.Paren)):
        node = node.this
    return isinstance(node, exp.Null)


def _in_join_condition(node: exp.Expr) -> bool:
    """Whether ``node`` is part of a join's ON condition (of its own query, not a nested
    one's)."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (exp.Subquery, exp.Select)):
        if isinstance(parent, exp.Join) and child.arg_key == "on":
            return True
        child, parent = parent, parent.parent
    return False


def _in_subquery(node: exp.In) -> exp.Expr:
    if node.args.get("query") is None:
        return node
    value = node.this
    legacy = node.meta.get(_FOLD_NULL_KEY, True)
    if _null_literal(value) and legacy:
        return exp.cast(exp.Null(), "BOOLEAN")
    if isinstance(value, exp.Tuple) or not _in_join_condition(node):
        return node
    if not legacy:
        refuse(
            f"IN (subquery) in a join's ON condition with {NULL_IN_EMPTY_LIST} = false",
            "Spark answers a NULL value there by whether its optimizer proves the subquery"
            " empty (false) or not (NULL)",
        )
    null = exp.Is(this=value.copy(), expression=exp.Null())
    return exp.Case(ifs=[exp.If(this=null, true=exp.cast(exp.Null(), "BOOLEAN"))], default=node)


RULES = {exp.In: _in_subquery}
FUNCTIONS: dict = {}
TYPED: set = set()
TYPED_FUNCTIONS: set[str] = set()
