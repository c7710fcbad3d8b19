"""Column metrics of a data file, computed the way Iceberg 1.10's Parquet writer does.

What a data file's manifest entry carries, per field id (Java ``ParquetMetrics``):

* ``column_sizes`` for every Parquet leaf column (also inside lists and maps), unless the
  column's metrics mode is ``none``;
* ``value_counts`` / ``null_value_counts`` from the Parquet column chunks, and
  ``nan_value_counts`` for float/double, only for primitive fields *not* inside a list or
  map (repeated fields get no counts and no bounds);
* lower/upper bounds for the same fields unless the mode is ``counts``: NaN never takes
  part, -0.0 sorts before 0.0, strings and binary are truncated to the mode's length
  (``truncate(16)`` by default), the upper bound by incrementing its last code point / byte
  (no upper bound when that is impossible, exactly as Java's ``UnicodeUtil`` and
  ``BinaryUtil``)::

    >>> truncate_upper(StringType(), "abcdefghijklmnopqrstuvwxyz", 16)
    'abcdefghijklmnoq'
    >>> truncate_upper(BinaryType(), b"\\x01\\xff\\xff", 1) is None, truncate_upper(BinaryType(), b"\\x01\\xff\\xff", 2)
    (False, b'\\x02')

Modes come from ``write.metadata.metrics.default`` and ``write.metadata.metrics.column.<name>``
(``none``, ``counts``, ``truncate(N)``, ``full``); without an explicit default, a schema with
more than ``write.metadata.metrics.max-inferred-column-defaults`` (100) primitive columns keeps
metrics for the first 100 only, and sorted columns always get at least ``truncate(16)``.
"""

from __future__ import annotations

import json
import math
import re
import threading
import uuid as _uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from icesql.errors import DataError, ProgrammingError
from icesql.spec.arrays import floats
from icesql.spec.geo import GeoBox, InvalidWKBError
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
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
    is_primitive,
)
from icesql.spec.values import decimal_from_unscaled, to_bytes
from icesql.write.properties import (
    DEFAULT_METRICS_MAX_INFERRED,
    METRICS_COLUMN_PREFIX,
    METRICS_DEFAULT,
    METRICS_MAX_INFERRED,
)

__all__ = [
    "MetricsConfig",
    "MetricsMode",
    "FileMetricMaps",
    "FileMetricsCollector",
    "footer_metrics",
    "LeafColumn",
    "leaf_columns",
    "parse_metrics_mode",
    "truncate_lower",
    "truncate_upper",
]

_NO_BOUNDS = (VariantType, GeometryType, GeographyType, UnknownType)
_TRUNCATE = re.compile(r"^truncate\((\d+)\)$")
_MAX_CODE_POINT = 0x10FFFF


@dataclass(frozen=True)
class MetricsMode:
    """``none`` / ``counts`` / ``truncate(N)`` / ``full``; ``length`` is the bound length
    (0: no bounds, -1: untruncated)."""

    kind: str
    length: int = 0

    @property
    def counts(self) -> bool:
        return self.kind != "none"

    @property
    def bounds(self) -> bool:
        return self.kind in ("truncate", "full")

    def __str__(self) -> str:
        return f"truncate({self.length})" if self.kind == "truncate" else self.kind


NONE = MetricsMode("none")
COUNTS = MetricsMode("counts")
FULL = MetricsMode("full", -1)
DEFAULT_MODE = MetricsMode("truncate", 16)


def parse_metrics_mode(text: str, key: str = METRICS_DEFAULT) -> MetricsMode:
    """A metrics mode from its property text; ProgrammingError names the property."""
    lowered = str(text).strip().lower()
    if lowered in ("none", "counts", "full"):
        return {"none": NONE, "counts": COUNTS, "full": FULL}[lowered]
    m = _TRUNCATE.match(lowered)
    if m and int(m.group(1)) > 0:
        return MetricsMode("truncate", int(m.group(1)))
    raise ProgrammingError(
        f"invalid metrics mode {text!r} in table property {key!r};"
        " expected none, counts, truncate(N) with N > 0, or full"
    )


