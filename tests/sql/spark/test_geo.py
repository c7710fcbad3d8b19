"""Geospatial functions: what DuckDB's core computes runs, the rest is refused by name."""

from __future__ import annotations

import pytest

from icesql.errors import NotSupportedError


def test_constructors_map_onto_duckdb_core(spark_rules, duck_answer):
    assert (
        spark_rules("SELECT ST_GeomFromText('POINT (1 2)')")
        == "SELECT CAST('POINT (1 2)' AS GEOMETRY)"
    )
    assert duck_answer(
        "SELECT ST_AsText(ST_GeomFromWKT('LINESTRING (0 0, 1 1)')),"
        " ST_AsText(ST_GeogFromText('POINT (3 4)')),"
        " ST_AsText(ST_GeogFromWKB(X'0101000000000000000000F03F0000000000000040')),"
        " ST_AsGeoJSON(ST_GeomFromText('POINT (1 2)'))"
    ) == [
        (
            "LINESTRING (0 0, 1 1)",
            "POINT (3 4)",
            "POINT (1 2)",
            '{"type":"Point","coordinates":[1.0,2.0]}',
        )
    ]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT ST_Point(1, 2)",
        "SELECT ST_Distance(a, b) FROM (SELECT 1 a, 2 b)",
        "SELECT ST_X(ST_GeomFromText('POINT (1 2)'))",
        "SELECT ST_Area(g) FROM (SELECT 1 g)",
        "SELECT ST_Intersects(a, b) FROM (SELECT 1 a, 2 b)",
    ],
)
def test_spatial_extension_functions_are_refused_by_name(spark_rules, sql):
    name = sql.split("SELECT ")[1].split("(")[0]
    with pytest.raises(NotSupportedError, match=rf"(?i){name}\(\) is not supported: DuckDB's core"):
        spark_rules(sql)


def test_an_srid_argument_is_refused(spark_rules):
    with pytest.raises(NotSupportedError, match="SRID argument"):
        spark_rules("SELECT ST_GeomFromText('POINT (1 2)', 4326)")
