"""What Spark 3.5 + Iceberg 1.10 makes of the v3 types icesql writes: nanosecond timestamps,
unknown columns, and defaults set by constant expressions or of list and map type.

Spark 3.5 has no nanosecond timestamp and its Iceberg 1.10 runtime maps no Spark type to
``unknown``: the tests pin what Spark does with such tables, so a change of behaviour in a
later runtime shows up here, and check that what Spark can read reads as icesql reads it.
"""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows

import icesql


@pytest.fixture(scope="module")
def con(spark, spark_warehouse):
    spark.sql("DROP NAMESPACE IF EXISTS v3types CASCADE")
    spark.sql("CREATE NAMESPACE v3types")
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def _spark_outcome(spark, query: str) -> str:
    try:
        rows = spark.sql(query).collect()
    except Exception as e:  # noqa: BLE001 - the outcome is what the test pins
        return "refused: " + next(line for line in str(e).splitlines() if line.strip())
    return f"read {[tuple(r) for r in rows]}"


def test_spark_35_and_nanosecond_timestamps(spark, con):
    con.execute("CREATE TABLE v3types.ns (id INT, ts TIMESTAMP_NS) USING iceberg"
                " TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO v3types.ns SELECT 1, CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS)")
    spark.sql("REFRESH TABLE v3types.ns")
    outcome = _spark_outcome(spark, "SELECT id, ts FROM v3types.ns")
    print("SPARK35_TIMESTAMP_NS", outcome)
    assert outcome == "PIN"


def test_spark_35_and_unknown_columns(spark, con):
    con.execute("CREATE TABLE v3types.unk (id INT, v VOID) USING iceberg"
                " TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO v3types.unk VALUES (1, NULL)")
    spark.sql("REFRESH TABLE v3types.unk")
    outcome = _spark_outcome(spark, "SELECT id, v FROM v3types.unk")
    print("SPARK35_UNKNOWN", outcome)
    assert outcome == "PIN"


def test_spark_reads_expression_list_and_map_defaults(spark, con):
    con.execute("CREATE TABLE v3types.d (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO v3types.d VALUES (1)")
    con.execute("ALTER TABLE v3types.d ADD COLUMNS (a BIGINT DEFAULT 1 + 2,"
                " l ARRAY<INT> DEFAULT array(1, 2), m MAP<STRING, INT> DEFAULT map('k', 7))")
    con.execute("INSERT INTO v3types.d VALUES (2, DEFAULT, DEFAULT, DEFAULT)")
    con.execute("INSERT INTO v3types.d (id, a) VALUES (3, 30)")
    query = "SELECT id, a, l, m FROM v3types.d ORDER BY id"
    expected = con.execute(query).fetchall()
    assert expected[0] == (1, 3, [1, 2], {"k": 7}) and expected[2][1] == 30
    spark.sql("REFRESH TABLE v3types.d")
    outcome = _spark_outcome(spark, query)
    print("SPARK35_NESTED_DEFAULTS", outcome)
    assert_same_rows(expected, spark.sql(query).collect(), ordered=True, context=query)