class MetricsConfig:
    """The metrics mode of every field of a schema, from the table properties."""

    def __init__(self, default: MetricsMode, by_id: Mapping[int, MetricsMode]):
        self.default = default
        self._by_id = dict(by_id)

    def mode(self, field_id: int) -> MetricsMode:
        return self._by_id.get(field_id, self.default)

    @staticmethod
    def for_table(
        schema: Schema, properties: Mapping[str, str], sort_order: SortOrder | None = None
    ) -> MetricsConfig:
        by_id: dict[int, MetricsMode] = {}
        explicit = properties.get(METRICS_DEFAULT)
        default = parse_metrics_mode(explicit) if explicit is not None else DEFAULT_MODE
        if explicit is None:
            limit_text = properties.get(METRICS_MAX_INFERRED)
            try:
                limit = int(limit_text) if limit_text is not None else DEFAULT_METRICS_MAX_INFERRED
            except ValueError:
                raise ProgrammingError(
                    f"table property {METRICS_MAX_INFERRED!r} is {limit_text!r}; expected an integer"
                ) from None
            primitives = [f.field_id for f in _primitive_fields(schema.as_struct())]
            if len(primitives) > limit:
                for fid in primitives[limit:]:
                    by_id[fid] = NONE
        if sort_order is not None:
            for sort_field in sort_order.fields:
                for sid in sort_field.all_source_ids:
                    current = by_id.get(sid, default)
                    if not current.bounds:
                        by_id[sid] = DEFAULT_MODE  # sorted columns always keep bounds
        for key, value in properties.items():
            if key.startswith(METRICS_COLUMN_PREFIX):
                name = key[len(METRICS_COLUMN_PREFIX) :]
                mode = parse_metrics_mode(value, key)
                try:
                    field = schema.find_field_by_name(name, case_sensitive=True)
                except ProgrammingError:
                    continue  # Java ignores properties naming columns that no longer exist
                by_id[field.field_id] = mode
        return MetricsConfig(default, by_id)


def _primitive_fields(struct: StructType) -> Iterator[NestedField]:
    for f in struct.fields:
        if isinstance(f.type, StructType):
            yield from _primitive_fields(f.type)
        elif isinstance(f.type, ListType):
            yield from _primitive_fields(StructType((f.type.element_field,)))
        elif isinstance(f.type, MapType):
            yield from _primitive_fields(StructType((f.type.key_field, f.type.value_field)))
        elif is_primitive(f.type):
            yield f


# ---------------------------------------------------------------------------------------------
# Truncation (Java UnicodeUtil / BinaryUtil)


def truncate_lower(t: IcebergType, value: Any, length: int) -> Any:
    """The first ``length`` code points (string) or bytes (binary); other types unchanged."""
    if length < 0:
        return value
    if isinstance(t, StringType):
        return value[:length]
    if isinstance(t, BinaryType):
        return value[:length]
    return value


def truncate_upper(t: IcebergType, value: Any, length: int) -> Any | None:
    """A value >= every value with the prefix of ``value``, at most ``length`` long; None when
    no such value exists (all 0xFF bytes, or U+10FFFF code points)."""
    if length < 0:
        return value
    if isinstance(t, StringType):
        if len(value) <= length:
            return value
        chars = list(value[:length])
        for i in range(length - 1, -1, -1):
            nxt = ord(chars[i]) + 1
            if 0xD800 <= nxt <= 0xDFFF:
                nxt = 0xE000  # no surrogates in valid UTF-8
            if nxt <= _MAX_CODE_POINT:
                return "".join(chars[:i]) + chr(nxt)
        return None
    if isinstance(t, BinaryType):
        if len(value) <= length:
            return value
        head = bytearray(value[:length])
        for i in range(length - 1, -1, -1):
            if head[i] != 0xFF:
                head[i] += 1
                return bytes(head[: i + 1])
        return None
    return value


# ---------------------------------------------------------------------------------------------
# Leaf columns of a schema, in Parquet column order


@dataclass(frozen=True)
class LeafColumn:
    """One Parquet leaf column: its field, and the struct path to it when it is not repeated
    (``None`` for leaves inside a list or map, which get no counts or bounds)."""

    field: NestedField
    path: tuple[int, ...] | None  # child indexes from the top-level column, for struct_field


def leaf_columns(schema: Schema) -> list[LeafColumn]:
    """Leaves depth-first (struct fields in order, list element, map key then value): the
    order of Parquet's column chunks. ``unknown`` columns are never written, so skipped."""
    out: list[LeafColumn] = []

    def walk(f: NestedField, path: tuple[int, ...] | None) -> None:
        t = f.type
        if isinstance(t, UnknownType):
            return
        if isinstance(t, StructType):
            for i, child in enumerate(t.fields):
                walk(child, None if path is None else (*path, i))
        elif isinstance(t, ListType):
            walk(t.element_field, None)
        elif isinstance(t, MapType):
            walk(t.key_field, None)
            walk(t.value_field, None)
        else:
            out.append(LeafColumn(f, path))

    for i, f in enumerate(schema.fields):
        walk(f, (i,))
    return out


