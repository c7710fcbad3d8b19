"""Column default values (v3): the ``DEFAULT`` literal of ``ADD COLUMN`` / ``ALTER COLUMN SET
DEFAULT`` as a field's ``initial-default`` / ``write-default``, and a write-default as the SQL
value an omitted column gets.

A literal is read as Spark reads a PARTITION clause value (``partition_values``: evaluated
to text, then cast to the column's type with the ANSI rules), so ``DEFAULT 5`` fills an INT,
``DEFAULT DATE'2024-01-01'`` a DATE and ``DEFAULT -1.5`` a DECIMAL(9, 2). Any other constant
expression (``DEFAULT 1 + 2``, ``DEFAULT upper('a')``) is evaluated
once, by the engine, and stored into the column's type as an INSERT would store it (Spark's
ANSI store assignment): an Iceberg default is one fixed value (spec: its JSON single-value
serialization), so an expression whose value depends on the row or on the moment
(``current_date()``, ``rand()``, a column, a subquery) is refused by name. The spec allows no
default but null for ``unknown``, ``variant``, ``geometry`` and ``geography``; a struct's own
default holds no field values (they are its fields' defaults), so a struct value as a default
is not supported here, and list and map defaults are refused because Iceberg 1.10 (Java, so
Spark) cannot load a table that has one; tables others wrote with struct, list or map defaults
read and write them (``effective_default``, ``default_expression``). Defaults exist from
format version 3 on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from icesql.errors import DataError, NotSupportedError, ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    FixedType,
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
    MapType,
    NestedField,
    StructType,
    TimestampNanoType,
    TimestamptzNanoType,
    UnknownType,
    VariantType,
    effective_default,
    is_primitive,
)
from icesql.spec.values import from_python, to_json_value
from icesql.sql.dialect import DIALECT
from icesql.sql.partition_values import cast_partition_value, partition_text
from icesql.sql.spark_type_names import spark_type
from icesql.sql.store_assignment import Assignment

__all__ = [
    "Evaluate",
    "check_defaults_supported",
    "default_expression",
    "default_value",
    "fill_values_defaults",
    "is_default_keyword",
    "write_default_expression",
]

_NULL_ONLY = (UnknownType, VariantType, GeometryType, GeographyType)
Evaluate = Callable[[exp.Expr], pa.Table]  # runs ``SELECT <expression>``: one row, one column
# what is not one value for every row and statement: refused as a default
_VARYING: tuple[type[exp.Expr], ...] = (
    exp.Column,
    exp.Subquery,
    exp.Select,
    exp.AggFunc,
    exp.Window,
    exp.CurrentDate,
    exp.CurrentTimestamp,
    exp.CurrentTime,
    exp.CurrentDatetime,
    exp.Localtimestamp,
    exp.CurrentUser,
    exp.CurrentTimezone,
    exp.CurrentCatalog,
    exp.CurrentDatabase,
    exp.Rand,
    exp.Randn,
    exp.Uuid,
    exp.Shuffle,
    exp.StrToUnix,
)
_VARYING_CALLS = {
    "now",
    "monotonically_increasing_id",
    "input_file_name",
    "spark_partition_id",
    "current_schema",
    "session_user",
    "user",
    "random",
    "uuid",
}


def check_defaults_supported(format_version: int, table: str) -> None:
    """Defaults are v3 metadata (spec, Appendix E); older tables refuse them."""
    if format_version < 3:
        raise ProgrammingError(
            f"cannot alter {table}: column default values need format version 3"
            f" (the table is v{format_version}; ALTER TABLE {table} SET TBLPROPERTIES"
            " ('format-version'='3') upgrades it)"
        )


def default_value(
    node: exp.Expr, f: NestedField, table: str, evaluate: Evaluate | None = None
) -> Any:
    """The convention value of the ``DEFAULT`` expression ``node`` for column ``f`` (None for
    ``DEFAULT NULL``); errors name the column, its type and the table. Without ``evaluate``
    only literals are taken."""
    written = node.sql(dialect="spark")
    where = f"DEFAULT {written} for column {f.name!r} ({f.type}) of {table}"
    try:
        text = partition_text(node, (), "a DEFAULT value")
    except ProgrammingError:
        if evaluate is None:
            raise NotSupportedError(f"{where}: icesql takes a literal default value") from None
        return _evaluated(node, f, table, where, evaluate)
    if text is None:
        return None
    if isinstance(f.type, _NULL_ONLY):
        raise ProgrammingError(f"{where}: a {f.type} column can only default to null")
    if not is_primitive(f.type):
        raise NotSupportedError(f"{where}: defaults of {f.type} columns")
    if isinstance(text, bytes) and not isinstance(f.type, BinaryType | FixedType):
        raise ProgrammingError(f"{where}: a binary literal is not a {f.type} value")
    try:
        return cast_partition_value(text, f.type, table, f.name)
    except DataError as e:
        reason = str(e).split(": ", 1)[-1].replace("the PARTITION value", "the value")
        raise ProgrammingError(f"{where}: {reason}") from None


def _evaluated(node: exp.Expr, f: NestedField, table: str, where: str, evaluate: Evaluate) -> Any:
    """A constant expression's value, computed once and stored as an INSERT stores it."""
    for part in node.walk():
        name = str(part.this).lower() if isinstance(part, exp.Anonymous) else ""
        if isinstance(part, _VARYING) or name in _VARYING_CALLS:
            what = part.sql(dialect="spark")
            raise NotSupportedError(
                f"{where}: {what} is not a constant; an Iceberg default is one value, fixed"
                " when it is set: write a literal default or a constant expression"
                " (e.g. DEFAULT DATE'2024-01-01', DEFAULT 1 + 2)"
            )
    if isinstance(f.type, _NULL_ONLY):
        raise ProgrammingError(f"{where}: a {f.type} column can only default to null")
    if isinstance(f.type, StructType):
        raise NotSupportedError(
            f"{where}: a struct's default holds no field values (spec); set its fields' defaults"
        )
    if not is_primitive(f.type):
        raise NotSupportedError(
            f"{where}: defaults of {f.type} columns are not written: Iceberg 1.10 (Java, so"
            " Spark) cannot load a table whose list or map column has one (it makes no literal"
            " of it)"
        )
    result = evaluate(node)
    if result.num_rows != 1 or result.num_columns != 1:
        raise ProgrammingError(f"{where}: not a single value")
    batch = result.combine_chunks().to_batches()[0]
    try:
        stored = Assignment(table, Schema((f,)), batch.schema).convert(batch).column(0)
    except (ProgrammingError, DataError) as e:
        raise type(e)(f"{where}: {str(e).split(': ', 1)[-1]}") from None
    if stored.null_count:
        return None
    if (
        pa.types.is_timestamp(stored.type)
        or pa.types.is_date(stored.type)
        or pa.types.is_time(stored.type)
    ):
        width = pa.int32() if pa.types.is_date(stored.type) else pa.int64()
        return pc.cast(stored, width)[0].as_py()  # in the convention's unit already
    return from_python(f.type, _maps_as_dicts(f.type, stored[0].as_py()))


