"""geometry / geography columns written by icesql: WKB in Parquet (annotated GEOMETRY /
GEOGRAPHY where pyarrow can), read back by icesql and by DuckDB's own ``read_parquet``, and the
spec's bounds in the manifest, checked byte for byte against hand-computed points."""

from __future__ import annotations

import math
import struct

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import icesql

PYARROW_ANNOTATES = int(pa.__version__.split(".")[0]) >= 21  # Parquet GEOMETRY since Arrow 21
NAN = math.nan


def wkb_point(x: float, y: float) -> bytes:
    return struct.pack("<BIdd", 1, 1, x, y)


def xy(*coords: float) -> bytes:
    return struct.pack(f"<{len(coords)}d", *coords)


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE NAMESPACE db")
    yield connection
    connection.close()


def _files(con, table: str) -> list[tuple]:
    return con.execute(
        f"SELECT file_path, value_counts, null_value_counts, lower_bounds, upper_bounds"
        f" FROM db.{table}.files"
    ).fetchall()


def test_round_trip_of_wkb_duckdb_geometries_and_constructors(con):
    con.execute(
        "CREATE TABLE db.t (id INT, g GEOMETRY('srid:4326'), h GEOGRAPHY)"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO db.t VALUES (1, ?, NULL)", (wkb_point(1, 2),))
    con.execute(
        "INSERT INTO db.t VALUES (2, CAST('LINESTRING (0 0, 3 -4)' AS GEOMETRY),"
        " ST_GeomFromText('POINT (170 10)')),"
        " (3, ST_GeomFromWKB(X'0101000000000000000000F03F0000000000000040'), NULL),"
        " (4, NULL, ST_GeogFromText('POINT (-170 -5)'))"
    )
    rows = con.execute("SELECT id, g, ST_AsText(g), ST_AsText(h) FROM db.t ORDER BY id").fetchall()
    assert rows == [
        (1, wkb_point(1, 2), "POINT (1 2)", None),
        (
            2,
            struct.pack("<BII4d", 1, 2, 2, 0, 0, 3, -4),
            "LINESTRING (0 0, 3 -4)",
            "POINT (170 10)",
        ),
        (3, wkb_point(1, 2), "POINT (1 2)", None),
        (4, None, None, "POINT (-170 -5)"),
    ]
    # filters and grouping on geometry values run in DuckDB (nothing is pushed to the files)
    assert con.execute(
        "SELECT count(*) FROM db.t WHERE g = ST_GeomFromText('POINT (1 2)')"
    ).fetchall() == [(2,)]


def test_duckdb_reads_the_data_files_directly(con):
    con.execute(
        "CREATE TABLE db.t (id INT, g GEOMETRY('srid:4326'), h GEOGRAPHY,"
        " k GEOGRAPHY('OGC:CRS84', 'karney')) TBLPROPERTIES ('format-version'='3')"
    )
    con.execute(
        "INSERT INTO db.t VALUES (1, ST_GeomFromText('POLYGON ((0 0, 1 0, 1 1, 0 0))'),"
        " ST_GeomFromText('POINT (3 4)'), ST_GeomFromText('POINT (5 6)')), (2, NULL, NULL, NULL)"
    )
    [(path, *_)] = _files(con, "t")
    # unannotated (pyarrow 20) the columns are WKB BLOBs, which DuckDB reads with ST_GeomFromWKB
    g, h = ("g", "h") if PYARROW_ANNOTATES else ("ST_GeomFromWKB(g)", "ST_GeomFromWKB(h)")
    rows = duckdb.sql(
        f"SELECT id, ST_AsText({g}), ST_AsText({h}), k FROM read_parquet('{path}') ORDER BY id"
    ).fetchall()
    assert rows == [
        (1, "POLYGON ((0 0, 1 0, 1 1, 0 0))", "POINT (3 4)", wkb_point(5, 6)),
        (2, None, None, None),
    ]
    schema = pq.ParquetFile(path).metadata.schema
    if PYARROW_ANNOTATES:
        assert str(schema.column(1).logical_type) == "Geometry(crs=srid:4326)"
        assert str(schema.column(2).logical_type) == "Geography(crs=, algorithm=spherical)"
    assert str(schema.column(3).logical_type) == "None"  # pyarrow annotates only spherical edges
    assert [schema.column(i).physical_type for i in (1, 2, 3)] == ["BYTE_ARRAY"] * 3
    types = duckdb.sql(f"DESCRIBE SELECT g, h FROM read_parquet('{path}')").fetchall()
    if PYARROW_ANNOTATES:
        assert [t[1] for t in types] == ["GEOMETRY", "GEOMETRY"]


def test_manifest_bounds_points_lines_polygons(con):
    con.execute("CREATE TABLE db.t (id INT, g GEOMETRY) TBLPROPERTIES ('format-version'='3')")
    con.execute(
        "INSERT INTO db.t VALUES (1, ST_GeomFromText('POINT (1 2)')),"
        " (2, ST_GeomFromText('LINESTRING (-5 0, 3 8)')),"
        " (3, ST_GeomFromText('POLYGON ((0 -7, 4 0, 0 1, 0 -7))')), (4, NULL)"
    )
    [(_, values, nulls, lower, upper)] = _files(con, "t")
    assert (values[2], nulls[2]) == (4, 1)
    assert (lower[2], upper[2]) == (xy(-5, -7), xy(4, 8))


@pytest.mark.parametrize(
    ("values", "lower", "upper"),
    [
        (["POINT Z (1 2 3)", "LINESTRING Z (0 5 -1, 2 2 9)"], xy(0, 2, -1), xy(2, 5, 9)),
        (["POINT M (1 2 40)", "POINT M (3 4 10)"], xy(1, 2, NAN, 10), xy(3, 4, NAN, 40)),
        (["POINT ZM (1 2 3 4)", "POINT ZM (-1 5 0 8)"], xy(-1, 2, 0, 4), xy(1, 5, 3, 8)),
        (["POINT (1 2)", "POINT Z (5 6 7)"], xy(1, 2, 7), xy(5, 6, 7)),
        (["POINT EMPTY", "LINESTRING EMPTY", "POINT (3 3)"], xy(3, 3), xy(3, 3)),
    ],
)
def test_manifest_bounds_with_z_m_and_empty_geometries(con, values, lower, upper):
    con.execute("CREATE TABLE db.t (g GEOMETRY) TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.t VALUES " + ", ".join(f"(ST_GeomFromText('{v}'))" for v in values))
    [(_, _, _, lows, ups)] = _files(con, "t")
    assert (lows[1], ups[1]) == (lower, upper)


def test_only_empty_geometries_give_no_bounds(con):
    con.execute("CREATE TABLE db.t (g GEOMETRY) TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.t VALUES (ST_GeomFromText('POINT EMPTY')), (NULL)")
    [(_, values, nulls, lower, upper)] = _files(con, "t")
    assert (values[1], nulls[1]) == (2, 1)
    assert 1 not in (lower or {}) and 1 not in (upper or {})


def test_geography_bounds_wrap_the_antimeridian_and_skip_edges(con):
    con.execute("CREATE TABLE db.t (p GEOGRAPHY, l GEOGRAPHY) TBLPROPERTIES ('format-version'='3')")
    con.execute(
        "INSERT INTO db.t VALUES (ST_GeomFromText('POINT (170 10)'),"
        " ST_GeomFromText('LINESTRING (-60 60, 60 60)')),"
        " (ST_GeomFromText('MULTIPOINT ((-170 -5), (179 0))'), NULL)"
    )
    [(_, _, _, lower, upper)] = _files(con, "t")
    assert (lower[1], upper[1]) == (xy(170, -5), xy(-170, 10))  # xmin > xmax: crosses 180
    assert 2 not in lower and 2 not in upper  # a geodesic edge: no bound rather than a wrong one


def test_nested_geometry_round_trips_with_bounds(con):
    con.execute("CREATE TABLE db.t (s STRUCT<g: GEOMETRY>) TBLPROPERTIES ('format-version'='3')")
    con.execute(
        "INSERT INTO db.t VALUES (named_struct('g', ST_GeomFromText('POINT (1 2)'))),"
        " (named_struct('g', ST_GeomFromText('POINT (-1 5)')))"
    )
    assert sorted(con.execute("SELECT s.g FROM db.t").fetchall()) == sorted(
        [(wkb_point(1, 2),), (wkb_point(-1, 5),)]
    )
    [(_, _, _, lower, upper)] = _files(con, "t")
    assert (lower[2], upper[2]) == (xy(-1, 2), xy(1, 5))


def test_bad_wkb_is_refused_and_nothing_is_written(con):
    con.execute("CREATE TABLE db.t (id INT, g GEOMETRY) TBLPROPERTIES ('format-version'='3')")
    with pytest.raises(icesql.DataError, match="column `g` .*not WKB"):
        con.execute("INSERT INTO db.t VALUES (1, X'0101')")
    assert con.catalog.load_table(("db", "t")).metadata.current_snapshot_id is None
    ewkb = struct.pack("<BII2d", 1, 0x20000001, 4326, 1.0, 2.0)
    with pytest.raises(icesql.DataError, match="EWKB, not ISO WKB"):
        con.execute("INSERT INTO db.t VALUES (1, ?)", (ewkb,))
    con.execute("INSERT INTO db.t VALUES (1, ST_GeomFromWKB(?))", (ewkb,))  # DuckDB converts it
    assert con.execute("SELECT g FROM db.t").fetchall() == [(wkb_point(1, 2),)]
    con.execute("DELETE FROM db.t")
    with pytest.raises(icesql.ProgrammingError, match="cannot safely cast `g` STRING to GEOMETRY"):
        con.execute("INSERT INTO db.t VALUES (1, 'POINT (1 2)')")
    assert con.execute("SELECT count(*) FROM db.t").fetchall() == [(0,)]


def test_ctas_of_a_geometry_query_creates_a_geometry_column(con):
    con.execute(
        "CREATE TABLE db.c TBLPROPERTIES ('format-version'='3') AS"
        " SELECT 1 AS id, ST_GeomFromText('POINT (1 2)') AS g"
    )
    assert con.execute("DESCRIBE db.c").fetchall()[1][:2] == ("g", "geometry")
    assert con.execute("SELECT ST_AsText(g) FROM db.c").fetchall() == [("POINT (1 2)",)]


@pytest.mark.parametrize("fmt", ["orc", "avro"])
def test_orc_and_avro_files_hold_wkb_with_the_same_bounds(con, fmt):
    """Appendix A: ORC ``binary`` with ``iceberg.binary-type = GEOMETRY``, Avro ``bytes``."""
    con.execute(
        "CREATE TABLE db.o (id INT, g GEOMETRY) TBLPROPERTIES ('format-version'='3',"
        f" 'write.format.default'='{fmt}')"
    )
    con.execute("INSERT INTO db.o VALUES (1, ST_GeomFromText('LINESTRING (1 2, -3 5)')), (2, NULL)")
    assert con.execute("SELECT id, ST_AsText(g) FROM db.o ORDER BY id").fetchall() == [
        (1, "LINESTRING (1 2, -3 5)"),
        (2, None),
    ]
    [(path, values, nulls, lower, upper)] = _files(con, "o")
    assert path.endswith(f".{fmt}")
    assert (values[2], nulls[2], lower[2], upper[2]) == (2, 1, xy(-3, 2), xy(1, 5))
    if fmt == "orc":
        import pyarrow.orc

        field = pyarrow.orc.ORCFile(path).schema.field("g")
        assert field.type == pa.binary()
        assert field.metadata[b"iceberg.binary-type"] == b"GEOMETRY"
