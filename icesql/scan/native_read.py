"""Data files that DuckDB reads itself, with ``read_parquet`` and a field-id schema mapping.

Handing DuckDB every batch through an Arrow stream costs several times DuckDB's own Parquet
reader on decimal and string columns. A data file is therefore read by
``read_parquet(files, schema=MAP{...})``, with the metadata columns DML reads of its target
(``_file``, ``_pos``, ``_spec_id``) from ``file_row_number`` and each row's ``file_index``:
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
thread), equality deletes as an anti-join on the delete columns and a tag of each file's
set of delete files (``split_native``).

A scan stays on the Arrow stream where DuckDB's reader cannot follow Iceberg's rules:
nested columns (DuckDB matches struct children by name, not by id), ``unknown``/
geospatial columns, defaults without an exact text form, other metadata columns
(``_partition``, ``_deleted``, row lineage), or a data column named ``file_row_number`` or
``file_index``. A file stays on it when it is not local Parquet, its path would be a glob
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from icesql._lazy import lazy_module
from icesql.errors import CorruptFileError, Error, OperationalError
from icesql.io import FileIO, local_path
from icesql.metadata.parquet_footer import (
    footer_decodes,
    footer_row_count,
    has_field_ids,
    pages_decode,
)
from icesql.scan.apply_deletes import DeleteApplier, extra_delete_column
from icesql.scan.planner import FileScanTask
from icesql.scan.read_parts import (
    FILE_INDEX,
    PART_COLUMN,
    ROW_NUMBER,
    AntiJoin,
    DeleteRows,
    EqualityJoin,
    FileRead,
    FileValues,
    ParquetCall,
    ReadColumn,
    RowPosition,
)
from icesql.spec.content_file import EQUALITY_DELETES, DataFile
from icesql.spec.dispatch import PerPrimitiveType
from icesql.spec.schema import Schema
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    GeographyType,
    GeometryType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UnknownType,
    UUIDType,
    VariantType,
)
from icesql.spec.values import to_json_value

if TYPE_CHECKING:
    from icesql.scan import equality_metrics, native_deletes
    from icesql.scan.native_deletes import KeepMask
else:  # the delete machinery loads with the first scan whose files have deletes
    equality_metrics = lazy_module("icesql.scan.equality_metrics")
    native_deletes = lazy_module("icesql.scan.native_deletes")

__all__ = ["NativeRead", "duckdb_type", "split_native"]

_DUCKDB_TYPES: PerPrimitiveType[Any] = PerPrimitiveType(
    "DuckDB type",
    {
        BooleanType: "BOOLEAN",
        IntegerType: "INTEGER",
        LongType: "BIGINT",
        FloatType: "FLOAT",
        DoubleType: "DOUBLE",
        DecimalType: lambda t: f"DECIMAL({t.precision},{t.scale})",
        DateType: "DATE",
        TimeType: "TIME",
        TimestampType: "TIMESTAMP",
        TimestamptzType: "TIMESTAMP WITH TIME ZONE",
        TimestampNanoType: "TIMESTAMP_NS",
        TimestamptzNanoType: "TIMESTAMPTZ_NS",
        StringType: "VARCHAR",
        (UUIDType, FixedType, BinaryType): "BLOB",  # the stream hands uuids over as binary(16)
        # DuckDB reads the VARIANT group, shredded or not; the stream's arrow.parquet.variant too
        VariantType: "VARIANT",
        # WKB, annotated GEOMETRY / GEOGRAPHY or plain binary: DuckDB's reader casts either
        (GeometryType, GeographyType): "GEOMETRY",
        # None: DuckDB's reader cannot produce these from the file by field id
        (UnknownType, StructType, ListType, MapType): None,
    },
)
_GLOB_CHARS = re.compile(r"[*?\[\]{}]")
_Readable = Callable[[str], bool]  # may DuckDB open this local path (its allowed directories)?
MAX_GROUPS = 128  # read_parquet calls per scan, not counting the splits below
MASK_GROUPS_PER_THREAD = 4  # positional scans per DuckDB thread over files with position deletes
EQ_JOIN_ROWS = 1 << 16  # delete rows per anti-join, about: more tags, more anti-joins
EQ_JOIN_FILES_PER_THREAD = 16  # data files per anti-join and DuckDB thread, at least
EQ_CHECKED_VALUES = 16  # a delete column with at most this many values is not hashed
MAX_TAG_CHECK = 1 << 22  # (delete file, data file) pairs judged by metrics per anti-join


def duckdb_type(t: IcebergType) -> str | None:
    """The DuckDB type the Arrow stream gives a column of type ``t``; None where DuckDB's
    reader cannot produce it from the file by field id (nested and opaque types)."""
    name = _DUCKDB_TYPES[t]
    return name(t) if callable(name) else name


def _float_text(t: IcebergType, value: Any) -> str | None:
    number = float(value)
    return repr(number) if math.isfinite(number) else None


def _blob_text(t: IcebergType, value: Any) -> str:
    raw = value.bytes if isinstance(t, UUIDType) else bytes(value)
    return "".join(f"\\x{b:02X}" for b in raw)


_DEFAULT_TEXTS: PerPrimitiveType[Any] = PerPrimitiveType(
    "DuckDB default value",
    {
        (FloatType, DoubleType): _float_text,
        (BinaryType, FixedType, UUIDType): _blob_text,
        BooleanType: lambda t, value: "true" if value else "false",
        (
            IntegerType,
            LongType,
            DecimalType,
            DateType,
            TimeType,
            TimestampType,
            TimestamptzType,
            TimestampNanoType,
            TimestamptzNanoType,
            StringType,
        ): lambda t, value: str(to_json_value(t, value)),
        (
            UnknownType,
            VariantType,
            GeometryType,
            GeographyType,
            StructType,
            ListType,
            MapType,
        ): lambda t, value: None,
    },
)


def default_text(t: IcebergType, value: object) -> str | None:
    """``value`` (value convention, not None) as the VARCHAR text of ``default_value``,
    which DuckDB casts to the column's type; None when there is no exact text form.

    >>> default_text(DateType(), 0), default_text(DoubleType(), float("nan"))
    ('1970-01-01', None)
    """
    text: str | None = _DEFAULT_TEXTS(t, value)
    return text


def _default(t: IcebergType, value: object) -> tuple[str | None] | None:
    """A column's ``default_value`` as (its text, or None for NULL); None when it has no
    exact text form."""
    if value is None:
        return (None,)
    text = default_text(t, value)
    return None if text is None else (text,)


@dataclass(frozen=True)
class NativeRead:
    """What DuckDB's own Parquet reader reads of a scan: the parts whose rows are unioned
    (``icesql.scan.read_parts``, written as SQL by ``icesql.sql.native_sql``), their data
    files (local paths, as DuckDB names them in its errors), and the keep-masks the parts
    name, to register before running them. ``delete_paths``: the equality delete files
    read too, for naming a damaged one. Equal reads read the same files the same way
    (the masks, built anew for each run, are not compared)."""

    parts: tuple[FileRead | AntiJoin, ...]
    paths: tuple[str, ...]
    relations: tuple[tuple[str, KeepMask], ...] = field(default=(), compare=False)
    with_deletes: int = 0  # how many of the files have deletes applied in DuckDB
    delete_paths: tuple[str, ...] = ()

    def file_error(self, message: str) -> Error | None:
        """Our error for a DuckDB error message about one of these files, else None. DuckDB
        does not name the file in every decoding failure (a damaged Parquet footer gives
        ``TProtocolException: Invalid data``): then the file whose footer does not decode
        is the one named."""
        missing = re.search(r'No files found that match the pattern "([^"]*)"', message)
        if missing and missing.group(1) in self.paths:
            return OperationalError(f"data file not found: {missing.group(1)}")
        damaged = _PARQUET_DAMAGE.search(message) is not None
        if "IO Error" not in message and "Invalid Input Error" not in message and not damaged:
            return None
        files = (*self.paths, *self.delete_paths)
        for path in files:
            if path in message:
                return CorruptFileError(path, message)
        if damaged:  # the footer first (cheap), then every page (this error's path only)
            for check in (footer_decodes, pages_decode):
                for path in files:
                    if not check(path):
                        return CorruptFileError(path, message)
        return None


# what DuckDB says of a Parquet file it cannot decode (its Thrift footer, pages or magic)
_PARQUET_DAMAGE = re.compile(
    r"TProtocolException|don't know what type|invalid TType|Parquet file|magic bytes|"
    r"Footer length|Could not read enough bytes|Prefetch registered|Invalid unicode|"
    r"(?i:corrupt)|dictionary|Payload value bigger"
)


_Column = tuple[NestedField, str, str | None]  # (field, DuckDB type, initial-default text)
_Key = tuple[tuple[int, str | None], ...]  # identity-partition defaults of a read_parquet call
# the equality deletes of a data file: per set of delete columns, (ids, delete file paths)
_Signature = tuple[tuple[tuple[int, ...], tuple[str, ...]], ...]
_File = tuple[FileScanTask, str, int | None]  # (task, local path, equality-delete tag)
_T = TypeVar("_T")


@dataclass
class _Bucket:
    """Files that one ``read_parquet`` call (or, with position deletes, a few positional
    scans) reads: they share the read columns and identity-partition defaults."""

    equality: bool  # the files have equality deletes: their rows carry a tag
    positioned: bool  # the files have position deletes: read in positional scans
    key: _Key
    join: int | None  # the anti-join of the files with equality deletes
    files: list[_File] = field(default_factory=list)


@dataclass
class _EqualityColumns:
    """What the files with equality deletes read besides the projection: the delete
    columns the query does not project, once each, and per set of delete columns
    (``ids``) its fields and the columns "0", "1", ... its delete files are read as."""

    columns: Sequence[_Column]
    extra: list[_Column] = field(default_factory=list)
    fields: dict[tuple[int, ...], list[NestedField]] = field(default_factory=dict)
    reads: dict[tuple[int, ...], list[_Column]] = field(default_factory=dict)
    entries: dict[str, DataFile] = field(default_factory=dict)  # delete files by local path

    def signature(
        self, task: FileScanTask, deletes: DeleteApplier, io: FileIO, readable: _Readable
    ) -> _Signature | None:
        """The file's equality deletes; None when DuckDB cannot read them (the stream
        then raises the error that names the file, or reads them itself)."""
        files: dict[tuple[int, ...], list[DataFile]] = {}
        for d in task.delete_files:
            if d.content == EQUALITY_DELETES:
                files.setdefault(tuple(d.equality_ids or ()), []).append(d)
        out = []
        for ids, group in sorted(files.items()):
            found = [_local_file(d.file_path, d.file_format, io, readable) for d in group]
            paths = [p for p in found if p is not None]
            if not ids or len(paths) < len(found) or not self._add(ids, deletes, group[0]):
                return None
            self.entries.update(zip(paths, group))
            out.append((ids, tuple(sorted(paths))))
        return tuple(out)

    def _add(self, ids: tuple[int, ...], deletes: DeleteApplier, first: DataFile) -> bool:
        if ids in self.fields:
            return True
        fields = [deletes.delete_field(fid, first) for fid in ids]
        read = []
        for i, f in enumerate(fields):
            type_name, default = duckdb_type(f.type), _default(f.type, f.initial_default)
            if type_name is None or default is None:
                return False
            read.append((replace(f, name=str(i)), type_name, default[0]))
        have = {f.field_id for f, _, _ in [*self.columns, *self.extra]}
        for f, (_, type_name, text) in zip(fields, read, strict=True):
            if f.field_id not in have:
                have.add(f.field_id)
                self.extra.append((extra_delete_column(f), type_name, text))
        self.fields[ids], self.reads[ids] = fields, read
        return True

    def checked(self, ids: tuple[int, ...], paths: Iterable[str]) -> list[bool]:
        """Per delete column of ``ids``, whether the anti-join against the delete files
        ``paths`` only checks it on the rows its other columns' hash found
        (``anti_join``): where the files' metrics prove it holds at most
        ``EQ_CHECKED_VALUES`` values, so that each row the hash finds is compared with at
        most that many delete rows more than were all hashed. At least one column stays
        hashed."""
        files = [self.entries[p] for p in paths]
        few = [
            equality_metrics.few_values(files, f.field_id, f.type, EQ_CHECKED_VALUES)
            for f in self.fields[ids]
        ]
        return [False] * len(few) if all(few) else few

    def key_column(self, f: NestedField) -> str:
        """The name the data files' read gives delete column ``f``."""
        for c, _, _ in self.columns:
            if c.field_id == f.field_id:
                return c.name
        return extra_delete_column(f).name