def _maps_as_dicts(t: IcebergType, value: Any) -> Any:
    """Arrow's Python form of a map is a list of (key, value) pairs; the convention's a dict."""
    if value is None:
        return None
    if isinstance(t, MapType):
        return {_maps_as_dicts(t.key_type, k): _maps_as_dicts(t.value_type, v) for k, v in value}
    if isinstance(t, ListType):
        return [_maps_as_dicts(t.element_type, v) for v in value]
    return value


def is_default_keyword(node: exp.Expr | None) -> bool:
    """Whether ``node`` is the ``DEFAULT`` keyword of a VALUES row or a SET assignment (sqlglot
    reads it as a word, or as an unquoted column of that name)."""
    if isinstance(node, exp.Var):
        return node.name.upper() == "DEFAULT"
    return (
        isinstance(node, exp.Column)
        and not node.table
        and isinstance(node.this, exp.Identifier)
        and not node.this.quoted
        and node.name.upper() == "DEFAULT"
    )


def write_default_expression(f: NestedField) -> exp.Expr:
    """What ``DEFAULT`` stands for in a write to column ``f``: its write-default, or NULL
    when it has none (as in Spark; a NOT NULL column then refuses the row)."""
    return default_expression(f.type, effective_default(f, initial=False))


def fill_values_defaults(values: exp.Values, fields: list[NestedField]) -> exp.Values:
    """``VALUES`` rows with each ``DEFAULT`` replaced by the write-default of the column it
    fills (``fields``, in order); a row longer than ``fields`` is left to the arity check."""
    out = values.copy()
    for row in out.expressions:
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        for i, item in enumerate(items):
            if i < len(fields) and is_default_keyword(item):
                item.replace(write_default_expression(fields[i]))
    return out


def default_expression(t: IcebergType, value: Any) -> exp.Expr:
    """A Spark SQL constant of type ``t`` holding the convention value ``value`` (a column's
    write-default), for statements that build their rows in SQL (MERGE's INSERT)."""
    if value is None:
        return exp.Null()
    if isinstance(t, StructType):  # an effective default: each field's own
        fields = [
            exp.PropertyEQ(
                this=exp.to_identifier(c.name, quoted=True),
                expression=default_expression(c.type, value.get(c.field_id)),
            )
            for c in t.fields
        ]
        return exp.Cast(
            this=exp.Struct(expressions=fields),
            to=exp.DataType.build(spark_type(t), dialect=DIALECT),
        )
    if isinstance(t, ListType):
        items = [default_expression(t.element_type, v) for v in value]
        return exp.Cast(
            this=exp.Array(expressions=items), to=exp.DataType.build(spark_type(t), dialect=DIALECT)
        )
    if isinstance(t, MapType):
        pairs = [default_expression(t.key_type, k) for k in value]
        vals = [default_expression(t.value_type, v) for v in value.values()]
        return exp.Cast(
            this=exp.VarMap(keys=exp.Array(expressions=pairs), values=exp.Array(expressions=vals)),
            to=exp.DataType.build(spark_type(t), dialect=DIALECT),
        )
    if isinstance(t, BooleanType):
        return exp.Boolean(this=bool(value))
    if isinstance(t, BinaryType | FixedType):
        return exp.HexString(this=bytes(value).hex())
    text = str(to_json_value(t, value))
    return exp.Cast(
        this=exp.Literal.string(text), to=exp.DataType.build(_sql_type(t), dialect=DIALECT)
    )


def _sql_type(t: IcebergType) -> str:
    """Spark's name of ``t``, but the dialect's own for nanosecond timestamps (Spark's would
    drop the nanoseconds)."""
    if isinstance(t, TimestampNanoType | TimestamptzNanoType):
        return "TIMESTAMP_NS" if isinstance(t, TimestampNanoType) else "TIMESTAMPTZ_NS"
    return spark_type(t)
