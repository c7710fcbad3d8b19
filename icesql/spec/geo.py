"""Geospatial values (WKB) and their manifest bounds (the spec's "Bound serialization").

A geometry / geography value is OGC WKB: ISO type codes (``1000``/``2000``/``3000`` added for
Z, M, ZM) and, as PostGIS writes them, EWKB flag bits (Z ``0x80000000``, M ``0x40000000``,
SRID ``0x20000000``), each nested geometry with its own byte order. ``GeoBox`` gathers the
per-dimension minima and maxima of every coordinate, NaN skipped (an empty point is
``POINT (NaN NaN)``), and serialises them as the spec's bound points ``x:y[:z][:m]`` of 8-byte
little-endian doubles (``x:y:NaN:m`` when only M is known)::

    >>> box = GeoBox()
    >>> box.add(bytes.fromhex("0101000000000000000000f03f0000000000000040"))  # POINT (1 2)
    >>> box.add(bytes.fromhex("0101000000000000000000084000000000000010c0"))  # POINT (3 -4)
    >>> [struct.unpack("<2d", b) for b in box.bounds()]
    [(1.0, -4.0), (3.0, 2.0)]

For ``geography`` the X range may wrap the antimeridian (``xmin > xmax``): the bound is the
shortest longitude arc covering every point. Edges of a geography are geodesics, which may
bulge past their vertices' latitudes and longitudes, so only points and multipoints get
geography bounds (``GeoBox(geography=True)``); any value with an edge withdraws them, as
bounds are optional and a wrong one would skip files.
"""

from __future__ import annotations

import math
import struct

import numpy as np

__all__ = ["GeoBox", "InvalidWKBError", "parse_wkb"]

_DIMS = {0: (False, False), 1: (True, False), 2: (False, True), 3: (True, True)}
_EWKB_Z, _EWKB_M, _EWKB_SRID = 0x80000000, 0x40000000, 0x20000000
POINT, LINESTRING, POLYGON, MULTIPOINT, MULTILINESTRING, MULTIPOLYGON, COLLECTION = range(1, 8)
_FOLD = 1 << 16  # geography longitudes held before folding them into the covering arc


class InvalidWKBError(ValueError):
    """Bytes that are not a well-formed WKB geometry."""


class _Reader:
    __slots__ = ("buf", "pos", "has_edges", "chunks", "iso")

    def __init__(self, buf: bytes, iso: bool = False):
        self.iso = iso  # refuse EWKB flag bits
        self.buf = buf
        self.pos = 0
        self.has_edges = False
        # (coordinates as an (n, 4) array of x, y, z, m; NaN where the dimension is absent)
        self.chunks: list[np.ndarray] = []

    def need(self, n: int) -> None:
        if n < 0 or self.pos + n > len(self.buf):
            raise InvalidWKBError(f"WKB ends early (at byte {self.pos}, {n} more needed)")

    def uint32(self, fmt: str) -> int:
        self.need(4)
        (v,) = struct.unpack_from(fmt + "I", self.buf, self.pos)
        self.pos += 4
        return v

    def coords(self, fmt: str, n: int, has_z: bool, has_m: bool) -> None:
        dims = 2 + has_z + has_m
        self.need(8 * n * dims)
        raw = np.frombuffer(self.buf, dtype=fmt + "f8", count=n * dims, offset=self.pos)
        self.pos += 8 * n * dims
        out = np.full((n, 4), np.nan)
        raw = raw.reshape(n, dims)
        out[:, :2] = raw[:, :2]
        if has_z:
            out[:, 2] = raw[:, 2]
        if has_m:
            out[:, 3] = raw[:, 2 + has_z]
        self.chunks.append(out)

    def geometry(self, depth: int = 0) -> int:
        if depth > 64:
            raise InvalidWKBError("WKB nests geometries too deeply")
        self.need(1)
        order = self.buf[self.pos]
        if order not in (0, 1):
            raise InvalidWKBError(f"invalid WKB byte order {order} at byte {self.pos}")
        self.pos += 1
        fmt = "<" if order == 1 else ">"
        code = self.uint32(fmt)
        if self.iso and code & (_EWKB_Z | _EWKB_M | _EWKB_SRID):
            raise InvalidWKBError(
                f"type code {code:#x} is PostGIS EWKB, not ISO WKB (convert it with ST_GeomFromWKB)"
            )
        has_z, has_m = bool(code & _EWKB_Z), bool(code & _EWKB_M)
        if code & _EWKB_SRID:
            self.uint32(fmt)  # the SRID; the column's CRS is the type's
        code &= 0x0FFFFFFF
        kind, iso = code % 1000, code // 1000
        if iso not in _DIMS or not POINT <= kind <= COLLECTION:
            raise InvalidWKBError(f"unknown WKB geometry type {code}")
        iz, im = _DIMS[iso]
        has_z, has_m = has_z or iz, has_m or im
        if kind == POINT:
            self.coords(fmt, 1, has_z, has_m)
        elif kind == LINESTRING:
            n = self.uint32(fmt)
            self.coords(fmt, n, has_z, has_m)
            self.has_edges |= n > 1
        elif kind == POLYGON:
            for _ in range(self.uint32(fmt)):
                n = self.uint32(fmt)
                self.coords(fmt, n, has_z, has_m)
                self.has_edges |= n > 1
        else:
            for _ in range(self.uint32(fmt)):
                child = self.geometry(depth + 1)
                if kind != COLLECTION and child != kind - 3:
                    raise InvalidWKBError(f"WKB type {code} holds a geometry of type {child}")
        return kind