# ---------------------------------------------------------------------------------------------
# Collecting bounds and NaN counts of one file

# Values up to this many bytes take their bounds from the Parquet footer: pyarrow drops (never
# truncates) the min/max of a column chunk holding a value longer than its
# ``max_statistics_size`` (4096), so longer values are measured from the data instead.
STATS_SAFE_BYTES = 1024


def _order_key(t: IcebergType, v: Any) -> Any:
    if isinstance(t, FloatType | DoubleType):
        return (v, math.copysign(1.0, v))  # -0.0 before 0.0
    return v


class FileMetricMaps(TypedDict):
    """The per field id maps of a data file's manifest entry, keyword arguments of
    ``DataFile`` as they are."""

    column_sizes: dict[int, int]
    value_counts: dict[int, int]
    null_value_counts: dict[int, int]
    nan_value_counts: dict[int, int]
    lower_bounds: dict[int, bytes]
    upper_bounds: dict[int, bytes]


class FileMetricsCollector:
    """Metrics of one file. Counts, sizes and most bounds come from the Parquet footer when
    the file is closed (``metrics``); what the footer cannot give exactly is measured from
    the data as it is written (``add``): NaN counts and bounds of floats (Parquet's float
    statistics leave -0.0 and NaN to the writer's choice), and the bounds of strings and
    binaries longer than ``STATS_SAFE_BYTES``."""

    def __init__(self, schema: Schema, config: MetricsConfig, count_batches: bool = False):
        self.schema = schema
        self.config = config
        self.leaves = leaf_columns(schema)
        self._lower: dict[int, Any] = {}
        self._upper: dict[int, Any] = {}
        self._nans: dict[int, int] = {}
        tracked = [
            leaf
            for leaf in self.leaves
            if leaf.path is not None
            and self.config.mode(leaf.field.field_id).counts
            and not isinstance(leaf.field.type, _NO_BOUNDS)  # no order Parquet stats could use
        ]
        self._floats = [
            leaf for leaf in tracked if isinstance(leaf.field.type, FloatType | DoubleType)
        ]
        bounded = [
            leaf
            for leaf in tracked
            if self.config.mode(leaf.field.field_id).bounds
            and not isinstance(leaf.field.type, FloatType | DoubleType)
        ]
        # files without a Parquet footer (ORC, Avro): every count and bound from the batches
        self._counted = [
            leaf
            for leaf in self.leaves
            if count_batches
            and leaf.path is not None
            and self.config.mode(leaf.field.field_id).counts
        ]
        # pyarrow's footer has no statistics (no null count) for a column annotated GEOMETRY /
        # GEOGRAPHY (Parquet defines no order for them), so their counts come from the data
        self._geo_counted = (
            set()
            if count_batches
            else {
                leaf.field.field_id
                for leaf in self.leaves
                if leaf.path is not None
                and isinstance(leaf.field.type, GeometryType | GeographyType)
                and self.config.mode(leaf.field.field_id).counts
            }
        )
        self._counted += [leaf for leaf in self.leaves if leaf.field.field_id in self._geo_counted]
        self._bounded = bounded if count_batches else []
        self._long = (
            []
            if count_batches
            else [
                leaf
                for leaf in bounded
                if isinstance(leaf.field.type, StringType | BinaryType | FixedType)
            ]
        )
        # geometry / geography: the spec's bounding-box points, measured from the WKB
        self._geo = [
            leaf
            for leaf in self.leaves
            if leaf.path is not None
            and isinstance(leaf.field.type, GeometryType | GeographyType)
            and self.config.mode(leaf.field.field_id).bounds
        ]
        self._boxes = {
            leaf.field.field_id: GeoBox(isinstance(leaf.field.type, GeographyType))
            for leaf in self._geo
        }
        self._values: dict[int, int] = {}
        self._nulls: dict[int, int] = {}
        # per ``add``: its rows, and the fields whose bounds it measured from the data
        self._added: list[tuple[int, int, frozenset[int]]] = []
        self._rows = 0
        self._lock = threading.Lock()

    def add(self, batch: pa.RecordBatch | pa.Table, first: int | None = None) -> None:
        """Measure rows about to be written: the file's rows ``first ..`` (default: after
        the rows added so far). Thread-safe: row groups of one file may be measured at once."""
        with self._lock:
            self._add(batch, self._rows if first is None else first)

    def _add(self, batch: pa.RecordBatch | pa.Table, first: int) -> None:
        for leaf in self._counted:
            fid = leaf.field.field_id
            array = _leaf_array(batch, leaf)
            self._values[fid] = self._values.get(fid, 0) + len(array)
            self._nulls[fid] = self._nulls.get(fid, 0) + array.null_count
        for leaf in self._floats:
            self._add_float(leaf.field.field_id, leaf.field.type, _leaf_array(batch, leaf))
        for leaf in self._bounded:
            self._add_bounds(leaf.field.field_id, leaf.field.type, _leaf_array(batch, leaf))
        for leaf in self._geo:
            box = self._boxes[leaf.field.field_id]
            for value in _leaf_array(batch, leaf).drop_null().to_pylist():
                try:
                    box.add(value)
                except InvalidWKBError as e:
                    raise DataError(
                        f"column {self.schema.find_column_name(leaf.field.field_id)!r}: a"
                        f" {leaf.field.type} value is not WKB: {e}"
                    ) from None
        measured = set()
        for leaf in self._long:
            array = _leaf_array(batch, leaf)
            if array.null_count == len(array):
                continue
            if pa.types.is_dictionary(array.type):  # the longest value its dictionaries hold
                chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
                lengths = [pc.max(pc.binary_length(c.dictionary)).as_py() for c in chunks]
                longest = max((n for n in lengths if n is not None), default=None)
                if longest is not None and longest > STATS_SAFE_BYTES:
                    array = array.cast(array.type.value_type)  # measured from the rows
            else:
                longest = pc.max(pc.binary_length(array)).as_py()
            if longest is not None and longest > STATS_SAFE_BYTES:
                self._add_bounds(leaf.field.field_id, leaf.field.type, array)
                measured.add(leaf.field.field_id)
        self._added.append((first, first + batch.num_rows, frozenset(measured)))
        self._rows = max(self._rows, first + batch.num_rows)

    def _add_float(self, fid: int, t: IcebergType, array: pa.Array | pa.ChunkedArray) -> None:
        values = floats(array)
        nan = np.isnan(values)
        self._nans[fid] = self._nans.get(fid, 0) + int(nan.sum())
        if not self.config.mode(fid).bounds:
            return
        finite = values[~nan]
        if finite.size == 0:
            return
        lo, hi = float(finite.min()), float(finite.max())
        if lo == 0.0 and np.signbit(finite[finite == 0.0]).any():
            lo = -0.0
        if hi == 0.0 and (~np.signbit(finite[finite == 0.0])).any():
            hi = 0.0
        self._merge(fid, t, lo, hi)

    def _add_bounds(self, fid: int, t: IcebergType, array: pa.Array | pa.ChunkedArray) -> None:
        if pa.types.is_timestamp(array.type) or pa.types.is_time(array.type):
            array = array.cast(pa.int64())
        elif pa.types.is_date32(array.type):
            array = array.cast(pa.int32())
        elif pa.types.is_fixed_size_binary(array.type):
            array = array.cast(pa.binary())
        result = pc.min_max(array)
        lo, hi = result["min"].as_py(), result["max"].as_py()
        if lo is None:
            return
        self._merge(fid, t, lo, hi)

    def _merge(self, fid: int, t: IcebergType, lo: Any, hi: Any) -> None:
        cur = self._lower.get(fid)
        if cur is None or _order_key(t, lo) < _order_key(t, cur):
            self._lower[fid] = lo
        cur = self._upper.get(fid)
        if cur is None or _order_key(t, hi) > _order_key(t, cur):
            self._upper[fid] = hi

    def _measured(self, fid: int, first: int, rows: int) -> bool:
        """Whether every row of ``first .. first + rows`` had ``fid``'s bounds measured."""
        for start, end, fids in self._added:
            if end > first and start < first + rows and fid not in fids:
                return False
        return True

    def _footer_bounds(self, footer: Any, missing: set[int]) -> None:
        """Merge the bounds of the footer's column statistics into the measured ones. A
        chunk without min/max (but with values) that the data did not cover leaves its field
        without bounds, as Java's ``ParquetMetrics`` does: no bound is better than a wrong one."""
        unbounded: set[int] = set()
        first = 0
        for rg_index in range(footer.num_row_groups):
            rg = footer.row_group(rg_index)
            for j, leaf in enumerate(self.leaves):
                fid, t = leaf.field.field_id, leaf.field.type
                if (
                    leaf.path is None
                    or fid in missing
                    or not self.config.mode(fid).bounds
                    or isinstance(t, _NO_BOUNDS + (FloatType, DoubleType))
                ):
                    continue
                chunk = rg.column(j)
                stats = chunk.statistics
                if stats is not None and stats.has_min_max:
                    lo = _stat_value(t, chunk, stats.min_raw)
                    hi = _stat_value(t, chunk, stats.max_raw)
                    if lo is not None and hi is not None:
                        self._merge(fid, t, lo, hi)
                        continue
                elif stats is not None and stats.null_count >= rg.num_rows:
                    continue  # only nulls: no bound to miss
                if not self._measured(fid, first, rg.num_rows):
                    unbounded.add(fid)
            first += rg.num_rows
        for fid in unbounded:
            self._lower.pop(fid, None)
            self._upper.pop(fid, None)

    def metrics(self, footer: Any) -> FileMetricMaps:
        """The manifest metrics maps, given the written file's pyarrow ``FileMetaData`` (None:
        counts and bounds from the batches, no column sizes)."""
        if footer is None:
            sizes: dict[int, int] = {}
            values, nulls = dict(self._values), dict(self._nulls)
            missing: set[int] = set()
        else:
            ids = [leaf.field.field_id for leaf in self.leaves]
            tracked = {leaf.field.field_id for leaf in self.leaves if leaf.path is not None}
            sizes, values, nulls, missing = _chunk_counts(footer, ids, tracked, self.config)
            for fid in self._geo_counted:
                values[fid], nulls[fid] = self._values.get(fid, 0), self._nulls.get(fid, 0)
                missing.discard(fid)
            self._footer_bounds(footer, missing)
        lower: dict[int, bytes] = {}
        upper: dict[int, bytes] = {}
        for fid, lo in self._lower.items():
            if fid in missing:
                continue
            t = self.schema.find_type(fid)
            length = self.config.mode(fid).length
            lo = truncate_lower(t, lo, length)
            hi = truncate_upper(t, self._upper[fid], length)
            lower[fid] = to_bytes(t, lo)
            if hi is not None:
                upper[fid] = to_bytes(t, hi)
        for fid, box in self._boxes.items():
            points = box.bounds() if fid not in missing else None
            if points is not None:
                lower[fid], upper[fid] = points
        nans = {fid: n for fid, n in self._nans.items() if fid in values}
        return {
            "column_sizes": sizes,
            "value_counts": values,
            "null_value_counts": nulls,
            "nan_value_counts": nans,
            "lower_bounds": lower,
            "upper_bounds": upper,
        }


