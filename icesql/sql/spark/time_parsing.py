"""Spark's defaults when it parses text with a datetime pattern, over DuckDB's strptime.

Spark's parser (``DateTimeFormatterHelper``) fills the fields a pattern leaves out with 1970
for the year (DuckDB's strptime: 1900) and reads a two-letter year ``yy`` as 2000 to 2099
(java.time's ``appendValueReduced`` from 2000; DuckDB's ``%y`` reads 69 as 1969). A day of the
year (``D``) beside a month or day of the month decides the date where strptime ignores it, so
that pattern is refused::

    >>> from icesql.sql.dialect import parse_one
    >>> from icesql.sql.semantics import apply_spark_semantics
    >>> apply_spark_semantics(parse_one("SELECT to_date('16', 'dd')")).sql("duckdb")
    "SELECT CAST(CAST(TRY_STRPTIME('1970 ' || '16', '%Y %d') AS TIMESTAMP) AS DATE)"
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.spark.base import call, literal_string, refuse

__all__ = ["spark_parsed"]

_YEARS = ("%Y", "%y")
_MONTH_OR_DAY = ("%m", "%-m", "%b", "%B", "%d", "%-d")
_DAY_OF_YEAR = ("%j", "%-j")


def _has(strftime: str, directives: tuple[str, ...]) -> bool:
    """Whether ``strftime`` uses one of ``directives`` (``%%`` is a percent sign)."""
    text = strftime.replace("%%", "")
    return any(d in text for d in directives)


def spark_parsed(node: exp.StrToTime) -> exp.Expr:
    """``node`` (strptime of text by a pattern already in strftime) with Spark's defaults:
    the year 1970 where the pattern has none, ``yy`` read from 2000."""
    strftime = literal_string(node.args.get("format"))
    if strftime is None:
        return node
    if _has(strftime, _DAY_OF_YEAR) and _has(strftime, _MONTH_OR_DAY):
        refuse(
            "a datetime pattern with both a day of the year (D) and a month or day",
            "Spark takes the date from the day of the year, DuckDB's strptime ignores it",
        )
    if not _has(strftime, _YEARS):
        text = exp.DPipe(this=exp.Literal.string("1970 "), expression=node.this, safe=True)
        node.set("this", text)
        node.set("format", exp.Literal.string(f"%Y {strftime}"))
        return node
    if "%y" not in strftime.replace("%%", ""):
        return node
    century = exp.Interval(this=exp.Literal.string("100"), unit=exp.var("YEAR"))
    early = exp.LT(this=call("year", node.copy()), expression=exp.Literal.number(2000))
    later = exp.Add(this=node.copy(), expression=century)
    return exp.Case(ifs=[exp.If(this=early, true=later)], default=node)
