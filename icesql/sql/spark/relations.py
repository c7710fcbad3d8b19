"""Spark's table-valued functions and generators where DuckDB's differ.

Generators (``explode``, ``posexplode``, ``inline`` and their ``_outer`` forms) become DuckDB
``UNNEST``s: in a ``LATERAL VIEW`` a lateral subquery (``LEFT JOIN ... ON TRUE`` for OUTER,
which keeps a row of NULLs for an empty or NULL collection), in a select list an ``UNNEST``
named as Spark names the generated columns (``col``; ``key``, ``value`` for a map).

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT id FROM range(3)")).sql("duckdb")
'SELECT id FROM (SELECT range AS id FROM RANGE(3))'
"""

from __future__ import annotations

import decimal

from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.spark.base import arg_type, call, refuse


def _range_table(node: exp.Table) -> exp.Expr:
    # Spark's range(...) table names its column `id`; DuckDB's names it `range` and has no
    # fourth (numPartitions) argument, which only tells Spark how to split the work
    call = node.this
    if not isinstance(call, exp.Anonymous) or call.name.lower() != "range":
        return node
    args = [_range_argument(arg) for arg in call.expressions]
    if not 1 <= len(args) <= 4:
        return node
    if len(args) == 4 and args[3].is_int and args[3].to_py() <= 0:
        raise ProgrammingError("range(): positive number of partitions required")
    rows = exp.select(exp.alias_(exp.column("range"), "id")).from_(
        exp.Table(this=exp.Anonymous(this="range", expressions=args[:3]))
    )
    return exp.Subquery(this=rows, alias=node.args.get("alias"))


def _range_argument(arg: exp.Expr) -> exp.Expr:
    # Spark casts range()'s arguments to BIGINT, truncating a fraction; NULL is an error
    if isinstance(arg, exp.Null):
        raise ProgrammingError("range() requires BIGINT arguments, got NULL")
    number = arg.this if isinstance(arg, exp.Neg) else arg
    if isinstance(number, exp.Literal) and number.is_number and not number.is_int:
        value = int(decimal.Decimal(number.this))
        return exp.Literal.number(-value if number is not arg else value)
    return arg


_MAP = exp.DataType.Type.MAP


def _unnest(value: exp.Expr, expand_structs: bool) -> exp.Expr:
    args = [value]
    if expand_structs:  # a list of structs (a map's entries) becomes a column per field
        args.append(exp.PropertyEQ(this=exp.to_identifier("recursive"), expression=exp.true()))
    return call("unnest", *args)


def _elements(generator: exp.Expr, is_map: bool, outer: bool) -> exp.Expr:
    """What to unnest: the array, a map's key/value entries; for the _outer forms a single
    NULL element when the collection is empty or NULL."""
    collection = generator.this
    elements = call("map_entries", collection.copy()) if is_map else collection.copy()
    if not outer:
        return elements
    size = call("cardinality" if is_map else "len", collection.copy())
    return exp.Case(
        ifs=[exp.If(this=exp.GT(this=size, expression=exp.Literal.number(0)), true=elements)],
        default=exp.Array(expressions=[exp.Null()]),
    )


def _is_map(generator: exp.Expr, columns: int) -> bool:
    if arg_type(generator) is not None:
        return arg_type(generator) == _MAP
    return columns == (3 if isinstance(generator, exp.Posexplode) else 2)  # as aliased


def _lateral_view(node: exp.Lateral) -> exp.Expr:
    """LATERAL VIEW [OUTER] gen(...) t AS c1, ...: a lateral subquery of UNNESTs, LEFT JOINed
    ON TRUE for OUTER (an empty or NULL collection keeps its row, with NULLs)."""
    generator = node.this
    if not node.args.get("view") or not isinstance(
        generator, (exp.Explode, exp.Posexplode, exp.Inline)
    ):
        return node
    alias = node.args.get("alias")
    columns = list(alias.columns) if alias is not None else []
    is_map = _is_map(generator, len(columns))
    values = [
        _unnest(
            _elements(generator, is_map, outer=False),
            expand_structs=is_map or isinstance(generator, exp.Inline),
        )
    ]
    defaults = ["key", "value"] if is_map else ["col"]
    if isinstance(generator, exp.Posexplode):
        size = exp.cast(call("cardinality" if is_map else "len", generator.this.copy()), "BIGINT")
        values.insert(0, call("unnest", call("range", size)))
        defaults.insert(0, "pos")
    elif isinstance(generator, exp.Inline):
        defaults = []  # the struct's field names
    names = columns or [exp.to_identifier(n) for n in defaults]
    table = exp.Lateral(
        this=exp.Subquery(this=exp.select(*values)),
        alias=exp.TableAlias(this=alias.this if alias is not None else None, columns=names),
    )
    outer = node.args.get("outer") or isinstance(
        generator, (exp._ExplodeOuter, exp.PosexplodeOuter)
    )
    if outer:
        return exp.Join(this=table, side="LEFT", on=exp.true())
    return exp.Join(this=table, kind="CROSS")


def _select_item_generator(node: exp.Expr) -> exp.Expr:
    """A generator in a select list: one UNNEST, named as Spark names its columns."""
    aliased = isinstance(node.parent, exp.Alias)
    owner = node.parent.parent if isinstance(node.parent, exp.Alias) else node.parent
    if not isinstance(owner, exp.Select):
        return node
    if isinstance(node, exp.PosexplodeOuter):
        refuse("posexplode_outer() in a select list", "use LATERAL VIEW OUTER posexplode(...)")
    if isinstance(node, exp.Posexplode):
        return node  # sqlglot writes its pos and col
    inline = isinstance(node, exp.Inline) or isinstance(node, exp.Anonymous)
    is_map = not inline and arg_type(node) == _MAP
    outer = isinstance(node, exp._ExplodeOuter) or isinstance(node, exp.Anonymous)
    if isinstance(node, exp.Anonymous):  # inline_outer(array)
        node = exp.Inline(this=node.expressions[0])
    value = _unnest(_elements(node, is_map, outer), expand_structs=is_map or inline)
    return value if is_map or inline or aliased else exp.alias_(value, "col")


def _cross_join_on(node: exp.Join) -> exp.Expr:
    """``CROSS JOIN t ON c`` (or ``USING``) is Spark's inner join on ``c`` (``AstBuilder``
    keeps the condition of a Cross join); DuckDB's parser rejects it."""
    if str(node.args.get("kind") or "").upper() == "CROSS" and (
        node.args.get("on") is not None or node.args.get("using")
    ):
        node.set("kind", None)
    return node


RULES = {
    exp.Join: _cross_join_on,
    exp.Table: _range_table,
    exp.Lateral: _lateral_view,
    exp.Explode: _select_item_generator,
    exp.Posexplode: _select_item_generator,
    exp.Inline: _select_item_generator,
}
FUNCTIONS = {
    "inline_outer": _select_item_generator,
}
TYPED = {exp.Explode, exp.Posexplode, exp.Inline}
TYPED_FUNCTIONS: set[str] = set()