def split_native(
    schema: Schema,
    tasks: Sequence[FileScanTask],
    io: FileIO,
    identity_values: Callable[[FileScanTask], Mapping[int, tuple[NestedField, object]]],
    deletes: DeleteApplier | None = None,
    prefix: str = "icesql",
    on_error: Callable[[Exception], None] = lambda e: None,
    readable: _Readable = lambda path: True,
    metadata: Sequence[str] = (),
) -> tuple[NativeRead | None, list[FileScanTask]]:
    """The part of a scan DuckDB reads itself and the tasks left to stream.

    ``schema`` is the projected read schema (the view's columns, in order); the caller has
    already excluded scans with metadata columns or a name mapping. With ``deletes`` (the
    scan's delete reader) files with deletes are read natively too, their deletes applied
    in DuckDB (``icesql.scan.native_deletes``); relations are named ``{prefix}_...``. Only
    local files that pass ``readable`` (DuckDB's allowed directories) are read natively.

    Files with equality deletes are read together whatever deletes they have: each row
    carries the tag of its file's set of delete files, and one anti-join per set of delete
    columns matches it against the delete rows of the files carrying that tag. Tags are
    cut into a few such groups of anti-joins (``_joins``), each over its own files, so
    that each hash table stays small. One anti-join per set of delete files (a partition
    each, typically) cost a hash table, a build pipeline and two ``read_parquet`` binds
    each, which on many partitions with few deletes costs more than the deletes save; a
    single group costs less, and a few groups less again, tags compared in one of them
    (``_tag_needed``).
    """
    columns = _columns(schema)
    if columns is None or not _native_metadata(metadata, columns):
        return None, list(tasks)
    meta = tuple(metadata)
    equality = _EqualityColumns(columns)
    kept: list[tuple[FileScanTask, str, _Signature]] = []
    streamed: list[FileScanTask] = []
    for task in tasks:
        local = _local_parquet(task, io, readable)
        if local is None or (task.delete_files and deletes is None):
            streamed.append(task)
            continue
        signature = equality.signature(task, deletes, io, readable) if deletes else ()
        if signature is None:
            streamed.append(task)
            continue
        kept.append((task, local, signature))
    read_columns = [*columns, *equality.extra]
    shadowed = any(f.name.lower() == FILE_INDEX for f, _, _ in read_columns)
    tags: dict[_Signature, int] = {}
    weights: dict[int, list[int]] = {}  # tag: [delete rows, data files]
    for task, _, signature in kept:
        if signature:
            known = tags.setdefault(signature, len(tags))
            if known not in weights:
                eq = [d for d in task.delete_files if d.content == EQUALITY_DELETES]
                weights[known] = [sum(d.record_count for d in eq), 0]
            weights[known][1] += 1
    join_of = _joins(weights)
    buckets: dict[tuple, _Bucket] = {}
    used: set[int] = set()
    for task, local, signature in kept:
        key = _identity_defaults(read_columns if signature else columns, identity_values(task))
        if key is None:
            streamed.append(task)
            continue
        positioned = any(d.content != EQUALITY_DELETES for d in task.delete_files)
        if positioned:
            _check_row_count(task, local)
        tag = tags[signature] if signature else None
        join = join_of[tag] if tag is not None else None
        # DuckDB's file_index names a file of a call; a column of that name hides it
        bucket_key = (bool(signature), positioned, key, join, tag if shadowed else None)
        if bucket_key not in buckets and len(buckets) >= MAX_GROUPS:
            streamed.append(task)
            continue
        if tag is not None:
            used.add(tag)
        bucket = buckets.setdefault(bucket_key, _Bucket(bool(signature), positioned, key, join))
        bucket.files.append((task, local, tag))
    if not buckets:
        return None, streamed
    signature_of = {t: s for s, t in tags.items()}
    groups: dict[int, list[tuple[tuple[int, ...], dict[str, list[int]], bool]]] = {}
    for join in sorted({join_of[t] for t in used}):
        members = [f for b in buckets.values() if b.join == join for f in b.files]
        signatures = {s: t for s, t in tags.items() if t in used and join_of[t] == join}
        groups[join] = [
            (ids, paths, _tag_needed(ids, list(paths), members, signature_of, equality))
            for ids, paths in _delete_files_by_tag(signatures).items()
        ]
    tagged = {join for join, specs in groups.items() if any(t for _, _, t in specs)}
    scans = _positional_scans(list(buckets.values()), deletes, prefix, on_error)
    reads = _reads(list(buckets.values()), scans, columns, read_columns, tagged, meta)
    parts: list[FileRead | AntiJoin] = [r for b, r in reads if not b.equality]
    names = (*(f.name for f, _, _ in columns), *meta)
    for join, specs in groups.items():
        joins = tuple(
            EqualityJoin(
                _delete_rows(equality.reads[ids], paths, needed),
                tuple(equality.key_column(f) for f in equality.fields[ids]),
                needed,
                tuple(equality.checked(ids, paths)),
            )
            for ids, paths, needed in specs
        )
        inner = tuple(r for b, r in reads if b.equality and b.join == join)
        parts.append(AntiJoin(inner, names, joins))
    relations = tuple((name, mask) for _, name, mask in scans)
    files = [f for b in buckets.values() for f in b.files]
    with_deletes = sum(1 for t, _, _ in files if t.delete_files)
    delete_paths = tuple(p for specs in groups.values() for _, paths, _ in specs for p in paths)
    return NativeRead(
        tuple(parts), tuple(p for _, p, _ in files), relations, with_deletes, delete_paths
    ), streamed


