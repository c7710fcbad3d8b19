"""Puffin footers and deletion vectors: write -> read, the exact framing, damaged blobs."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyroaring import BitMap, BitMap64

from icesql.errors import CorruptFileError, DataError, NotSupportedError
from icesql.io import FileIO
from icesql.metadata.puffin import (
    DV_MAGIC,
    decode_deletion_vector,
    encode_deletion_vector,
    read_blob,
    read_deletion_vector,
    read_puffin_footer,
    write_deletion_vector_puffin,
)

BIG = [0, 1, 2, 3, 1000, 2**32 - 1, 2**32, 2**32 + 5, 5 * 2**32 + 7, 2**62 + 3]


def portable_64(positions: list[int]) -> bytes:
    """The portable 64-bit Roaring format built by hand from 32-bit bitmaps."""
    keys: dict[int, list[int]] = {}
    for p in positions:
        keys.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    out = struct.pack("<Q", len(keys))
    for key in sorted(keys):
        bm = BitMap(keys[key])
        bm.run_optimize()
        out += struct.pack("<I", key) + bm.serialize()
    return out


def test_pyroaring_writes_the_portable_64_bit_format() -> None:
    bm = BitMap64(BIG + list(range(100, 5000)))
    bm.run_optimize()
    assert bm.serialize() == portable_64(BIG + list(range(100, 5000)))


def test_dv_blob_framing() -> None:
    blob, cardinality = encode_deletion_vector([1, 2, 2**33])
    assert cardinality == 3
    (length,) = struct.unpack(">I", blob[:4])
    assert length == len(blob) - 8
    assert blob[4:8] == DV_MAGIC == (1681511377).to_bytes(4, "little")
    assert blob[8:-4] == portable_64([1, 2, 2**33])
    assert struct.unpack(">I", blob[-4:])[0] == zlib.crc32(blob[4:-4])
    assert list(decode_deletion_vector(blob)) == [1, 2, 2**33]


def test_decode_accepts_java_style_empty_bitmaps_for_missing_keys() -> None:
    """Java's RoaringPositionBitmap writes an empty bitmap for every key below the highest."""
    empty = BitMap().serialize()
    bitmap = (
        struct.pack("<Q", 3)
        + struct.pack("<I", 0) + empty
        + struct.pack("<I", 1) + empty
        + struct.pack("<I", 2) + BitMap([9]).serialize()
    )  # fmt: skip
    body = DV_MAGIC + bitmap
    blob = struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))
    assert list(decode_deletion_vector(blob)) == [2 * 2**32 + 9]


def test_write_then_read_puffin_with_large_positions(tmp_path: Path) -> None:
    io = FileIO()
    path = str(tmp_path / "dv.puffin")
    vectors = [
        ("file:/t/data/a.parquet", BIG),
        ("file:/t/data/b.parquet", range(0, 100_000, 3)),
        ("file:/t/data/ünïcode.parquet", BitMap64([7])),
    ]
    results = write_deletion_vector_puffin(io, path, vectors, created_by="icesql test")
    assert results[0][0] == 4  # the first blob follows the magic, as Spark's DVs do
    assert [r[2] for r in results] == [len(BIG), 33_334, 1]
    for (_, positions), (offset, length, _) in zip(vectors, results):
        assert list(read_deletion_vector(io, path, offset, length)) == sorted(positions)
    footer = read_puffin_footer(io, path)
    assert footer.properties == {"created-by": "icesql test"}
    blob = footer.blobs[0]
    assert (blob.type, blob.fields, blob.snapshot_id, blob.sequence_number) == (
        "deletion-vector-v1",
        (2147483645,),
        -1,
        -1,
    )
    assert (blob.offset, blob.length, blob.compression_codec) == (4, results[0][1], None)
    assert blob.properties == {
        "referenced-data-file": "file:/t/data/a.parquet",
        "cardinality": str(len(BIG)),
    }
    assert footer.blobs[2].properties["referenced-data-file"] == "file:/t/data/ünïcode.parquet"
    data = Path(path).read_bytes()
    assert footer.footer_size == len(data) - sum(r[1] for r in results) - 4
    payload = json.loads(data[-footer.footer_size + 4 : -12])
    assert list(payload["blobs"][0]) == [
        "type", "fields", "snapshot-id", "sequence-number", "offset", "length", "properties",
    ]  # fmt: skip
    assert read_blob(io, path, 4, 8)[4:] == DV_MAGIC


def test_checksum_mismatch_is_corrupt(tmp_path: Path) -> None:
    io = FileIO()
    path = tmp_path / "dv.puffin"
    [(offset, length, _)] = write_deletion_vector_puffin(io, str(path), [("f", BIG)])
    data = bytearray(path.read_bytes())
    data[offset + length - 1] ^= 0xFF  # the stored CRC
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptFileError, match="checksum") as info:
        read_deletion_vector(io, str(path), offset, length)
    assert info.value.path == str(path)
    data[offset + length - 1] ^= 0xFF
    data[offset + 12] ^= 0x01  # a bitmap byte
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptFileError, match="checksum"):
        read_deletion_vector(io, str(path), offset, length)


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (lambda b: b[:8], "too small"),
        (lambda b: b[:-1], "length"),
        (lambda b: b[:4] + b"\x00\x00\x00\x00" + b[8:], "magic"),
    ],
)
def test_bad_dv_blobs(mutate, match: str) -> None:
    blob, _ = encode_deletion_vector([5])
    with pytest.raises(CorruptFileError, match=match):
        decode_deletion_vector(mutate(blob), "x.puffin")


def test_dv_blob_cut_short_in_the_file(tmp_path: Path) -> None:
    io = FileIO()
    path = tmp_path / "dv.puffin"
    [(offset, length, _)] = write_deletion_vector_puffin(io, str(path), [("f", [1])])
    with pytest.raises(CorruptFileError, match="cut short"):
        read_deletion_vector(io, str(path), offset, length + 10_000)


def test_position_out_of_range() -> None:
    with pytest.raises(DataError):
        encode_deletion_vector([2**63])


def test_damaged_footers(tmp_path: Path) -> None:
    io = FileIO()
    path = tmp_path / "dv.puffin"
    write_deletion_vector_puffin(io, str(path), [("f", [1, 2])])
    good = path.read_bytes()
    for bad in (good[:-1], b"XXXX" + good[4:], good[:-12] + struct.pack("<i", 10**6) + good[-8:]):
        path.write_bytes(bad)
        with pytest.raises(CorruptFileError, match="dv.puffin"):
            read_puffin_footer(io, str(path))
    compressed = good[:-8] + b"\x01\x00\x00\x00" + good[-4:]
    path.write_bytes(compressed)
    with pytest.raises(NotSupportedError, match="compressed"):
        read_puffin_footer(io, str(path))


@settings(max_examples=60, deadline=None)
@given(
    st.sets(
        st.one_of(
            st.integers(0, 2**16),
            st.integers(2**32 - 5, 2**32 + 5),
            st.integers(0, 2**63 - 1),
        ),
        max_size=300,
    )
)
def test_dv_round_trip_property(positions: set[int]) -> None:
    blob, cardinality = encode_deletion_vector(positions)
    assert cardinality == len(positions)
    assert blob[8:-4] == portable_64(sorted(positions))
    assert list(decode_deletion_vector(blob)) == sorted(positions)
