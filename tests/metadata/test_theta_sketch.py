"""Theta sketches in DataSketches' compact layout (the Spark interop test pins the bytes
against Spark's; these pin each preamble form and the k-minimum-values trimming)."""

from __future__ import annotations

import struct

import pytest

from icesql.errors import CorruptFileError
from icesql.metadata.theta_sketch import MAX_THETA, ThetaSketch, hash_value, read_theta_sketch

SEED_HASH = b"\xcc\x93"  # DataSketches' seed hash of the default seed 9001


def test_an_empty_sketch_is_eight_bytes():
    data = ThetaSketch().to_bytes()
    assert data == bytes([1, 3, 3, 0, 0, 2 | 4 | 8 | 16]) + SEED_HASH
    assert read_theta_sketch(data).estimate == 0


def test_a_single_value_is_the_single_item_form():
    sketch = ThetaSketch()
    sketch.update([b"x", b"x", b""])
    data = sketch.to_bytes()
    assert data[:8] == bytes([1, 3, 3, 0, 0, 2 | 8 | 16 | 32]) + SEED_HASH
    assert struct.unpack("<q", data[8:]) == (hash_value(b"x"),)
    assert read_theta_sketch(data).estimate == sketch.estimate == 1


def test_exact_mode_keeps_every_hash_in_order():
    sketch = ThetaSketch()
    sketch.update([str(i).encode() for i in range(100)] * 2)
    data = sketch.to_bytes()
    assert data[0] == 2 and struct.unpack_from("<if", data, 8) == (100, 1.0)
    read = read_theta_sketch(data)
    assert read.theta == MAX_THETA and list(read.hashes) == sorted(read.hashes)
    assert len(read.hashes) == 100 and read.estimate == 100.0


def test_estimation_keeps_the_k_smallest_and_theta_the_next():
    hashes = [hash_value(str(i).encode()) for i in range(20_000)]
    sketch = ThetaSketch()
    for start in range(0, len(hashes), 3000):  # in batches, as a scan feeds it
        sketch.update_hashes(hashes[start : start + 3000])
    ordered = sorted(set(hashes))
    read = read_theta_sketch(sketch.to_bytes())
    assert read.hashes == tuple(ordered[:4096]) and read.theta == ordered[4096]
    assert abs(read.estimate - 20_000) < 0.05 * 20_000
    assert read.estimate == pytest.approx(4096 / (ordered[4096] / MAX_THETA))


def test_a_foreign_blob_is_refused():
    with pytest.raises(CorruptFileError, match="compact theta sketch"):
        read_theta_sketch(b"\x01\x02\x03\x00\x00\x00\x00\x00")
