"""Spark's array and map functions where DuckDB's answers differ.

Spark keeps NULL elements and the order of first appearance where DuckDB's list functions
drop NULLs or reorder (``array_distinct``, ``array_except``, ``array_remove``), answers NULL
rather than false when an array holding NULL lacks the value (``array_contains``), 0 rather
than NULL for a missing position, and NULL when a whole argument is NULL.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT size(a) FROM t")).sql("duckdb")
'SELECT COALESCE(CAST(LENGTH(a) AS INT), -1) FROM t'
>>> apply_spark_semantics(parse_one("SELECT array_distinct(a) FROM t")).sql("duckdb")
'SELECT LIST_FILTER(a, LAMBDA x, i : LIST_POSITION(a, x) = i) FROM t'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.dialect import FUNCTION_NAME
from icesql.sql.spark.base import TYPES_KEY, arg_data_type, arg_type, call, null_if_any_null, refuse

_X, _I = exp.to_identifier("x"), exp.to_identifier("i")


def _lambda(body: exp.Expr, *params: exp.Identifier) -> exp.Lambda:
    return exp.Lambda(this=body, expressions=list(params))


def _var(name: exp.Identifier) -> exp.Expr:
    return exp.column(name.copy())


def _found(array: exp.Expr, value: exp.Expr) -> exp.Expr:
    # list_position compares NOT DISTINCT: it finds a NULL element too
    return exp.Not(this=exp.Is(this=call("list_position", array, value), expression=exp.Null()))


def _distinct(array: exp.Expr) -> exp.Expr:
    """The first appearance of each element, in order, NULL included (Spark's array_distinct)."""
    first = exp.EQ(this=call("list_position", array.copy(), _var(_X)), expression=_var(_I))
    return call("list_filter", array, _lambda(first, _X, _I))


def _keep(array: exp.Expr, other: exp.Expr, present: bool) -> exp.Expr:
    """Distinct elements of ``array`` that are (or are not) in ``other``, NULL-safe."""
    test = _found(other.copy(), _var(_X))
    kept = call("list_filter", array.copy(), _lambda(test if present else exp.Not(this=test), _X))
    return null_if_any_null(_distinct(kept), array, other)


def _size(node: exp.ArraySize) -> exp.Expr:
    # Spark's size(NULL) is -1 (spark.sql.legacy.sizeOfNull defaults to true); array_size and
    # cardinality's spelling array_size(NULL) is NULL
    if arg_type(node) == exp.DataType.Type.MAP:
        length: exp.Expr = exp.func("cardinality", node.this)
    else:
        length = exp.func("len", node.this)
    length = exp.Cast(this=length, to=exp.DataType.build("INT"))
    if (node.meta.get(FUNCTION_NAME) or "").lower() == "array_size":
        return length
    return exp.func("coalesce", length, exp.Literal.number(-1))


def _cardinality(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 1:
        return node
    size = exp.ArraySize(this=node.expressions[0])
    operand = arg_data_type(node, "expressions", 0)
    size.meta[TYPES_KEY] = {"this": operand} if operand is not None else {}
    return _size(size)


def _array_contains(node: exp.ArrayContains) -> exp.Expr:
    array, value = node.this, node.expression
    has_null = exp.Not(
        this=exp.Is(this=call("list_position", array.copy(), exp.Null()), expression=exp.Null())
    )
    answer = exp.Case(
        ifs=[
            exp.If(this=call("list_contains", array.copy(), value.copy()), true=exp.true()),
            exp.If(this=has_null, true=exp.Null()),
        ],
        default=exp.false(),
    )
    return null_if_any_null(answer, array, value)


def _array_distinct(node: exp.ArrayDistinct) -> exp.Expr:
    return _distinct(node.this)


def _array_union(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 2:
        return node
    left, right = node.expressions
    return null_if_any_null(_distinct(call("list_concat", left.copy(), right.copy())), left, right)


def _array_except(node: exp.ArrayExcept) -> exp.Expr:
    return _keep(node.this, node.expression, present=False)


def _array_intersect(node: exp.ArrayIntersect) -> exp.Expr:
    if len(node.expressions) != 2:
        return node
    return _keep(node.expressions[0], node.expressions[1], present=True)


def _array_join(node: exp.ArrayToString) -> exp.Expr:
    # Spark skips NULL elements (or writes the replacement); DuckDB gives NULL for [NULL]
    array, separator = node.this, node.expression
    replacement = node.args.get("null")
    if replacement is None:
        elements = call(
            "list_filter",
            array,
            _lambda(exp.Not(this=exp.Is(this=_var(_X), expression=exp.Null())), _X),
        )
    else:
        text = exp.cast(_var(_X), "VARCHAR")
        elements = call(
            "list_transform", array, _lambda(exp.func("coalesce", text, replacement), _X)
        )
    return call("array_to_string", elements, separator)


def _array_position(node: exp.ArrayPosition) -> exp.Expr:
    array, value = node.this, node.expression
    position = exp.func(
        "coalesce", call("list_position", array.copy(), value.copy()), exp.Literal.number(0)
    )
    return null_if_any_null(exp.cast(position, "BIGINT"), array, value)


def _array_remove(node: exp.ArrayRemove) -> exp.Expr:
    array, value = node.this, node.expression
    keep = exp.or_(
        exp.Is(this=_var(_X), expression=exp.Null()),
        exp.NEQ(this=_var(_X), expression=value.copy()),
    )
    return null_if_any_null(call("list_filter", array.copy(), _lambda(keep, _X)), value)


def _array_repeat(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 2:
        return node
    value, count = node.expressions
    times = call("range", exp.func("greatest", count.copy(), exp.Literal.number(0)))
    return null_if_any_null(call("list_transform", times, _lambda(value, _X)), count)


def _arrays_zip(node: exp.ArraysZip) -> exp.Expr:
    # struct fields are named after the arrays' columns (else 0, 1, ...); a NULL array is NULL
    arrays = node.expressions
    names = [a.name if isinstance(a, exp.Column) else str(i) for i, a in enumerate(arrays)]
    if len(set(names)) != len(names):
        refuse("arrays_zip() of arrays with the same name", "DuckDB structs need distinct fields")
    longest = exp.func("greatest", *(call("len", a.copy()) for a in arrays))
    index = exp.Add(this=_var(_I), expression=exp.Literal.number(1))
    fields = [
        exp.PropertyEQ(
            this=exp.to_identifier(name), expression=call("list_extract", a.copy(), index.copy())
        )
        for name, a in zip(names, arrays)
    ]
    zipped = call(
        "list_transform", call("range", longest), _lambda(exp.Struct(expressions=fields), _I)
    )
    return null_if_any_null(zipped, *arrays)


def _flatten(node: exp.Flatten) -> exp.Expr:
    # NULL when the outer array or any inner array is NULL
    inner_null = exp.Not(
        this=exp.Is(this=call("list_position", node.this.copy(), exp.Null()), expression=exp.Null())
    )
    return exp.Case(ifs=[exp.If(this=inner_null, true=exp.Null())], default=node)


def _map_contains_key(node: exp.MapContainsKey) -> exp.Expr:
    mapping, key = node.this, node.args.get("key")
    if key is None:
        return node
    return null_if_any_null(
        call("list_contains", call("map_keys", mapping.copy()), key.copy()), mapping, key
    )


def _map_concat(node: exp.Anonymous) -> exp.Expr:
    return null_if_any_null(node.copy(), *node.expressions)


def _sequence(node: exp.GenerateSeries) -> exp.Expr:
    # without a step Spark counts down when start > stop; DuckDB returns an empty list
    start, stop = node.args.get("start"), node.args.get("end")
    if node.args.get("step") is not None or start is None or stop is None:
        return node
    down = exp.GT(this=start.copy(), expression=stop.copy())
    if arg_type(node, "start") == exp.DataType.Type.DATE:  # one day a step, a list of dates
        day = exp.Interval(this=exp.Literal.string("1"), unit=exp.var("DAY"))
        back = exp.Interval(this=exp.Literal.string("-1"), unit=exp.var("DAY"))
        step = exp.Case(ifs=[exp.If(this=down, true=back)], default=day)
        days = exp.GenerateSeries(
            start=exp.cast(start, "TIMESTAMP"), end=exp.cast(stop, "TIMESTAMP"), step=step
        )
        return exp.cast(days, "DATE[]")
    if arg_type(node, "start") not in (None, *exp.DataType.INTEGER_TYPES):
        return node
    step = exp.Case(
        ifs=[exp.If(this=down, true=exp.Literal.number(-1))], default=exp.Literal.number(1)
    )
    node.set("step", step)
    return node


def _get(node: exp.Anonymous) -> exp.Expr:
    # get(array, i): 0-based, NULL outside the array (DuckDB's negative indexes count back)
    if len(node.expressions) != 2:
        return node
    array, index = node.expressions
    inside = exp.GTE(this=index.copy(), expression=exp.Literal.number(0))
    element = call("list_extract", array, exp.Add(this=index, expression=exp.Literal.number(1)))
    return exp.Case(ifs=[exp.If(this=inside, true=element)])


def _any_element(results: exp.Expr, test: exp.Expr) -> exp.Expr:
    matching = call("list_filter", results.copy(), _lambda(test, _X))
    return exp.GT(this=call("len", matching), expression=exp.Literal.number(0))


def _lambda_test(node: exp.Expr, decisive: bool) -> exp.Expr:
    """exists (decisive true) / forall (decisive false) with Spark's three values: a decisive
    test result decides, else NULL if some test was NULL, else the other boolean."""
    array, test = node.this, node.expression
    results = call("list_transform", array.copy(), test)
    decides = exp.EQ(this=_var(_X), expression=exp.Boolean(this=decisive))
    unknown = exp.Is(this=_var(_X), expression=exp.Null())
    return exp.Case(
        ifs=[
            exp.If(this=exp.Is(this=array.copy(), expression=exp.Null()), true=exp.Null()),
            exp.If(this=_any_element(results, decides), true=exp.Boolean(this=decisive)),
            exp.If(this=_any_element(results, unknown), true=exp.Null()),
        ],
        default=exp.Boolean(this=not decisive),
    )


def _binds(node: exp.Expr, name: str) -> bool:
    return isinstance(node, exp.Lambda) and any(p.name.lower() == name for p in node.expressions)


def _index_from_zero(node: exp.Expr) -> exp.Expr:
    """transform / filter with an ``(x, i) -> ...`` lambda: Spark counts ``i`` from 0,
    DuckDB's list_transform / list_filter from 1, so each use of ``i`` in the body (outside a
    nested lambda that binds the name again) becomes ``i - 1``."""
    function = node.expression
    if not isinstance(function, exp.Lambda) or len(function.expressions) != 2:
        return node
    name = function.expressions[1].name.lower()
    uses = []
    stack: list[exp.Expr] = [function.this]
    while stack:
        current = stack.pop()
        if _binds(current, name):
            continue
        if isinstance(current, exp.Identifier):
            parent = current.parent
            bare = not isinstance(parent, (exp.Column, exp.Dot)) or (
                isinstance(parent, exp.Dot) and current.arg_key == "this"
            )
            if bare and current.name.lower() == name:
                uses.append(current)
            continue
        stack.extend(current.iter_expressions())
    for use in uses:
        use.replace(exp.Paren(this=exp.Sub(this=use.copy(), expression=exp.Literal.number(1))))
    return node


def _exists(node: exp.Exists) -> exp.Expr:
    return _lambda_test(node, True) if isinstance(node.expression, exp.Lambda) else node


def _forall(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 2 or not isinstance(node.expressions[1], exp.Lambda):
        return node
    return _lambda_test(exp.Exists(this=node.expressions[0], expression=node.expressions[1]), False)


RULES = {
    exp.ArraySize: _size,
    exp.ArrayContains: _array_contains,
    exp.ArrayDistinct: _array_distinct,
    exp.ArrayExcept: _array_except,
    exp.ArrayIntersect: _array_intersect,
    exp.ArrayToString: _array_join,
    exp.ArrayPosition: _array_position,
    exp.ArrayRemove: _array_remove,
    exp.ArraysZip: _arrays_zip,
    exp.Flatten: _flatten,
    exp.MapContainsKey: _map_contains_key,
    exp.GenerateSeries: _sequence,
    exp.Exists: _exists,
    exp.Transform: _index_from_zero,
    exp.ArrayFilter: _index_from_zero,
}
FUNCTIONS = {
    "cardinality": _cardinality,
    "array_union": _array_union,
    "array_repeat": _array_repeat,
    "map_concat": _map_concat,
    "get": _get,
    "forall": _forall,
}
TYPED = {exp.ArraySize, exp.GenerateSeries}
TYPED_FUNCTIONS = {"cardinality"}
