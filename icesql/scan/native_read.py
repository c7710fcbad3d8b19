"""Data files that DuckDB reads itself, with ``read_parquet`` and a field-id schema mapping.

Handing DuckDB every batch through an Arrow stream costs several times DuckDB's own Parquet
reader on decimal and string columns. A data file with nothing to apply to it (no delete
files, no metadata columns) is therefore read by ``read_parquet(files, schema=MAP{...})``:
the map is keyed by Iceberg field id, so DuckDB matches columns by id as Iceberg's Column
Projection rules say, and each entry carries the column's name and type (renames, and the
allowed promotions int→long, float→double, decimal precision, date→timestamp become DuckDB
casts) and the value of a column the file does not hold (``default_value``): the field's
``initial-default`` or NULL, or the partition value of an identity-partitioned column (files
are grouped by those values, one ``read_parquet`` per group). The SQL yields exactly the
DuckDB types the Arrow stream of ``type_to_arrow`` yields (``duckdb_type``), so the two
paths union into one view.

A scan stays on the Arrow stream where DuckDB's reader cannot follow Iceberg's rules:
nested columns (DuckDB matches struct children by name, not by id), ``unknown``/variant/
geospatial columns, defaults without an exact text form, metadata columns (``_file``,
``_pos`` ...), and tables with a name mapping (files without field ids: DuckDB would read
their columns as NULL). A file stays on it when it has deletes, is not local Parquet, its
path would be a glob pattern to DuckDB, or its footer shows no field ids (``field_ids``;
the stream then raises the error that names the file).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from fsspec.implementations.local import LocalFileSystem

from icesql.errors import CorruptFileError, Error, OperationalError
from icesql.io import FileIO
from icesql.scan.field_ids import has_field_ids
from icesql.scan.planner import FileScanTask
from icesql.spec.schema import Schema
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IcebergType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UUIDType,
)
from icesql.spec.values import to_json_value

__all__ = ["NativeRead", "duckdb_type", "split_native"]

_DUCKDB_TYPES: dict[IcebergType, str] = {
    BooleanType(): "BOOLEAN",
    IntegerType(): "INTEGER",
    LongType(): "BIGINT",
    FloatType(): "FLOAT",
    DoubleType(): "DOUBLE",
    DateType(): "DATE",
    TimeType(): "TIME",
    TimestampType(): "TIMESTAMP",
    TimestamptzType(): "TIMESTAMP WITH TIME ZONE",
    TimestampNanoType(): "TIMESTAMP_NS",
    TimestamptzNanoType(): "TIMESTAMPTZ_NS",
    StringType(): "VARCHAR",
    UUIDType(): "BLOB",  # the stream hands uuids over as fixed_size_binary(16)
    BinaryType(): "BLOB",
}
_GLOB_CHARS = re.compile(r"[*?\[\]{}]")
MAX_GROUPS = 64  # read_parquet calls per scan; files of further groups stream


def duckdb_type(t: IcebergType) -> str | None:
    """The DuckDB type the Arrow stream gives a column of type ``t``; None where DuckDB's
    reader cannot produce it from the file by field id (nested and opaque types)."""
    if t in _DUCKDB_TYPES:
        return _DUCKDB_TYPES[t]
    if isinstance(t, DecimalType):
        return f"DECIMAL({t.precision},{t.scale})"
    if isinstance(t, FixedType):
        return "BLOB"
    return None


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def default_literal(t: IcebergType, value: object) -> str | None:
    """``value`` (value convention) as the SQL text of ``default_value``, which DuckDB casts
    from VARCHAR to the column's type; None when there is no exact text form.

    >>> default_literal(DecimalType(9, 2), None), default_literal(DateType(), 0)
    ('NULL', "'1970-01-01'")
    """
    if value is None:
        return "NULL"
    if isinstance(t, FloatType | DoubleType):
        number = float(value)  # type: ignore[arg-type]
        return _sql_string(repr(number)) if math.isfinite(number) else None
    if isinstance(t, BinaryType | FixedType | UUIDType):
        raw = value.bytes if isinstance(t, UUIDType) else bytes(value)  # type: ignore[union-attr, arg-type]
        return _sql_string("".join(f"\\x{b:02X}" for b in raw))
    if duckdb_type(t) is None:
        return None
    text = to_json_value(t, value)
    return _sql_string(str(text).lower() if isinstance(t, BooleanType) else str(text))


@dataclass(frozen=True)
class NativeRead:
    """The SQL that reads some data files of a scan with DuckDB's own Parquet reader, and
    those files (local paths, as DuckDB names them in its errors)."""

    sql: str
    paths: tuple[str, ...]

    def file_error(self, message: str) -> Error | None:
        """Our error for a DuckDB error message about one of these files, else None."""
        missing = re.search(r'No files found that match the pattern "([^"]*)"', message)
        if missing and missing.group(1) in self.paths:
            return OperationalError(f"data file not found: {missing.group(1)}")
        if "IO Error" not in message and "Invalid Input Error" not in message:
            return None
        for path in self.paths:
            if path in message:
                return CorruptFileError(path, message)
        return None


def split_native(
    schema: Schema,
    tasks: Sequence[FileScanTask],
    io: FileIO,
    identity_values: Callable[[FileScanTask], Mapping[int, tuple[NestedField, object]]],
) -> tuple[NativeRead | None, list[FileScanTask]]:
    """The part of a scan DuckDB reads itself and the tasks left to stream.

    ``schema`` is the projected read schema (the view's columns, in order); the caller has
    already excluded scans with metadata columns or a name mapping.
    """
    columns = _columns(schema)
    if columns is None:
        return None, list(tasks)
    groups: dict[tuple[tuple[int, str], ...], list[str]] = {}
    streamed: list[FileScanTask] = []
    for task in tasks:
        local = _local_parquet(task, io)
        key = _identity_defaults(schema, identity_values(task)) if local else None
        if key is None or (key not in groups and len(groups) >= MAX_GROUPS):
            streamed.append(task)
            continue
        groups.setdefault(key, []).append(local)  # type: ignore[arg-type]
    if not groups:
        return None, streamed
    parts = [_read_parquet(paths, columns, dict(key)) for key, paths in groups.items()]
    paths = tuple(p for group in groups.values() for p in group)
    return NativeRead(" UNION ALL ".join(parts), paths), streamed


def _columns(schema: Schema) -> list[tuple[NestedField, str, str]] | None:
    """Per read column: (field, DuckDB type, initial-default literal); None if any column
    cannot be read natively (or there is none: row counts come from the manifests)."""
    out = []
    for f in schema.fields:
        type_name = duckdb_type(f.type)
        default = default_literal(f.type, f.initial_default)
        if type_name is None or default is None:
            return None
        out.append((f, type_name, default))
    return out or None


def _local_parquet(task: FileScanTask, io: FileIO) -> str | None:
    data_file = task.data_file
    if task.delete_files or data_file.file_format.upper() != "PARQUET":
        return None
    fs, local = io.fs(data_file.file_path)
    if not isinstance(fs, LocalFileSystem) or _GLOB_CHARS.search(local):
        return None
    return local if has_field_ids(local) else None  # DuckDB would read NULLs


def _identity_defaults(
    schema: Schema, identity: Mapping[int, tuple[NestedField, object]]
) -> tuple[tuple[int, str], ...] | None:
    """(field id, literal) of the read columns a file may lack but its identity partition
    value supplies (spec: Column Projection); None when a value has no exact literal."""
    out = []
    for f in schema.fields:
        if f.field_id in identity:
            literal = default_literal(f.type, identity[f.field_id][1])
            if literal is None:
                return None
            out.append((f.field_id, literal))
    return tuple(out)


def _read_parquet(
    paths: Sequence[str], columns: Sequence[tuple[NestedField, str, str]], identity: dict[int, str]
) -> str:
    entries = ", ".join(
        f"{f.field_id}: {{name: {_sql_string(f.name)}, type: {_sql_string(type_name)},"
        f" default_value: {identity.get(f.field_id, default)}::VARCHAR}}"
        for f, type_name, default in columns
    )
    files = ", ".join(_sql_string(p) for p in paths)
    # hive_partitioning off: Iceberg paths look like Hive's (x=1/), but columns come by id
    return (
        f"SELECT * FROM read_parquet([{files}], schema=MAP{{{entries}}},"
        " hive_partitioning=false, union_by_name=false)"
    )
