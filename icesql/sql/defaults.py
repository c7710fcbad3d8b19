"""Column default values (v3): the ``DEFAULT`` literal of ``ADD COLUMN`` / ``ALTER COLUMN SET
DEFAULT`` as a field's ``initial-default`` / ``write-default``, and a write-default as the SQL
value an omitted column gets.

The literal is read as Spark reads a PARTITION clause value (``partition_values``: evaluated
to text, then cast to the column's type with the ANSI rules), so ``DEFAULT 5`` fills an INT,
``DEFAULT DATE'2024-01-01'`` a DATE and ``DEFAULT -1.5`` a DECIMAL(9, 2). The spec allows no
default but null for ``unknown``, ``variant``, ``geometry`` and ``geography``; struct, list and
map defaults are not supported here. Defaults exist from format version 3 on.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from icesql.errors import DataError, NotSupportedError, ProgrammingError
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    FixedType,
    GeographyType,
    GeometryType,
    IcebergType,
    NestedField,
    UnknownType,
    VariantType,
    is_primitive,
)
from icesql.spec.values import to_json_value
from icesql.sql.partition_values import cast_partition_value, partition_text
from icesql.sql.spark_type_names import spark_type

__all__ = ["check_defaults_supported", "default_expression", "default_value"]

_NULL_ONLY = (UnknownType, VariantType, GeometryType, GeographyType)


def check_defaults_supported(format_version: int, table: str) -> None:
    """Defaults are v3 metadata (spec, Appendix E); older tables refuse them."""
    if format_version < 3:
        raise ProgrammingError(
            f"cannot alter {table}: column default values need format version 3"
            f" (the table is v{format_version}; ALTER TABLE {table} SET TBLPROPERTIES"
            " ('format-version'='3') upgrades it)"
        )


def default_value(node: exp.Expr, f: NestedField, table: str) -> Any:
    """The convention value of the ``DEFAULT`` expression ``node`` for column ``f`` (None for
    ``DEFAULT NULL``); errors name the column, its type and the table."""
    written = node.sql(dialect="spark")
    where = f"DEFAULT {written} for column {f.name!r} ({f.type}) of {table}"
    try:
        text = partition_text(node, (), "a DEFAULT value")
    except ProgrammingError:
        raise NotSupportedError(f"{where}: icesql takes a literal default value") from None
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


def default_expression(t: IcebergType, value: Any) -> exp.Expr:
    """A Spark SQL constant of type ``t`` holding the convention value ``value`` (a column's
    write-default), for statements that build their rows in SQL (MERGE's INSERT)."""
    if value is None:
        return exp.Null()
    if isinstance(t, BooleanType):
        return exp.Boolean(this=bool(value))
    if isinstance(t, BinaryType | FixedType):
        return exp.HexString(this=bytes(value).hex())
    text = str(to_json_value(t, value))
    return exp.Cast(this=exp.Literal.string(text), to=exp.DataType.build(spark_type(t), dialect="spark"))
