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

from icesql.scan.metadata_columns import METADATA_COLUMN_NAMES

__all__ = ["hide_metadata_columns", "referenced_metadata_columns"]

SPARK_TYPES = {
    "_file": "STRING",
    "_pos": "BIGINT",
    "_spec_id": "INT",
    "_deleted": "BOOLEAN",
    "_row_id": "BIGINT",
    "_last_updated_sequence_number": "BIGINT",
}


def referenced_metadata_columns(statement: exp.Expr) -> list[str]:
    """Metadata column names the statement mentions as columns, lower-cased, in order."""
    names: dict[str, None] = {}
    for column in statement.find_all(exp.Column):
        name = column.name.lower()
        if name in METADATA_COLUMN_NAMES:
            names[name] = None
    return list(names)


def hide_metadata_columns(
    statement: exp.Expr, views: Mapping[str, Sequence[str]]
) -> exp.Expr:
    """Exclude the metadata columns of ``views`` (view name -> its metadata column names)
    from every star of a SELECT that reads only such views directly (in place)."""
    if not views:
        return statement
    lowered = {v.lower(): names for v, names in views.items()}
    for select in statement.find_all(exp.Select):
        sources = _direct_tables(select)
        if not sources or any(s not in lowered for s in sources):
            continue
        hidden = list(dict.fromkeys(n for s in sources for n in lowered[s]))
        for e in select.expressions:
            star = e.this if isinstance(e, exp.Column) and isinstance(e.this, exp.Star) else e
            if isinstance(star, exp.Star) and not star.args.get("except_"):
                star.set("except_", [exp.column(n) for n in hidden])
    return statement


def _direct_tables(select: exp.Select) -> list[str] | None:
    """The table names a SELECT reads in its FROM and JOINs; None if any is not a table."""
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is None:
        return None
    nodes = [from_.this, *(j.this for j in select.args.get("joins") or [])]
    if not all(isinstance(n, exp.Table) for n in nodes):
        return None
    return [n.name.lower() for n in nodes]
