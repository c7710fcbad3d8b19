"""UPDATE t [[AS] alias] SET col = expr [, ...] [WHERE condition]: rows replaced in one commit.

The statement becomes one query over the target (``icesql.statements.rowlevel``)::

    SELECT <each table column: its new value, or the column itself>, _file, _pos [, _row_id]
    FROM t AS alias WHERE condition

so DuckDB evaluates the SET expressions on the old row, as Spark does. Each result row
removes the old row (``_file``, ``_pos``) and adds its new version
(``icesql.statements.row_changes``), converted to the
table's types by Spark's store assignment rules (``icesql.sql.store_assignment``: errors name
the table and the column; they are found before a row is read when the types cannot be
assigned at all). In v3 the new version keeps the old ``_row_id`` with a null
``_last_updated_sequence_number`` (spec "Row Lineage"). ``write.update.mode`` chooses
copy-on-write or merge-on-read; ``write.update.isolation-level`` the conflict checks.

``SET s.f = expr`` assigns a field of a struct column: the column becomes a struct of its
fields, the assigned ones replaced (a NULL struct becomes a struct whose other fields are
NULL, as in Spark). Fields inside arrays or maps cannot be assigned (``NotSupportedError``).
The cursor's ``rowcount`` is the number of rows updated.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from sqlglot import exp

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.session import Result, Session
from icesql.session.result import done
from icesql.spec.schema import Schema
from icesql.spec.types import ListType, MapType, NestedField, StructType
from icesql.sql.defaults import is_default_keyword, write_default_expression
from icesql.sql.dialect import DIALECT
from icesql.sql.store_assignment import Assignment
from icesql.statements.insert import target_table
from icesql.statements.row_changes import (
    FILE_COLUMN,
    POS_COLUMN,
    RowChanges,
    apply_changes,
    check_target_node,
    metadata_column,
    run_target_query,
    target_table_node,
)

__all__ = ["update"]

Path = tuple[str, ...]


def update(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    """``UPDATE t [AS a] SET ... [WHERE ...]`` (module docstring)."""
    assert isinstance(statement, exp.Update)
    for key in ("from_", "from", "returning", "order", "limit", "joins"):
        if statement.args.get(key):
            raise NotSupportedError(f"UPDATE ... {key.rstrip('_').upper()} is not supported")
    node = statement.this
    check_target_node(node)
    catalog, table, _, ref = target_table(session, node)
    schema = table.metadata.schema()
    target, alias = target_table_node(node, table)
    assigned = _assignments(statement.expressions, alias, schema, table.name)
    lineage = table.metadata.format_version >= 3
    columns = [_value(f, (f.name,), alias, assigned) for f in schema.fields]
    extra = [FILE_COLUMN, POS_COLUMN, *(["_row_id"] if lineage else [])]
    select = exp.Select(
        expressions=[*columns, *(metadata_column(alias, n) for n in extra)],
        from_=exp.From(this=target),
    )
    where = statement.args.get("where")
    if where is not None:
        select.set("where", where.copy())
    result, scan = run_target_query(session, select, params)
    try:
        reader = result.reader
        assert reader is not None
        n = len(schema.fields)
        assignment = Assignment(table.name, schema, pa.schema(list(reader.schema)[:n]))
    except BaseException:
        result.close()
        raise

    def collect(changes: RowChanges, batch: pa.RecordBatch) -> None:
        changes.write(assignment.convert(batch), batch.column(n + 2) if lineage else None)
        changes.remove(batch.column(n), batch.column(n + 1))

    return done(apply_changes(catalog, result, scan, "update", collect, ref=ref).removed_rows)


def _assignments(
    expressions: Sequence[exp.Expr], alias: str, schema: Schema, table: str
) -> dict[Path, exp.Expr]:
    """SET targets as paths of canonical field names, each with its value expression."""
    out: dict[Path, exp.Expr] = {}
    for item in expressions:
        if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column | exp.Dot):
            raise NotSupportedError(
                f"UPDATE assignment {item.sql(dialect=DIALECT)} is not supported"
            )
        path = _resolve(item.this, alias, schema, table)
        for other in out:
            shorter, longer = sorted((other, path), key=len)
            if longer[: len(shorter)] == shorter:
                what = "Multiple" if other == path else "Conflicting"
                raise ProgrammingError(
                    f"[DATATYPE_MISMATCH.INVALID_ROW_LEVEL_OPERATION_ASSIGNMENTS] cannot update"
                    f" {table}: {what} assignments for '{'.'.join(shorter)}'"
                )
        value = item.expression
        if is_default_keyword(value):  # SET c = DEFAULT: the write-default (NULL without one)
            value = write_default_expression(schema.find_field_by_name(".".join(path)))
        out[path] = value
    return out


def _resolve(column: exp.Column | exp.Dot, alias: str, schema: Schema, table: str) -> Path:
    """The field path a SET target names; a leading alias (or table name) is dropped."""
    parts = [p.name for p in column.parts] if isinstance(column, exp.Column) else [column.name]
    fields = {f.name.lower(): f for f in schema.fields}
    if len(parts) > 1 and parts[0].lower() == alias.lower() and parts[1].lower() in fields:
        parts = parts[1:]
    field = fields.get(parts[0].lower())
    if field is None:
        raise ProgrammingError(
            f"[UNRESOLVED_COLUMN] cannot update {table}: column `{parts[0]}` does not exist"
            f" (columns: {', '.join(f.name for f in schema.fields)})"
        )
    path = [field.name]
    for name in parts[1:]:
        if isinstance(field.type, ListType | MapType):
            raise NotSupportedError(
                f"cannot update {table}: assigning a field of `{'.'.join(path)}`, an array or"
                " map, is not supported"
            )
        if not isinstance(field.type, StructType):
            raise ProgrammingError(
                f"[UNRESOLVED_COLUMN] cannot update {table}: `{'.'.join(path)}` is not a struct"
                f" and has no field `{name}`"
            )
        child = field.type.field_by_name(name, case_sensitive=False)
        if child is None:
            raise ProgrammingError(
                f"[UNRESOLVED_COLUMN] cannot update {table}: `{'.'.join(path)}` has no field"
                f" `{name}`"
            )
        field = child
        path.append(child.name)
    return tuple(path)


def _value(field: NestedField, path: Path, alias: str, assigned: dict[Path, exp.Expr]) -> exp.Expr:
    """The new value of the column (or struct field) at ``path``."""
    if path in assigned:
        return assigned[path].copy()
    nested = any(p[: len(path)] == path and len(p) > len(path) for p in assigned)
    if not nested:
        return _reference(alias, path)
    assert isinstance(field.type, StructType)
    return exp.Struct(
        expressions=[
            exp.PropertyEQ(
                this=exp.to_identifier(child.name, quoted=True),
                expression=_value(child, (*path, child.name), alias, assigned),
            )
            for child in field.type.fields
        ]
    )


def _reference(alias: str, path: Path) -> exp.Expr:
    """``alias.col`` or ``alias.col.field...``."""
    node: exp.Expr = exp.column(exp.to_identifier(path[0], quoted=True), table=alias)
    for name in path[1:]:
        node = exp.Dot(this=node, expression=exp.to_identifier(name, quoted=True))
    return node
