"""Spark's aggregate and window functions where DuckDB's answers differ.

Percentiles are ``icesql.sql.spark.percentiles``.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT every(x) FROM t")).sql("duckdb")
'SELECT BOOL_AND(CAST(x AS BOOLEAN)) FROM t'
"""

from __future__ import annotations

import decimal

from sqlglot import exp

from icesql.errors import ProgrammingError
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
from icesql.sql.spark import decimal_types
from icesql.sql.spark.base import (
    INTEGRAL,
    T,
    arg_data_type,
    arg_type,
    call,
    decimal_digits,
    refuse,
)
from icesql.sql.spark.overflow import wrapped, wrapping
from icesql.sql.spark_type_names import SMALLINT, TINYINT, spark_primitive_name


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
    names = {exp.First: "first", exp.FirstValue: "first", exp.Last: "last", exp.LastValue: "last"}
    name = names.get(type(inner))
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
    scale = exp.Div(
        this=minus(2), expression=exp.func("sqrt", exp.Mul(this=n.copy(), expression=minus(1)))
    )
    two = exp.EQ(this=n.copy(), expression=exp.Literal.number(2))
    answer = exp.Case(
        ifs=[exp.If(this=two, true=exp.cast(exp.Literal.number(0), "DOUBLE"))],
        default=exp.Mul(this=node, expression=exp.Paren(this=scale)),
    )
    return _moment_answer(node, value, answer)


def _kurtosis(node: exp.Kurtosis) -> exp.Expr:
    # Spark's kurtosis is the population excess kurtosis: DuckDB's kurtosis_pop
    return _moment_answer(node, node.this, call("kurtosis_pop", node.this.copy()))


def _typeof(node: exp.Typeof) -> exp.Expr:
    """Spark's type name of the argument, from the statement's inferred types."""
    operand = node.this
    if (
        isinstance(operand, exp.Literal)
        and operand.is_number
        and "." in operand.this
        and "e" not in operand.this.lower()
    ):  # 1.5 is a DECIMAL literal in Spark
        _, digits, exponent = decimal.Decimal(operand.this).as_tuple()
        assert isinstance(exponent, int)  # a finite number: not NaN or infinity
        return exp.Literal.string(f"decimal({max(len(digits), -exponent)},{-exponent})")
    # a cast (also one an earlier rule made, e.g. a decimal sum's) has the type it names
    found = operand.args["to"] if isinstance(operand, exp.Cast) else arg_data_type(node)
    if found is None:
        refuse("typeof() of an expression of unknown type", "Spark's type names need the type")
    name = exp.Literal.string(spark_type_name(found))
    if operand.find(exp.AggFunc) is not None:
        # keep the aggregate in the query: typeof(sum(x)) alone still makes it an aggregation
        # (one row), which a bare literal would not
        return exp.If(
            this=exp.Is(this=exp.paren(operand.copy()), expression=exp.Null()),
            true=name,
            false=name.copy(),
        )
    return name


def _decimal_operand(aggregate: exp.Expr) -> tuple[int, int] | None:
    """Precision and scale of a sum's or avg's operand, when it is a DECIMAL: a cast's (the
    rules below a sum, run first, cast decimal arithmetic to Spark's type), else inferred."""
    operand = aggregate.this
    if isinstance(operand, exp.Distinct) and len(operand.expressions) == 1:
        operand = operand.expressions[0]  # sum(DISTINCT x): x's type
    cast = operand.to if isinstance(operand, exp.Cast) else None
    found = (
        cast
        if cast is not None and cast.this == exp.DataType.Type.DECIMAL
        else arg_data_type(aggregate)
    )
    if found is None or found.this != exp.DataType.Type.DECIMAL:
        return None
    return decimal_digits(found)


