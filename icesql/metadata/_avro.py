"""Avro container plumbing shared by the manifest and manifest-list readers and writers.

fastavro turns logical types into ``datetime``/``Decimal`` objects and loses precision or
range on the way (nanosecond timestamps, years past 9999), while icesql's value convention
wants the stored integers. So files are decoded with a copy of the writer schema whose
``logicalType`` annotations are removed: the header is re-encoded with that schema and the
data blocks, whose encoding does not depend on logical types, are reused as they are.
Writing goes the other way: records are encoded with the plain schema and the header gets
the annotated schema, field ids and all, exactly as the reference implementation writes it.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import fastavro

from icesql.errors import CorruptFileError, Error
from icesql.metadata import _avro_skip

MAGIC = b"Obj\x01"
SYNC_SIZE = 16
SCHEMA_KEY = "avro.schema"
ICEBERG_SCHEMA_KEY = "iceberg.schema"  # Java's Avro writer records the Iceberg schema too


@dataclass(frozen=True)
class AvroFile:
    """A decoded container: user metadata (text), the annotated writer schema, the records."""

    metadata: dict[str, str]
    schema: dict[str, Any]
    records: Iterator[dict[str, Any]]


# ---------------------------------------------------------------------------------------------
# Header encoding


def _read_long(data: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated Avro header")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
        if shift > 63:
            raise ValueError("bad varint in Avro header")


def _write_long(n: int) -> bytes:
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n & ~0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_bytes(data: bytes, pos: int) -> tuple[bytes, int]:
    size, pos = _read_long(data, pos)
    if size < 0 or pos + size > len(data):
        raise ValueError("truncated Avro header")
    return data[pos : pos + size], pos + size


def read_header(data: bytes) -> tuple[dict[str, bytes], bytes, int]:
    """The file metadata map, the sync marker and the offset where the data blocks start."""
    if data[:4] != MAGIC:
        raise ValueError(f"not an Avro container file (magic {data[:4]!r})")
    meta: dict[str, bytes] = {}
    pos = 4
    while True:
        count, pos = _read_long(data, pos)
        if count == 0:
            break
        if count < 0:  # a block with its byte size; the size is not needed here
            count = -count
            _, pos = _read_long(data, pos)
        for _ in range(count):
            key, pos = _read_bytes(data, pos)
            value, pos = _read_bytes(data, pos)
            meta[key.decode("utf-8")] = value
    sync = data[pos : pos + SYNC_SIZE]
    if len(sync) != SYNC_SIZE:
        raise ValueError("truncated Avro header")
    return meta, sync, pos + SYNC_SIZE


def encode_header(meta: Mapping[str, bytes], sync: bytes) -> bytes:
    out = bytearray(MAGIC)
    if meta:
        out += _write_long(len(meta))
        for key, value in meta.items():
            k = key.encode("utf-8")
            out += _write_long(len(k)) + k + _write_long(len(value)) + value
    out += _write_long(0)
    out += sync
    return bytes(out)


def schema_json(schema: Any) -> str:
    """Compact schema text, as Java's ``Schema.toString()`` writes it."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def strip_logical_types(schema: Any) -> tuple[Any, bool]:
    """A copy of ``schema`` without ``logicalType`` keys, and whether any were removed."""
    if isinstance(schema, list):
        parts = [strip_logical_types(s) for s in schema]
        return [p for p, _ in parts], any(c for _, c in parts)
    if not isinstance(schema, dict):
        return schema, False
    changed = "logicalType" in schema
    out = {}
    for key, value in schema.items():
        if key == "logicalType":
            continue
        if key in ("type", "items", "values", "fields"):
            value, c = strip_logical_types(value)
            changed |= c
        out[key] = value
    return out, changed


# ---------------------------------------------------------------------------------------------
# Reading