def _leaf_array(batch: pa.RecordBatch | pa.Table, leaf: LeafColumn) -> Any:
    assert leaf.path is not None
    array = batch.column(leaf.path[0])
    if len(leaf.path) > 1:
        array = pc.struct_field(array, list(leaf.path[1:]))
    return array


# ---------------------------------------------------------------------------------------------
# Metrics of a file written elsewhere, from its footer alone (add_files)


def footer_metrics(
    footer: Any, schema: Schema, config: MetricsConfig, ids: Sequence[int | None]
) -> FileMetricMaps:
    """The manifest metrics of an existing Parquet file from its pyarrow ``FileMetaData``
    only, as Java's ``ParquetUtil.fileMetrics`` gives them to ``add_files``: counts and sizes
    as for a written file, bounds from the column chunks' statistics (truncated by the metrics
    mode), no NaN counts (those need the data). ``ids[j]`` is the table field id of column
    chunk ``j`` (by the file's ids or the name mapping), None for a column the table lacks."""
    tracked = {leaf.field.field_id for leaf in leaf_columns(schema) if leaf.path is not None}
    sizes, values, nulls, _ = _chunk_counts(footer, ids, tracked, config)
    lower: dict[int, Any] = {}
    upper: dict[int, Any] = {}
    for rg_index in range(footer.num_row_groups):
        rg = footer.row_group(rg_index)
        for j, fid in enumerate(ids):
            if fid is None or fid not in values:
                continue
            chunk = rg.column(j)
            stats = chunk.statistics
            t = schema.find_type(fid)
            if (
                not config.mode(fid).bounds
                or not stats.has_min_max
                or isinstance(t, _NO_BOUNDS)
                or chunk.physical_type == "INT96"
            ):
                continue
            lo, hi = _stat_value(t, chunk, stats.min_raw), _stat_value(t, chunk, stats.max_raw)
            if lo is None or hi is None:
                continue
            if fid not in lower or _order_key(t, lo) < _order_key(t, lower[fid]):
                lower[fid] = lo
            if fid not in upper or _order_key(t, hi) > _order_key(t, upper[fid]):
                upper[fid] = hi
    lower_bytes: dict[int, bytes] = {}
    upper_bytes: dict[int, bytes] = {}
    for fid, lo in lower.items():
        t = schema.find_type(fid)
        length = config.mode(fid).length
        lower_bytes[fid] = to_bytes(t, truncate_lower(t, lo, length))
        hi = truncate_upper(t, upper[fid], length)
        if hi is not None:
            upper_bytes[fid] = to_bytes(t, hi)
    return {
        "column_sizes": sizes,
        "value_counts": values,
        "null_value_counts": nulls,
        "nan_value_counts": {},
        "lower_bounds": lower_bytes,
        "upper_bounds": upper_bytes,
    }


