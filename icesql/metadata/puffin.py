"""Puffin files and the ``deletion-vector-v1`` blobs they hold (v3 deletion vectors); any
other blob (table statistics' theta sketches) is written by ``write_puffin``.

A Puffin file is ``PFA1``, the blobs, then a footer: ``PFA1``, a JSON payload listing the
blobs, the payload size (int32 little-endian), 4 flag bytes and ``PFA1`` again.

A deletion vector blob is framed as::

    length   uint32 big-endian   size of magic + bitmap
    magic    D1 D3 39 64
    bitmap   portable 64-bit Roaring: uint64 LE count of 32-bit keys, then for each key
             (ascending) a uint32 LE key and a portable 32-bit Roaring bitmap
    crc      uint32 big-endian   CRC-32 of magic + bitmap

``pyroaring.BitMap64`` reads and writes exactly that bitmap format (the tests pin it), so
positions come back as a ``BitMap64``; position ``p`` is deleted iff ``p in bitmap``.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyroaring import BitMap64

from icesql.errors import CorruptFileError, DataError, NotSupportedError
from icesql.io import FileIO

__all__ = [
    "DELETION_VECTOR_V1",
    "DV_MAGIC",
    "PUFFIN_MAGIC",
    "ROW_POSITION_FIELD_ID",
    "NewBlob",
    "PuffinBlob",
    "PuffinFooter",
    "decode_deletion_vector",
    "decompressed_blob",
    "encode_deletion_vector",
    "read_blob",
    "read_deletion_vector",
    "read_puffin_footer",
    "write_deletion_vector_puffin",
    "write_puffin",
]

PUFFIN_MAGIC = b"PFA1"
DV_MAGIC = b"\xd1\xd3\x39\x64"  # 1681511377 as a little-endian int, as Java writes it
DELETION_VECTOR_V1 = "deletion-vector-v1"
ROW_POSITION_FIELD_ID = 2**31 - 1 - 2  # the reserved _pos metadata column
MAX_POSITION = 2**63 - 1
FOOTER_COMPRESSED = 0x01  # byte 0, bit 0 of the flags
_FOOTER_TAIL = 12  # payload size + flags + magic


@dataclass(frozen=True)
class PuffinBlob:
    """A blob as the footer describes it; ``offset``/``length`` locate its bytes."""

    type: str
    fields: tuple[int, ...]
    snapshot_id: int
    sequence_number: int
    offset: int
    length: int
    compression_codec: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "fields": list(self.fields),
            "snapshot-id": self.snapshot_id,
            "sequence-number": self.sequence_number,
            "offset": self.offset,
            "length": self.length,
        }
        if self.compression_codec is not None:
            out["compression-codec"] = self.compression_codec
        if self.properties:
            out["properties"] = dict(self.properties)
        return out


@dataclass(frozen=True)
class PuffinFooter:
    """The blobs and file properties of a Puffin file; ``footer_size`` is the whole footer
    (what table statistics record as ``file-footer-size-in-bytes``)."""

    blobs: tuple[PuffinBlob, ...]
    properties: Mapping[str, str]
    footer_size: int


# ---------------------------------------------------------------------------------------------
# Reading


def read_puffin_footer(io: FileIO, path: str) -> PuffinFooter:
    """Parse the footer of a Puffin file (a compressed footer raises ``NotSupportedError``)."""
    size = io.size(path)
    if size < 2 * len(PUFFIN_MAGIC) + _FOOTER_TAIL:
        raise CorruptFileError(path, f"too small for a Puffin file ({size} bytes)")
    with io.open(path) as f:
        if f.read(4) != PUFFIN_MAGIC:
            raise CorruptFileError(path, "missing Puffin magic at the start")
        f.seek(size - _FOOTER_TAIL)
        tail = f.read(_FOOTER_TAIL)
        payload_size = struct.unpack("<i", tail[:4])[0]
        flags = tail[4:8]
        if tail[8:] != PUFFIN_MAGIC:
            raise CorruptFileError(path, "missing Puffin magic at the end")
        footer_size = payload_size + _FOOTER_TAIL + len(PUFFIN_MAGIC)
        start = size - footer_size
        if payload_size < 0 or start < len(PUFFIN_MAGIC):
            raise CorruptFileError(path, f"bad Puffin footer payload size {payload_size}")
        f.seek(start)
        head = f.read(len(PUFFIN_MAGIC) + payload_size)
    if head[:4] != PUFFIN_MAGIC:
        raise CorruptFileError(path, "missing Puffin magic at the start of the footer")
    if flags[0] & FOOTER_COMPRESSED:
        raise NotSupportedError(f"Puffin file {path} has a compressed footer (LZ4)")
    try:
        payload = json.loads(head[4:].decode("utf-8"))
        blobs = tuple(_blob(b) for b in payload.get("blobs", []))
        properties = dict(payload.get("properties") or {})
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise CorruptFileError(path, f"bad Puffin footer payload: {e!r}") from None
    return PuffinFooter(blobs, properties, footer_size)


def _blob(obj: dict[str, Any]) -> PuffinBlob:
    return PuffinBlob(
        type=obj["type"],
        fields=tuple(int(i) for i in obj["fields"]),
        snapshot_id=int(obj["snapshot-id"]),
        sequence_number=int(obj["sequence-number"]),
        offset=int(obj["offset"]),
        length=int(obj["length"]),
        compression_codec=obj.get("compression-codec"),
        properties=dict(obj.get("properties") or {}),
    )


def read_blob(io: FileIO, path: str, offset: int, length: int) -> bytes:
    """The ``length`` bytes at ``offset``, as stored (decompression is the caller's)."""
    with io.open(path) as f:
        f.seek(offset)
        data = f.read(length)
    if len(data) != length:
        raise CorruptFileError(
            path, f"blob at {offset} is cut short ({len(data)} of {length} bytes)"
        )
    return data


def read_deletion_vector(io: FileIO, path: str, offset: int, length: int) -> BitMap64:
    """The deleted positions of the ``deletion-vector-v1`` blob at ``offset`` (the manifest
    entry's ``content_offset`` / ``content_size_in_bytes``)."""
    return decode_deletion_vector(read_blob(io, path, offset, length), path)


def decode_deletion_vector(blob: bytes, path: str = "<deletion vector>") -> BitMap64:
    """Check the framing, magic and CRC of a DV blob and decode its bitmap."""
    if len(blob) < 12:
        raise CorruptFileError(path, f"deletion vector blob of {len(blob)} bytes is too small")
    (length,) = struct.unpack(">I", blob[:4])
    if length != len(blob) - 8:
        raise CorruptFileError(
            path, f"deletion vector length {length} does not match its blob ({len(blob)} bytes)"
        )
    if blob[4:8] != DV_MAGIC:
        raise CorruptFileError(path, f"bad deletion vector magic {blob[4:8].hex()}")
    body = blob[4 : 4 + length]
    (crc,) = struct.unpack(">I", blob[4 + length :])
    if zlib.crc32(body) != crc:
        raise CorruptFileError(path, "deletion vector checksum mismatch")
    try:
        return BitMap64.deserialize(body[4:])
    except ValueError as e:
        raise CorruptFileError(path, f"bad Roaring bitmap in deletion vector: {e}") from None


# ---------------------------------------------------------------------------------------------
# Writing


def encode_deletion_vector(positions: Iterable[int] | BitMap64) -> tuple[bytes, int]:
    """A ``deletion-vector-v1`` blob for ``positions`` and its cardinality.

    As Java does, the bitmap is run-length optimised before it is serialized.
    """
    bitmap = positions.copy() if isinstance(positions, BitMap64) else BitMap64(positions)
    if bitmap and bitmap.max() > MAX_POSITION:
        raise DataError(f"row position {bitmap.max()} is out of range for a deletion vector")
    bitmap.run_optimize()
    body = DV_MAGIC + bitmap.serialize()
    blob = struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))
    return blob, len(bitmap)


