"""One Parquet file from row groups encoded apart, so the row groups of one file can be
encoded on several threads at once.

A Parquet row group is self-contained: its column chunks' pages hold no file offsets; only
the footer (``FileMetaData``, Thrift compact encoding) says where each chunk starts. So each
row group is written by pyarrow as a whole one-row-group file in memory (``encode``), its
body (between the leading ``PAR1`` and its footer) is appended to the real file, and the
real footer is the first row group's ``FileMetaData`` with every row group listed, each
with its offsets moved by where its body landed (``Stitcher``). The result is byte for byte
the file one ``ParquetWriter`` writing the same row groups in turn produces (the tests
compare them): Thrift's compact encoding of the same values is unique as writers emit it
(fields in order, short headers where they fit).

Offsets moved: ``RowGroup.file_offset`` and ``ordinal``, ``ColumnChunk.file_offset``,
``ColumnMetaData``'s data, index, dictionary page and bloom filter offsets. Page indexes
hold absolute page offsets inside the body: a row group written with one is refused
(icesql writes none, as Java's default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from icesql.errors import InternalError

__all__ = ["EncodedRowGroup", "Stitcher", "decode_struct", "encode", "encode_struct"]

MAGIC = b"PAR1"

# Thrift compact protocol type codes
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)

# FileMetaData / RowGroup / ColumnChunk / ColumnMetaData field ids (parquet.thrift)
_NUM_ROWS, _ROW_GROUPS = 3, 4
_RG_COLUMNS, _RG_FILE_OFFSET, _RG_ORDINAL = 1, 5, 7
_CC_FILE_OFFSET, _CC_META = 2, 3
_CC_PAGE_INDEX = (4, 5, 6, 7)  # offset / column index offsets and lengths
_CM_OFFSETS = (9, 10, 11, 14)  # data, index, dictionary page; bloom filter

Struct = list[list[Any]]  # [[field id, type, value], ...] in wire order


@dataclass(frozen=True)
class EncodedRowGroup:
    """One row group as a whole Parquet file in memory: its body and its footer."""

    body: memoryview
    footer: Struct
    num_rows: int


def encode(table: pa.Table, arrow_schema: pa.Schema, **writer_options: Any) -> EncodedRowGroup:
    """``table`` as one row group, written by pyarrow with ``writer_options``."""
    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(sink, arrow_schema, **writer_options) as writer:
        writer.write_table(table, row_group_size=max(table.num_rows, 1))
    data = memoryview(sink.getvalue()).cast("B")  # unsigned bytes, whatever the buffer says
    length = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - length
    footer, _ = decode_struct(data, start)
    return EncodedRowGroup(data[4:start], footer, table.num_rows)


class Stitcher:
    """Appends encoded row groups to a file (which starts with ``PAR1``) and builds its footer."""

    def __init__(self) -> None:
        self.template: Struct | None = None
        self.row_groups: list[Struct] = []
        self.num_rows = 0

    def add(self, encoded: EncodedRowGroup, position: int) -> None:
        """Record ``encoded``'s row group, whose body was written at ``position``."""
        if self.template is None:
            self.template = encoded.footer
        shift = position - len(MAGIC)
        for group in _field(encoded.footer, _ROW_GROUPS, []):
            _shift(group, (_RG_FILE_OFFSET,), shift)
            _set(group, _RG_ORDINAL, len(self.row_groups))
            for chunk in _field(group, _RG_COLUMNS, []):
                if any(_has(chunk, f) for f in _CC_PAGE_INDEX):
                    raise InternalError("cannot move a row group written with a page index")
                _shift(chunk, (_CC_FILE_OFFSET,), shift)
                meta = _field(chunk, _CC_META, None)
                if meta is not None:
                    _shift(meta, _CM_OFFSETS, shift)
            self.row_groups.append(group)
        self.num_rows += encoded.num_rows

    def footer(self) -> bytes:
        """The file's ``FileMetaData``, its length and the closing magic."""
        body = self.metadata()
        return body + len(body).to_bytes(4, "little") + MAGIC

    def metadata(self) -> bytes:
        """The file's ``FileMetaData`` (Thrift compact)."""
        if self.template is None:
            raise InternalError("a Parquet file needs one row group to take its schema from")
        meta = [list(f) for f in self.template]
        _set(meta, _NUM_ROWS, self.num_rows)
        for f in meta:
            if f[0] == _ROW_GROUPS:
                f[2] = (_STRUCT, self.row_groups)
        return encode_struct(meta)


