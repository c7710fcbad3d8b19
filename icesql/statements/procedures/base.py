"""What a procedure is, and how a ``CALL``'s arguments become its typed inputs.

A ``Procedure`` names its parameters (Spark's names, types and required-ness, in Spark's
order), its output columns, and the function that runs it. ``bind`` applies Spark's rules
(Iceberg's ``ResolveProcedures``): arguments are all positional or all named (names match
case-insensitively), no more than the parameters, no unknown or repeated names, every required
parameter given; each value must up-cast to its parameter's type (an int literal to ``long``, a
date to ``timestamp``; a string never to a number or a timestamp). Every error names the
procedure and, where there is one, the argument.

Values are evaluated once: literals and ``?`` parameters directly, any other expression
(``TIMESTAMP '...'``, ``current_timestamp() - INTERVAL 1 DAY``, ``array(1, 2)``,
``map('s3a', 's3')``) by the session's query path.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa
from sqlglot import exp

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table
from icesql.errors import NoSuchTableError, ProgrammingError
from icesql.session import Result, Session
from icesql.sql import nodes
from icesql.sql.dialect import DIALECT, parse_one
from icesql.sql.identifiers import catalog_and_table
from icesql.sql.translate import duckdb_errors

__all__ = [
    "BOOLEAN", "INT", "LONG", "LONG_ARRAY", "STRING", "STRING_ARRAY", "STRING_MAP", "TIMESTAMP",
    "Call", "Parameter", "Procedure", "bind",
]  # fmt: skip

STRING, LONG, INT, BOOLEAN, TIMESTAMP = "string", "long", "int", "boolean", "timestamp"
LONG_ARRAY, STRING_ARRAY, STRING_MAP = "array<long>", "array<string>", "map<string,string>"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_SPARK_TYPES = {
    STRING: "StringType", LONG: "LongType", INT: "IntegerType", BOOLEAN: "BooleanType",
    TIMESTAMP: "TimestampType", LONG_ARRAY: "ArrayType(LongType)",
    STRING_ARRAY: "ArrayType(StringType)",
    STRING_MAP: "MapType(StringType,StringType)",
}  # fmt: skip
# argument type -> the parameter types it up-casts to (Spark's Cast.canUpCast, for these)
_UP_CASTS = {
    "StringType": {STRING},
    "ByteType": {LONG, INT}, "ShortType": {LONG, INT}, "IntegerType": {LONG, INT},
    "LongType": {LONG}, "BooleanType": {BOOLEAN},
    "TimestampType": {TIMESTAMP}, "DateType": {TIMESTAMP},
    "ArrayType(ByteType)": {LONG_ARRAY}, "ArrayType(ShortType)": {LONG_ARRAY},
    "ArrayType(IntegerType)": {LONG_ARRAY}, "ArrayType(LongType)": {LONG_ARRAY},
    "ArrayType(StringType)": {STRING_ARRAY},
    "MapType(StringType,StringType)": {STRING_MAP},
}  # fmt: skip


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str  # STRING | LONG | INT | BOOLEAN | TIMESTAMP | LONG_ARRAY | STRING_ARRAY | STRING_MAP
    required: bool = True


@dataclass(frozen=True)
class Call:
    """A bound call: the session, the catalog the procedure runs in, and its arguments
    (missing optional ones are absent; a timestamp is epoch milliseconds)."""

    session: Session
    catalog: Catalog
    procedure: str
    args: Mapping[str, Any]

    def table(self, parameter: str = "table") -> tuple[Catalog, Table]:
        """The table a string argument names, in the procedure's catalog unless qualified."""
        catalog, identifier = self.identifier(parameter)
        table = self.session.tables.find(catalog, identifier)
        if table is None:
            raise NoSuchTableError(
                f"procedure {self.procedure}: table not found: {'.'.join(identifier)}"
            )
        return catalog, table

    def table_name(self, parameter: str = "table") -> tuple[str, ...]:
        """The name parts of a string argument that names a table (not resolved)."""
        text = self.args[parameter]
        try:
            node = parse_one(f"SELECT * FROM {text}").find(exp.Table)
        except ProgrammingError:
            node = None
        if node is None or not text.strip():
            raise ProgrammingError(
                f"procedure {self.procedure}: cannot parse argument {parameter} as a table name: {text!r}"
            )
        return tuple(nodes.name_of(node))

    def identifier(self, parameter: str = "table") -> tuple[Catalog, tuple[str, ...]]:
        parts = self.table_name(parameter)
        return catalog_and_table(
            parts, self.session.catalogs, self.catalog, self.session.default_namespace
        )

    def error(self, message: str) -> ProgrammingError:
        return ProgrammingError(f"procedure {self.procedure}: {message}")


@dataclass(frozen=True)
class Procedure:
    name: str
    parameters: tuple[Parameter, ...]
    output: pa.Schema
    run: Callable[[Call], Sequence[Sequence[Any]]]  # the output rows

    def result(self, rows: Sequence[Sequence[Any]]) -> Result:
        columns = [pa.array([r[i] for r in rows], type=f.type) for i, f in enumerate(self.output)]
        table = pa.Table.from_arrays(columns, schema=self.output)
        return Result(reader=table.to_reader(), rowcount=-1)


