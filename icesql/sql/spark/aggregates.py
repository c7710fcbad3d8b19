"""Spark's aggregate and window functions where DuckDB's answers differ.

``percentile_approx`` returns a value of the column (the smallest one with at least the given
fraction of values at or below it), which is DuckDB's ``quantile_disc`` (exact, so within
Spark's approximation for any accuracy, and equal to Spark's answer whenever Spark keeps every
value, as it does below its accuracy); ``percentile`` interpolates: ``quantile_cont``.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT percentile_approx(x, 0.5) FROM t")).sql("duckdb")
'SELECT QUANTILE_DISC(x, 0.5) FROM t'
"""

from __future__ import annotations

import decimal

from sqlglot import exp

from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    TimestampType,
    TimestamptzType,
    UnknownType,
)
from icesql.sql.dialect import FUNCTION_ARGS
from icesql.sql.spark.base import arg_data_type, call, literal_int, refuse
from icesql.sql.spark_type_names import SMALLINT, TINYINT, spark_primitive_name


def _approx_percentile(node: exp.ApproxQuantile) -> exp.Expr:
    return call("quantile_disc", node.this, node.args["quantile"])


def _percentile(node: exp.Quantile) -> exp.Expr:
    written = node.meta.get(FUNCTION_ARGS) or []
    if len(written) > 2 and literal_int(written[2]) != 1:
        refuse("percentile() with a frequency", "DuckDB's quantile_cont takes no weights")
    return call("quantile_cont", node.this, node.args["quantile"])


def _in_window(node: exp.Expr) -> bool:
    return isinstance(node.parent, exp.Window)


def _ignore_nulls(node: exp.IgnoreNulls) -> exp.Expr:
    """first(x, true) / last(x, true): over a window DuckDB's first_value(x IGNORE NULLS); as
    an aggregate the first or last non-NULL value, FILTER (WHERE x IS NOT NULL)."""
    inner = node.this
    if _in_window(node):
        kinds = {exp.First: exp.FirstValue, exp.Last: exp.LastValue}
        for spark_kind, duck_kind in kinds.items():
            if type(inner) is spark_kind:
                node.set("this", duck_kind(this=inner.this))
        return node
    kinds = {exp.First: "first", exp.FirstValue: "first", exp.Last: "last", exp.LastValue: "last"}
    name = kinds.get(type(inner))
    if name is None:
        return node
    value = inner.this
    not_null = exp.Where(this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())))
    return exp.Filter(this=call(name, value), expression=not_null)


def _first_last_window(node: exp.Expr) -> exp.Expr:
    # first(x) OVER (...) is first_value in Spark; DuckDB has no first() window function
    if not _in_window(node):
        return node
    return (exp.FirstValue if isinstance(node, exp.First) else exp.LastValue)(this=node.this)


def _bool_or(node: exp.Expr) -> exp.Expr:
    operand = node.expressions[0] if isinstance(node, exp.Anonymous) else node.this
    while isinstance(operand, exp.Paren):
        operand = operand.this
    return exp.LogicalOr(this=operand)


def _every(node: exp.Anonymous) -> exp.Expr:
    return exp.LogicalAnd(this=node.expressions[0]) if len(node.expressions) == 1 else node


def _some(node: exp.Anonymous) -> exp.Expr:
    return _bool_or(node) if len(node.expressions) == 1 else node


def _any(node: exp.Any) -> exp.Expr:
    # any(x) of booleans, not the ANY (subquery) predicate
    return node if node.find(exp.Select) else _bool_or(node)


def _moment_answer(node: exp.Expr, value: exp.Expr, answer: exp.Expr) -> exp.Expr:
    # Spark 3.5 answers NULL when the variance is 0 (one row, a constant column)
    constant = exp.EQ(this=exp.func("var_pop", value.copy()), expression=exp.Literal.number(0))
    return exp.Case(ifs=[exp.If(this=constant, true=exp.Null())], default=answer)


