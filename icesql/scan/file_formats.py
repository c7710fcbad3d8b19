"""ORC and Avro data and delete files, opened as the Parquet reader's stand-ins.

The stream reader (``icesql.scan.reader``) matches a file's columns by Iceberg field id in
its Arrow schema (``PARQUET:field_id`` metadata) and pulls batches of the columns it needs.
These classes give an ORC or Avro file that same face (``schema_arrow``, ``num_rows``,
``iter_batches``), so projection, schema evolution, name mapping, metadata columns and
deletes work on them unchanged; the file's format comes from its manifest entry, never
from its name or bytes.

* ORC: pyarrow's reader exposes ORC type attributes as Arrow field metadata; Iceberg keeps
  the field id in ``iceberg.id`` (Java's ``ORCSchemaUtil``), copied here to the Parquet key.
  Batches are read one stripe at a time, cut to ``batch_size``. A file without ids falls to
  the table's name mapping, as Java's ORC reader does.
* Avro: fastavro decodes the container block by block (records per batch at most
  ``batch_size``) with a reader schema stripped of date/time/timestamp/uuid logical types, so
  values stay the stored integers (no ``datetime`` range or precision loss); the field id is
  the schema's ``field-id`` (``element-id``, ``key-id``/``value-id`` inside).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from io import BytesIO
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.errors import CorruptFileError, Error, NotSupportedError, OperationalError
from icesql.io import FileIO
from icesql.scan.conform import FIELD_ID_KEY

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # Arrow kernels load with the first batch that needs one, not with the module
    pc = lazy_module("pyarrow.compute")

__all__ = ["AvroDataFile", "OrcDataFile", "open_format_file"]

ORC_ID_KEY = b"iceberg.id"
ORC_UNIT_KEY = b"iceberg.timestamp-unit"
FORMATS = ("PARQUET", "ORC", "AVRO")


def open_format_file(io: FileIO, path: str, file_format: str) -> OrcDataFile | AvroDataFile:
    """An ORC or Avro file opened for batches; ``file_format`` is the manifest's."""
    fmt = file_format.upper()
    if fmt == "ORC":
        return OrcDataFile.open(io, path)
    if fmt == "AVRO":
        return AvroDataFile.open(io, path)
    raise NotSupportedError(
        f"data file {path} has file format {file_format}, which icesql"
        " does not read (Parquet, ORC and Avro are)"
    )


def _source(io: FileIO, path: str) -> Any:
    local = io.local(path)
    return local if local is not None else io.open(path)


def _missing(path: str, fmt: str) -> OperationalError:
    return OperationalError(f"data file not found: {path} ({fmt})")


# --- ORC ---------------------------------------------------------------------------------------


