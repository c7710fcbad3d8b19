"""Data files that DuckDB reads itself, with ``read_parquet`` and a field-id schema mapping.

Handing DuckDB every batch through an Arrow stream costs several times DuckDB's own Parquet
reader on decimal and string columns. A data file is therefore read by
``read_parquet(files, schema=MAP{...})`` when the scan has no metadata columns:
the map is keyed by Iceberg field id, so DuckDB matches columns by id as Iceberg's Column
Projection rules say, and each entry carries the column's name and type (renames, and the
allowed promotions int→long, float→double, decimal precision, date→timestamp become DuckDB
casts) and the value of a column the file does not hold (``default_value``): the field's
``initial-default`` or NULL, or the partition value of an identity-partitioned column (files
are grouped by those values, one ``read_parquet`` per group). The SQL yields exactly the
DuckDB types the Arrow stream of ``type_to_arrow`` yields (``duckdb_type``), so the two
paths union into one view.

A data file with deletes is read the same way, its deletes applied inside DuckDB
(``icesql.scan.native_deletes``): position deletes and DVs as keep-masks lined up with the
files' rows by positional joins (the files cut into a few ``read_parquet`` calls per DuckDB
thread), equality deletes as an anti-join on the delete columns (files grouped by the
equality deletes they share).

A scan stays on the Arrow stream where DuckDB's reader cannot follow Iceberg's rules:
nested columns (DuckDB matches struct children by name, not by id), ``unknown``/variant/
geospatial columns, defaults without an exact text form, and metadata columns (``_file``,
``_pos`` ...). A file stays on it when it is not local Parquet, its path would be a glob
pattern to DuckDB, its footer shows no field ids (``field_ids``: DuckDB would read NULLs;
the stream applies the table's name mapping or raises the error that names the file), an
equality delete column has no DuckDB type, or
the scan would need more ``read_parquet`` calls than ``MAX_GROUPS`` (DuckDB plans a UNION of
many ``read_parquet`` calls in time that grows faster than their number).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from fsspec.implementations.local import LocalFileSystem

from icesql.errors import CorruptFileError, Error, OperationalError
from icesql.io import FileIO
from icesql.metadata.manifest import EQUALITY_DELETES, DataFile
from icesql.scan.apply_deletes import DeleteApplier, extra_delete_column
from icesql.scan.field_ids import footer_row_count, has_field_ids
from icesql.scan.native_deletes import KeepMask, anti_join, positional, sql_string
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
MAX_GROUPS = 128  # read_parquet calls per scan, not counting the splits below
MASK_GROUPS_PER_THREAD = 4  # positional scans per DuckDB thread over files with position deletes


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
        return sql_string(repr(number)) if math.isfinite(number) else None
    if isinstance(t, BinaryType | FixedType | UUIDType):
        raw = value.bytes if isinstance(t, UUIDType) else bytes(value)  # type: ignore[union-attr, arg-type]
        return sql_string("".join(f"\\x{b:02X}" for b in raw))
    if duckdb_type(t) is None:
        return None
    text = to_json_value(t, value)
    return sql_string(str(text).lower() if isinstance(t, BooleanType) else str(text))


@dataclass(frozen=True)
class NativeRead:
    """The SQL that reads some data files of a scan with DuckDB's own Parquet reader, those
    files (local paths, as DuckDB names them in its errors), and the Arrow objects the SQL
    names (keep-masks, equality delete rows), to register before running it."""

    sql: str
    paths: tuple[str, ...]
    relations: tuple[tuple[str, object], ...] = ()
    with_deletes: int = 0  # how many of the files have deletes applied in DuckDB

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


_Column = tuple[NestedField, str, str]  # (field, DuckDB type, initial-default literal)


_Key = tuple[tuple[int, str], ...]  # identity-partition defaults of a read_parquet call


@dataclass
class _Part:
    """The files of one set of equality deletes (or none), in ``read_parquet`` groups by
    identity-partition values: files without position deletes in ``groups``, files with
    them in ``masked`` (task, local path), later cut into positional scans (``scans``:
    paths, keep-mask relation name, key)."""

    columns: list[_Column]
    joins: list[tuple[str, tuple[str, ...]]]
    groups: dict[_Key, list[str]] = field(default_factory=dict)
    masked: dict[_Key, list[tuple[FileScanTask, str]]] = field(default_factory=dict)
    scans: list[tuple[list[str], str, _Key]] = field(default_factory=list)


def split_native(
    schema: Schema,
    tasks: Sequence[FileScanTask],
    io: FileIO,
    identity_values: Callable[[FileScanTask], Mapping[int, tuple[NestedField, object]]],
    deletes: DeleteApplier | None = None,
    prefix: str = "icesql",
    on_error: Callable[[Exception], None] = lambda e: None,
) -> tuple[NativeRead | None, list[FileScanTask]]:
    """The part of a scan DuckDB reads itself and the tasks left to stream.

    ``schema`` is the projected read schema (the view's columns, in order); the caller has
    already excluded scans with metadata columns or a name mapping. With ``deletes`` (the
    scan's delete reader) files with deletes are read natively too, their deletes applied
    in DuckDB (``icesql.scan.native_deletes``); relations are named ``{prefix}_...``.
    """
    columns = _columns(schema)
    if columns is None:
        return None, list(tasks)
    parts: dict[tuple, _Part] = {}  # by the equality deletes their files share
    groups = 0  # read_parquet calls before the masked files are cut into scans
    streamed: list[FileScanTask] = []
    for task in tasks:
        local = _local_parquet(task, io)
        if local is None or (task.delete_files and deletes is None):
            streamed.append(task)
            continue
        equality = _equality_joins(task, deletes, columns, io) if deletes else ([], [])
        if equality is None:
            streamed.append(task)
            continue
        extra, keyed = equality
        signature = sorted(keyed, key=lambda item: item[0])
        part_key = tuple(eq_key for eq_key, _, _ in signature)
        part = parts.get(part_key)
        read_columns = part.columns if part is not None else [*columns, *extra]
        key = _identity_defaults(read_columns, identity_values(task))
        positioned = any(d.content != EQUALITY_DELETES for d in task.delete_files)
        if key is None:
            streamed.append(task)
            continue
        if positioned:
            _check_row_count(task, local)
        bucket = None if part is None else part.masked if positioned else part.groups
        if groups >= MAX_GROUPS and (bucket is None or key not in bucket):
            streamed.append(task)
            continue
        if part is None:
            joins = [
                (read, tuple(_delete_column(f, columns) for f in fields))
                for _, read, fields in signature
            ]
            part = parts.setdefault(part_key, _Part(read_columns, joins))
        bucket = part.masked if positioned else part.groups
        groups += key not in bucket
        bucket.setdefault(key, []).append((task, local) if positioned else local)  # type: ignore[arg-type]
    if not parts:
        return None, streamed
    relations = _cut_masked(list(parts.values()), deletes, prefix, on_error)
    names = [f.name for f, _, _ in columns]
    sql = " UNION ALL ".join(f"({_part_sql(part, names)})" for part in parts.values())
    paths = tuple(
        p for part in parts.values()
        for p in [*(p for g in part.groups.values() for p in g), *(p for s in part.scans for p in s[0])]
    )
    with_deletes = sum(
        sum(len(s[0]) for s in part.scans)
        + (sum(map(len, part.groups.values())) if part.joins else 0)
        for part in parts.values()
    )
    return NativeRead(sql, paths, tuple(relations.items()), with_deletes), streamed


def _cut_masked(
    parts: Sequence[_Part],
    deletes: DeleteApplier | None,
    prefix: str,
    on_error: Callable[[Exception], None],
) -> dict[str, KeepMask]:
    """Cut the files with position deletes into positional scans, about
    ``MASK_GROUPS_PER_THREAD`` per DuckDB thread over the scan, each of about as many rows,
    files kept in plan order; start building their keep-masks. A positional scan runs on
    one thread, so one scan per group of files would leave threads idle."""
    total = sum(t.data_file.record_count for p in parts for b in p.masked.values() for t, _ in b)
    wanted = MASK_GROUPS_PER_THREAD * (os.cpu_count() or 1)
    relations: dict[str, KeepMask] = {}
    for part in parts:
        for key, files in part.masked.items():
            rows = sum(t.data_file.record_count for t, _ in files)
            count = max(1, min(len(files), round(wanted * rows / max(total, 1))))
            for chunk in _balanced(files, count):
                name = f"{prefix}_mask{len(relations)}"
                relations[name] = KeepMask(deletes.loader, chunk, on_error).start()  # type: ignore[union-attr]
                part.scans.append(([local for _, local in chunk], name, key))
    return relations


def _balanced(
    files: Sequence[tuple[FileScanTask, str]], count: int
) -> list[list[tuple[FileScanTask, str]]]:
    """``files`` cut into at most ``count`` consecutive runs of about equal row counts."""
    total = sum(t.data_file.record_count for t, _ in files)
    runs: list[list[tuple[FileScanTask, str]]] = [[]]
    seen = 0
    for item in files:
        if runs[-1] and seen >= total * len(runs) / count:
            runs.append([])
        runs[-1].append(item)
        seen += item[0].data_file.record_count
    return runs


def _part_sql(part: _Part, names: Sequence[str]) -> str:
    reads = [
        f"SELECT * FROM {_read_parquet(paths, part.columns, dict(key))}"
        for key, paths in part.groups.items()
    ]
    reads += [
        positional(_read_parquet(paths, part.columns, dict(key)), mask)
        for paths, mask, key in part.scans
    ]
    inner = " UNION ALL ".join(f"({r})" for r in reads)
    return anti_join(inner, names, part.joins) if part.joins else inner


def _equality_joins(
    task: FileScanTask, deletes: DeleteApplier, columns: Sequence[_Column], io: FileIO
) -> tuple[list[_Column], list[tuple[tuple[tuple[int, ...], tuple[str, ...]], str, list[NestedField]]]] | None:
    """The extra columns a file's equality deletes need read (delete columns the query does
    not project), and per set of delete columns: its key (delete columns, delete files),
    the ``read_parquet`` of its delete rows (columns "0", "1", ... by field id, typed as the
    table types them) and the delete fields. None when DuckDB cannot read them."""
    files: dict[tuple[int, ...], list[DataFile]] = {}
    for d in task.delete_files:
        if d.content == EQUALITY_DELETES:
            files.setdefault(tuple(d.equality_ids or ()), []).append(d)
    have = {f.field_id for f, _, _ in columns}
    extra: list[_Column] = []
    out = []
    for ids, group in files.items():
        paths = [_local_file(d.file_path, d.file_format, io) for d in group]
        if not ids or None in paths:
            return None  # the stream raises the error that names the file
        fields = [deletes.delete_field(fid, group[0]) for fid in ids]
        read = []
        for i, f in enumerate(fields):
            type_name, default = duckdb_type(f.type), default_literal(f.type, f.initial_default)
            if type_name is None or default is None:
                return None
            read.append((replace(f, name=str(i)), type_name, default))
            if f.field_id not in have:
                have.add(f.field_id)
                extra.append((extra_delete_column(f), type_name, default))
        key = (ids, tuple(sorted(paths)))  # type: ignore[arg-type]
        out.append((key, _read_parquet(sorted(paths), read, {}), fields))  # type: ignore[arg-type]
    return extra, out


def _delete_column(f: NestedField, columns: Sequence[_Column]) -> str:
    """The name the read gives delete column ``f``: its projected name, else the extra one."""
    for c, _, _ in columns:
        if c.field_id == f.field_id:
            return c.name
    return extra_delete_column(f).name


def _check_row_count(task: FileScanTask, local: str) -> None:
    """A keep-mask lines up with the file's rows only if the file holds the rows its
    manifest entry says."""
    rows = footer_row_count(local)
    if rows != task.data_file.record_count:
        raise CorruptFileError(
            task.data_file.file_path,
            f"the file holds {rows} rows, its manifest entry says {task.data_file.record_count}",
        )


def _columns(schema: Schema) -> list[_Column] | None:
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
    return _local_file(task.data_file.file_path, task.data_file.file_format, io)


def _local_file(path: str, file_format: str, io: FileIO) -> str | None:
    """The local path DuckDB can read ``path`` by, if it is Parquet with field ids."""
    if file_format.upper() != "PARQUET":
        return None
    fs, local = io.fs(path)
    if not isinstance(fs, LocalFileSystem) or _GLOB_CHARS.search(local):
        return None
    return local if has_field_ids(local) else None  # DuckDB would read NULLs


def _identity_defaults(
    columns: Sequence[_Column], identity: Mapping[int, tuple[NestedField, object]]
) -> tuple[tuple[int, str], ...] | None:
    """(field id, literal) of the read columns a file may lack but its identity partition
    value supplies (spec: Column Projection); None when a value has no exact literal."""
    out = []
    for f, _, _ in columns:
        if f.field_id in identity:
            literal = default_literal(f.type, identity[f.field_id][1])
            if literal is None:
                return None
            out.append((f.field_id, literal))
    return tuple(out)


def _read_parquet(
    paths: Sequence[str],
    columns: Sequence[_Column],
    identity: dict[int, str],
) -> str:
    entries = ", ".join(
        f"{f.field_id}: {{name: {sql_string(f.name)}, type: {sql_string(type_name)},"
        f" default_value: {identity.get(f.field_id, default)}::VARCHAR}}"
        for f, type_name, default in columns
    )
    files = ", ".join(sql_string(p) for p in paths)
    # hive_partitioning off: Iceberg paths look like Hive's (x=1/), but columns come by id
    return (
        f"read_parquet([{files}], schema=MAP{{{entries}}},"
        " hive_partitioning=false, union_by_name=false)"
    )
