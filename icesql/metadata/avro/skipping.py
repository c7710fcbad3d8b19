"""Decoding Avro records while skipping some fields, faster than fastavro can.

Planning without a filter needs a manifest entry's file, partition and counts, not its
column metrics, which are most of its bytes (an array of key/value records per metric and
column). fastavro decodes or skips them element by element (with a reader schema, slower
still per element than without one), so skipping is where planning spends
its time. Here the skipped arrays of small records of ints, longs and short byte strings
are passed over by one regular expression per array (``(?:<item>){n}``, matched in C);
everything else decodes through closures compiled once per writer schema.

Only what Iceberg manifests use is supported: records, unions, arrays, null, boolean, int,
long, float, double, bytes, string, fixed; the ``null`` and ``deflate`` codecs. For any
other schema or codec ``compile_skipping`` returns None and the caller uses fastavro.
"""

from __future__ import annotations

import functools
import json
import re
import struct
import zlib
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["blocks", "compile_skipping", "compile_spans", "records"]

Decoder = Callable[[bytes, int], tuple[Any, int]]

_VARINT = rb"[\x80-\xff]*[\x00-\x7f]"
# a byte string shorter than 64 bytes: its zigzag length is one byte, 2 * n, then n bytes
_SHORT_BYTES = b"(?:" + b"|".join(re.escape(bytes([2 * n])) + b"." * n for n in range(64)) + b")"
_FLOAT = struct.Struct("<f").unpack_from
_DOUBLE = struct.Struct("<d").unpack_from


class Unsupported(Exception):
    """The schema uses something this decoder does not handle."""


def _long(buf: bytes, pos: int) -> tuple[int, int]:
    b = buf[pos]
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), pos + 1
    result, shift = b & 0x7F, 7
    pos += 1
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 10 bytes")


def _null(buf: bytes, pos: int) -> tuple[None, int]:
    return None, pos


def _boolean(buf: bytes, pos: int) -> tuple[bool, int]:
    return buf[pos] == 1, pos + 1


def _float(buf: bytes, pos: int) -> tuple[float, int]:
    return _FLOAT(buf, pos)[0], pos + 4


def _double(buf: bytes, pos: int) -> tuple[float, int]:
    return _DOUBLE(buf, pos)[0], pos + 8


def _bytes(buf: bytes, pos: int) -> tuple[bytes, int]:
    n, pos = _long(buf, pos)
    end = pos + n
    if n < 0 or end > len(buf):
        raise ValueError("byte string runs past its block")
    return buf[pos:end], end


def _string(buf: bytes, pos: int) -> tuple[str, int]:
    raw, pos = _bytes(buf, pos)
    return raw.decode("utf-8"), pos


_PRIMITIVES: dict[str, Decoder] = {
    "null": _null,
    "boolean": _boolean,
    "int": _long,
    "long": _long,
    "float": _float,
    "double": _double,
    "bytes": _bytes,
    "string": _string,
}


def compile_skipping(schema: Any, skip: frozenset[str]) -> Decoder | None:
    """A decoder of one record of ``schema`` (plain, no logical types) that leaves out the
    record fields named in ``skip``; None when the schema uses what is not supported."""
    return _compiled(schema, skip, False)


def compile_spans(schema: Any, fields: frozenset[str]) -> Decoder | None:
    """Like ``compile_skipping``, but each record field named in ``fields`` decodes to where
    its value lies instead of the value, for a reader that wants only some of it
    (``icesql.metadata.manifest_columns``); None for an unsupported schema. A span is
    ``(start, items, end)``: for (a union of null and) an array of records of ints, longs
    and short byte strings written as one block, its items lie in ``[items, end)``;
    otherwise ``items`` is -1 and the whole value, from ``start``, needs a full decode. A
    null decodes to None."""
    return _compiled(schema, fields, True)


def _compiled(schema: Any, fields: frozenset[str], spans: bool) -> Decoder | None:
    """The generated decoder (``_Generator``), else the closures, else None; made once per
    schema text, fields and kind (every manifest of a table carries the same schema, and
    compiling one costs about a millisecond)."""
    return _compiled_text(json.dumps(schema, sort_keys=True), fields, spans)