class OrcDataFile:
    """An ORC file read stripe by stripe."""

    def __init__(self, reader: Any, path: str):
        self._reader = reader
        self.path = path
        self.schema_arrow = pa.schema([_orc_field(f) for f in reader.schema])
        self.num_rows = int(reader.nrows)
        # microsecond timestamp columns an Iceberg writer wrote (``iceberg.id``, no NANOS
        # unit): it truncates them to whole microseconds (spec), so in pyarrow's nanoseconds
        # any other value is one its reader wrapped round (see _check_wrapped)
        self._micro_columns = {f.name for f in reader.schema if _iceberg_micros(f)}

    @staticmethod
    def open(io: FileIO, path: str) -> OrcDataFile:
        import pyarrow.orc as orc  # with the first ORC file: most tables have none

        try:
            return OrcDataFile(orc.ORCFile(_source(io, path)), path)
        except FileNotFoundError:
            raise _missing(path, "ORC") from None
        except Error:
            raise
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as e:
            raise CorruptFileError(path, f"read as ORC: {e}") from None

    def iter_batches(
        self, batch_size: int, columns: Sequence[str] | None = None, use_threads: bool = True
    ) -> Iterator[pa.RecordBatch]:
        del use_threads  # the ORC reader decodes a stripe on the calling thread
        names = list(columns) if columns is not None else None
        try:
            for i in range(self._reader.nstripes):
                stripe = self._reader.read_stripe(i, columns=names)
                if names is not None:  # the reader returns file order; callers index by theirs
                    stripe = stripe.select(names)
                self._check_wrapped(stripe)
                for start in range(0, stripe.num_rows, batch_size):
                    yield stripe.slice(start, batch_size)
        except pa.ArrowInvalid as e:
            if "out of range" in str(e):  # pyarrow decodes ORC timestamps in nanoseconds
                raise NotSupportedError(
                    f"ORC data file {self.path}: {e}; pyarrow's ORC reader holds timestamps in"
                    " nanoseconds, so years outside 1677-2262 cannot be read"
                ) from None
            raise CorruptFileError(self.path, f"read as ORC: {e}") from None
        except (pa.ArrowNotImplementedError, OSError) as e:
            raise CorruptFileError(self.path, f"read as ORC: {e}") from None

    def _check_wrapped(self, stripe: pa.RecordBatch) -> None:
        """pyarrow's ORC reader holds timestamps as int64 nanoseconds since 1970; pyarrow 26
        refuses a value beyond that range (years outside 1677-2262), pyarrow 20 lets it wrap
        round. A wrapped Iceberg microsecond timestamp is never a whole number of
        microseconds (2**64 is not a multiple of 1000 nanoseconds for any wrap within
        70,000 years), so one that is not is refused here, naming the file and column,
        rather than read as a wrong time or a corrupt file."""
        for name in self._micro_columns.intersection(stripe.schema.names):
            column = stripe.column(name)
            if not pa.types.is_timestamp(column.type) or column.type.unit != "ns":
                continue
            nanos = pc.fill_null(column.cast(pa.int64()), 0)
            remainder = pc.subtract(nanos, pc.multiply(pc.divide(nanos, 1000), 1000))
            if pc.any(pc.not_equal(remainder, 0)).as_py():
                raise NotSupportedError(
                    f"ORC data file {self.path}: column {name!r} holds a timestamp outside"
                    " 1677-2262, which pyarrow's ORC reader (nanoseconds since 1970) cannot"
                    " represent"
                )


def _iceberg_micros(f: pa.Field) -> bool:
    meta = f.metadata or {}
    unit = meta.get(ORC_UNIT_KEY, b"MICROS").upper()
    return pa.types.is_timestamp(f.type) and ORC_ID_KEY in meta and unit != b"NANOS"


def _orc_field(f: pa.Field) -> pa.Field:
    """``f`` with its ``iceberg.id`` attribute as the field id the conform step reads."""
    t = f.type
    if pa.types.is_struct(t):
        t = pa.struct([_orc_field(c) for c in t])
    elif pa.types.is_map(t):
        t = pa.map_(_orc_field(t.key_field), _orc_field(t.item_field))
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        t = pa.list_(_orc_field(t.value_field))
    meta = f.metadata or {}
    fid = meta.get(ORC_ID_KEY)
    return pa.field(f.name, t, f.nullable, metadata={FIELD_ID_KEY: fid} if fid else None)


# --- Avro --------------------------------------------------------------------------------------

_RAW_LOGICAL = {
    "date",
    "time-micros",
    "time-millis",
    "timestamp-micros",
    "timestamp-millis",
    "timestamp-nanos",
    "local-timestamp-micros",
    "uuid",
}