def _chunk_counts(
    footer: Any, ids: Sequence[int | None], tracked: set[int], config: MetricsConfig
) -> tuple[dict[int, int], dict[int, int], dict[int, int], set[int]]:
    """Column sizes (every leaf) and value / null counts (``tracked`` leaves: not inside a
    list or map) summed over the row groups, by field id (``ids[j]`` of column chunk ``j``);
    a leaf some chunk has no null count for gets no counts (Java's ``missingStats``)."""
    sizes: dict[int, int] = {}
    values: dict[int, int] = {}
    nulls: dict[int, int] = {}
    missing: set[int] = set()
    for rg_index in range(footer.num_row_groups):
        rg = footer.row_group(rg_index)
        for j, fid in enumerate(ids):
            if fid is None or not config.mode(fid).counts:
                continue
            chunk = rg.column(j)
            sizes[fid] = sizes.get(fid, 0) + chunk.total_compressed_size
            if fid not in tracked:
                continue
            stats = chunk.statistics
            if stats is None or not stats.has_null_count:
                missing.add(fid)
                continue
            values[fid] = values.get(fid, 0) + chunk.num_values
            nulls[fid] = nulls.get(fid, 0) + stats.null_count
    for fid in missing:
        values.pop(fid, None)
        nulls.pop(fid, None)
    return sizes, values, nulls, missing


