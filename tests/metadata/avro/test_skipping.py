"""The skipping Avro decoder gives fastavro's records minus the skipped fields, for every
type Iceberg manifests use, long and short byte strings, multi-block arrays and files; and
damaged files still raise ``CorruptFileError`` naming the file."""

from __future__ import annotations

import io

import fastavro
import pytest

from icesql.errors import CorruptFileError
from icesql.metadata.avro import skipping
from icesql.metadata.avro.container import _write_long, read_avro, read_header
from icesql.metadata.avro.skipping import compile_skipping

KV = {
    "type": "record",
    "name": "kv",
    "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "long"}],
}
KB = {
    "type": "record",
    "name": "kb",
    "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "bytes"}],
}
SCHEMA = {
    "type": "record",
    "name": "entry",
    "fields": [
        {"name": "status", "type": "int"},
        {"name": "snapshot_id", "type": ["null", "long"]},
        {"name": "flag", "type": "boolean"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": ["null", "double"]},
        {"name": "uuid", "type": ["null", {"type": "fixed", "name": "u16", "size": 16}]},
        {"name": "again", "type": ["null", "u16"]},
        {"name": "path", "type": "string"},
        {"name": "counts", "type": ["null", {"type": "array", "items": KV}]},
        {"name": "bounds", "type": ["null", {"type": "array", "items": KB}]},
        {"name": "plain_bounds", "type": {"type": "array", "items": "kb"}},
        {"name": "offsets", "type": ["null", {"type": "array", "items": "long"}]},
        {
            "name": "part",
            "type": {
                "type": "record",
                "name": "p",
                "fields": [
                    {"name": "x", "type": ["null", "int"]},
                    {"name": "s", "type": ["null", "string"]},
                ],
            },
        },
        {"name": "last", "type": "long"},
    ],
}
SKIP = frozenset({"counts", "bounds", "plain_bounds"})


def _record(i: int) -> dict:
    return {
        "status": i % 3,
        "snapshot_id": None if i % 2 else 2**62 + i,
        "flag": i % 2 == 0,
        "f": 1.5,
        "d": None if i % 3 else -0.25,
        "uuid": bytes(range(16)) if i % 2 else None,
        "again": bytes(16) if i % 3 == 0 else None,
        "path": f"s3://b/é/{i}.parquet",
        "counts": None if i == 1 else [{"key": k, "value": -(2**40) * k} for k in range(i % 20)],
        # byte strings up to 100 bytes: past 63 the regular expression gives way to decoding
        "bounds": [{"key": k, "value": bytes([k]) * (k * 7 % 101)} for k in range(i % 17)],
        "plain_bounds": [{"key": 1, "value": b"\n" * 63}],
        "offsets": [4, 2**33] if i % 4 else None,
        "part": {"x": i, "s": None if i % 5 else "\n\x00"},
        "last": -i,
    }


def _container(records: list[dict], codec: str, block: int = 7) -> bytes:
    buf = io.BytesIO()
    fastavro.writer(buf, SCHEMA, records, codec=codec, sync_interval=block * 60)
    return buf.getvalue()


@pytest.mark.parametrize("codec", ["null", "deflate"])
def test_records_equal_fastavro_minus_the_skipped_fields(codec: str) -> None:
    records = [_record(i) for i in range(300)]
    data = _container(records, codec)
    got = list(read_avro(data, "m.avro", SKIP).records)
    want = [
        {k: v for k, v in r.items() if k not in SKIP} for r in fastavro.reader(io.BytesIO(data))
    ]
    assert got == want
    assert list(read_avro(data, "m.avro").records) == list(fastavro.reader(io.BytesIO(data)))


def test_array_blocks_with_byte_sizes() -> None:
    """Avro lets a writer split an array into blocks and give a block's byte size (negative
    count); the skipped and the decoded arrays both follow that."""
    decode = compile_skipping(
        {
            "type": "record",
            "name": "r",
            "fields": [
                {"name": "a", "type": {"type": "array", "items": KV}},
                {"name": "b", "type": {"type": "array", "items": "kv"}},
                {"name": "z", "type": "long"},
            ],
        },
        frozenset({"a"}),
    )
    assert decode is not None
    items = b"".join(_write_long(k) + _write_long(10 * k) for k in range(3))
    array = _write_long(-3) + _write_long(len(items)) + items + _write_long(1) + items[:2]
    array += _write_long(0)
    value, end = decode(array + array + _write_long(-5), 0)
    assert value == {"b": [{"key": k, "value": 10 * k} for k in (0, 1, 2, 0)], "z": -5}
    assert end == 2 * len(array) + 1


def test_unsupported_schema_falls_back_to_fastavro() -> None:
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            {"name": "m", "type": {"type": "map", "values": "long"}},
            {"name": "e", "type": {"type": "enum", "name": "e", "symbols": ["A", "B"]}},
        ],
    }
    assert compile_skipping(schema, frozenset({"m"})) is None
    buf = io.BytesIO()
    fastavro.writer(buf, schema, [{"m": {"a": 1}, "e": "B"}])
    assert list(read_avro(buf.getvalue(), "x.avro", frozenset({"m"})).records) == [
        {"m": {"a": 1}, "e": "B"}
    ]


@pytest.mark.parametrize("cut", [0.5, 0.9, 0.999])
def test_truncated_file_names_the_file(cut: float) -> None:
    data = _container([_record(i) for i in range(300)], "deflate")
    with pytest.raises(CorruptFileError, match="m.avro"):
        list(read_avro(data[: int(len(data) * cut)], "m.avro", SKIP).records)


def test_damaged_block_and_sync_marker_name_the_file() -> None:
    data = _container([_record(i) for i in range(50)], "null")
    with pytest.raises(CorruptFileError, match="sync marker"):
        list(read_avro(data[:-1] + b"!", "m.avro", SKIP).records)
    damaged = bytearray(_container([_record(i) for i in range(50)], "deflate"))
    damaged[len(damaged) // 2] ^= 0xFF
    with pytest.raises(CorruptFileError, match="m.avro"):
        list(read_avro(bytes(damaged), "m.avro", SKIP).records)


@pytest.mark.parametrize("codec", ["null", "deflate"])
def test_spans_locate_the_skipped_arrays(codec: str) -> None:
    """``compile_spans`` (the generated decoder) gives the closures' answer: the other
    fields as fastavro decodes them, each named array as where its items lie (one block of
    short items) or where the whole value starts (items -1: long byte strings)."""
    records = [_record(i) for i in range(300)]
    data = _container(records, codec)
    generated = skipping.compile_spans(SCHEMA, SKIP)
    closures = skipping._compile(SCHEMA, SKIP, {}, spans=True)
    assert generated is not None and generated.__name__ == "decode"  # the generated one
    _, sync, start = read_header(data)
    full = compile_skipping(SCHEMA, frozenset({"unused"}))
    seen_slow = seen_fast = 0
    for block, count in skipping.blocks(data, start, sync, codec):
        at = 0
        for _ in range(count):
            got, end = generated(block, at)
            assert (got, end) == closures(block, at)
            whole, whole_end = full(block, at)
            assert end == whole_end
            for name in SKIP:
                span = got[name]
                if whole[name] is None:
                    assert span is None
                    continue
                value_start, items, items_end = span
                if items < 0:
                    seen_slow += 1
                else:
                    seen_fast += 1
                    n = len(whole[name])
                    assert skipping._long(block, value_start + (name != "plain_bounds"))[0] in (
                        n,
                        0,
                    )
                    assert block[items_end] == 0 or n == 0
            at = end
    assert seen_slow and seen_fast