class AvroDataFile:
    """An Avro container file read block by block into Arrow batches."""

    def __init__(self, source: Any, path: str):
        self.path = path
        self._source = source
        self.num_rows = -1  # an Avro header does not say; callers use the manifest's count
        import fastavro  # with the first Avro data file (manifests load it too, later)

        fo = _opened(source)
        try:
            writer_schema = fastavro.reader(fo).writer_schema
            if not isinstance(writer_schema, dict):  # a data file's schema is a record
                raise CorruptFileError(path, f"read as Avro: not a record schema: {writer_schema}")
            self._writer_schema: dict[str, Any] = writer_schema
            named: dict[str, pa.DataType] = {}
            self.schema_arrow = pa.schema(
                [_avro_field(f, named) for f in self._writer_schema["fields"]]
            )
        except Error:
            raise
        except Exception as e:  # fastavro raises many kinds for a damaged header
            raise CorruptFileError(path, f"read as Avro: {e}") from None
        finally:
            fo.close()

    @staticmethod
    def open(io: FileIO, path: str) -> AvroDataFile:
        try:
            local = io.local(path)
            if local is not None:
                return AvroDataFile(local, path)
            return AvroDataFile(lambda: io.open(path), path)  # streamed, never fetched whole
        except FileNotFoundError:
            raise _missing(path, "Avro") from None

    def iter_batches(
        self, batch_size: int, columns: Sequence[str] | None = None, use_threads: bool = True
    ) -> Iterator[pa.RecordBatch]:
        del use_threads
        wanted = set(columns) if columns is not None else None
        fields = (
            list(self.schema_arrow)
            if columns is None
            else [self.schema_arrow.field(n) for n in columns]
        )  # in the caller's order
        struct = pa.struct(fields)
        plain = _reader_schema(self._writer_schema, wanted)
        converters = {f.name: _converter(f) for f in fields}
        import fastavro

        fo = _opened(self._source)
        try:
            pending: list[dict[str, Any]] = []
            # fastavro types a record as any Avro value; a record schema's are dicts
            records = cast("Iterator[dict[str, Any]]", fastavro.reader(fo, reader_schema=plain))
            for record in records:
                pending.append(record)
                if len(pending) >= batch_size:
                    yield _to_batch(pending, struct, converters)
                    pending = []
            if pending:
                yield _to_batch(pending, struct, converters)
        except Error:
            raise
        except Exception as e:
            raise CorruptFileError(self.path, f"read as Avro: {type(e).__name__}: {e}") from None
        finally:
            fo.close()


def _opened(source: Any) -> Any:
    if callable(source):
        return source()
    if isinstance(source, (bytes, bytearray)):
        return BytesIO(source)
    return open(source, "rb")


def _to_batch(
    records: list[dict[str, Any]], struct: pa.StructType, converters: dict[str, Any]
) -> pa.RecordBatch:
    arrays = []
    for f in struct:
        values = [r.get(f.name) for r in records]
        conv = converters.get(f.name)
        if conv is not None:
            values = [None if v is None else conv(v) for v in values]
        arrays.append(pa.array(values, type=f.type))
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(list(struct)))


def _converter(field: pa.Field) -> Any:
    """A per-value rewrite where pyarrow cannot take fastavro's value as it is (maps
    stored as arrays of key/value records, Iceberg's non-string keys), or None."""
    t = field.type
    if pa.types.is_map(t):
        k, v = _converter(t.key_field), _converter(t.item_field)

        def conv_map(value: Any) -> Any:
            pairs = (
                value.items()
                if isinstance(value, dict)
                else ((e["key"], e["value"]) for e in value)
            )
            return [(_apply(k, a), _apply(v, b)) for a, b in pairs]

        return conv_map
    if pa.types.is_list(t):
        e = _converter(t.value_field)
        return None if e is None else (lambda value: [_apply(e, x) for x in value])
    if pa.types.is_struct(t):
        subs = [(c.name, _converter(c)) for c in t]
        if all(c is None for _, c in subs):
            return None
        return lambda value: {n: _apply(c, value.get(n)) for n, c in subs}
    return None


def _apply(conv: Any, value: Any) -> Any:
    return value if conv is None or value is None else conv(value)


def _reader_schema(schema: dict[str, Any], wanted: set[str] | None) -> dict[str, Any]:
    """The writer schema with ``wanted`` fields only and date/time/uuid logical types
    removed, so fastavro hands back the stored integers and bytes."""
    out = copy.deepcopy(schema)
    if wanted is not None:
        out["fields"] = [f for f in out["fields"] if f["name"] in wanted]
    return _strip(out)


