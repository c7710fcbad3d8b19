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

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from icesql.errors import ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.sorting import SortOrder
from icesql.spec.types import (
    BinaryType,
    DoubleType,
    FloatType,
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
    MapType,
    NestedField,
    StringType,
    StructType,
    UnknownType,
    VariantType,
    is_primitive,
)
from icesql.spec.values import to_bytes
from icesql.write.properties import (
    DEFAULT_METRICS_MAX_INFERRED,
    METRICS_COLUMN_PREFIX,
    METRICS_DEFAULT,
    METRICS_MAX_INFERRED,
)

__all__ = [
    "MetricsConfig",
    "MetricsMode",
    "FileMetricsCollector",
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
                name = key[len(METRICS_COLUMN_PREFIX):]
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
# Collecting bounds and NaN counts from the Arrow data of one file


def _order_key(t: IcebergType, v: Any) -> Any:
    if isinstance(t, FloatType | DoubleType):
        return (v, math.copysign(1.0, v))  # -0.0 before 0.0
    return v


class FileMetricsCollector:
    """Bounds and NaN counts of one file, merged batch by batch; counts and sizes come from
    the Parquet footer when the file is closed (``metrics``)."""

    def __init__(self, schema: Schema, config: MetricsConfig, count_batches: bool = False):
        self.schema = schema
        self.config = config
        self.leaves = leaf_columns(schema)
        self._lower: dict[int, Any] = {}
        self._upper: dict[int, Any] = {}
        self._nans: dict[int, int] = {}
        self._tracked = [
            leaf
            for leaf in self.leaves
            if leaf.path is not None
            and self.config.mode(leaf.field.field_id).counts
            and not isinstance(leaf.field.type, _NO_BOUNDS)  # no order Parquet stats could use
        ]
        # files without a Parquet footer (ORC, Avro): value / null counts from the batches
        self._counted = [
            leaf for leaf in self.leaves
            if count_batches and leaf.path is not None
            and self.config.mode(leaf.field.field_id).counts
        ]
        self._values: dict[int, int] = {}
        self._nulls: dict[int, int] = {}

    def add(self, batch: pa.RecordBatch) -> None:
        for leaf in self._counted:
            fid = leaf.field.field_id
            array = batch.column(leaf.path[0])
            if len(leaf.path) > 1:
                array = pc.struct_field(array, list(leaf.path[1:]))
            self._values[fid] = self._values.get(fid, 0) + len(array)
            self._nulls[fid] = self._nulls.get(fid, 0) + array.null_count
        for leaf in self._tracked:
            fid, t = leaf.field.field_id, leaf.field.type
            array = batch.column(leaf.path[0])
            if len(leaf.path) > 1:
                array = pc.struct_field(array, list(leaf.path[1:]))
            if isinstance(t, FloatType | DoubleType):
                self._add_float(fid, t, array)
            elif self.config.mode(fid).bounds:
                self._add_bounds(fid, t, array)

    def _add_float(self, fid: int, t: IcebergType, array: pa.Array) -> None:
        values = array.drop_null().to_numpy(zero_copy_only=False)
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

    def _add_bounds(self, fid: int, t: IcebergType, array: pa.Array) -> None:
        if array.null_count == len(array):
            return
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

    def metrics(self, footer: Any) -> dict[str, dict[int, Any]]:
        """The manifest metrics maps, given the written file's pyarrow ``FileMetaData`` (None:
        counts from the batches, no column sizes)."""
        sizes: dict[int, int] = {}
        values: dict[int, int] = dict(self._values)
        nulls: dict[int, int] = dict(self._nulls)
        missing: set[int] = set()
        for rg_index in range(footer.num_row_groups if footer is not None else 0):
            rg = footer.row_group(rg_index)
            for j, leaf in enumerate(self.leaves):
                fid = leaf.field.field_id
                if not self.config.mode(fid).counts:
                    continue
                chunk = rg.column(j)
                sizes[fid] = sizes.get(fid, 0) + chunk.total_compressed_size
                if leaf.path is None:
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
        nans = {fid: n for fid, n in self._nans.items() if fid in values}
        return {
            "column_sizes": sizes,
            "value_counts": values,
            "null_value_counts": nulls,
            "nan_value_counts": nans,
            "lower_bounds": lower,
            "upper_bounds": upper,
        }
