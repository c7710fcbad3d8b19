"""What Spark 3.5 + Iceberg 1.10 does with a v3 table that has geometry / geography columns.

Spark 3.5 has no geospatial type, so Iceberg's Spark integration cannot turn such a column into
a Spark type: loading the table fails, naming the type, and nothing is read as garbage. A table
without those columns in its current schema is unaffected. icesql reads and writes the table.
"""

from __future__ import annotations

import struct

import pytest

import icesql


@pytest.fixture(scope="module")
def con(spark, spark_warehouse):
    spark.sql("DROP NAMESPACE IF EXISTS local.geo CASCADE")
    spark.sql("CREATE NAMESPACE local.geo")
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def _spark_outcome(spark, query: str) -> str:
    try:
        rows = spark.sql(query).collect()
    except Exception as e:
        return "refused: " + " ".join(str(e).split())[:400]
    return f"rows: {rows}"


def test_spark_35_refuses_a_table_with_a_geometry_column(spark, con):
    con.execute(
        "CREATE TABLE geo.g (id INT, g GEOMETRY, h GEOGRAPHY('srid:4326'))"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO geo.g VALUES (1, ST_GeomFromText('POINT (1 2)'), NULL)")
    assert con.execute("SELECT id, ST_AsText(g) FROM geo.g").fetchall() == [(1, "POINT (1 2)")]
    for query in (
        "REFRESH TABLE local.geo.g",
        "SELECT * FROM local.geo.g",
        "SELECT id FROM local.geo.g",
        "DESCRIBE TABLE local.geo.g",
    ):
        outcome = _spark_outcome(spark, query)
        print("SPARK35_GEOMETRY", query, "->", outcome)
        assert outcome.startswith("refused: ")
        assert "Cannot convert unknown type to Spark: geometry" in outcome


def test_spark_35_reads_the_table_once_the_geometry_columns_are_dropped(spark, con):
    con.execute("CREATE TABLE geo.d (id INT, g GEOMETRY) TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO geo.d VALUES (1, ST_GeomFromText('POINT (1 2)'))")
    con.execute("ALTER TABLE geo.d DROP COLUMN g")
    spark.sql("REFRESH TABLE local.geo.d")
    assert [tuple(r) for r in spark.sql("SELECT id FROM local.geo.d").collect()] == [(1,)]


def test_iceberg_java_reads_the_schema_and_bounds_icesql_wrote(spark, con, spark_warehouse):
    """Iceberg 1.10's Java API (reached through Spark's JVM) parses the schema JSON icesql wrote
    and plans its files, their geospatial bounds carried as the bytes icesql wrote (Java 1.10's
    ``Conversions`` cannot decode geospatial bounds yet, so it never prunes with them)."""
    con.execute(
        "CREATE TABLE geo.j (id INT, g GEOMETRY('srid:3857'), h GEOGRAPHY('OGC:CRS84', karney))"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute(
        "INSERT INTO geo.j VALUES (1, ST_GeomFromText('LINESTRING (1 2, 3 -4)'),"
        " ST_GeomFromText('POINT (170 10)')), (2, NULL, ST_GeomFromText('POINT (-170 -5)'))"
    )
    jvm = spark._jvm
    table = jvm.org.apache.iceberg.hadoop.HadoopTables(spark._jsc.hadoopConfiguration()).load(
        f"{spark_warehouse}/geo/j"
    )
    schema = table.schema()
    assert schema.findType(2).toString() == "geometry(srid:3857)"
    assert schema.findType(3).toString() == "geography(OGC:CRS84, karney)"
    iterator = table.newScan().includeColumnStats().planFiles().iterator()
    data_file = iterator.next().file()
    assert not iterator.hasNext()
    to_bytes = jvm.org.apache.iceberg.util.ByteBuffers.toByteArray
    bounds = {
        fid: (
            bytes(to_bytes(data_file.lowerBounds().get(fid))),
            bytes(to_bytes(data_file.upperBounds().get(fid))),
        )
        for fid in (2, 3)
    }
    assert bounds[2] == (struct.pack("<2d", 1, -4), struct.pack("<2d", 3, 2))
    assert bounds[3] == (struct.pack("<2d", 170, -5), struct.pack("<2d", -170, 10))  # wraps
    assert data_file.valueCounts().get(2) == 2 and data_file.nullValueCounts().get(2) == 1
    with pytest.raises(Exception, match="Cannot deserialize type: geometry"):
        jvm.org.apache.iceberg.types.Conversions.fromByteBuffer(
            schema.findType(2), data_file.lowerBounds().get(2)
        )