_TIME_UNITS = {"milliseconds": 1_000_000, "microseconds": 1_000, "nanoseconds": 1}  # in ns


def _stat_value(t: IcebergType, chunk: Any, raw: Any) -> Any:
    """A statistics value (physical) as the Iceberg value ``to_bytes`` takes; None when the
    file's type cannot give a bound of ``t`` (the bound is then left out, never wrong)."""
    physical = chunk.physical_type
    logical = chunk.statistics.logical_type
    if isinstance(t, StringType):
        return raw.decode("utf-8") if isinstance(raw, bytes) else raw
    if isinstance(t, BinaryType | FixedType):
        return bytes(raw) if isinstance(raw, bytes | bytearray) else None
    if isinstance(t, UUIDType):
        return _uuid.UUID(bytes=bytes(raw)) if isinstance(raw, bytes) and len(raw) == 16 else None
    if isinstance(t, DecimalType):
        if isinstance(raw, bytes):
            unscaled = int.from_bytes(raw, "big", signed=True)
        elif isinstance(raw, int):
            unscaled = raw
        else:
            return None
        scale = _logical(logical).get("scale", 0)
        return decimal_from_unscaled(unscaled, t.scale) if scale == t.scale else None
    if isinstance(t, FloatType | DoubleType):
        return float(raw)
    if isinstance(t, BooleanType):
        return bool(raw)
    if isinstance(
        t, TimestampType | TimestamptzType | TimestampNanoType | TimestamptzNanoType | TimeType
    ):
        if physical != "INT64" and not (isinstance(t, TimeType) and physical == "INT32"):
            return None
        nanos = _TIME_UNITS.get(_logical(logical).get("timeUnit", ""))
        if nanos is None:
            return None
        wanted = 1 if isinstance(t, TimestampNanoType | TimestamptzNanoType) else 1_000
        return int(raw) * nanos // wanted
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw  # int, long, date (days)
    return None


def _logical(logical: Any) -> dict[str, Any]:
    """A Parquet logical type's parameters (``timeUnit``, ``scale``); empty without one."""
    return json.loads(logical.to_json()) if logical is not None else {}