def parse_wkb(value: bytes, iso: bool = False) -> tuple[np.ndarray, bool]:
    """Every coordinate of a WKB value as an (n, 4) x/y/z/m array (NaN where absent), and
    whether the value has an edge (a line or ring of two or more points). With ``iso``, EWKB
    is refused: the spec stores ISO WKB, which is what a writer must produce.

    >>> xyzm, edges = parse_wkb(bytes.fromhex("01b90b0000" + "00" * 8 + "000000000000f03f"
    ...                                       + "0000000000000040" + "0000000000000840"))
    >>> xyzm.tolist(), edges
    ([[0.0, 1.0, 2.0, 3.0]], False)
    """
    reader = _Reader(bytes(value), iso)
    reader.geometry()
    if reader.pos != len(reader.buf):
        raise InvalidWKBError(f"{len(reader.buf) - reader.pos} bytes after the WKB geometry")
    coords = np.concatenate(reader.chunks) if reader.chunks else np.empty((0, 4))
    return coords, reader.has_edges


def _arc(lo: float, hi: float) -> float:
    """Length of the eastward arc from ``lo`` to ``hi`` (degrees)."""
    return hi - lo if lo <= hi else hi - lo + 360.0


def _covers(outer: tuple[float, float], inner: tuple[float, float]) -> bool:
    a, b = outer
    c, d = inner
    return _arc(a, c) + _arc(c, d) <= _arc(a, b) + 1e-12 and _arc(c, d) <= _arc(a, b)


class GeoBox:
    """Per-dimension bounds of the values of one column of one file (see the module doc)."""

    def __init__(self, geography: bool = False):
        self.geography = geography
        self.valid = True  # False once a geography edge or off-range coordinate appears
        self.lo = [math.inf] * 4  # x, y, z, m
        self.hi = [-math.inf] * 4
        self.lon: tuple[float, float] | None = None  # geography: the covering arc
        self._pending: list[float] = []  # geography: longitudes not folded into ``lon`` yet

    def add(self, value: bytes) -> None:
        """Take one non-null WKB value into the bounds (InvalidWKBError if it is none)."""
        coords, edges = parse_wkb(value)
        if not self.valid or coords.shape[0] == 0:
            return
        if self.geography and edges:
            self.valid = False
            return
        with np.errstate(invalid="ignore"):
            for d in range(4):
                column = coords[:, d]
                column = column[~np.isnan(column)]
                if column.size:
                    self.lo[d] = min(self.lo[d], float(column.min()))
                    self.hi[d] = max(self.hi[d], float(column.max()))
        if self.geography:
            xs = coords[:, 0][~np.isnan(coords[:, 0])]
            ys = coords[:, 1][~np.isnan(coords[:, 1])]
            if (xs.size and (xs.min() < -180 or xs.max() > 180)) or (
                ys.size and (ys.min() < -90 or ys.max() > 90)
            ):
                self.valid = False
                return
            self._add_longitudes(xs.tolist())

    def _add_longitudes(self, xs: list[float]) -> None:
        self._pending.extend(xs)
        if len(self._pending) >= _FOLD:
            self._fold()

    def _fold(self, required: tuple[tuple[float, float], ...] = ()) -> None:
        """The shortest arc covering the pending longitudes and the ``required`` arcs (the
        current one among them): the circle minus its widest gap between neighbouring
        longitudes, where a gap inside a required arc is no gap."""
        arcs = required + ((self.lon,) if self.lon is not None else ())
        if not self._pending and len(arcs) <= 1:
            return
        points = sorted(set(self._pending) | {x for arc in arcs for x in arc})
        self._pending = []
        if len(points) == 1:
            self.lon = (points[0], points[0])
            return
        best, cover = -1.0, (-180.0, 180.0)  # the whole circle when every gap is covered
        for i, p in enumerate(points):
            q = points[(i + 1) % len(points)]
            if any(_covers(arc, (p, q)) for arc in arcs):
                continue
            if _arc(p, q) > best:
                best, cover = _arc(p, q), (q, p)
        self.lon = cover

    def merge(self, other: GeoBox) -> None:
        """Take another box of the same column into this one."""
        if not other.valid:
            self.valid = False
        for d in range(4):
            self.lo[d] = min(self.lo[d], other.lo[d])
            self.hi[d] = max(self.hi[d], other.hi[d])
        other._fold()
        if other.lon is not None:
            self._fold((other.lon,))

    def bounds(self) -> tuple[bytes, bytes] | None:
        """The lower and upper bound points, serialised; None when there are none (no X or
        no Y value, or a geography the bounds cannot describe)."""
        if not self.valid or math.isinf(self.lo[0]) or math.isinf(self.lo[1]):
            return None
        lo, hi = list(self.lo), list(self.hi)
        self._fold()
        if self.geography and self.lon is not None:
            lo[0], hi[0] = self.lon
        has_z, has_m = not math.isinf(lo[2]), not math.isinf(lo[3])
        if not has_z and not has_m:
            dims = lo[:2], hi[:2]
        elif not has_m:
            dims = lo[:3], hi[:3]
        else:
            if not has_z:
                lo[2] = hi[2] = math.nan
            dims = lo, hi
        return tuple(struct.pack(f"<{len(p)}d", *p) for p in dims)  # type: ignore[return-value]
