"""Avro container files: what ``write_avro`` writes is what the reference reader (fastavro)
reads, with the annotated schema in the header; ``read_avro`` gives the stored integers of
logical types; the header bytes follow the Avro spec; damaged files name the file."""

from __future__ import annotations

import datetime
import io
import json

import fastavro
import pytest

from icesql.errors import CorruptFileError
from icesql.metadata.avro.container import (
    encode_header,
    read_avro,
    read_header,
    schema_json,
    strip_logical_types,
    write_avro,
)

SYNC = bytes(range(16))
SCHEMA = {
    "type": "record",
    "name": "r",
    "fields": [
        {"name": "id", "type": "long", "field-id": 1},
        {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}], "field-id": 2},
        {"name": "ns", "type": {"type": "long", "logicalType": "timestamp-nanos",
                                "adjust-to-utc": True}, "field-id": 3},
        {"name": "s", "type": "string", "field-id": 4},
    ],
}  # fmt: skip
PLAIN = {
    "type": "record",
    "name": "r",
    "fields": [
        {"name": "id", "type": "long", "field-id": 1},
        {"name": "day", "type": ["null", {"type": "int"}], "field-id": 2},
        {"name": "ns", "type": {"type": "long", "adjust-to-utc": True}, "field-id": 3},
        {"name": "s", "type": "string", "field-id": 4},
    ],
}
RECORDS = [
    {"id": 1, "day": 19675, "ns": 1700000000123456789, "s": "a"},
    {"id": -(2**63), "day": None, "ns": -1, "s": "ünï"},
    {"id": 3, "day": 3_000_000, "ns": 2**63 - 1, "s": ""},  # past year 9999; max nanos
]


@pytest.mark.parametrize("codec", ["null", "deflate"])
def test_fastavro_reads_what_we_write(codec: str) -> None:
    data = write_avro(SCHEMA, RECORDS[:1], {"format-version": "2", "z": "ü"}, codec=codec)
    reader = fastavro.reader(io.BytesIO(data))
    [rec] = list(reader)
    # the header keeps the logical types, so the reference reader decodes them
    assert rec["day"] == datetime.date(1970, 1, 1) + datetime.timedelta(days=19675)
    assert rec["id"] == 1 and rec["s"] == "a"
    meta = reader.metadata
    assert list(meta)[:2] == ["format-version", "z"] and meta["z"] == "ü"
    assert json.loads(meta["avro.schema"]) == SCHEMA and meta["avro.codec"] == codec
    assert json.loads(meta["iceberg.schema"]) == {
        "type": "struct",
        "schema-id": 0,
        "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "day", "required": False, "type": "date"},
            {"id": 3, "name": "ns", "required": True, "type": "timestamptz_ns"},
            {"id": 4, "name": "s", "required": True, "type": "string"},
        ],
    }


@pytest.mark.parametrize("codec", ["null", "deflate"])
def test_read_avro_gives_the_stored_integers(codec: str) -> None:
    data = write_avro(SCHEMA, RECORDS, {"k": "v"}, codec=codec)
    avro = read_avro(data, "f.avro")
    assert list(avro.records) == RECORDS
    assert avro.schema == SCHEMA
    assert avro.metadata["k"] == "v" and avro.metadata["avro.codec"] == codec


def test_a_given_iceberg_schema_is_kept() -> None:
    data = write_avro(SCHEMA, [], {"iceberg.schema": "{}"})
    assert read_avro(data, "f.avro").metadata["iceberg.schema"] == "{}"


def test_a_file_fastavro_wrote_with_logical_types_reads_as_integers() -> None:
    buf = io.BytesIO()
    rec = {"id": 1, "day": datetime.date(2023, 11, 14), "ns": 5, "s": "x"}
    fastavro.writer(buf, fastavro.parse_schema(SCHEMA), [rec])
    [back] = list(read_avro(buf.getvalue(), "f.avro").records)
    assert back == {"id": 1, "day": 19675, "ns": 5, "s": "x"}


def test_strip_logical_types() -> None:
    plain, changed = strip_logical_types(SCHEMA)
    assert changed and plain == PLAIN
    assert strip_logical_types(PLAIN) == (PLAIN, False)
    nested = {"type": "array", "items": {"type": "record", "name": "kv", "logicalType": "map",
              "fields": [{"name": "k", "type": {"type": "int", "logicalType": "date"}}]}}  # fmt: skip
    assert strip_logical_types(nested) == (
        {"type": "array", "items": {"type": "record", "name": "kv",
         "fields": [{"name": "k", "type": {"type": "int"}}]}},
        True,
    )  # fmt: skip
    assert strip_logical_types("long") == ("long", False)


def test_schema_json_is_compact_like_javas_to_string() -> None:
    assert schema_json({"a": ["null", "int"], "doc": "é"}) == '{"a":["null","int"],"doc":"é"}'


def test_header_bytes_follow_the_avro_spec() -> None:
    # a map block: count (zig-zag varint 1 = 0x02), then length-prefixed key and value bytes
    assert encode_header({"k": b"v"}, SYNC) == b"Obj\x01\x02\x02k\x02v\x00" + SYNC
    assert encode_header({}, SYNC) == b"Obj\x01\x00" + SYNC
    long_key = "x" * 64  # 64 zig-zags to 128: two varint bytes 0x80 0x01
    header = encode_header({long_key: b""}, SYNC)
    assert header == b"Obj\x01\x02\x80\x01" + long_key.encode() + b"\x00\x00" + SYNC
    meta, sync, start = read_header(header + b"rest")
    assert (meta, sync, start) == ({long_key: b""}, SYNC, len(header))


def test_read_header_accepts_a_block_with_its_byte_size() -> None:
    # the spec allows a negative count followed by the block's size in bytes
    block = b"\x02a\x02b" + b"\x02c\x02d"
    data = b"Obj\x01" + b"\x03" + bytes([len(block) * 2]) + block + b"\x00" + SYNC
    assert read_header(data) == ({"a": b"b", "c": b"d"}, SYNC, len(data))


def test_read_header_errors() -> None:
    with pytest.raises(ValueError, match=r"not an Avro container file \(magic b'PAR1'\)"):
        read_header(b"PAR1....")
    header = encode_header({"key": b"value"}, SYNC)
    for cut in range(4, len(header)):
        with pytest.raises(ValueError, match="truncated Avro header"):
            read_header(header[:cut])
    with pytest.raises(ValueError, match="bad varint"):
        read_header(b"Obj\x01" + b"\xff" * 11)


@pytest.mark.parametrize(
    "data, message",
    [
        (encode_header({}, SYNC), "Avro header has no schema"),
        (encode_header({"avro.schema": b"{not json"}, SYNC), "bad Avro header"),
        (b"Obj\x02", "bad Avro header: not an Avro container file"),
        (b"", "bad Avro header"),
    ],
)
def test_damaged_headers_are_corrupt_and_name_the_file(data: bytes, message: str) -> None:
    with pytest.raises(CorruptFileError, match=message) as info:
        read_avro(data, "s3://b/m.avro")
    assert info.value.path == "s3://b/m.avro"


@pytest.mark.parametrize("codec", ["null", "deflate"])
def test_a_truncated_data_block_fails_when_read(codec: str) -> None:
    records = [{**RECORDS[0], "id": i} for i in range(200)]
    data = write_avro(SCHEMA, records, {}, codec=codec)
    avro = read_avro(data[:-40], "m.avro")  # the header is intact
    with pytest.raises(CorruptFileError, match="bad Avro data block") as info:
        list(avro.records)
    assert info.value.path == "m.avro"