def read_avro(data: bytes, path: str, skip: frozenset[str] = frozenset()) -> AvroFile:
    """Open an Avro container held in memory; decoding errors become ``CorruptFileError``.

    The records iterator decodes lazily and also raises ``CorruptFileError`` (naming
    ``path``) for a truncated or damaged data block. Record fields named in ``skip`` may be
    left out of the records: ``icesql.metadata._avro_skip`` passes over them where it
    supports the schema and codec; otherwise fastavro decodes everything, so callers must
    not rely on their absence either way.
    """
    try:
        meta, sync, start = read_header(data)
        schema, plain_text, skipping = _schemas(meta[SCHEMA_KEY], skip)
        metadata = {k: v.decode("utf-8", "replace") for k, v in meta.items()}
        codec = metadata.get("avro.codec", "null")
        if skipping is not None and codec in ("null", "deflate"):
            records = _avro_skip.records(data, start, sync, codec, skipping)
            return AvroFile(metadata, schema, _guarded(records, path))
        if plain_text is not None:
            meta = dict(meta)
            meta[SCHEMA_KEY] = plain_text
            data = encode_header(meta, sync) + data[start:]
        reader = fastavro.reader(io.BytesIO(data))
    except Error:
        raise
    except KeyError:
        raise CorruptFileError(path, "Avro header has no schema") from None
    except Exception as e:  # fastavro and json raise many kinds for damaged headers
        raise CorruptFileError(path, f"bad Avro header: {e}") from None
    return AvroFile(metadata, schema, _guarded(reader, path))


@functools.lru_cache(maxsize=64)
def _schemas(
    text: bytes, skip: frozenset[str]
) -> tuple[dict[str, Any], bytes | None, _avro_skip.Decoder | None]:
    """For a header's schema text: the schema, the plain schema's text if it differs, and
    a decoder skipping ``skip`` (None without fields to skip or for an unsupported schema).
    Cached (the manifests of a table share one schema), so callers must not modify them."""
    schema = json.loads(text.decode("utf-8"))
    plain, changed = strip_logical_types(schema)
    plain_text = schema_json(plain).encode("utf-8") if changed else None
    skipping = _avro_skip.compile_skipping(plain, skip) if skip else None
    return schema, plain_text, skipping


def _guarded(reader: Iterator[dict[str, Any]], path: str) -> Iterator[dict[str, Any]]:
    try:
        yield from reader
    except Error:
        raise
    except Exception as e:
        raise CorruptFileError(path, f"bad Avro data block: {type(e).__name__}: {e}") from None


# ---------------------------------------------------------------------------------------------
# Writing


def write_avro(
    schema: dict[str, Any],
    records: list[dict[str, Any]],
    metadata: Mapping[str, str],
    codec: str = "deflate",
) -> bytes:
    """Encode ``records`` (raw values, no logical-type objects) into an Avro container whose
    header carries ``schema`` as given and ``metadata`` in order."""
    plain, _ = strip_logical_types(schema)
    buf = io.BytesIO()
    fastavro.writer(buf, plain, records, metadata=dict(metadata), codec=codec)
    data = buf.getvalue()
    meta, sync, start = read_header(data)
    ordered = {k: v.encode("utf-8") for k, v in metadata.items()}
    ordered[SCHEMA_KEY] = schema_json(schema).encode("utf-8")
    ordered.setdefault(ICEBERG_SCHEMA_KEY, schema_json(iceberg_schema(schema)).encode("utf-8"))
    ordered["avro.codec"] = meta.get("avro.codec", codec.encode())
    return encode_header(ordered, sync) + data[start:]


# ---------------------------------------------------------------------------------------------
# The Iceberg schema of an Avro schema built here (for the ``iceberg.schema`` key)

_LOGICAL_TO_ICEBERG = {"date": "date", "time-micros": "time"}


def iceberg_schema(record: dict[str, Any]) -> dict[str, Any]:
    """The Iceberg JSON schema (schema-id 0) of a record schema built by this package."""
    return {"type": "struct", "schema-id": 0, "fields": _iceberg_fields(record, {})}


