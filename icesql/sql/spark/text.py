"""Spark's string functions where DuckDB's answers differ.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT substring(s, 0, 2) FROM t")).sql("duckdb")
'SELECT SUBSTRING(s, 1, 2) FROM t'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.spark.base import refuse

# Spark functions with no DuckDB function of the same meaning: refuse rather than answer wrong
_OTHER_VALUES = {
    "hash": "Spark's Murmur3 hash()",
    "xxhash64": "Spark's xxhash64()",
}


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


def _other_values(node: exp.Anonymous) -> exp.Expr:
    name = str(node.this).lower()
    refuse(_OTHER_VALUES[name], f"DuckDB's {name} gives other values")


RULES = {
    exp.Substring: _substring,
}
FUNCTIONS = {name: _other_values for name in _OTHER_VALUES}
TYPED: set[type] = set()
TYPED_FUNCTIONS: set[str] = set()
