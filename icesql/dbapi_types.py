"""PEP 249 type objects and the type codes ``Cursor.description`` reports.

Type codes are Spark SQL type names (``BIGINT``, ``DECIMAL(9,2)``, ``TIMESTAMP``...), the
names a Spark user reads in ``DESCRIBE``; the type objects compare equal to the codes of
their group, as PEP 249 asks.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from icesql._lazy import lazy_module
from icesql.errors import NotSupportedError
from icesql.sql.spark_type_names import SMALLINT, TINYINT, spark_primitive_name

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.spec import arrow
else:  # pyarrow loads on first use (icesql._lazy): SELECT 1's rows need none
    pa = lazy_module("pyarrow")
    arrow = lazy_module("icesql.spec.arrow")


class DBAPITypeObject:
    """Equal to the type codes whose name is one of ``names``, parameters aside:
    ``NUMBER == "DECIMAL(9,2)"``, ``DATETIME == "TIMESTAMP_NTZ"``, but ``NUMBER != "INTERVAL"``."""

    def __init__(self, name: str, *names: str):
        self.name = name
        self.names = names

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, str):
            return False
        code = other.upper()
        # a name matches the whole code or its head before a parameter list or suffix
        # (DECIMAL(9,2), TIMESTAMP_NTZ, TIME32[MS]), never part of a longer word (INTERVAL)
        return any(
            code.startswith(n) and not code[len(n) : len(n) + 1].isalpha() for n in self.names
        )

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"icesql.{self.name}"


STRING = DBAPITypeObject("STRING", "STRING")
BINARY = DBAPITypeObject("BINARY", "BINARY")
NUMBER = DBAPITypeObject(
    "NUMBER",
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "DECIMAL",
    "BOOLEAN",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINT",
    "UBIGINT",
)
DATETIME = DBAPITypeObject("DATETIME", "DATE", "TIMESTAMP", "TIME")
ROWID = DBAPITypeObject("ROWID", "ROWID")


def type_code(t: pa.DataType) -> str:
    """The Spark SQL name of an Arrow result type."""
    if pa.types.is_integer(t):  # Spark's tinyint/smallint, and DuckDB's unsigned integers
        unsigned = "U" if pa.types.is_unsigned_integer(t) else ""
        return unsigned + {8: TINYINT, 16: SMALLINT, 32: "INT", 64: "BIGINT"}[t.bit_width].upper()
    if pa.types.is_float16(t):
        return "DOUBLE"
    if pa.types.is_decimal(t):  # also wider than Iceberg's 38 digits
        return f"DECIMAL({t.precision},{t.scale})"
    if pa.types.is_struct(t):
        return "STRUCT<" + ",".join(f"{f.name}:{type_code(f.type)}" for f in t) + ">"
    if pa.types.is_map(t):
        return f"MAP<{type_code(t.key_type)},{type_code(t.item_type)}>"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return f"ARRAY<{type_code(t.value_type)}>"
    if pa.types.is_duration(t) or pa.types.is_interval(t):
        return "INTERVAL"
    if pa.types.is_dictionary(t):
        return str(t).upper()
    try:
        iceberg = arrow.arrow_to_iceberg_type(t)
    except (NotSupportedError, ValueError):
        return str(t).upper()
    return spark_primitive_name(iceberg).upper()


def Date(year: int, month: int, day: int) -> datetime.date:
    return datetime.date(year, month, day)


def Time(hour: int, minute: int, second: int) -> datetime.time:
    return datetime.time(hour, minute, second)


def Timestamp(
    year: int, month: int, day: int, hour: int, minute: int, second: int
) -> datetime.datetime:
    return datetime.datetime(year, month, day, hour, minute, second)


def Binary(value: bytes) -> bytes:
    return bytes(value)


def DateFromTicks(ticks: float) -> datetime.date:
    return datetime.date.fromtimestamp(ticks)


def TimeFromTicks(ticks: float) -> datetime.time:
    return datetime.datetime.fromtimestamp(ticks).time()


def TimestampFromTicks(ticks: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ticks)