@functools.lru_cache(maxsize=64)
def _compiled_text(text: str, fields: frozenset[str], spans: bool) -> Decoder | None:
    schema = json.loads(text)
    try:
        named: dict[str, Decoder] = {}
        decoder = _compile(schema, fields, named, spans)
    except Unsupported:
        return None
    try:
        return _Generator(named, fields, spans).function(schema)
    except Unsupported:  # a construct the generator leaves to the closures
        return decoder


class _Generator:
    """Writes one Python function decoding a record of a schema, every nested value inline
    (no call per field, a varint of one byte read without a call); named types referred to
    again use the closures. Record fields named in ``fields`` are decoded to spans
    (``spans``, the common case inline) or skipped. The same decoding as ``_compile``'s
    closures, with fewer Python calls per record."""

    def __init__(self, named: dict[str, Decoder], fields: frozenset[str], spans: bool):
        self.named = named
        self.fields = fields
        self.spans = spans
        self.env: dict[str, Any] = {
            "_long": _long,
            "_FLOAT": _FLOAT,
            "_DOUBLE": _DOUBLE,
            "len": len,
        }
        self.lines: list[str] = []
        self.count = 0
        self.defined: set[str] = set()

    def function(self, schema: Any) -> Decoder:
        self.lines = ["def decode(buf, pos):"]
        result = self.value(schema, 1)
        self.lines.append(f"    return {result}, pos")
        code = "\n".join(self.lines)
        exec(compile(code, "<icesql avro decoder>", "exec"), self.env)
        return self.env["decode"]

    def var(self, prefix: str = "v") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def closure(self, decoder: Decoder, depth: int) -> str:
        name = self.var("f")
        self.env[name] = decoder
        out = self.var()
        self.emit(depth, f"{out}, pos = {name}(buf, pos)")
        return out

    def span(self, schema: Any, depth: int) -> str:
        """A span field (``compile_spans``): the common case inline, else the closure."""
        slow = _spanner(schema, self.named)
        array = schema[1] if isinstance(schema, list) and schema[:1] == ["null"] else schema
        item = _item_pattern(array.get("items")) if isinstance(array, dict) else None
        if item is None or array.get("type") != "array":
            return self.closure(slow, depth)
        patterns: dict[int, re.Pattern[bytes]] = {}

        def pattern(count: int) -> re.Pattern[bytes]:
            found = patterns.get(count)
            if found is None:
                found = patterns[count] = re.compile(b"(?:%s){%d}" % (item, count), re.S)
            return found

        names = {k: self.var(k) for k in ("D", "P", "S")}
        self.env[names["D"]], self.env[names["P"]], self.env[names["S"]] = patterns, pattern, slow
        start, out = self.var("s"), self.var()
        self.emit(depth, f"{start} = pos")
        if array is not schema:
            branch = self.long(depth)
            self.emit(depth, f"if {branch} == 0:")
            self.emit(depth + 1, f"{out} = None")
            self.emit(depth, "else:")
            depth += 1
        count = self.long(depth)
        self.emit(depth, f"{out} = None")
        self.emit(depth, f"if {count} == 0:")
        self.emit(depth + 1, f"{out} = ({start}, pos, pos)")
        self.emit(depth, f"elif {count} > 0:")
        m, e = self.var("m"), self.var("e")
        rx = self.var("r")
        self.emit(depth + 1, f"{rx} = {names['D']}.get({count})")
        self.emit(depth + 1, f"if {rx} is None:")
        self.emit(depth + 2, f"{rx} = {names['P']}({count})")
        self.emit(depth + 1, f"{m} = {rx}.match(buf, pos)")
        self.emit(depth + 1, f"if {m} is not None:")
        self.emit(depth + 2, f"{e} = {m}.end()")
        self.emit(depth + 2, f"if {e} < len(buf) and buf[{e}] == 0:")
        self.emit(depth + 3, f"{out} = ({start}, pos, {e})")
        self.emit(depth + 3, f"pos = {e} + 1")
        self.emit(depth, f"if {out} is None:")
        self.emit(depth + 1, f"{out}, pos = {names['S']}(buf, {start})")
        return out

    def long(self, depth: int) -> str:
        out, b = self.var(), self.var("b")
        self.emit(depth, f"{b} = buf[pos]")
        self.emit(depth, f"if {b} < 128:")
        self.emit(depth + 1, f"{out} = ({b} >> 1) ^ -({b} & 1)")
        self.emit(depth + 1, "pos += 1")
        self.emit(depth, "else:")
        self.emit(depth + 1, f"{out}, pos = _long(buf, pos)")
        return out

    def value(self, schema: Any, depth: int) -> str:
        """Emit the decoding of one value at ``pos``; the expression holding it."""
        if isinstance(schema, str):
            return self.primitive(schema, depth)
        if isinstance(schema, list):
            return self.union(schema, depth)
        kind = schema.get("type")
        if kind == "record":
            if schema["name"] in self.defined:
                raise Unsupported("a record defined twice")
            self.defined.add(schema["name"])
            out = self.var()
            self.emit(depth, f"{out} = {{}}")
            for f in schema["fields"]:
                if f["name"] in self.fields and not self.spans:
                    self.closure(_skipper(f["type"], self.named), depth)
                    continue
                if f["name"] in self.fields:
                    v = self.span(f["type"], depth)
                else:
                    v = self.value(f["type"], depth)
                self.emit(depth, f"{out}[{f['name']!r}] = {v}")
            return out
        if kind == "array":
            out, n = self.var(), self.var("n")
            self.emit(depth, f"{out} = []")
            self.emit(depth, "while True:")
            self.emit(depth + 1, f"{n}, pos = _long(buf, pos)")
            self.emit(depth + 1, f"if {n} == 0:")
            self.emit(depth + 2, "break")
            self.emit(depth + 1, f"if {n} < 0:")
            self.emit(depth + 2, f"{n} = -{n}")
            self.emit(depth + 2, "_, pos = _long(buf, pos)")
            self.emit(depth + 1, f"for _ in range({n}):")
            item = self.value(schema["items"], depth + 2)
            self.emit(depth + 2, f"{out}.append({item})")
            return out
        if kind == "fixed":
            self.defined.add(schema["name"])
            return self.sized(str(int(schema["size"])), depth, decode=False)
        if isinstance(kind, (str, list)) and set(schema) <= {"type", "name", "doc"}:
            return self.value(kind, depth)
        raise Unsupported(str(kind))

    def primitive(self, name: str, depth: int) -> str:
        if name == "null":
            return "None"
        if name in ("int", "long"):
            return self.long(depth)
        if name == "boolean":
            out = self.var()
            self.emit(depth, f"{out} = buf[pos] == 1")
            self.emit(depth, "pos += 1")
            return out
        if name in ("float", "double"):
            out = self.var()
            width, unpack = (4, "_FLOAT") if name == "float" else (8, "_DOUBLE")
            self.emit(depth, f"{out} = {unpack}(buf, pos)[0]")
            self.emit(depth, f"pos += {width}")
            return out
        if name in ("bytes", "string"):
            size = self.long(depth)
            self.emit(depth, f"if {size} < 0:")
            self.emit(depth + 1, "raise ValueError('byte string runs past its block')")
            return self.sized(size, depth, decode=name == "string")
        if name in self.named and name in self.defined:
            return self.closure(self.named[name], depth)
        raise Unsupported(name)

    def sized(self, size: str, depth: int, decode: bool) -> str:
        out, end = self.var(), self.var("e")
        self.emit(depth, f"{end} = pos + {size}")
        self.emit(depth, f"if {end} > len(buf):")
        self.emit(depth + 1, "raise ValueError('value runs past its block')")
        suffix = ".decode('utf-8')" if decode else ""
        self.emit(depth, f"{out} = buf[pos:{end}]{suffix}")
        self.emit(depth, f"pos = {end}")
        return out

    def union(self, branches: list[Any], depth: int) -> str:
        index, out = self.long(depth), self.var()
        for i, branch in enumerate(branches):
            self.emit(depth, f"{'if' if i == 0 else 'elif'} {index} == {i}:")
            v = self.value(branch, depth + 1)
            self.emit(depth + 1, f"{out} = {v}")
        self.emit(depth, "else:")
        self.emit(depth + 1, f"raise IndexError('union branch ' + str({index}))")
        return out