def _skewness(node: exp.Skewness) -> exp.Expr:
    """Spark's population skewness from DuckDB's sample one, * (n-2) / sqrt(n(n-1)); 0 for two
    distinct values (the third moment of ±h is 0), which DuckDB leaves NULL."""
    value = node.this
    n = exp.Count(this=value.copy())
    minus = lambda k: exp.Paren(this=exp.Sub(this=n.copy(), expression=exp.Literal.number(k)))  # noqa: E731
    scale = exp.Div(this=minus(2), expression=exp.func("sqrt", exp.Mul(this=n.copy(), expression=minus(1))))
    two = exp.EQ(this=n.copy(), expression=exp.Literal.number(2))
    answer = exp.Case(ifs=[exp.If(this=two, true=exp.cast(exp.Literal.number(0), "DOUBLE"))],
                      default=exp.Mul(this=node, expression=exp.Paren(this=scale)))
    return _moment_answer(node, value, answer)


def _kurtosis(node: exp.Kurtosis) -> exp.Expr:
    # Spark's kurtosis is the population excess kurtosis: DuckDB's kurtosis_pop
    return _moment_answer(node, node.this, call("kurtosis_pop", node.this.copy()))


def _typeof(node: exp.Typeof) -> exp.Expr:
    """Spark's type name of the argument, from the statement's inferred types."""
    operand = node.this
    if isinstance(operand, exp.Literal) and operand.is_number and "." in operand.this \
            and "e" not in operand.this.lower():  # 1.5 is a DECIMAL literal in Spark
        _, digits, exponent = decimal.Decimal(operand.this).as_tuple()
        return exp.Literal.string(f"decimal({max(len(digits), -exponent)},{-exponent})")
    found = arg_data_type(node)
    if found is None:
        refuse("typeof() of an expression of unknown type", "Spark's type names need the type")
    return exp.Literal.string(spark_type_name(found))


_T = exp.DataType.Type
_SMALL_INTS = {_T.TINYINT: TINYINT, _T.SMALLINT: SMALLINT}
# the types of an inferred (DuckDB-side) expression: TIMESTAMP is a local timestamp here
_ICEBERG_TYPES = {
    _T.INT: IntegerType(), _T.BIGINT: LongType(), _T.FLOAT: FloatType(),
    _T.DOUBLE: DoubleType(), _T.BOOLEAN: BooleanType(), _T.DATE: DateType(),
    _T.TEXT: StringType(), _T.VARCHAR: StringType(), _T.CHAR: StringType(),
    _T.BINARY: BinaryType(), _T.VARBINARY: BinaryType(), _T.TIMESTAMPTZ: TimestamptzType(),
    _T.TIMESTAMPLTZ: TimestamptzType(), _T.TIMESTAMP: TimestampType(),
    _T.TIMESTAMPNTZ: TimestampType(), _T.NULL: UnknownType(),
}


def spark_type_name(data_type: exp.DataType) -> str:
    """A type as Spark's ``DataType.simpleString`` names it (``int``, ``array<string>``)."""
    kind = data_type.this
    T = exp.DataType.Type
    if kind in _SMALL_INTS:
        return _SMALL_INTS[kind]
    if kind in _ICEBERG_TYPES:
        return spark_primitive_name(_ICEBERG_TYPES[kind])
    params = data_type.expressions
    if kind == T.DECIMAL:
        digits = [p.this.name if isinstance(p, exp.DataTypeParam) else p.name for p in params]
        return f"decimal({','.join(digits or ['10', '0'])})"
    if kind == T.ARRAY and len(params) == 1:
        return f"array<{spark_type_name(params[0])}>"
    if kind == T.MAP and len(params) == 2:
        return f"map<{spark_type_name(params[0])},{spark_type_name(params[1])}>"
    if kind == T.STRUCT:
        fields = [f"{f.name}:{spark_type_name(f.args['kind'])}" for f in params
                  if isinstance(f, exp.ColumnDef)]
        if len(fields) == len(params):
            return f"struct<{','.join(fields)}>"
    refuse(f"typeof() of {data_type.sql()}", "no Spark type name known for it")


RULES = {
    exp.ApproxQuantile: _approx_percentile,
    exp.Quantile: _percentile,
    exp.IgnoreNulls: _ignore_nulls,
    exp.First: _first_last_window,
    exp.Last: _first_last_window,
    exp.Any: _any,
    exp.Skewness: _skewness,
    exp.Kurtosis: _kurtosis,
    exp.Typeof: _typeof,
}
FUNCTIONS = {
    "every": _every,
    "some": _some,
}
TYPED = {exp.Typeof}
TYPED_FUNCTIONS: set[str] = set()
