"""Iceberg metadata columns (``_file``, ``_pos``, ...) on the SQL side.

A query asks for them by name; the scans then stream them after the data columns, and
stars over those scans must still leave them out, as Spark does (``SELECT *`` never shows
metadata columns). DuckDB's ``* EXCLUDE (...)`` does that.

>>> import sqlglot
>>> q = sqlglot.parse_one("SELECT *, _pos FROM v", read="spark")
>>> referenced_metadata_columns(q)
['_pos']
>>> hide_metadata_columns(q, {"v": ("_pos",)}).sql("duckdb")
'SELECT * EXCLUDE (_pos), _pos FROM v'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlglot import exp

from icesql.spec.reserved import BLOCK_LENGTH, BLOCK_START, SCAN_COLUMN_NAMES

__all__ = ["hide_metadata_columns", "referenced_metadata_columns"]

SPARK_TYPES = {
    "_file": "STRING",
    "_pos": "BIGINT",
    "_spec_id": "INT",
    "_deleted": "BOOLEAN",
    "_row_id": "BIGINT",
    "_last_updated_sequence_number": "BIGINT",
    BLOCK_START: "BIGINT",
    BLOCK_LENGTH: "BIGINT",
}


def referenced_metadata_columns(statement: exp.Expr) -> list[str]:
    """Metadata column names the statement mentions as columns, lower-cased, in order."""
    names: dict[str, None] = {}
    for column in statement.find_all(exp.Column):
        name = column.name.lower()
        if name in SCAN_COLUMN_NAMES:
            names[name] = None
    return list(names)


def hide_metadata_columns(statement: exp.Expr, views: Mapping[str, Sequence[str]]) -> exp.Expr:
    """Exclude the metadata columns of ``views`` (view name -> its metadata column names)
    from every star of a SELECT that reads only tables directly (in place): ``v.*`` leaves
    out ``v``'s, a bare ``*`` over a join each source's, by qualified name (``v._pos``);
    a table not in ``views`` has none to leave out."""
    if not views:
        return statement
    lowered = {v.lower(): names for v, names in views.items()}
    for select in statement.find_all(exp.Select):
        sources = _direct_tables(select)
        if not sources:
            continue
        hidden = {q: list(lowered.get(name, ())) for name, q in sources}
        for e in select.expressions:
            qualifier = None
            star = e
            if isinstance(e, exp.Column) and isinstance(e.this, exp.Star):
                star, qualifier = e.this, e.table.lower()
            if not isinstance(star, exp.Star) or star.args.get("except_"):
                continue
            if qualifier is not None:
                excluded = [exp.column(n) for n in hidden.get(qualifier, ())]
            elif len(sources) == 1:
                excluded = [exp.column(n) for n in hidden[sources[0][1]]]
            else:
                excluded = [exp.column(n, table=q) for q, names in hidden.items() for n in names]
            if excluded:
                star.set("except_", excluded)
    return statement


def _direct_tables(select: exp.Select) -> list[tuple[str, str]] | None:
    """(table name, qualifier: its alias or name) of each table a SELECT reads in its FROM
    and JOINs, lower-cased; None if any of them is not a table."""
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is None:
        return None
    nodes = [from_.this, *(j.this for j in select.args.get("joins") or [])]
    if not all(isinstance(n, exp.Table) for n in nodes):
        return None
    return [(n.name.lower(), n.alias_or_name.lower()) for n in nodes]
