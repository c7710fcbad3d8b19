"""The DuckDB query of a scan's native read (``icesql.scan.read_parts``) as a sqlglot tree,
which goes into the translated statement in place of the scan's view.

* A file read is ``SELECT * FROM read_parquet([...], schema=MAP{...}, ...)``, each extra
  column after the star: ``_pos`` from ``file_row_number`` (excluded from the star), a
  file's value from a list by the row's ``file_index``.
* A read with a keep-mask lines its rows up with the mask's flags: ``... p POSITIONAL
  JOIN "mask" m WHERE m.keep``. DuckDB scans both sides of a positional join in order and
  never pushes a filter below it, so row ``i`` meets flag ``i``.
* Equality deletes are a hash ``ANTI JOIN`` per set of delete columns, with ``IS NOT
  DISTINCT FROM`` (spec: a null delete value matches a null row value). Neither side has a
  row estimate (``read_parquet`` with a ``schema`` map gives none), so DuckDB keeps the
  written order and hashes the delete rows: given a count for the delete side only, it
  flipped the join and hashed the data files. A key proved to hold few values is written
  as ``(...) IS TRUE``, which is no join key to DuckDB: each probe hashes fewer columns,
  and that one is compared only on the rows the hash found.

Values with one entry per file (paths, ``_file`` lists, tags) and the schema map are each
one leaf written out as a DuckDB literal: a node per file costs more than planning a scan
of thousands of files.

>>> from icesql.scan.read_parts import FileRead, ParquetCall, ReadColumn
>>> call = ParquetCall(("/d/it's.parquet",), (ReadColumn(1, "id", "BIGINT", None),))
>>> print(native_query((FileRead(call),)).sql("duckdb", pretty=True))
SELECT
  *
FROM READ_PARQUET(
  ['/d/it''s.parquet'],
  schema = MAP {1: {name: 'id', type: 'BIGINT', default_value: NULL::VARCHAR}},
  hive_partitioning = FALSE
)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from sqlglot import exp

from icesql.scan.read_parts import (
    FILE_INDEX,
    KEEP_COLUMN,
    PART_COLUMN,
    ROW_NUMBER,
    AntiJoin,
    DeleteRows,
    FileRead,
    FileValues,
    ParquetCall,
    RowPosition,
)

__all__ = ["native_query"]


def native_query(parts: Sequence[FileRead | AntiJoin]) -> exp.Query:
    """The rows of every part, unioned (``UNION ALL``)."""
    queries = [_anti_join(p) if isinstance(p, AntiJoin) else _file_read(p) for p in parts]
    return _union_all(queries)


def _union_all(queries: Sequence[exp.Query]) -> exp.Query:
    if len(queries) == 1:
        return queries[0]
    return exp.union(*queries, distinct=False, copy=False)


def _file_read(read: FileRead) -> exp.Select:
    """A ``read_parquet`` call's rows with their extra columns; with a mask, the ones it
    keeps."""
    alias = "p" if read.mask is not None else None
    star = exp.Star(**({"except_": [_column(ROW_NUMBER)]} if read.call.row_numbers else {}))
    items: list[exp.Expr] = [exp.Column(this=star, table=_ident(alias)) if alias else star]
    items += [_extra(item, alias) for item in read.extra]
    select = exp.Select(expressions=items).from_(_read_parquet(read.call, alias), copy=False)
    if read.mask is None:
        return select
    mask = exp.Table(this=_ident(read.mask), alias=exp.TableAlias(this=_ident("m")))
    select.set("joins", [exp.Join(this=mask, method="POSITIONAL")])
    return select.where(_column(KEEP_COLUMN, "m"), copy=False)


def _extra(item: FileValues | RowPosition, table: str | None) -> exp.Expr:
    """A column a row takes from its file: ``_pos``, or a value by the file's index."""
    if isinstance(item, RowPosition):
        value: exp.Expr = _cast(_column(ROW_NUMBER, table), "BIGINT")
    elif len(item.values) == 1:
        value = _cast(_value(item.values[0]), item.type)
    else:
        values = _cast(exp.Var(this=_list(item.values)), f"{item.type}[]")
        value = _anonymous("list_extract", values, _file_position(table))
    return exp.Alias(this=value, alias=_ident(item.name))


