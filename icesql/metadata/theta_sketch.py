"""Theta sketches as Iceberg's ``apache-datasketches-theta-v1`` Puffin blobs hold them.

Spark's ``compute_table_stats`` feeds each non-null value of a column, in Iceberg's binary
single-value serialization, to an Apache DataSketches theta sketch (MurmurHash3 x64 128 with
the default seed 9001, the first half shifted right by one; empty values are skipped) of
4096 nominal entries, merges the sketches of its tasks in a theta union and stores the
union's compact, ordered form (``CompactSketch.toByteArray``, serial version 3). The union
keeps the 4096 smallest distinct hashes and sets theta to the next one (the "k minimum
values" estimate); this module builds that form from the distinct hashes directly, so a
column with up to 4096 distinct values gives exactly Spark's bytes, and a larger one the
same estimator (Spark's per-task sketches may pick a slightly different theta).

Serialized layout (little-endian): byte 0 preamble longs (1 empty or single, 2 exact, 3
estimating), byte 1 serial version 3, byte 2 family 3 (compact), bytes 3-4 zero, byte 5
flags, bytes 6-7 the seed hash; then the retained count (int32) and p (float32 1.0), theta
(int64) when estimating, and the hashes in ascending order.

    >>> sketch = ThetaSketch()
    >>> sketch.update([b"a", b"b", b"a", b""])
    >>> sketch.estimate, read_theta_sketch(sketch.to_bytes()).estimate
    (2.0, 2.0)
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

import mmh3
import numpy as np

from icesql.errors import CorruptFileError

__all__ = [
    "NOMINAL_ENTRIES",
    "SEED",
    "THETA_BLOB",
    "ThetaSketch",
    "hash_value",
    "read_theta_sketch",
]

THETA_BLOB = "apache-datasketches-theta-v1"
SEED = 9001
NOMINAL_ENTRIES = 4096  # DataSketches' default (lg 12)
MAX_THETA = 2**63 - 1
_SEED_HASH = mmh3.hash64(struct.pack("<q", SEED), 0, signed=False)[0] & 0xFFFF
_SER_VER, _COMPACT_FAMILY = 3, 3
_READ_ONLY, _EMPTY, _COMPACT, _ORDERED, _SINGLE = 2, 4, 8, 16, 32


def hash_value(data: bytes) -> int:
    """The theta hash of one serialized value (DataSketches' ``update(byte[])``)."""
    return int(mmh3.hash64(data, SEED, signed=False)[0] >> 1)


class ThetaSketch:
    """The distinct hashes seen, kept to the ``k`` smallest below theta (module docstring)."""

    def __init__(self, k: int = NOMINAL_ENTRIES):
        self.k = k
        self._hashes = np.empty(0, dtype=np.int64)  # sorted, distinct, at most k + 1
        self._seen = False

    def update(self, values: Iterable[bytes]) -> None:
        """Feed serialized values (an empty one is skipped, as DataSketches skips it)."""
        self.update_hashes([hash_value(v) for v in values if v])

    def update_hashes(self, hashes: Iterable[int]) -> None:
        new = np.fromiter(hashes, dtype=np.int64)
        new = new[new != 0]  # DataSketches never keeps a zero hash
        if not len(new):
            return
        self._seen = True
        merged = np.unique(np.concatenate([self._hashes, new]))
        self._hashes = merged[: self.k + 1]

    @property
    def theta(self) -> int:
        return int(self._hashes[self.k]) if len(self._hashes) > self.k else MAX_THETA

    @property
    def retained(self) -> np.ndarray:
        return self._hashes[: self.k]

    @property
    def estimate(self) -> float:
        return _estimate(len(self.retained), self.theta)

    def to_bytes(self) -> bytes:
        theta, hashes = self.theta, self.retained
        seed = struct.pack("<H", _SEED_HASH)
        flags = _READ_ONLY | _COMPACT | _ORDERED
        if theta == MAX_THETA and not len(hashes):
            return bytes([1, _SER_VER, _COMPACT_FAMILY, 0, 0, flags | _EMPTY]) + seed
        if theta == MAX_THETA and len(hashes) == 1:
            head = bytes([1, _SER_VER, _COMPACT_FAMILY, 0, 0, flags | _SINGLE]) + seed
            return head + hashes.astype("<i8").tobytes()
        pre = 2 if theta == MAX_THETA else 3
        head = bytes([pre, _SER_VER, _COMPACT_FAMILY, 0, 0, flags]) + seed
        head += struct.pack("<if", len(hashes), 1.0)
        if pre == 3:
            head += struct.pack("<q", theta)
        return head + hashes.astype("<i8").tobytes()


def _estimate(count: int, theta: int) -> float:
    return count / (theta / MAX_THETA) if theta != MAX_THETA else float(count)


@dataclass(frozen=True)
class CompactThetaSketch:
    """A serialized compact sketch, read back."""

    theta: int
    hashes: tuple[int, ...]

    @property
    def estimate(self) -> float:
        return _estimate(len(self.hashes), self.theta)


def read_theta_sketch(data: bytes, where: str = "<theta sketch>") -> CompactThetaSketch:
    """Parse a compact theta sketch of serial version 3 (as Java's ``toByteArray`` writes)."""
    if len(data) < 8 or data[1] != _SER_VER or data[2] != _COMPACT_FAMILY:
        raise CorruptFileError(where, "not a compact theta sketch of serial version 3")
    pre = data[0] & 0x3F
    if pre == 1:
        hashes = struct.unpack_from("<q", data, 8) if len(data) >= 16 else ()
        return CompactThetaSketch(MAX_THETA, tuple(hashes))
    count = struct.unpack_from("<i", data, 8)[0]
    theta = struct.unpack_from("<q", data, 16)[0] if pre == 3 else MAX_THETA
    if len(data) < pre * 8 + count * 8:
        raise CorruptFileError(where, f"theta sketch cut short ({len(data)} bytes)")
    return CompactThetaSketch(theta, struct.unpack_from(f"<{count}q", data, pre * 8))
