"""An independent decoder of the Parquet variant binary encoding (VariantEncoding.md), for
checking the files icesql writes and the spec's test vectors (tests/data/variant/)."""

from __future__ import annotations

import datetime
import struct
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).resolve().parent / "data" / "variant"
_EPOCH = datetime.datetime(1970, 1, 1)


def _uint(buf: bytes, pos: int, size: int) -> int:
    return int.from_bytes(buf[pos : pos + size], "little")


def decode_metadata(buf: bytes) -> list[str]:
    """The dictionary of a metadata buffer; checks version 1 and the offsets."""
    header = buf[0]
    assert header & 0x0F == 1, f"metadata version {header & 0x0F}"
    size = ((header >> 6) & 3) + 1
    count = _uint(buf, 1, size)
    offsets = [_uint(buf, 1 + size * (i + 1), size) for i in range(count + 1)]
    start = 1 + size * (count + 2)
    assert offsets[0] == 0 and offsets == sorted(offsets), offsets
    keys = [buf[start + offsets[i] : start + offsets[i + 1]].decode() for i in range(count)]
    if header & 0x10:  # sorted_strings: unique and sorted
        assert keys == sorted(set(keys), key=lambda k: k.encode()), keys
    return keys


def decode_value(buf: bytes, keys: list[str], pos: int = 0) -> Any:
    """One value (objects as dicts, arrays as lists, primitives as Python values)."""
    header = buf[pos]
    basic, head = header & 3, header >> 2
    if basic == 1:
        return buf[pos + 1 : pos + 1 + head].decode()
    if basic in (2, 3):
        large = head & (0x10 if basic == 2 else 0x04)
        offset_size = (head & 3) + 1
        id_size = ((head >> 2) & 3) + 1 if basic == 2 else 0
        n_size = 4 if large else 1
        count = _uint(buf, pos + 1, n_size)
        ids_at = pos + 1 + n_size
        offsets_at = ids_at + id_size * count
        values_at = offsets_at + offset_size * (count + 1)
        offsets = [_uint(buf, offsets_at + offset_size * i, offset_size) for i in range(count + 1)]
        items = [decode_value(buf, keys, values_at + offsets[i]) for i in range(count)]
        if basic == 3:
            return items
        names = [keys[_uint(buf, ids_at + id_size * i, id_size)] for i in range(count)]
        assert names == sorted(names, key=lambda k: k.encode()), f"object keys unsorted: {names}"
        return dict(zip(names, items))
    body = pos + 1
    if head == 0:
        return None
    if head in (1, 2):
        return head == 1
    if head in (3, 4, 5, 6):
        size = {3: 1, 4: 2, 5: 4, 6: 8}[head]
        return int.from_bytes(buf[body : body + size], "little", signed=True)
    if head == 7:
        return struct.unpack("<d", buf[body : body + 8])[0]
    if head == 14:
        return struct.unpack("<f", buf[body : body + 4])[0]
    if head in (8, 9, 10):
        size = {8: 4, 9: 8, 10: 16}[head]
        unscaled = int.from_bytes(buf[body + 1 : body + 1 + size], "little", signed=True)
        return Decimal(unscaled).scaleb(-buf[body])
    if head == 11:
        days = int.from_bytes(buf[body : body + 4], "little", signed=True)
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    if head in (12, 13):
        micros = int.from_bytes(buf[body : body + 8], "little", signed=True)
        ts = _EPOCH + datetime.timedelta(microseconds=micros)
        return ts.replace(tzinfo=datetime.UTC) if head == 12 else ts
    if head in (15, 16):
        length = _uint(buf, body, 4)
        raw = buf[body + 4 : body + 4 + length]
        return raw if head == 15 else raw.decode()
    if head == 17:
        micros = _uint(buf, body, 8)
        return (datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=micros)).time()
    if head in (18, 19):
        return ("nanos", int.from_bytes(buf[body : body + 8], "little", signed=True))
    if head == 20:
        return uuid.UUID(bytes=buf[body : body + 16])
    raise AssertionError(f"unknown primitive type {head}")


def decode(metadata: bytes, value: bytes) -> Any:
    """A variant (metadata and value buffers) as a Python value."""
    return decode_value(value, decode_metadata(metadata))


def vector(name: str) -> Any:
    """The decoded test vector ``name`` (e.g. ``object_nested``)."""
    return decode(
        (VECTORS / f"{name}.metadata").read_bytes(), (VECTORS / f"{name}.value").read_bytes()
    )


def split_variant_bin(raw: bytes) -> tuple[bytes, bytes]:
    """A ``*.variant.bin`` file (metadata bytes, then value bytes) as its two buffers."""
    size = ((raw[0] >> 6) & 3) + 1
    count = _uint(raw, 1, size)
    end = 1 + size * (count + 2) + _uint(raw, 1 + size * (count + 1), size)
    return raw[:end], raw[end:]


def dictionary() -> dict[str, Any]:
    """The vectors' values (``data_dictionary.json``, whose last entry has a trailing comma)."""
    import json
    import re

    text = (VECTORS / "data_dictionary.json").read_text()
    return json.loads(re.sub(r",\s*}\s*$", "}", text))