def _anti_join(join: AntiJoin) -> exp.Select:
    """The rows of the inner reads that no delete row of each join matches."""
    inner = exp.Subquery(
        this=_union_all([_file_read(r) for r in join.inner]),
        alias=exp.TableAlias(this=_ident("p")),
    )
    select = exp.Select(expressions=[_column(c, "p") for c in join.columns]).from_(
        inner, copy=False
    )
    joins = []
    for i, eq in enumerate(join.joins):
        d = f"d{i}"
        pairs = [
            (exp.NullSafeEQ(this=_column(k, "p"), expression=_column(str(j), d)), checked)
            for j, (k, checked) in enumerate(zip(eq.keys, eq.checked, strict=True))
        ]
        hashed: list[exp.Expr] = [c for c, checked in pairs if not checked]
        if eq.tagged:
            hashed.insert(
                0, exp.EQ(this=_column(PART_COLUMN, "p"), expression=_column(PART_COLUMN, d))
            )
        rest = [c for c, checked in pairs if checked]
        if rest:
            hashed.append(
                exp.Is(this=exp.Paren(this=exp.and_(*rest, copy=False)), expression=exp.true())
            )
        rows = exp.Subquery(this=_delete_rows(eq.rows), alias=exp.TableAlias(this=_ident(d)))
        joins.append(exp.Join(this=rows, kind="ANTI", on=exp.and_(*hashed, copy=False)))
    select.set("joins", joins)
    return select


def _delete_rows(rows: DeleteRows) -> exp.Select:
    """Delete rows; tagged, each once per tag of the data files its file applies to."""
    items: list[exp.Expr] = [exp.Star()]
    if rows.tags is not None:
        tags = _cast(exp.Var(this=_list(list(t) for t in rows.tags)), "INTEGER[][]")
        each = _anonymous("unnest", _anonymous("list_extract", tags, _file_position(None)))
        items.insert(0, exp.Alias(this=each, alias=_ident(PART_COLUMN)))
    return exp.Select(expressions=items).from_(_read_parquet(rows.call, None), copy=False)


def _read_parquet(call: ParquetCall, alias: str | None) -> exp.Table:
    """``read_parquet`` matching columns by field id. Hive partitioning is off: Iceberg
    paths look like Hive's (``x=1/``), but columns come by id."""
    entries = ", ".join(
        f"{c.field_id}: {{name: {_string(c.name)}, type: {_string(c.type)}, default_value: "
        f"{'NULL' if c.default is None else _string(c.default)}::VARCHAR}}"
        for c in call.columns
    )
    args: list[exp.Expr] = [
        exp.Var(this=_list(call.paths)),
        _named("schema", exp.Var(this=f"MAP {{{entries}}}")),
        _named("hive_partitioning", exp.false()),
    ]
    if call.row_numbers:
        args.append(_named("file_row_number", exp.true()))
    table = exp.Table(this=_anonymous("read_parquet", *args))
    if alias is not None:
        table.set("alias", exp.TableAlias(this=_ident(alias)))
    return table


def _file_position(table: str | None) -> exp.Expr:
    """The 1-based index of a row's file in its call, for ``list_extract``."""
    return exp.Add(
        this=_cast(_column(FILE_INDEX, table), "BIGINT"), expression=exp.Literal.number(1)
    )


def _string(text: str) -> str:
    """``text`` as a DuckDB string literal."""
    return "'" + text.replace("'", "''") + "'"


def _list(values: Iterable[object]) -> str:
    """A DuckDB list literal of strings, integers or lists of integers."""
    return "[" + ", ".join(_string(v) if isinstance(v, str) else str(v) for v in values) + "]"


def _value(value: str | int) -> exp.Expr:
    return exp.Literal.string(value) if isinstance(value, str) else exp.Literal.number(value)


def _named(name: str, value: exp.Expr) -> exp.Expr:
    """A table function's named argument."""
    return exp.EQ(this=exp.Var(this=name), expression=value)


def _cast(value: exp.Expr, type_name: str) -> exp.Cast:
    return exp.Cast(this=value, to=_data_type(type_name).copy())


@functools.cache
def _data_type(type_name: str) -> exp.DataType:
    return exp.DataType.build(type_name, dialect="duckdb")


def _anonymous(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _column(name: str, table: str | None = None) -> exp.Column:
    return exp.Column(this=_ident(name), table=_ident(table) if table else None)


def _ident(name: str) -> exp.Identifier:
    return exp.Identifier(this=name, quoted=True)
