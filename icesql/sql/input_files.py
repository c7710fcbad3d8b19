"""``input_file_name()``: the data file a row was read from, as Spark's Iceberg readers set it.

Spark answers it from the scan that produced the row (Iceberg's readers record the task's
file path, which is the ``_file`` metadata column), and with ``''`` where no file scan is
involved. icesql gives it over one Iceberg table read directly in the same SELECT (then it
is ``_file``) and without a FROM (``''``); over joins, subqueries, views or other sources
Spark's answer depends on where its stages cut the plan, so it is refused by name.
``input_file_block_start()`` and ``input_file_block_length()`` follow the same rule, with
the read split of the row's file (private scan columns) and ``-1`` without a FROM.

>>> import sqlglot
>>> q = sqlglot.parse_one("SELECT id, input_file_name() FROM v AS t", read="spark")
>>> rewrite_input_file_name(q, {"v"}).sql("spark")
'SELECT id, t._file FROM v AS t'
"""

from __future__ import annotations

from collections.abc import Collection

from sqlglot import exp

from icesql.errors import NotSupportedError
from icesql.spec.reserved import BLOCK_LENGTH, BLOCK_START

__all__ = ["rewrite_input_file_name"]

_NAME = "input_file_name"
# each block function, the scan column that answers it
_BLOCK_COLUMNS = {
    "input_file_block_start": BLOCK_START,
    "input_file_block_length": BLOCK_LENGTH,
}


def _no_block() -> exp.Expr:
    """Spark's answer where no file is read: ``-1``, a bigint."""
    return exp.cast(exp.Literal.number(-1), exp.DataType.build("bigint"))


def rewrite_input_file_name(statement: exp.Expr, scan_views: Collection[str]) -> exp.Expr:
    """Replace each ``input_file_name()`` (in place) by the ``_file`` column of the one table
    scan its SELECT reads (``scan_views``: the scans' view names), or ``''`` without a FROM."""
    views = {v.lower() for v in scan_views}
    calls = [
        c
        for c in statement.find_all(exp.Anonymous)
        if isinstance(c.this, str) and (c.this.lower() == _NAME or c.this.lower() in _BLOCK_COLUMNS)
    ]
    for call in calls:
        name = call.this.lower()
        if call.expressions:
            raise NotSupportedError(f"{name}() takes no arguments")
        select = call.find_ancestor(exp.Select)
        from_ = select.args.get("from_") if select is not None else None
        if select is not None and from_ is None:
            call.replace(_no_block() if name in _BLOCK_COLUMNS else exp.Literal.string(""))
            continue
        source = from_.this if from_ is not None else None
        if (
            select is None
            or select.args.get("joins")
            or not isinstance(source, exp.Table)
            or source.name.lower() not in views
        ):
            raise NotSupportedError(
                f"{name}() is supported over one Iceberg table read directly in the same"
                " SELECT (no join, subquery or view): select _file there instead"
            )
        column = _BLOCK_COLUMNS.get(name, "_file")
        call.replace(exp.column(column, table=source.alias_or_name))
    return statement