def bind(
    procedure: Procedure,
    qualified: str,
    arguments: Sequence[nodes.CallArgument],
    session: Session,
    params: Sequence[object],
) -> dict[str, Any]:
    """The arguments of a ``CALL`` by parameter name, checked and converted (module docstring)."""

    def fail(message: str) -> ProgrammingError:
        return ProgrammingError(f"procedure {qualified}: {message}")

    named = [a.arg_name is not None for a in arguments]
    if any(named) and not all(named):
        raise fail("Named and positional arguments cannot be mixed")
    by_name = {p.name: p for p in procedure.parameters}
    given: dict[str, nodes.CallArgument] = {}
    if any(named):
        problems = []
        for argument in arguments:
            name = argument.arg_name.lower()  # type: ignore[union-attr]
            if name not in by_name:
                problems.append(f"Unknown argument: {name}")
            elif name in given:
                problems.append(f"Duplicate procedure argument: {name}")
            given[name] = argument
        if problems:
            names = ", ".join(p.name for p in procedure.parameters)
            raise fail(f"{', '.join(problems)} (its parameters: {names})")
    else:
        if len(arguments) > len(procedure.parameters):
            raise fail(
                f"Too many arguments for procedure: {len(arguments)} given, it takes"
                f" {len(procedure.parameters)}"
            )
        given = {p.name: a for p, a in zip(procedure.parameters, arguments, strict=False)}
    values = {}
    for name, argument in given.items():
        value, spark_type = _evaluate(argument.expression, session, params, fail)
        if value is None:
            continue
        values[name] = _convert(value, spark_type, by_name[name], fail)
    missing = [p.name for p in procedure.parameters if p.required and p.name not in values]
    if missing:
        raise fail(f"Missing required parameters: [{','.join(missing)}]")
    return values


def _evaluate(
    node: exp.Expr,
    session: Session,
    params: Sequence[object],
    fail: Callable[[str], ProgrammingError],
) -> tuple[Any, str]:
    """The value of an argument expression and its Spark type name."""
    if isinstance(node, exp.Null):
        return None, "NullType"
    if isinstance(node, exp.Boolean):
        return node.this, "BooleanType"
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this, "StringType"
        return _number(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        value, kind = _number(node.this.this)
        return -value, kind
    if isinstance(node, exp.Placeholder):
        value = params[node.meta["icesql_param"]]
        return value, _python_type(value)
    result = session.query(exp.select(node.copy().as_("value")), params)
    try:
        assert result.reader is not None
        with duckdb_errors(result.scans):
            table = result.reader.read_all()
    finally:
        result.close()
    if table.num_rows != 1:
        raise fail(f"argument {node.sql(dialect=DIALECT)} is not a single value")
    column = table.column(0)
    return column[0].as_py(), _arrow_type(column.type)


def _number(text: str) -> tuple[Any, str]:
    try:
        value = int(text)
    except ValueError:
        return Decimal(text), "DecimalType"
    return value, "IntegerType" if -(2**31) <= value < 2**31 else "LongType"


def _python_type(value: object) -> str:
    if isinstance(value, bool):
        return "BooleanType"
    if isinstance(value, int):
        return "LongType"
    if isinstance(value, str):
        return "StringType"
    if isinstance(value, dt.datetime):
        return "TimestampType"
    if isinstance(value, dt.date):
        return "DateType"
    if isinstance(value, list | tuple) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        return "ArrayType(LongType)"
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return "ArrayType(StringType)"
    if isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        return "MapType(StringType,StringType)"
    return type(value).__name__


def _arrow_type(t: pa.DataType) -> str:
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "StringType"
    if pa.types.is_integer(t):
        return {8: "ByteType", 16: "ShortType", 32: "IntegerType"}.get(t.bit_width, "LongType")
    if pa.types.is_timestamp(t):
        return "TimestampType"
    if pa.types.is_date(t):
        return "DateType"
    if pa.types.is_decimal(t):
        return "DecimalType"
    if pa.types.is_floating(t):
        return "DoubleType"
    if pa.types.is_boolean(t):
        return "BooleanType"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"ArrayType({_arrow_type(t.value_type)})"
    if pa.types.is_map(t):
        return f"MapType({_arrow_type(t.key_type)},{_arrow_type(t.item_type)})"
    return str(t)


def _convert(
    value: Any, spark_type: str, parameter: Parameter, fail: Callable[[str], ProgrammingError]
) -> Any:
    if parameter.type not in _UP_CASTS.get(spark_type, set()):
        raise fail(
            f"Wrong arg type for {parameter.name}: cannot cast {spark_type} to"
            f" {_SPARK_TYPES[parameter.type]}"
        )
    if parameter.type == TIMESTAMP:
        if not isinstance(value, dt.datetime):
            value = dt.datetime.combine(value, dt.time())
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)  # the session time zone
        return (value - _EPOCH) // dt.timedelta(milliseconds=1)  # Spark's lossy micros -> millis
    if parameter.type == STRING_MAP:
        items = (
            value.items() if isinstance(value, dict) else value
        )  # Arrow maps: (key, value) pairs
        return {k: v for k, v in items}
    if parameter.type in (LONG_ARRAY, STRING_ARRAY):
        return list(value)
    return value