def _field(struct: Struct, fid: int, default: Any) -> Any:
    for f in struct:
        if f[0] == fid:
            return f[2][1] if f[1] in (_LIST, _SET) else f[2]
    return default


def _has(struct: Struct, fid: int) -> bool:
    return any(f[0] == fid for f in struct)


def _set(struct: Struct, fid: int, value: int) -> None:
    for f in struct:
        if f[0] == fid:
            f[2] = value


def _shift(struct: Struct, fids: tuple[int, ...], shift: int) -> None:
    for f in struct:
        if f[0] in fids and f[2] > 0:  # 0: not set (recent writers leave chunk offsets at 0)
            f[2] += shift


# --- Thrift compact protocol ---------------------------------------------------------------


def decode_struct(buf: memoryview | bytes, pos: int) -> tuple[Struct, int]:
    """A struct at ``pos`` as ``[[field id, type, value], ...]``; the position after it."""
    out: Struct = []
    last = 0
    while True:
        byte = buf[pos]
        pos += 1
        if byte == 0:
            return out, pos
        kind = byte & 15
        if byte >> 4:
            fid = last + (byte >> 4)
        else:
            raw, pos = _varint(buf, pos)
            fid = _unzigzag(raw)
        if kind in (_TRUE, _FALSE):
            value: Any = kind == _TRUE
        else:
            value, pos = _value(buf, pos, kind)
        out.append([fid, kind, value])
        last = fid


def _value(buf: memoryview | bytes, pos: int, kind: int) -> tuple[Any, int]:
    if kind == _BYTE:
        return buf[pos], pos + 1
    if kind in (_I16, _I32, _I64):
        raw, pos = _varint(buf, pos)
        return _unzigzag(raw), pos
    if kind == _DOUBLE:
        return bytes(buf[pos : pos + 8]), pos + 8
    if kind == _BINARY:
        length, pos = _varint(buf, pos)
        return bytes(buf[pos : pos + length]), pos + length
    if kind in (_LIST, _SET):
        byte = buf[pos]
        pos += 1
        count, elem = byte >> 4, byte & 15
        if count == 15:
            count, pos = _varint(buf, pos)
        items = []
        for _ in range(count):
            if elem in (_TRUE, _FALSE):  # a bool element is a byte of its own
                item: Any = buf[pos]
                pos += 1
            else:
                item, pos = _value(buf, pos, elem)
            items.append(item)
        return (elem, items), pos
    if kind == _STRUCT:
        return decode_struct(buf, pos)
    raise InternalError(f"unexpected Thrift type {kind} in a Parquet footer")  # maps: none


def encode_struct(struct: Struct) -> bytes:
    """The compact encoding of a struct from ``decode_struct``."""
    out = bytearray()
    _write_struct(out, struct)
    return bytes(out)


def _write_struct(out: bytearray, struct: Struct) -> None:
    last = 0
    for fid, kind, value in struct:
        if kind in (_TRUE, _FALSE):
            kind = _TRUE if value else _FALSE
        delta = fid - last
        if 0 < delta <= 15:
            out.append(delta << 4 | kind)
        else:
            out.append(kind)
            _write_varint(out, _zigzag(fid))
        if kind not in (_TRUE, _FALSE):
            _write_value(out, kind, value)
        last = fid
    out.append(0)


def _write_value(out: bytearray, kind: int, value: Any) -> None:
    if kind == _BYTE:
        out.append(value)
    elif kind in (_I16, _I32, _I64):
        _write_varint(out, _zigzag(value))
    elif kind == _DOUBLE:
        out += value
    elif kind == _BINARY:
        _write_varint(out, len(value))
        out += value
    elif kind in (_LIST, _SET):
        elem, items = value
        if len(items) < 15:
            out.append(len(items) << 4 | elem)
        else:
            out.append(0xF0 | elem)
            _write_varint(out, len(items))
        for item in items:
            if elem in (_TRUE, _FALSE):
                out.append(item)
            else:
                _write_value(out, elem, item)
    elif kind == _STRUCT:
        _write_struct(out, value)
    else:
        raise InternalError(f"unexpected Thrift type {kind} in a Parquet footer")


def _varint(buf: memoryview | bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def _write_varint(out: bytearray, value: int) -> None:
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)


def _zigzag(value: int) -> int:
    return (value << 1) ^ (value >> 63)


def _unzigzag(raw: int) -> int:
    return (raw >> 1) ^ -(raw & 1)