def _iceberg_fields(record: dict[str, Any], named: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for f in record["fields"]:
        t = f["type"]
        required = not (isinstance(t, list) and "null" in t)
        if isinstance(t, list):
            t = next(x for x in t if x != "null")
        field: dict[str, Any] = {
            "id": f["field-id"],
            "name": f.get("iceberg-field-name", f["name"]),
            "required": required,
            "type": _iceberg_type(t, named),
        }
        if "doc" in f:
            field["doc"] = f["doc"]
        out.append(field)
    return out


def _iceberg_type(t: Any, named: dict[str, Any]) -> Any:
    if isinstance(t, str):
        return named.get(t) or {"bytes": "binary"}.get(t, t)
    kind, logical = t["type"], t.get("logicalType")
    if "name" in t and kind == "fixed":
        named[t["name"]] = result = _iceberg_primitive(kind, logical, t)
        return result
    if kind == "record":
        return {"type": "struct", "fields": _iceberg_fields(t, named)}
    if kind == "array" and logical == "map":
        key, value = t["items"]["fields"]
        return {
            "type": "map",
            "key-id": key["field-id"],
            "key": _iceberg_type(key["type"], named),
            "value-id": value["field-id"],
            "value": _iceberg_type(value["type"], named),
            "value-required": True,
        }
    if kind == "array":
        return {
            "type": "list",
            "element-id": t["element-id"],
            "element": _iceberg_type(t["items"], named),
            "element-required": True,
        }
    return _iceberg_primitive(kind, logical, t)


def _iceberg_primitive(kind: str, logical: str | None, t: dict[str, Any]) -> str:
    if logical == "decimal":
        return f"decimal({t['precision']}, {t['scale']})"
    if logical == "uuid":
        return "uuid"
    if logical in ("timestamp-micros", "timestamp-nanos"):
        name = "timestamptz" if t.get("adjust-to-utc") else "timestamp"
        return name + ("_ns" if logical == "timestamp-nanos" else "")
    if logical in _LOGICAL_TO_ICEBERG:
        return _LOGICAL_TO_ICEBERG[logical]
    if kind == "fixed":
        return f"fixed[{t['size']}]"
    return {"bytes": "binary"}.get(kind, kind)


# ---------------------------------------------------------------------------------------------
# Schema building in the shape of Java's AvroSchemaUtil


def avro_field(
    name: str, avro_type: Any, field_id: int, optional: bool = False, doc: str | None = None
) -> dict[str, Any]:
    """One record field: optional fields are a union with null that defaults to null."""
    out: dict[str, Any] = {"name": name, "type": ["null", avro_type] if optional else avro_type}
    if doc is not None:
        out["doc"] = doc
    if optional:
        out["default"] = None
    out["field-id"] = field_id
    return out


def avro_int_map(key_id: int, value_id: int, value_type: str) -> dict[str, Any]:
    """An int-keyed map, stored as an array of key/value records (logical type ``map``)."""
    return {
        "type": "array",
        "items": {
            "type": "record",
            "name": f"k{key_id}_v{value_id}",
            "fields": [
                {"name": "key", "type": "int", "field-id": key_id},
                {"name": "value", "type": value_type, "field-id": value_id},
            ],
        },
        "logicalType": "map",
    }


def avro_list(element_id: int, element_type: Any) -> dict[str, Any]:
    return {"type": "array", "items": element_type, "element-id": element_id}


def compatible_name(name: str) -> str:
    """Java's ``AvroSchemaUtil.makeCompatibleName``: invalid characters become ``_xHEX``."""
    if not name:
        return name
    if _valid_first(name[0]) and all(_valid_rest(c) for c in name[1:]):
        return name
    out = [
        name[0]
        if _valid_first(name[0])
        else ("_" + name[0] if name[0].isdigit() else _escape(name[0]))
    ]
    out += [c if _valid_rest(c) else _escape(c) for c in name[1:]]
    return "".join(out)


def _valid_first(c: str) -> bool:
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _valid_rest(c: str) -> bool:
    return _valid_first(c) or ("0" <= c <= "9")


def _escape(c: str) -> str:
    return "_x" + format(ord(c), "X")
