"""Avro container files: the plumbing shared by the manifest and manifest-list readers and
writers.

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

from icesql.errors import CorruptFileError, Error
from icesql.metadata.avro import skipping
from icesql.metadata.avro.schema import iceberg_schema

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


_write_long = skipping.write_long


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
    left out of the records: ``icesql.metadata.avro.skipping`` passes over them where it
    supports the schema and codec; otherwise fastavro decodes everything, so callers must
    not rely on their absence either way.
    """
    try:
        meta, sync, start = read_header(data)
        schema, plain_text, decoder = _schemas(meta[SCHEMA_KEY], skip)
        metadata = {k: v.decode("utf-8", "replace") for k, v in meta.items()}
        codec = metadata.get("avro.codec", "null")
        if decoder is not None and codec in ("null", "deflate"):
            records = skipping.records(data, start, sync, codec, decoder)
            return AvroFile(metadata, schema, _guarded(records, path))
        if plain_text is not None:
            meta = dict(meta)
            meta[SCHEMA_KEY] = plain_text
            data = encode_header(meta, sync) + data[start:]
        import fastavro  # loaded on the first Avro file, not at import

        reader = fastavro.reader(io.BytesIO(data))
    except Error:
        raise
    except KeyError:
        raise CorruptFileError(path, "Avro header has no schema") from None
    except Exception as e:  # fastavro and json raise many kinds for damaged headers
        raise CorruptFileError(path, f"bad Avro header: {e}") from None
    return AvroFile(metadata, schema, _guarded(reader, path))


@dataclass(frozen=True)
class AvroBlocks:
    """A container opened for a columnar reader: its metadata, the annotated writer schema,
    record decoders (``spans``: the fields named are decoded to spans, see
    ``skipping.compile_spans``; ``full``: every field) and the decompressed data blocks."""

    metadata: dict[str, str]
    schema: dict[str, Any]
    plain: dict[str, Any]  # the schema without logical types, as the decoders read it
    spans: skipping.Decoder
    full: skipping.Decoder
    blocks: Iterator[tuple[bytes, int]]


def read_avro_blocks(data: bytes, path: str, span_fields: frozenset[str]) -> AvroBlocks | None:
    """Open an Avro container held in memory for a columnar reader; None when its schema or
    codec is one ``skipping`` does not decode (the caller then uses ``read_avro``). Header
    errors raise ``CorruptFileError``; the blocks iterator raises it for damaged blocks."""
    try:
        meta, sync, start = read_header(data)
        schema, plain, decoders = _span_decoders(meta[SCHEMA_KEY], span_fields)
        metadata = {k: v.decode("utf-8", "replace") for k, v in meta.items()}
    except KeyError:
        raise CorruptFileError(path, "Avro header has no schema") from None
    except Exception as e:  # json and the header reader raise many kinds for damaged headers
        raise CorruptFileError(path, f"bad Avro header: {e}") from None
    codec = metadata.get("avro.codec", "null")
    if decoders is None or codec not in ("null", "deflate"):
        return None
    blocks = _guarded(skipping.blocks(data, start, sync, codec), path)
    return AvroBlocks(metadata, schema, plain, decoders[0], decoders[1], blocks)


@functools.lru_cache(maxsize=64)
def _span_decoders(
    text: bytes, span_fields: frozenset[str]
) -> tuple[dict[str, Any], dict[str, Any], tuple[skipping.Decoder, skipping.Decoder] | None]:
    """The schema, its plain form, and its span and full decoders (None if unsupported);
    cached like ``_schemas``."""
    schema = json.loads(text.decode("utf-8"))
    plain, _ = strip_logical_types(schema)
    spans = skipping.compile_spans(plain, span_fields)
    full = skipping.compile_skipping(plain, frozenset())
    return schema, plain, (None if spans is None or full is None else (spans, full))


@functools.lru_cache(maxsize=64)
def _schemas(
    text: bytes, skip: frozenset[str]
) -> tuple[dict[str, Any], bytes | None, skipping.Decoder | None]:
    """For a header's schema text: the schema, the plain schema's text if it differs, and
    a decoder skipping ``skip`` (None for a schema it does not support).
    Cached (the manifests of a table share one schema), so callers must not modify them."""
    schema = json.loads(text.decode("utf-8"))
    plain, changed = strip_logical_types(schema)
    plain_text = schema_json(plain).encode("utf-8") if changed else None
    # the generated decoder also when nothing is skipped: as fast as fastavro's on manifest
    # lists, and a query's first manifest list then does not wait for fastavro's import
    decoder = skipping.compile_skipping(plain, skip)
    return schema, plain_text, decoder


def _guarded(reader: Iterator[Any], path: str) -> Iterator[Any]:
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
    import fastavro

    fastavro.writer(buf, plain, records, metadata=dict(metadata), codec=codec)
    data = buf.getvalue()
    meta, sync, start = read_header(data)
    ordered = {k: v.encode("utf-8") for k, v in metadata.items()}
    ordered[SCHEMA_KEY] = schema_json(schema).encode("utf-8")
    ordered.setdefault(ICEBERG_SCHEMA_KEY, schema_json(iceberg_schema(schema)).encode("utf-8"))
    ordered["avro.codec"] = meta.get("avro.codec", codec.encode())
    return encode_header(ordered, sync) + data[start:]
