"""Spark's PIVOT and UNPIVOT where DuckDB's answer differently.

* A PIVOT whose aggregates all have numeric or boolean results runs as Spark's two-step plan
  (``ResolvePivot`` with ``PivotFirst``): a group with no row for a value has NULL there in
  every aggregate, where DuckDB fills in the aggregate of no rows, 0 for a count. A count
  there becomes a sum of ones, NULL over no rows and the count over some. (With another
  result type Spark aggregates ``if(value matches, x, null)``: a count of no rows is 0, as in
  DuckDB.)
* An UNPIVOT of several value columns drops, unless told to keep NULLs, the rows whose values
  are all NULL (Spark's ``Filter(IsNotNull(Coalesce(values)))``); DuckDB drops those with any
  NULL, so it keeps them all and the filter is Spark's.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> sql = "SELECT * FROM t UNPIVOT ((a, b) FOR k IN ((x, y), (z, w)))"
>>> apply_spark_semantics(parse_one(sql)).sql("duckdb")
'SELECT * FROM (SELECT * FROM t UNPIVOT INCLUDE NULLS ((a, b) FOR k IN ((x, y), (z, w))) WHERE NOT COALESCE(a, b) IS NULL) AS t'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.spark.base import FRACTIONAL, INTEGRAL, T, arg_type, call, refuse

_PIVOT_FIRST = INTEGRAL | FRACTIONAL | {T.BOOLEAN, T.SMALLINT, T.TINYINT}
_COUNTS = (exp.Count, exp.CountIf)
_WHY = "Spark answers NULL for a group without rows for a value, DuckDB 0"


def _counts(node: exp.Pivot) -> list[exp.Expr]:
    return [c for agg in node.expressions for c in agg.find_all(*_COUNTS)]


def needs_types(node: exp.Expr) -> bool:
    return isinstance(node, exp.Pivot) and not node.args.get("unpivot") and bool(_counts(node))


def _ones(count: exp.Expr) -> exp.Expr:
    """A count as a sum of ones (a distinct count as the length of a list of distinct
    values): NULL over no rows, as Spark's pivot has it."""
    if isinstance(count, exp.CountIf):
        condition: exp.Expr = count.this
    else:
        args = count.expressions if isinstance(count.this, exp.Star) else [count.this]
        args = [a for a in args if not isinstance(a, exp.Star)]
        if len(args) == 1 and isinstance(args[0], exp.Distinct):
            if len(args[0].expressions) != 1:
                refuse("count(DISTINCT ...) of several columns in a PIVOT", _WHY)
            value = args[0].expressions[0].copy()
            distinct = call("len", call("list_distinct", call("list", value)))
            return exp.cast(distinct, "BIGINT")  # the list of no rows is NULL too
        nulls = [exp.Not(this=exp.Is(this=a.copy(), expression=exp.null())) for a in args]
        condition = exp.and_(*nulls) if nulls else exp.true()
    one = exp.If(this=condition, true=exp.Literal.number(1), false=exp.Literal.number(0))
    return exp.cast(exp.Sum(this=exp.Case(ifs=[one], default=None)), "BIGINT")


def _pivot(node: exp.Pivot) -> exp.Expr:
    counts = _counts(node)
    if node.args.get("unpivot") or not counts:
        return node
    kinds = [arg_type(node, "expressions", i) for i in range(len(node.expressions))]
    if any(kind is None for kind in kinds):
        refuse("a count in a PIVOT whose aggregates' types are unknown", _WHY)
    if not all(kind in _PIVOT_FIRST for kind in kinds):
        return node  # Spark's if(...) plan: a count of no rows is 0, as in DuckDB
    for count in counts:
        count.replace(_ones(count))
    return node


def _unpivot_nulls(node: exp.Expr) -> exp.Expr:
    """``R UNPIVOT ((a, b) ...)`` without INCLUDE NULLS: keep a row unless a and b are NULL."""
    pivots = node.args.get("pivots") or []
    unpivot = pivots[-1] if pivots else None
    if unpivot is None or not unpivot.args.get("unpivot") or unpivot.args.get("include_nulls"):
        return node
    (values,) = unpivot.expressions or [None]
    if not isinstance(values, exp.Tuple) or len(values.expressions) < 2:
        return node  # one value column: DuckDB drops its NULLs, as Spark does
    if any(p.args.get("unpivot") for p in pivots[:-1]):
        refuse("two UNPIVOTs of one relation", "Spark's grammar has one")
    alias = unpivot.args.get("alias") or exp.TableAlias(
        this=exp.to_identifier(node.alias_or_name or "__icesql_unpivot")
    )
    relation = node.copy()
    kept = relation.args["pivots"][-1]
    kept.set("include_nulls", True)
    kept.set("alias", None)
    names = [exp.column(v.name, quoted=v.quoted) for v in values.expressions]
    where = exp.Not(
        this=exp.Is(this=exp.Coalesce(this=names[0], expressions=names[1:]), expression=exp.null())
    )
    select = exp.Select(expressions=[exp.Star()], from_=exp.From(this=relation)).where(where)
    return exp.Subquery(this=select, alias=alias)


RULES = {
    exp.Pivot: _pivot,
    exp.Table: _unpivot_nulls,
    exp.Subquery: _unpivot_nulls,
    exp.Values: _unpivot_nulls,
}
FUNCTIONS: dict = {}
TYPED = {exp.Pivot}
TYPED_FUNCTIONS: set[str] = set()
