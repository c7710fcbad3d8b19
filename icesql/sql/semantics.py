"""Spark's semantics where sqlglot's DuckDB output would silently answer differently.

Each rule is a pure rewrite of one node kind. Rules that depend on an operand's type (a cast
of a DOUBLE to INT truncates in Spark but rounds in DuckDB) read the type that
``mark_operand_types`` found on a qualified, type-annotated copy of the statement.

>>> from icesql.sql.dialect import parse_one
>>> apply_spark_semantics(parse_one("SELECT dayofweek(d) FROM t")).sql("duckdb")
'SELECT (DAYOFWEEK(d) + 1) FROM t'
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlglot import exp
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify

from icesql.errors import NotSupportedError

log = logging.getLogger(__name__)

TYPE_KEY = "icesql_operand_type"
_ID_KEY = "icesql_node"
INTEGRAL = {exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.INT,
            exp.DataType.Type.BIGINT}
FRACTIONAL = {exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE, exp.DataType.Type.DECIMAL}
TEXTUAL = {exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR, exp.DataType.Type.CHAR}
_TYPED_NODES = (exp.Cast, exp.ArraySize)

# Spark functions with no DuckDB function of the same meaning: refuse rather than answer wrong
UNSUPPORTED_FUNCTIONS = {
    "hash": "Spark's Murmur3 hash()",
    "xxhash64": "Spark's xxhash64()",
}

# Spark's spellings of date/time units, as DuckDB's date_trunc names them
_SPARK_UNITS = {
    "YEAR": "year", "YYYY": "year", "YY": "year",
    "QUARTER": "quarter",
    "MONTH": "month", "MM": "month", "MON": "month",
    "WEEK": "week",
    "DAY": "day", "DD": "day",
    "HOUR": "hour", "MINUTE": "minute", "SECOND": "second",
    "MILLISECOND": "millisecond", "MICROSECOND": "microsecond",
}


def mark_operand_types(
    statement: exp.Expr, schemas: dict[str, dict[str, str]], dialect: object
) -> None:
    """Record on casts and ``size()`` calls the type of their operand, where it is known."""
    nodes = [n for n in statement.find_all(*_TYPED_NODES)]
    if not nodes:
        return
    for i, node in enumerate(nodes):
        node.meta[_ID_KEY] = i
    try:
        typed = qualify(statement.copy(), dialect=dialect, schema=schemas,
                        validate_qualify_columns=False, quote_identifiers=False)
        annotate_types(typed, schema=schemas, dialect=dialect)
    except Exception as e:  # noqa: BLE001 - unknown types only leave the rules inactive
        log.debug("type annotation skipped: %s", e)
        return
    for node in typed.find_all(*_TYPED_NODES):
        index = node.meta.get(_ID_KEY)
        operand_type = node.this.type if node.this is not None else None
        if index is not None and operand_type is not None and index < len(nodes):
            nodes[index].meta[TYPE_KEY] = operand_type.this


def _operand_type(node: exp.Expr) -> exp.DataType.Type | None:
    return node.meta.get(TYPE_KEY)


def _as_date(node: exp.Expr) -> exp.Expr:
    return exp.Cast(this=node, to=exp.DataType.build("DATE"))


def _spark_unit(node: exp.Expr) -> exp.Expr:
    unit = node.args.get("unit")
    name = unit.name.upper() if isinstance(unit, (exp.Literal, exp.Var)) else None
    if name in _SPARK_UNITS:
        node.set("unit", exp.Literal.string(_SPARK_UNITS[name]))
    return node


def _date_add(node: exp.TsOrDsAdd) -> exp.Expr:
    # date_add/date_sub return DATE in Spark; DuckDB's date + interval is a TIMESTAMP
    unit = node.args.get("unit")
    if isinstance(node.parent, exp.Cast) or (unit is not None and unit.name.upper() != "DAY"):
        return node
    return _as_date(node)


def _add_months(node: exp.AddMonths) -> exp.Expr:
    return node if isinstance(node.parent, exp.Cast) else _as_date(node)


def _date_trunc(node: exp.DateTrunc) -> exp.Expr:
    # Spark's trunc(date, fmt) returns DATE; DuckDB's date_trunc of a date gives TIMESTAMP
    return node if isinstance(node.parent, exp.Cast) else _as_date(_spark_unit(node))


def _cast(node: exp.Cast) -> exp.Expr:
    # Spark truncates toward zero when casting fractions (and numeric strings) to integers;
    # DuckDB rounds to nearest
    target = node.to.this if isinstance(node.to, exp.DataType) else None
    operand = _operand_type(node)
    if target not in INTEGRAL or operand is None:
        return node
    if operand in FRACTIONAL:
        node.set("this", exp.func("trunc", node.this))
    elif operand in TEXTUAL:
        as_decimal = exp.TryCast(this=node.this, to=exp.DataType.build("DECIMAL(38, 9)"))
        node.set("this", exp.func("trunc", as_decimal))
    return node


def _size(node: exp.ArraySize) -> exp.Expr:
    # Spark's size(NULL) is -1 (spark.sql.legacy.sizeOfNull defaults to true)
    if _operand_type(node) == exp.DataType.Type.MAP:
        length: exp.Expr = exp.func("cardinality", node.this)
    else:
        length = exp.func("len", node.this)
    length = exp.Cast(this=length, to=exp.DataType.build("INT"))
    return exp.func("coalesce", length, exp.Literal.number(-1))


def _day_of_week(node: exp.DayOfWeek) -> exp.Expr:
    # Spark: Sunday = 1 ... Saturday = 7; DuckDB: Sunday = 0
    return exp.Paren(this=exp.Add(this=node, expression=exp.Literal.number(1)))


def _substring(node: exp.Substring) -> exp.Expr:
    # Spark treats start position 0 as 1; DuckDB counts it as a position before the string
    start = node.args.get("start")
    if isinstance(start, exp.Literal) and not start.is_string and start.this == "0":
        node.set("start", exp.Literal.number(1))
    elif start is not None and not isinstance(start, exp.Literal):
        node.set("start", exp.Case(ifs=[exp.If(this=exp.EQ(this=start.copy(),
                                                           expression=exp.Literal.number(0)),
                                               true=exp.Literal.number(1))],
                                   default=start))
    return node


def _anonymous(node: exp.Anonymous) -> exp.Expr:
    name = str(node.this).lower()
    if name in UNSUPPORTED_FUNCTIONS:
        raise NotSupportedError(
            f"{UNSUPPORTED_FUNCTIONS[name]} is not supported (DuckDB's {name} gives other values)"
        )
    if name == "weekday":  # Spark: Monday = 0 ... Sunday = 6
        return exp.Paren(this=exp.Sub(this=exp.func("isodow", *node.expressions),
                                      expression=exp.Literal.number(1)))
    return node


RULES: dict[type, Callable[[exp.Expr], exp.Expr]] = {
    exp.TsOrDsAdd: _date_add,
    exp.AddMonths: _add_months,
    exp.DateTrunc: _date_trunc,
    exp.TimestampTrunc: _spark_unit,
    exp.Cast: _cast,
    exp.ArraySize: _size,
    exp.DayOfWeek: _day_of_week,
    exp.Substring: _substring,
    exp.Anonymous: _anonymous,
}


def _rule(node: exp.Expr) -> exp.Expr:
    for cls in type(node).__mro__:  # TryCast is a Cast
        rule = RULES.get(cls)
        if rule is not None:
            return rule(node)
    return node


def apply_spark_semantics(statement: exp.Expr) -> exp.Expr:
    """A copy of ``statement`` rewritten so DuckDB computes what Spark would."""
    return statement.copy().transform(_rule, copy=False)