def _strip(s: Any) -> Any:
    if isinstance(s, list):
        return [_strip(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {}
    for key, value in s.items():
        if key == "logicalType" and value in _RAW_LOGICAL:
            continue
        if key in ("type", "items", "values"):
            value = _strip(value)
        elif key == "fields":
            value = [_strip(f) for f in value]
        out[key] = value
    return out


def _avro_field(f: dict[str, Any], named: dict[str, pa.DataType]) -> pa.Field:
    t, nullable = _unwrap(f["type"])
    fid = f.get("field-id")
    meta = {FIELD_ID_KEY: str(fid).encode()} if fid is not None else None
    return pa.field(f["name"], _avro_type(t, named), nullable, metadata=meta)


def _unwrap(t: Any) -> tuple[Any, bool]:
    if isinstance(t, list):
        branches = [b for b in t if b != "null"]
        if len(branches) != 1:
            raise NotSupportedError(f"Avro union {t} is not an Iceberg type")
        return branches[0], len(branches) != len(t)
    return t, False


def _id_field(
    name: str, t: Any, fid: Any, named: dict[str, pa.DataType], nullable: bool | None = None
) -> pa.Field:
    inner, opt = _unwrap(t)
    meta = {FIELD_ID_KEY: str(fid).encode()} if fid is not None else None
    return pa.field(
        name, _avro_type(inner, named), opt if nullable is None else nullable, metadata=meta
    )


_PRIMITIVES = {
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
    "null": pa.null(),
}
_LOGICAL = {
    "date": pa.date32(),
    "time-micros": pa.time64("us"),
    "time-millis": pa.time32("ms"),
    "timestamp-millis": pa.timestamp("ms"),
    "uuid": pa.binary(16),
}


def _avro_type(t: Any, named: dict[str, pa.DataType]) -> pa.DataType:
    if isinstance(t, str):
        if t in _PRIMITIVES:
            return _PRIMITIVES[t]
        if t in named:
            return named[t]
        raise CorruptFileError("", f"unknown Avro type name {t!r}")
    kind, logical = t["type"], t.get("logicalType")
    if isinstance(kind, (dict, list)):
        return _avro_type(kind, named)
    result: pa.DataType
    if logical == "decimal":
        result = pa.decimal128(t["precision"], t.get("scale", 0))
    elif logical in ("timestamp-micros", "timestamp-nanos", "local-timestamp-micros"):
        unit = "ns" if logical == "timestamp-nanos" else "us"
        result = pa.timestamp(unit, tz="UTC" if t.get("adjust-to-utc") else None)
    elif logical in _LOGICAL:
        result = _LOGICAL[logical]
    elif kind == "record":
        result = pa.struct(
            [_id_field(c["name"], c["type"], c.get("field-id"), named) for c in t["fields"]]
        )
    elif kind == "array" and logical == "map":
        key, value = t["items"]["fields"]
        result = pa.map_(
            _id_field("key", key["type"], key.get("field-id"), named, False),
            _id_field("value", value["type"], value.get("field-id"), named),
        )
    elif kind == "array":
        result = pa.list_(_id_field("element", t["items"], t.get("element-id"), named))
    elif kind == "map":
        result = pa.map_(
            pa.field("key", pa.string(), False, metadata=_id_meta(t.get("key-id"))),
            _id_field("value", t["values"], t.get("value-id"), named),
        )
    elif kind == "fixed":
        result = pa.binary(t["size"])
    elif kind == "enum":
        result = pa.string()
    else:
        result = _avro_type(kind, named)
    if isinstance(t, dict) and "name" in t and kind in ("record", "fixed", "enum"):
        named[t["name"]] = result
    return result


def _id_meta(fid: Any) -> dict[bytes, bytes] | None:
    return {FIELD_ID_KEY: str(fid).encode()} if fid is not None else None