def _reads(
    buckets: Sequence[_Bucket],
    scans: Sequence[tuple[_Bucket, str, KeepMask]],
    columns: Sequence[_Column],
    equality_columns: Sequence[_Column],
    tagged: set[int],
    meta: Sequence[str] = (),
) -> list[tuple[_Bucket, FileRead]]:
    """The read of each ``read_parquet`` call: one per bucket without position deletes,
    one per positional scan of those with them; rows carry the metadata columns ``meta``
    after the data columns, and rows of the anti-joins in ``tagged`` their file's tag."""
    positions = POS_COLUMN in meta
    out = []
    for bucket in buckets:
        if not bucket.positioned:
            call = _read_parquet(
                [p for _, p, _ in bucket.files],
                equality_columns if bucket.equality else columns,
                dict(bucket.key),
                positions,
            )
            extra = _metadata(meta, bucket.files) + _tag(bucket, bucket.files, tagged)
            out.append((bucket, FileRead(call, extra)))
    for bucket, name, mask in scans:
        call = _read_parquet(
            [p for _, p, _ in mask.files],
            equality_columns if bucket.equality else columns,
            dict(bucket.key),
            positions,
        )
        extra = _metadata(meta, mask.files) + _tag(bucket, mask.files, tagged)
        out.append((bucket, FileRead(call, extra, name)))
    return out


