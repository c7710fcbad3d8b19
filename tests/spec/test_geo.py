"""WKB parsing and the spec's geospatial bounds, checked byte by byte against hand-built values.

Bounds are points ``x:y[:z][:m]`` of 8-byte little-endian doubles ("Bound serialization"); the
WKB inputs are built here with ``struct`` (ISO codes, EWKB flags, both byte orders) so the
expected bytes never come from the code under test.
"""

from __future__ import annotations

import math
import struct

import pytest

from icesql.spec.geo import GeoBox, InvalidWKBError, parse_wkb

NAN = math.nan


def point(x: float, y: float, *zm: float, code: int = 1, order: str = "<") -> bytes:
    return struct.pack(f"{order}BI{2 + len(zm)}d", 1 if order == "<" else 0, code, x, y, *zm)


def line(points: list[tuple[float, ...]], code: int = 2) -> bytes:
    flat = [c for p in points for c in p]
    return struct.pack(f"<BII{len(flat)}d", 1, code, len(points), *flat)


def polygon(rings: list[list[tuple[float, float]]]) -> bytes:
    out = struct.pack("<BII", 1, 3, len(rings))
    for ring in rings:
        flat = [c for p in ring for c in p]
        out += struct.pack(f"<I{len(flat)}d", len(ring), *flat)
    return out


def multi(code: int, parts: list[bytes]) -> bytes:
    return struct.pack("<BII", 1, code, len(parts)) + b"".join(parts)


def bounds(values: list[bytes], geography: bool = False) -> tuple[bytes, bytes] | None:
    box = GeoBox(geography)
    for v in values:
        box.add(v)
    return box.bounds()


def xy(*coords: float) -> bytes:
    return struct.pack(f"<{len(coords)}d", *coords)


def test_points_give_xy_bounds():
    assert bounds([point(1, 2), point(3, -4), point(-0.5, 7)]) == (xy(-0.5, -4), xy(3, 7))


def test_a_single_point_is_both_bounds():
    assert bounds([point(1, 2)]) == (xy(1, 2), xy(1, 2))


def test_big_endian_points_read_the_same():
    assert bounds([point(1, 2, order=">"), point(3, 4)]) == (xy(1, 2), xy(3, 4))


def test_linestring_and_polygon_cover_every_vertex():
    values = [
        line([(0, 0), (10, 5), (-3, 2)]),
        polygon([[(0, 0), (4, 0), (4, 4), (0, 0)], [(1, 1), (2, 1), (2, 2), (1, 1)]]),
    ]
    assert bounds(values) == (xy(-3, 0), xy(10, 5))


def test_multi_geometries_and_collections():
    mpoint = multi(4, [point(1, 1), point(-2, 5)])
    mline = multi(5, [line([(0, 0), (1, 9)])])
    mpoly = multi(6, [polygon([[(0, 0), (7, 0), (7, -1), (0, 0)]])])
    collection = multi(7, [point(20, 20), mline])
    assert bounds([mpoint, mline, mpoly, collection]) == (xy(-2, -1), xy(20, 20))


def test_z_gives_three_coordinates():
    values = [point(1, 2, 3, code=1001), line([(0, 0, -1), (5, 5, 9)], code=1002)]
    assert bounds(values) == (xy(0, 0, -1), xy(5, 5, 9))


def test_m_only_writes_nan_for_z():
    lower, upper = bounds([point(1, 2, 40, code=2001), point(3, 4, 10, code=2001)])
    assert lower == xy(1, 2) + struct.pack("<d", NAN) + xy(10)
    assert upper == xy(3, 4) + struct.pack("<d", NAN) + xy(40)
    assert math.isnan(struct.unpack("<4d", lower)[2])


def test_zm_gives_four_coordinates():
    values = [point(1, 2, 3, 4, code=3001), point(-1, 5, 0, 8, code=3001)]
    assert bounds(values) == (xy(-1, 2, 0, 4), xy(1, 5, 3, 8))


def test_ewkb_flags_and_srid():
    ewkb_z = struct.pack("<BIId", 1, 0x80000001 | 0x20000000, 4326, 1.0) + xy(2, 3)
    assert bounds([ewkb_z]) == (xy(1, 2, 3), xy(1, 2, 3))


def test_ewkb_is_refused_where_iso_wkb_is_required():
    ewkb = struct.pack("<BII2d", 1, 0x20000001, 4326, 1.0, 2.0)
    assert parse_wkb(ewkb)[0].tolist()[0][:2] == [1.0, 2.0]
    with pytest.raises(InvalidWKBError, match="EWKB, not ISO WKB"):
        parse_wkb(ewkb, iso=True)
    assert parse_wkb(point(1, 2, 3, code=1001), iso=True)[0].shape == (1, 4)


def test_a_dimension_known_for_some_values_only_bounds_those():
    assert bounds([point(1, 2), point(5, 6, 7, code=1001)]) == (xy(1, 2, 7), xy(5, 6, 7))


def test_nan_coordinates_are_skipped():
    assert bounds([point(1, NAN), point(NAN, 5), point(3, 4)]) == (xy(1, 4), xy(3, 5))


def test_empty_geometries_give_no_bounds():
    empty_point = point(NAN, NAN)
    empty_line = struct.pack("<BII", 1, 2, 0)
    empty_collection = struct.pack("<BII", 1, 7, 0)
    assert bounds([empty_point, empty_line, empty_collection]) is None
    assert bounds([empty_point, point(1, 2)]) == (xy(1, 2), xy(1, 2))


def test_missing_y_gives_no_bounding_box():
    assert bounds([point(1, NAN), point(2, NAN)]) is None


def test_geography_points_across_the_antimeridian_wrap():
    lower, upper = bounds([point(170, 10), point(-170, -5), point(179, 0)], geography=True)
    assert (lower, upper) == (xy(170, -5), xy(-170, 10))  # xmin > xmax


def test_geography_points_not_crossing_keep_the_plain_range():
    assert bounds([point(-10, 1), point(20, 2)], geography=True) == (xy(-10, 1), xy(20, 2))


def test_geography_edges_withdraw_the_bounds():
    """A geodesic between (-60, 60) and (60, 60) passes north of latitude 60: vertex bounds
    would be wrong, so there are none."""
    assert bounds([point(0, 0), line([(-60, 60), (60, 60)])], geography=True) is None
    assert bounds([line([(-60, 60), (60, 60)])]) == (xy(-60, 60), xy(60, 60))  # planar: exact


def test_geography_out_of_range_coordinates_withdraw_the_bounds():
    assert bounds([point(200, 0)], geography=True) is None


def test_merged_boxes_cover_both():
    a, b = GeoBox(True), GeoBox(True)
    a.add(point(170, 1))
    a.add(point(175, 2))
    b.add(point(-175, -3))
    a.merge(b)
    assert a.bounds() == (xy(170, -3), xy(-175, 2))


def test_parse_wkb_reports_coordinates_and_edges():
    coords, edges = parse_wkb(point(1, 2, 3, code=1001))
    assert coords.tolist() == [[1, 2, 3, pytest.approx(NAN, nan_ok=True)]] and not edges
    assert parse_wkb(line([(0, 0), (1, 1)]))[1]


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x01",
        b"\x02\x01\x00\x00\x00",
        point(1, 2)[:-1],
        point(1, 2) + b"\x00",
        struct.pack("<BI", 1, 99),
        multi(4, [line([(0, 0), (1, 1)])]),
    ],
)
def test_invalid_wkb_is_refused(raw):
    with pytest.raises(InvalidWKBError):
        parse_wkb(raw)
