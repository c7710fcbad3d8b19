"""Geospatial functions over ``geometry`` / ``geography`` columns (DuckDB ``GEOMETRY``).

Spark 3.5 has no geospatial functions; the ``ST_`` names users bring from Sedona, Databricks
or PostGIS run where DuckDB's core (without its spatial extension, which icesql does not
load) computes the same thing, and are refused by name otherwise, never sent on to fail
with a hint to install an extension:

* ``ST_GeomFromText`` / ``ST_GeomFromWKT`` / ``ST_GeogFromText`` / ``ST_GeogFromWKT`` (one
  argument): ``CAST(wkt AS GEOMETRY)``; ``ST_GeogFromWKB``: ``ST_GeomFromWKB``;
* DuckDB's own ``ST_GeomFromWKB``, ``ST_GeomFromGeoJSON``, ``ST_AsText``, ``ST_AsWKT``,
  ``ST_AsBinary``, ``ST_AsWKB``, ``ST_AsGeoJSON``, ``ST_Intersects_Extent`` as they are.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT ST_GeomFromText('POINT (1 2)')")).sql("duckdb")
"SELECT CAST('POINT (1 2)' AS GEOMETRY)"
"""

from __future__ import annotations

from sqlglot import exp

from icesql.sql.spark.base import refuse

_WHY = "DuckDB's core has no such function (only its spatial extension, which icesql does not load)"

# functions of DuckDB's spatial extension (and of Sedona / PostGIS) that its core lacks
_EXTENSION_ONLY = (
    "st_area st_asewkb st_asgml st_ashexwkb st_askml st_assvg st_boundary st_buffer"
    " st_centroid st_collect st_contains st_convexhull st_coveredby st_covers st_crosses"
    " st_difference st_dimension st_disjoint st_distance_sphere st_distance_spheroid"
    " st_dwithin st_endpoint st_envelope st_equals st_exteriorring st_extent st_flipcoordinates"
    " st_force2d st_force3dm st_force3dz st_force4d st_geometryn st_geometrytype"
    " st_geomfromewkb st_geomfromhexewkb st_geomfromhexwkb st_hasm st_hasz st_interiorringn"
    " st_intersection st_intersects st_isclosed st_isempty st_isring st_issimple st_isvalid"
    " st_length st_length_spheroid st_linemerge st_m st_makeenvelope st_makeline"
    " st_makepolygon st_makevalid st_mmax st_mmin st_ngeometries st_ninteriorrings st_npoints"
    " st_numgeometries st_numinteriorrings st_numpoints st_overlaps st_perimeter st_pointn"
    " st_pointonsurface st_polygon st_quadkey st_reduceprecision st_removerepeatedpoints"
    " st_reverse st_setsrid st_simplify st_srid st_startpoint st_symdifference st_touches"
    " st_transform st_union st_union_agg st_within st_x st_xmax st_xmin st_y st_ymax st_ymin"
    " st_z st_zmax st_zmin st_geohash st_h3 st_asmvt st_tileenvelope st_voronoidiagram"
    " st_concavehull st_shortestline st_closestpoint st_azimuth st_project st_snap st_split"
).split()


def _refuse(node: exp.Expr) -> exp.Expr:
    refuse(f"{node.name}()", _WHY)


def _from_text(node: exp.Expr) -> exp.Expr:
    args = node.expressions
    if len(args) != 1:
        refuse(f"{node.name}() with an SRID argument", "the CRS of a geometry is its column's")
    return exp.Cast(this=args[0], to=exp.DataType.build("GEOMETRY"))


def _from_wkb(node: exp.Expr) -> exp.Expr:
    args = node.expressions
    if len(args) != 1:
        refuse(f"{node.name}() with an SRID argument", "the CRS of a geometry is its column's")
    return exp.Anonymous(this="ST_GeomFromWKB", expressions=args)


RULES = {
    exp.StPoint: lambda node: refuse("ST_Point()", _WHY),
    exp.StDistance: lambda node: refuse("ST_Distance()", _WHY),
}
FUNCTIONS = {
    **{name: _refuse for name in _EXTENSION_ONLY},
    "st_geomfromtext": _from_text,
    "st_geomfromwkt": _from_text,
    "st_geogfromtext": _from_text,
    "st_geogfromwkt": _from_text,
    "st_geogfromwkb": _from_wkb,
}
TYPED: set[type] = set()
TYPED_FUNCTIONS: set[str] = set()