def _dressed(
    aggregate: exp.Expr, filtered: exp.Filter | None, window: exp.Window | None
) -> exp.Expr:
    """``aggregate`` with the FILTER and OVER clauses of the call it stands in for."""
    if filtered is not None:
        aggregate = exp.Filter(this=aggregate, expression=filtered.expression.copy())
    if window is not None:
        outer = window.copy()
        outer.set("this", aggregate)
        aggregate = outer
    return aggregate


def _hugeint(value: exp.Expr | int) -> exp.Expr:
    return exp.cast(exp.Literal.string(str(value)) if isinstance(value, int) else value, "HUGEINT")


_TIMESTAMP_TYPES = {T.TIMESTAMPTZ, T.TIMESTAMPLTZ, T.TIMESTAMP, T.TIMESTAMPNTZ}


def _timestamp_seconds(aggregate: exp.Expr) -> None:
    """Spark's sum and avg of a TIMESTAMP add its seconds since the epoch as a DOUBLE (the
    implicit cast of a timestamp to a number); of a TIMESTAMP_NTZ they are an error."""
    if arg_type(aggregate) in (T.TIMESTAMP, T.TIMESTAMPNTZ):
        name = type(aggregate).__name__.lower()
        raise ProgrammingError(
            f"{name}() of a TIMESTAMP_NTZ: the argument should be a number or an ANSI interval"
        )
    operand = aggregate.this
    slot = operand if isinstance(operand, exp.Distinct) else aggregate
    key = "expressions" if slot is operand else "this"
    value = slot.expressions[0] if slot is operand else operand
    micros = exp.cast(call("epoch_us", value), "DOUBLE")
    seconds = exp.Div(this=micros, expression=exp.Literal.number(1000000))
    slot.set(key, [seconds] if slot is operand else seconds)


def _decimal_sum_avg(node: exp.Expr) -> exp.Expr:
    """Spark's types for ``sum`` of integers (BIGINT) and ``sum``/``avg`` of a DECIMAL(p, s): ``sum`` is DECIMAL(p + 10, s) and
    ``avg`` DECIMAL(p + 4, s + 4), rounded half up (both bounded at 38 digits, NULL on overflow
    as Spark without ANSI mode); DuckDB answers DECIMAL(38, s) and a DOUBLE. The rule sits on
    the outermost node of ``agg [FILTER (...)] [OVER (...)]``, so the clauses stay with it."""
    if isinstance(node.parent, (exp.Filter, exp.Window)) and node.arg_key == "this":
        return node  # the enclosing FILTER / OVER carries the rule
    window = node if isinstance(node, exp.Window) else None
    inner = node.this if window is not None else node
    filtered = inner if isinstance(inner, exp.Filter) else None
    aggregate = filtered.this if filtered is not None else inner
    if type(aggregate) is exp.Sum and arg_type(aggregate) in INTEGRAL:
        # Spark's sum of integers is a BIGINT (DuckDB's a HUGEINT), wrapping past its range
        if wrapping():
            return wrapped(node, T.BIGINT)
        return exp.Cast(this=node, to=exp.DataType.build("BIGINT"))
    if type(aggregate) not in (exp.Sum, exp.Avg):
        return node
    if arg_type(aggregate) in _TIMESTAMP_TYPES:
        _timestamp_seconds(aggregate)
        return node
    operand = _decimal_operand(aggregate)
    if operand is None:
        return node
    precision, scale = operand
    if isinstance(aggregate, exp.Sum):
        digits = decimal_types.total(operand)
        return exp.TryCast(this=node, to=exp.DataType.build(f"DECIMAL({digits[0]}, {digits[1]})"))
    if scale > 18:  # the exact division below keeps unscaled values within 38 digits
        return node
    total = _dressed(exp.Sum(this=aggregate.this.copy()), filtered, window)
    count = _dressed(exp.Count(this=aggregate.this.copy()), filtered, window)
    whole = call("trunc", total.copy())
    fraction = exp.paren(exp.Sub(this=total, expression=whole.copy()))
    # the sum as an integer at its scale, whole part and fraction apart so neither overflows
    unscaled = exp.paren(
        exp.Add(
            this=exp.Mul(this=_hugeint(whole), expression=_hugeint(10**scale)),
            expression=_hugeint(exp.Mul(this=fraction, expression=_hugeint(10**scale))),
        )
    )
    # rounded half up (away from zero) to 4 more digits: (2 * 10^4 * sum + sign * n) // (2 * n)
    numerator = exp.Add(
        this=exp.Mul(this=unscaled, expression=_hugeint(2 * 10**4)),
        expression=exp.Mul(this=call("sign", unscaled.copy()), expression=count.copy()),
    )
    rounded = exp.IntDiv(
        this=exp.paren(numerator),
        expression=exp.paren(exp.Mul(this=exp.Literal.number(2), expression=count)),
    )
    step = exp.cast(
        exp.Literal.string(f"{decimal.Decimal(1).scaleb(-(scale + 4)):f}"),
        f"DECIMAL({scale + 5}, {scale + 4})",
    )
    average = exp.Mul(this=exp.cast(rounded, "DECIMAL(38, 0)"), expression=step)
    digits = decimal_types.average(operand)
    return exp.TryCast(this=average, to=exp.DataType.build(f"DECIMAL({digits[0]}, {digits[1]})"))