FILE_COLUMN, POS_COLUMN, SPEC_ID_COLUMN = "_file", RowPosition().name, "_spec_id"
NATIVE_METADATA = frozenset((FILE_COLUMN, POS_COLUMN, SPEC_ID_COLUMN))


def _native_metadata(meta: Sequence[str], columns: Sequence[_Column]) -> bool:
    """Whether DuckDB can give the metadata columns ``meta`` (``_file``, ``_pos`` and
    ``_spec_id``, what DML reads of its target): from ``file_row_number`` and the
    ``file_index`` of a row's file, which no data column may hide."""
    if not set(meta) <= NATIVE_METADATA:
        return False
    return not meta or not any(f.name.lower() in (ROW_NUMBER, FILE_INDEX) for f, _, _ in columns)


def _metadata(
    meta: Sequence[str], files: Sequence[Sequence]
) -> tuple[FileValues | RowPosition, ...]:
    """The metadata columns ``meta`` over a ``read_parquet`` of ``files``: ``_pos`` from its
    ``file_row_number``, the Iceberg path and spec id of each row's file."""
    tasks = [f[0] for f in files]
    out: list[FileValues | RowPosition] = []
    for name in meta:
        if name == POS_COLUMN:
            out.append(RowPosition())
        elif name == FILE_COLUMN:
            out.append(
                FileValues(name, "VARCHAR", _one_or_each([t.data_file.file_path for t in tasks]))
            )
        else:
            out.append(FileValues(name, "INTEGER", _one_or_each([t.spec_id for t in tasks])))
    return tuple(out)