def write_deletion_vector_puffin(
    io: FileIO,
    path: str,
    vectors: Sequence[tuple[str, Iterable[int] | BitMap64]],
    created_by: str = "icesql",
) -> list[tuple[int, int, int]]:
    """Write one Puffin file holding a deletion vector per ``(referenced_data_file,
    positions)`` and return ``(offset, length, cardinality)`` for each, in order: the
    manifest entry's ``content_offset``, ``content_size_in_bytes`` and ``record_count``.

    Blob metadata is what Java's DV writer records: snapshot id and sequence number -1
    (inherited), field ``_pos`` (2147483645), and properties ``referenced-data-file`` and
    ``cardinality``.
    """
    blobs = []
    cardinalities = []
    for data_file, positions in vectors:
        blob, cardinality = encode_deletion_vector(positions)
        properties = {"referenced-data-file": data_file, "cardinality": str(cardinality)}
        blobs.append(
            NewBlob(DELETION_VECTOR_V1, (ROW_POSITION_FIELD_ID,), -1, -1, blob, properties)
        )
        cardinalities.append(cardinality)
    written = write_puffin(io, path, blobs, created_by)
    return [(b.offset, b.length, c) for b, c in zip(written.blobs, cardinalities, strict=True)]


@dataclass(frozen=True)
class NewBlob:
    """A blob to write: its footer fields and its bytes (compressed with ``codec`` on write)."""

    type: str
    fields: tuple[int, ...]
    snapshot_id: int
    sequence_number: int
    data: bytes
    properties: Mapping[str, str] = field(default_factory=dict)
    codec: str | None = None  # None or "zstd"