_T = exp.DataType.Type
_SMALL_INTS = {_T.TINYINT: TINYINT, _T.SMALLINT: SMALLINT}
# the types of an inferred (DuckDB-side) expression: TIMESTAMP is a local timestamp here
_ICEBERG_TYPES = {
    _T.INT: IntegerType(),
    _T.BIGINT: LongType(),
    _T.FLOAT: FloatType(),
    _T.DOUBLE: DoubleType(),
    _T.BOOLEAN: BooleanType(),
    _T.DATE: DateType(),
    _T.TEXT: StringType(),
    _T.VARCHAR: StringType(),
    _T.CHAR: StringType(),
    _T.BINARY: BinaryType(),
    _T.VARBINARY: BinaryType(),
    _T.TIMESTAMPTZ: TimestamptzType(),
    _T.TIMESTAMPLTZ: TimestamptzType(),
    _T.TIMESTAMP: TimestampType(),
    _T.TIMESTAMPNTZ: TimestampType(),
    _T.NULL: UnknownType(),
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
    if kind in (T.VARIANT, T.JSON):  # JSON: sqlglot's type of parse_json()
        return "variant"
    if kind == T.ARRAY and len(params) == 1:
        return f"array<{spark_type_name(params[0])}>"
    if kind == T.MAP and len(params) == 2:
        return f"map<{spark_type_name(params[0])},{spark_type_name(params[1])}>"
    if kind == T.STRUCT:
        fields = [
            f"{f.name}:{spark_type_name(f.args['kind'])}"
            for f in params
            if isinstance(f, exp.ColumnDef)
        ]
        if len(fields) == len(params):
            return f"struct<{','.join(fields)}>"
    refuse(f"typeof() of {data_type.sql()}", "no Spark type name known for it")


RULES = {
    exp.IgnoreNulls: _ignore_nulls,
    exp.First: _first_last_window,
    exp.Last: _first_last_window,
    exp.Any: _any,
    exp.Skewness: _skewness,
    exp.Kurtosis: _kurtosis,
    exp.Typeof: _typeof,
    exp.Sum: _decimal_sum_avg,
    exp.Avg: _decimal_sum_avg,
    exp.Filter: _decimal_sum_avg,
    exp.Window: _decimal_sum_avg,
}
FUNCTIONS = {
    "every": _every,
    "some": _some,
}
TYPED = {exp.Typeof, exp.Sum, exp.Avg}
DECIMAL_ONLY = (exp.Sum, exp.Avg)
TYPED_FUNCTIONS: set[str] = set()