def _one_or_each(values: list[Any]) -> tuple[Any, ...]:
    """Per file of a call, its value; one value when all files have the same."""
    return (values[0],) if len(set(values)) == 1 else tuple(values)


def _tag(bucket: _Bucket, files: Sequence[Sequence], tagged: set[int]) -> tuple[FileValues, ...]:
    """The column giving each row its file's tag (files with equality deletes whose
    anti-joins compare it)."""
    if bucket.join not in tagged:
        return ()
    return (FileValues(PART_COLUMN, "INTEGER", _one_or_each([f[2] for f in files])),)


def _delete_files_by_tag(
    tags: Mapping[_Signature, int],
) -> dict[tuple[int, ...], dict[str, list[int]]]:
    """Per set of delete columns, the delete files and the tags of the data files each
    applies to."""
    out: dict[tuple[int, ...], dict[str, list[int]]] = {}
    for signature, tag in tags.items():
        for ids, paths in signature:
            for path in paths:
                out.setdefault(ids, {}).setdefault(path, []).append(tag)
    return out


def _tag_needed(
    ids: tuple[int, ...],
    paths: Sequence[str],
    files: Sequence[_File],
    signature_of: Mapping[int, _Signature],
    equality: _EqualityColumns,
) -> bool:
    """Whether the anti-join of ``files`` against the delete files ``paths`` (columns
    ``ids``) must compare tags: unless the files' metrics prove that no row of a data file
    can match a delete file that does not apply to it (``may_meet``), as when the keys
    grow with the partition. Comparing tags costs little, but not nothing, on many
    partitions."""
    if len(paths) * len(files) > MAX_TAG_CHECK:
        return True
    types = {f.field_id: f.type for f in equality.fields[ids]}
    meet = equality_metrics.may_meet(
        [equality.entries[p] for p in paths], [t.data_file for t, _, _ in files], types
    )
    index = {p: i for i, p in enumerate(paths)}
    applies = np.zeros_like(meet)
    for j, (_, _, tag) in enumerate(files):
        for p in dict(signature_of[tag]).get(ids, ()):  # type: ignore[index]
            applies[index[p], j] = True
    return bool(np.any(meet & ~applies))


