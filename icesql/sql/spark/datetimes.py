"""Spark's date and time functions where DuckDB's answers differ.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT weekday(d) FROM t")).sql("duckdb")
'SELECT (ISODOW(d) - 1) FROM t'
"""

from __future__ import annotations

from sqlglot import exp

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


def _day_of_week(node: exp.DayOfWeek) -> exp.Expr:
    # Spark: Sunday = 1 ... Saturday = 7; DuckDB: Sunday = 0
    return exp.Paren(this=exp.Add(this=node, expression=exp.Literal.number(1)))


def _weekday(node: exp.Anonymous) -> exp.Expr:
    # Spark: Monday = 0 ... Sunday = 6
    return exp.Paren(this=exp.Sub(this=exp.func("isodow", *node.expressions),
                                  expression=exp.Literal.number(1)))


RULES = {
    exp.TsOrDsAdd: _date_add,
    exp.AddMonths: _add_months,
    exp.DateTrunc: _date_trunc,
    exp.TimestampTrunc: _spark_unit,
    exp.DayOfWeek: _day_of_week,
}
FUNCTIONS = {
    "weekday": _weekday,
}
TYPED: set[type] = set()
TYPED_FUNCTIONS: set[str] = set()