def _compile(
    schema: Any, skip: frozenset[str], named: dict[str, Decoder], spans: bool = False
) -> Decoder:
    if isinstance(schema, str):
        if schema in _PRIMITIVES:
            return _PRIMITIVES[schema]
        if schema in named:
            return named[schema]
        raise Unsupported(schema)
    if isinstance(schema, list):
        return _union([_compile(s, skip, named, spans) for s in schema])
    kind = schema.get("type")
    if kind == "record":
        fields = [
            (
                f["name"],
                (_spanner if spans else _skipper)(f["type"], named)
                if f["name"] in skip
                else _compile(f["type"], skip, named, spans),
            )
            for f in schema["fields"]
        ]
        decoder = _record([(None if n in skip and not spans else n, d) for n, d in fields])
        named[schema["name"]] = decoder
        return decoder
    if kind == "array":
        return _array(_compile(schema["items"], skip, named, spans))
    if kind == "fixed":
        decoder = _fixed(int(schema["size"]))
        named[schema["name"]] = decoder
        return decoder
    if isinstance(kind, (str, list)) and set(schema) <= {"type", "name", "doc"}:
        return _compile(kind, skip, named, spans)  # {"type": "long"}
    raise Unsupported(str(kind))


def _union(branches: list[Decoder]) -> Decoder:
    def union(buf: bytes, pos: int) -> tuple[Any, int]:
        index, pos = _long(buf, pos)
        return branches[index](buf, pos)

    return union


