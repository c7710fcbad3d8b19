"""Spark's array and map functions where DuckDB's answers differ.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT size(a) FROM t")).sql("duckdb")
'SELECT COALESCE(CAST(LENGTH(a) AS INT), -1) FROM t'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.spark.base import arg_type


def _size(node: exp.ArraySize) -> exp.Expr:
    # Spark's size(NULL) is -1 (spark.sql.legacy.sizeOfNull defaults to true)
    if arg_type(node) == exp.DataType.Type.MAP:
        length: exp.Expr = exp.func("cardinality", node.this)
    else:
        length = exp.func("len", node.this)
    length = exp.Cast(this=length, to=exp.DataType.build("INT"))
    return exp.func("coalesce", length, exp.Literal.number(-1))


RULES = {
    exp.ArraySize: _size,
}
FUNCTIONS: dict = {}
TYPED = {exp.ArraySize}
TYPED_FUNCTIONS: set[str] = set()