def write_puffin(
    io: FileIO, path: str, blobs: Sequence[NewBlob], created_by: str = "icesql"
) -> PuffinFooter:
    """Write a Puffin file of ``blobs`` (an uncompressed footer) and return its footer."""
    out = bytearray(PUFFIN_MAGIC)
    written = []
    for b in blobs:
        data = b.data
        if b.codec == "zstd":
            data = _codec("zstd").compress(data, asbytes=True)
        elif b.codec is not None:
            raise NotSupportedError(f"Puffin compression codec {b.codec!r}")
        written.append(
            PuffinBlob(
                b.type,
                b.fields,
                b.snapshot_id,
                b.sequence_number,
                len(out),
                len(data),
                b.codec,
                dict(b.properties),
            )
        )
        out += data
    footer: dict[str, Any] = {"blobs": [b.to_json() for b in written]}
    properties = {"created-by": created_by} if created_by else {}
    if properties:
        footer["properties"] = properties
    payload = json.dumps(footer, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    tail = PUFFIN_MAGIC + payload + struct.pack("<i", len(payload)) + bytes(4) + PUFFIN_MAGIC
    io.write_bytes(path, bytes(out + tail))
    return PuffinFooter(tuple(written), properties, len(tail))


def _codec(name: str) -> Any:
    """pyarrow's codec (imported here: DV scans never compress)."""
    import pyarrow as pa

    return pa.Codec(name)


def decompressed_blob(data: bytes, codec: str | None, path: str = "<puffin>") -> bytes:
    """A blob's bytes uncompressed (``zstd`` frames record their size, as the spec needs)."""
    if codec is None:
        return data
    if codec != "zstd":
        raise NotSupportedError(f"Puffin file {path}: compression codec {codec!r}")
    size = _zstd_content_size(data, path)
    return bytes(_codec("zstd").decompress(data, decompressed_size=size, asbytes=True))


def _zstd_content_size(frame: bytes, path: str) -> int:
    """The content size in a zstd frame header (RFC 8878 3.1.1.1)."""
    if len(frame) < 6 or frame[:4] != b"\x28\xb5\x2f\xfd":
        raise CorruptFileError(path, "a zstd blob without a zstd frame")
    descriptor = frame[4]
    fcs_flag, single, dict_flag = descriptor >> 6, (descriptor >> 5) & 1, descriptor & 3
    at = 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag]
    width = (1 if single else 0, 2, 4, 8)[fcs_flag]
    if width == 0:
        raise CorruptFileError(path, "a zstd blob whose frame does not record its size")
    size = int.from_bytes(frame[at : at + width], "little")
    return size + 256 if width == 2 else size