def _record(fields: list[tuple[str | None, Decoder]]) -> Decoder:
    def record(buf: bytes, pos: int) -> tuple[dict[str, Any], int]:
        out = {}
        for name, decode in fields:
            value, pos = decode(buf, pos)
            if name is not None:
                out[name] = value
        return out, pos

    return record


def _array(item: Decoder) -> Decoder:
    def array(buf: bytes, pos: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        while True:
            count, pos = _long(buf, pos)
            if count == 0:
                return out, pos
            if count < 0:  # a block that also gives its byte size
                count = -count
                _, pos = _long(buf, pos)
            for _ in range(count):
                value, pos = item(buf, pos)
                out.append(value)

    return array


def _fixed(size: int) -> Decoder:
    def fixed(buf: bytes, pos: int) -> tuple[bytes, int]:
        if pos + size > len(buf):
            raise ValueError("fixed value runs past its block")
        return buf[pos : pos + size], pos + size

    return fixed


def _skipper(schema: Any, named: dict[str, Decoder]) -> Decoder:
    """Passes over a value, returning None: by regular expression for (a union of null
    and) an array of records of ints, longs and short byte strings, else by decoding."""
    decode = _compile(schema, frozenset(), named)
    array = schema[1] if isinstance(schema, list) and schema[:1] == ["null"] else schema
    item = _item_pattern(array.get("items")) if isinstance(array, dict) else None
    if item is None or array.get("type") != "array":
        return lambda buf, pos: (None, decode(buf, pos)[1])
    nullable = array is not schema
    patterns: dict[int, re.Pattern[bytes]] = {}

    def skip(buf: bytes, pos: int) -> tuple[None, int]:
        start = pos
        if nullable:
            branch, pos = _long(buf, pos)
            if branch == 0:
                return None, pos
        while True:
            count, pos = _long(buf, pos)
            if count == 0:
                return None, pos
            if count < 0:
                count = -count
                _, pos = _long(buf, pos)
            rx = patterns.get(count)
            if rx is None:
                rx = patterns[count] = re.compile(b"(?:%s){%d}" % (item, count), re.S)
            m = rx.match(buf, pos)
            if m is None:  # a long byte string somewhere: decode the whole value instead
                return None, decode(buf, start)[1]
            pos = m.end()

    return skip


def _spanner(schema: Any, named: dict[str, Decoder]) -> Decoder:
    """Decodes a value to its span (``compile_spans``)."""
    decode = _compile(schema, frozenset(), named)
    array = schema[1] if isinstance(schema, list) and schema[:1] == ["null"] else schema
    item = _item_pattern(array.get("items")) if isinstance(array, dict) else None
    nullable = array is not schema
    if item is None or array.get("type") != "array":

        def whole(buf: bytes, pos: int) -> tuple[tuple[int, int, int] | None, int]:
            value, end = decode(buf, pos)
            return (None if value is None else (pos, -1, end)), end

        return whole
    patterns: dict[int, re.Pattern[bytes]] = {}

    def span(buf: bytes, pos: int) -> tuple[tuple[int, int, int] | None, int]:
        start = pos
        if nullable:
            branch, pos = _long(buf, pos)
            if branch == 0:
                return None, pos
        count, pos = _long(buf, pos)
        if count == 0:
            return (start, pos, pos), pos
        if count > 0:
            rx = patterns.get(count)
            if rx is None:
                rx = patterns[count] = re.compile(b"(?:%s){%d}" % (item, count), re.S)
            m = rx.match(buf, pos)
            if m is not None:
                end = m.end()
                if end < len(buf) and buf[end] == 0:  # the one block ends here
                    return (start, pos, end), end + 1
        end = decode(buf, start)[1]
        return (start, -1, end), end

    return span


def key_pattern(item: Any, key: int) -> re.Pattern[bytes] | None:
    """For the items of an array of (int key, int / long / bytes value) records, as a span
    gives them (``compile_spans``): a pattern matching the items up to the one whose key is
    ``key``, with that item's encoded value as group 1 (a varint, or a one-byte length and
    the bytes). None for other items. Varints are prefix-free, so the key can only match
    at an item's start; a key that is absent does not match."""
    whole = _item_pattern(item)
    if (
        whole is None
        or len(item["fields"]) != 2
        or item["fields"][0]["type"]
        not in (
            "int",
            "long",
        )
    ):
        return None
    value = _VARINT if item["fields"][1]["type"] in ("int", "long") else _SHORT_BYTES
    return re.compile(b"(?:%s)*?%s(%s)" % (whole, re.escape(write_long(key)), value), re.S)


def write_long(n: int) -> bytes:
    """The zigzag varint of ``n``."""
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n & ~0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_long(buf: bytes, pos: int) -> tuple[int, int]:
    """A zigzag varint at ``pos`` and the position after it."""
    return _long(buf, pos)


def _item_pattern(item: Any) -> bytes | None:
    if not isinstance(item, dict) or item.get("type") != "record":
        return None
    parts = []
    for f in item["fields"]:
        t = f["type"]
        if t in ("int", "long"):
            parts.append(_VARINT)
        elif t == "bytes":
            parts.append(_SHORT_BYTES)
        else:
            return None
    return b"".join(parts)


def records(
    data: bytes, start: int, sync: bytes, codec: str, decode: Decoder
) -> Iterator[dict[str, Any]]:
    """The records of the container blocks from ``start``; raises ValueError (or
    IndexError, UnicodeDecodeError, zlib.error) on damaged data."""
    for block, count in blocks(data, start, sync, codec):
        at = 0
        for _ in range(count):
            record, at = decode(block, at)
            yield record
        if at != len(block):
            raise ValueError("data block holds more bytes than its records")


def blocks(data: bytes, start: int, sync: bytes, codec: str) -> Iterator[tuple[bytes, int]]:
    """The decompressed data blocks from ``start`` with their record counts; raises
    ValueError (or zlib.error) on damaged data."""
    pos, end = start, len(data)
    while pos < end:
        count, pos = _long(data, pos)
        size, pos = _long(data, pos)
        if count < 0 or size < 0 or pos + size + len(sync) > end:
            raise ValueError("truncated data block")
        block = data[pos : pos + size]
        pos += size
        if data[pos : pos + len(sync)] != sync:
            raise ValueError("sync marker does not match the header's")
        pos += len(sync)
        if codec == "deflate":
            block = zlib.decompress(block, -15)
        yield block, count