def _delete_rows(
    read: Sequence[_Column], files: Mapping[str, list[int]], tagged: bool
) -> DeleteRows:
    """The delete rows of ``files`` (columns "0", "1", ... by field id, typed as the table
    types them); with ``tagged``, each once per tag of the data files it applies to."""
    paths = list(files)
    call = _read_parquet(paths, read, {})
    return DeleteRows(call, tuple(tuple(files[p]) for p in paths) if tagged else None)


def _positional_scans(
    buckets: Sequence[_Bucket],
    deletes: DeleteApplier | None,
    prefix: str,
    on_error: Callable[[Exception], None],
) -> list[tuple[_Bucket, str, KeepMask]]:
    """Cut the files with position deletes into positional scans, about
    ``MASK_GROUPS_PER_THREAD`` per DuckDB thread over the scan, each of about as many rows,
    files kept in plan order, and start building their keep-masks (relation names start
    with ``prefix``). A positional scan runs on one thread: one per bucket would leave
    threads idle."""
    masked = [b for b in buckets if b.positioned]
    total = sum(t.data_file.record_count for b in masked for t, _, _ in b.files)
    wanted = MASK_GROUPS_PER_THREAD * (os.cpu_count() or 1)
    scans: list[tuple[_Bucket, str, KeepMask]] = []
    for bucket in masked:
        rows = sum(t.data_file.record_count for t, _, _ in bucket.files)
        count = max(1, min(len(bucket.files), round(wanted * rows / max(total, 1))))
        for run in _balanced(bucket.files, count, lambda f: f[0].data_file.record_count):
            mask = native_deletes.KeepMask(deletes.loader, run, on_error)  # type: ignore[union-attr]
            scans.append((bucket, f"{prefix}_mask{len(scans)}", mask))
    if scans:
        native_deletes.start_masks([mask for _, _, mask in scans])
    return scans


