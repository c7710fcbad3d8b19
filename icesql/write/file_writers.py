"""ORC and Avro data / delete files, written as Iceberg's Java writers lay them out, and the
choice of writer from the table's ``write.format.default`` / ``write.delete.format.default``.

* ORC (pyarrow's writer): every type carries Iceberg's attributes (Java's ``ORCSchemaUtil``):
  ``iceberg.id``, ``iceberg.required``, ``iceberg.long-type`` (``LONG``, or ``TIME`` for a
  time column stored as long microseconds), ``iceberg.binary-type`` (``BINARY``/``UUID``/
  ``FIXED`` with ``iceberg.length``) and ``iceberg.timestamp-unit``. (Timestamps of any
  year are written; pyarrow's ORC *reader* cannot read years outside 1677-2262.)
* Avro (fastavro): the schema of Java's ``AvroSchemaUtil`` (``field-id``, ``element-id``,
  ``key-id``/``value-id``, non-string-keyed maps as arrays of key/value records, decimals
  as named fixed, uuid as ``fixed[16]``), streamed block by block.

Metrics: value and null counts of the columns not inside a list or map, NaN counts and
bounds, computed from the batches (``FileMetricsCollector`` without a Parquet footer); no
column sizes (Java's ORC and Avro writers record none either).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.orc as orc

from icesql.errors import NotSupportedError, OperationalError
from icesql.io import FileIO
from icesql.metadata.manifest_schema import decimal_required_bytes
from icesql.spec.content_file import DATA, DataFile
from icesql.spec.schema import Schema
from icesql.spec.types import (
    BinaryType,
    DecimalType,
    FixedType,
    GeographyType,
    GeometryType,
    IcebergType,
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
    UUIDType,
)
from icesql.write.column_metrics import MetricsConfig
from icesql.write.parquet import OpenDataFile, ParquetDataWriter
from icesql.write.properties import DEFAULT_FILE_FORMAT
from icesql.write.variant_footer import variant_paths

__all__ = ["AvroDataWriter", "DataFileWriter", "OrcDataWriter", "check_format", "open_writer"]

WRITABLE = ("parquet", "orc", "avro")
FIELD_ID_KEY = b"PARQUET:field_id"


def check_format(fmt: str, prop: str = DEFAULT_FILE_FORMAT) -> str:
    """``fmt`` (a table property's value) lower-cased, or NotSupportedError naming ``prop``."""
    low = fmt.lower()
    if low not in WRITABLE:
        raise NotSupportedError(
            f"table property {prop}={fmt!r}: icesql writes parquet, orc and avro files"
        )
    return low


def open_writer(
    fmt: str,
    io: FileIO,
    path: str,
    schema: Schema,
    spec_id: int,
    partition: Sequence[Any],
    metrics: MetricsConfig,
    prop: str,
    sort_order_id: int | None,
    **parquet: Any,
) -> DataFileWriter:
    """A data-file writer for format ``fmt`` (``prop`` is the property that chose it)."""
    low = check_format(fmt, prop)
    if low != "parquet" and variant_paths(schema):
        raise NotSupportedError(
            f"table property {prop}={fmt!r}: icesql writes variant columns to Parquet only"
        )
    if low == "orc":
        return OrcDataWriter(io, path, schema, spec_id, partition, metrics, sort_order_id, prop)
    if low == "avro":
        return AvroDataWriter(io, path, schema, spec_id, partition, metrics, sort_order_id)
    return ParquetDataWriter(
        io, path, schema, spec_id, partition, metrics, sort_order_id=sort_order_id, **parquet
    )


class _Writer(OpenDataFile):
    """What the ORC and Avro writers share: metrics from the batches and the DataFile."""

    FORMAT = ""

    def __init__(
        self,
        io: FileIO,
        path: str,
        schema: Schema,
        spec_id: int,
        partition: Sequence[Any],
        metrics: MetricsConfig,
        sort_order_id: int | None,
    ):
        super().__init__(
            io, path, schema, spec_id, partition, metrics, sort_order_id, count_batches=True
        )
        self.write_schema = self._write_schema

    def _prepare(self, batch: pa.RecordBatch | pa.Table) -> pa.Table:
        if batch.schema.names != self.arrow_schema.names:
            batch = batch.select(self.arrow_schema.names)
        table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
        table = table.cast(self.arrow_schema)
        for chunk in table.to_batches():
            self._metrics.add(chunk)
        self.record_count += table.num_rows
        return table

    def _finish(self) -> None:
        raise NotImplementedError

    def close(self) -> DataFile:
        """Finish the file and describe it for a manifest."""
        try:
            self._finish()
            size = self._sink.tell()
            self._sink.close()
        except (OSError, pa.ArrowException, ValueError) as e:
            raise OperationalError(f"cannot finish data file {self.path}: {e}") from e
        metrics = self._metrics.metrics(None)
        return DataFile(
            content=DATA,
            file_path=self.path,
            file_format=self.FORMAT,
            partition=self.partition,
            record_count=self.record_count,
            file_size_in_bytes=size,
            sort_order_id=self.sort_order_id,
            spec_id=self.spec_id,
            **metrics,
        )

    def _close_writer(self) -> None:
        self._finish()


# --- ORC ---------------------------------------------------------------------------------------


class OrcDataWriter(_Writer):
    """One ORC file; each ``write`` appends rows (pyarrow cuts stripes)."""

    FORMAT = "ORC"

    def __init__(
        self,
        io: FileIO,
        path: str,
        schema: Schema,
        spec_id: int,
        partition: Sequence[Any],
        metrics: MetricsConfig,
        sort_order_id: int | None,
        prop: str = DEFAULT_FILE_FORMAT,
    ):
        super().__init__(io, path, schema, spec_id, partition, metrics, sort_order_id)
        self.orc_schema = pa.schema([_orc_field(f) for f in self.write_schema.fields])
        self._writer = orc.ORCWriter(self._sink, compression="zstd")

    def write(self, batch: pa.RecordBatch | pa.Table) -> None:
        if batch.num_rows == 0:
            return
        table = self._prepare(batch)
        arrays = [_to_orc(c, f.type) for c, f in zip(table.columns, self.write_schema.fields)]
        try:
            self._writer.write(pa.Table.from_arrays(arrays, schema=self.orc_schema))
        except (OSError, pa.ArrowException) as e:
            raise OperationalError(f"cannot write data file {self.path}: {e}") from e

    def _finish(self) -> None:
        self._writer.close()


def _orc_field(f: NestedField) -> pa.Field:
    """The Arrow field pyarrow writes as the ORC type of ``f``, with Iceberg's attributes."""
    attrs = {"iceberg.id": str(f.field_id), "iceberg.required": str(f.required).lower()}
    return pa.field(f.name, _orc_type(f.type, attrs), not f.required, metadata=attrs)


def _orc_type(t: IcebergType, attrs: dict[str, str]) -> pa.DataType:
    from icesql.spec.arrow import type_to_arrow

    if isinstance(t, StructType):
        return pa.struct([_orc_field(c) for c in t.fields])
    if isinstance(t, ListType):
        return pa.list_(_orc_field(t.element_field))
    if isinstance(t, MapType):
        return pa.map_(_orc_field(t.key_field), _orc_field(t.value_field))
    if isinstance(t, TimeType):
        attrs["iceberg.long-type"] = "TIME"
        return pa.int64()
    if isinstance(t, LongType):
        attrs["iceberg.long-type"] = "LONG"
    elif isinstance(t, UUIDType):
        attrs["iceberg.binary-type"] = "UUID"
        return pa.binary()
    elif isinstance(t, FixedType):
        attrs["iceberg.binary-type"] = "FIXED"
        attrs["iceberg.length"] = str(t.length)
        return pa.binary()
    elif isinstance(t, BinaryType):
        attrs["iceberg.binary-type"] = "BINARY"
    elif isinstance(t, GeometryType | GeographyType):  # WKB (Appendix A)
        attrs["iceberg.binary-type"] = "GEOMETRY" if isinstance(t, GeometryType) else "GEOGRAPHY"
        return pa.binary()
    elif isinstance(t, (TimestampNanoType, TimestamptzNanoType)):
        attrs["iceberg.timestamp-unit"] = "NANOS"
    elif isinstance(t, (TimestampType, TimestamptzType)):
        attrs["iceberg.timestamp-unit"] = "MICROS"
    return type_to_arrow(t)


def _to_orc(array: pa.ChunkedArray, t: IcebergType) -> pa.ChunkedArray:
    """Values as the ORC type of ``_orc_type`` holds them."""
    if isinstance(t, TimeType):
        return array.cast(pa.int64())
    if isinstance(t, (UUIDType, FixedType)):
        return array.cast(pa.binary())
    if isinstance(t, (StructType, ListType, MapType)) and _has_orc_cast(t):
        target = _orc_type(t, {})
        return pa.chunked_array([_cast_nested(c, t) for c in array.chunks], type=target)
    return array


def _has_orc_cast(t: IcebergType) -> bool:
    if isinstance(t, (TimeType, UUIDType, FixedType)):
        return True
    if isinstance(t, StructType):
        return any(_has_orc_cast(f.type) for f in t.fields)
    if isinstance(t, ListType):
        return _has_orc_cast(t.element_type)
    if isinstance(t, MapType):
        return _has_orc_cast(t.key_type) or _has_orc_cast(t.value_type)
    return False


def _cast_nested(array: pa.Array, t: IcebergType) -> pa.Array:
    """Nested values re-typed for ORC (time as long, uuid / fixed as binary)."""
    if isinstance(t, TimeType):
        return array.cast(pa.int64())
    if isinstance(t, (UUIDType, FixedType)):
        return array.cast(pa.binary())
    if isinstance(t, StructType):
        children = [_cast_nested(array.field(i), f.type) for i, f in enumerate(t.fields)]
        fields = [_orc_field(f) for f in t.fields]
        mask = array.is_null() if array.null_count else None
        return pa.StructArray.from_arrays(children, fields=fields, mask=mask)
    if isinstance(t, ListType):
        values = _cast_nested(array.values, t.element_type)
        return pa.ListArray.from_arrays(
            array.offsets,
            values,
            type=pa.list_(_orc_field(t.element_field)),
            mask=array.is_null() if array.null_count else None,
        )
    if isinstance(t, MapType):
        keys = _cast_nested(array.keys, t.key_type)
        items = _cast_nested(array.items, t.value_type)
        return pa.MapArray.from_arrays(
            array.offsets,
            keys,
            items,
            type=_orc_type(t, {}),
            mask=array.is_null() if array.null_count else None,
        )
    return array


# --- Avro --------------------------------------------------------------------------------------


class AvroDataWriter(_Writer):
    """One Avro container file; each ``write`` appends records (fastavro's blocks)."""

    FORMAT = "AVRO"

    def __init__(
        self,
        io: FileIO,
        path: str,
        schema: Schema,
        spec_id: int,
        partition: Sequence[Any],
        metrics: MetricsConfig,
        sort_order_id: int | None,
    ):
        super().__init__(io, path, schema, spec_id, partition, metrics, sort_order_id)
        self.avro_schema = avro_schema(self.write_schema)
        parsed = fastavro.parse_schema(self.avro_schema)
        self._writer = fastavro.write.Writer(self._sink, parsed, codec="deflate")
        self._convert = [_avro_value(f.type) for f in self.write_schema.fields]

    def write(self, batch: pa.RecordBatch | pa.Table) -> None:
        if batch.num_rows == 0:
            return
        table = self._prepare(batch)
        names = [f.name for f in self.write_schema.fields]
        columns = [
            _raw_column(c, f.type).to_pylist()
            for c, f in zip(table.columns, self.write_schema.fields)
        ]
        conv = self._convert
        try:
            for row in zip(*columns):
                self._writer.write(
                    {
                        n: (v if c is None or v is None else c(v))
                        for n, v, c in zip(names, row, conv)
                    }
                )
            self._writer.flush()
        except (OSError, ValueError, TypeError) as e:
            raise OperationalError(f"cannot write data file {self.path}: {e}") from e

    def _finish(self) -> None:
        self._writer.flush()


DataFileWriter = ParquetDataWriter | OrcDataWriter | AvroDataWriter


def _raw_column(array: pa.ChunkedArray, t: IcebergType) -> pa.ChunkedArray:
    """Temporal top-level columns as their stored integers (the schema's logical types
    are stripped from the values fastavro encodes)."""
    if pa.types.is_timestamp(array.type) or pa.types.is_time(array.type):
        return array.cast(pa.int64())
    if pa.types.is_date32(array.type):
        return array.cast(pa.int32())
    return array


def _avro_value(t: IcebergType) -> Any:
    """A per-value rewrite from Arrow's Python value to what fastavro encodes, or None."""
    import datetime as dt

    epoch = dt.datetime(1970, 1, 1)
    if isinstance(t, StructType):
        subs = [(f.name, _avro_value(f.type)) for f in t.fields]
        return lambda v: {
            n: (x if c is None or x is None else c(x)) for n, c in subs for x in (v.get(n),)
        }
    if isinstance(t, ListType):
        e = _avro_value(t.element_type)
        return None if e is None else (lambda v: [x if x is None else e(x) for x in v])
    if isinstance(t, MapType):
        k, val = _avro_value(t.key_type), _avro_value(t.value_type)

        def fix(c: Any, x: Any) -> Any:
            return x if c is None or x is None else c(x)

        if isinstance(t.key_type, StringType):
            return lambda v: {a: fix(val, b) for a, b in v}
        return lambda v: [{"key": fix(k, a), "value": fix(val, b)} for a, b in v]
    if isinstance(t, (TimestampType, TimestamptzType)):

        def micros(v: Any) -> int:
            if isinstance(v, int):
                return v
            if v.tzinfo is not None:
                v = v.astimezone(dt.UTC).replace(tzinfo=None)
            d = v - epoch
            return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds

        return micros
    if isinstance(t, (TimestampNanoType, TimestamptzNanoType)):
        return lambda v: int(v.value) if hasattr(v, "value") else int(v)
    if isinstance(t, TimeType):
        return lambda v: (
            v
            if isinstance(v, int)
            else ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
        )
    if type(t).__name__ == "DateType":
        return lambda v: v if isinstance(v, int) else (v - dt.date(1970, 1, 1)).days
    return None


def avro_schema(schema: Schema) -> dict[str, Any]:
    """The Avro schema of Java's ``AvroSchemaUtil.convert(schema, "table")``."""
    names: set[str] = set()
    return {
        "type": "record",
        "name": "table",
        "fields": [_avro_field(f, names) for f in schema.fields],
    }


def _avro_field(f: NestedField, names: set[str]) -> dict[str, Any]:
    t = _avro_type(f.type, f.field_id, names)
    out: dict[str, Any] = {"name": f.name, "type": t if f.required else ["null", t]}
    if not f.required:
        out["default"] = None
    out["field-id"] = f.field_id
    return out


def _named(name: str, body: dict[str, Any], names: set[str]) -> Any:
    if name in names:
        return name
    names.add(name)
    return {**body, "name": name}


def _avro_type(t: IcebergType, fid: int, names: set[str]) -> Any:
    if isinstance(t, StructType):
        return _named(
            f"r{fid}",
            {"type": "record", "fields": [_avro_field(c, names) for c in t.fields]},
            names,
        )
    if isinstance(t, ListType):
        item = _avro_type(t.element_type, t.element_id, names)
        return {
            "type": "array",
            "items": item if t.element_required else ["null", item],
            "element-id": t.element_id,
        }
    if isinstance(t, MapType):
        value = _avro_type(t.value_type, t.value_id, names)
        if not t.value_required:
            value = ["null", value]
        if isinstance(t.key_type, StringType):
            return {"type": "map", "values": value, "key-id": t.key_id, "value-id": t.value_id}
        key = _avro_type(t.key_type, t.key_id, names)
        record = _named(
            f"k{t.key_id}_v{t.value_id}",
            {
                "type": "record",
                "fields": [
                    {"name": "key", "type": key, "field-id": t.key_id},
                    {"name": "value", "type": value, "field-id": t.value_id},
                ],
            },
            names,
        )
        return {"type": "array", "logicalType": "map", "items": record}
    if isinstance(t, DecimalType):
        size = decimal_required_bytes(t.precision)
        return _named(
            f"decimal_{t.precision}_{t.scale}",
            {
                "type": "fixed",
                "size": size,
                "logicalType": "decimal",
                "precision": t.precision,
                "scale": t.scale,
            },
            names,
        )
    if isinstance(t, UUIDType):
        return _named("uuid_fixed", {"type": "fixed", "size": 16, "logicalType": "uuid"}, names)
    if isinstance(t, FixedType):
        return _named(f"fixed_{t.length}", {"type": "fixed", "size": t.length}, names)
    if isinstance(t, TimeType):
        return {"type": "long", "logicalType": "time-micros"}
    if isinstance(t, (TimestampType, TimestamptzType)):
        return {
            "type": "long",
            "logicalType": "timestamp-micros",
            "adjust-to-utc": isinstance(t, TimestamptzType),
        }
    if isinstance(t, (TimestampNanoType, TimestamptzNanoType)):
        return {
            "type": "long",
            "logicalType": "timestamp-nanos",
            "adjust-to-utc": isinstance(t, TimestamptzNanoType),
        }
    name = type(t).__name__
    simple = {
        "BooleanType": "boolean",
        "IntegerType": "int",
        "LongType": "long",
        "FloatType": "float",
        "DoubleType": "double",
        "StringType": "string",
        "BinaryType": "bytes",
        "GeometryType": "bytes",
        "GeographyType": "bytes",
    }
    if name == "DateType":
        return {"type": "int", "logicalType": "date"}
    if name in simple:
        return simple[name]
    raise NotSupportedError(
        f"column type {t} cannot be written to Avro yet (table property {DEFAULT_FILE_FORMAT}=avro)"
    )
