"""Spark's table-valued functions and generators where DuckDB's differ.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT id FROM range(3)")).sql("duckdb")
'SELECT id FROM (SELECT range AS id FROM RANGE(3))'
"""

from __future__ import annotations

import decimal

from sqlglot import exp

from icesql.errors import ProgrammingError


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


RULES = {
    exp.Table: _range_table,
}
FUNCTIONS: dict = {}
TYPED: set[type] = set()
TYPED_FUNCTIONS: set[str] = set()