def _balanced(items: Sequence[_T], count: int, weight: Callable[[_T], int]) -> list[list[_T]]:
    """``items`` cut into at most ``count`` consecutive runs of about equal weight."""
    total = sum(weight(item) for item in items)
    runs: list[list[_T]] = [[]]
    seen = 0
    for item in items:
        if runs[-1] and seen >= total * len(runs) / count:
            runs.append([])
        runs[-1].append(item)
        seen += weight(item)
    return runs


def _joins(weights: Mapping[int, Sequence[int]]) -> dict[int, int]:
    """The anti-join of each tag, from its [delete rows, data files]: tags in plan order
    cut into runs of at least ``EQ_JOIN_ROWS`` delete rows, or into fewer runs of about
    equal rows where that would leave an anti-join less than ``EQ_JOIN_FILES_PER_THREAD``
    data files per DuckDB thread.

    One anti-join probes a hash table of all its delete rows, and probing a large table
    costs more per row than a small one. Each anti-join is a pipeline of its own, and few
    files per pipeline leave threads idle: a handful of anti-joins beats both one and one
    per partition.
    """
    files = sum(w[1] for w in weights.values())
    threads = os.cpu_count() or 1
    most = max(1, min(len(weights), files // max(1, EQ_JOIN_FILES_PER_THREAD * threads)))
    runs: list[list[int]] = [[]]
    rows = 0
    for tag, (count, _) in weights.items():
        if runs[-1] and rows >= EQ_JOIN_ROWS:
            runs.append([])
            rows = 0
        runs[-1].append(tag)
        rows += count
    if len(runs) > most:
        runs = _balanced(list(weights), most, lambda tag: weights[tag][0])
    return {tag: i for i, run in enumerate(runs) for tag in run}


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
        default = _default(f.type, f.initial_default)
        if type_name is None or default is None:
            return None
        out.append((f, type_name, default[0]))
    return out or None


def _local_parquet(task: FileScanTask, io: FileIO, readable: _Readable) -> str | None:
    # a file with deletes has its row count checked next (``_check_row_count``)
    return _local_file(
        task.data_file.file_path,
        task.data_file.file_format,
        io,
        readable,
        decode_all=bool(task.delete_files),
    )


def _local_file(
    path: str, file_format: str, io: FileIO, readable: _Readable, decode_all: bool = False
) -> str | None:
    """The local path DuckDB can read ``path`` by, if it is Parquet with field ids."""
    if file_format.upper() != "PARQUET":
        return None
    local = local_path(path)
    if local is None or _GLOB_CHARS.search(local) or not readable(local):
        return None
    return local if has_field_ids(local, decode_all) else None  # DuckDB would read NULLs


def _identity_defaults(
    columns: Sequence[_Column], identity: Mapping[int, tuple[NestedField, object]]
) -> _Key | None:
    """(field id, default text) of the read columns a file may lack but its identity
    partition value supplies (spec: Column Projection); None when a value has no exact
    text."""
    out: list[tuple[int, str | None]] = []
    for f, _, _ in columns:
        if f.field_id in identity:
            default = _default(f.type, identity[f.field_id][1])
            if default is None:
                return None
            out.append((f.field_id, default[0]))
    return tuple(out)


def _read_parquet(
    paths: Sequence[str],
    columns: Sequence[_Column],
    identity: dict[int, str | None],
    positions: bool = False,
) -> ParquetCall:
    read = tuple(
        ReadColumn(f.field_id, f.name, type_name, identity.get(f.field_id, default))
        for f, type_name, default in columns
    )
    return ParquetCall(tuple(paths), read, positions)
