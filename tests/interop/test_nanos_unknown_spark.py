"""What Spark 3.5 + Iceberg 1.10 makes of the v3 types icesql writes: nanosecond timestamps,
unknown columns, and defaults set by constant expressions.

Spark 3.5 has no nanosecond timestamp and its Iceberg 1.10 runtime maps no Spark type to
``unknown``: it refuses to load such a table at all (not just the column). The tests pin
that, so a change in a later runtime shows up here, and check that what Spark can read reads
as icesql reads it. (Iceberg 1.10 cannot load a table with a list or map default either, so
icesql refuses to write one: ``icesql.sql.defaults``.)
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


def _spark_outcome(spark, table: str, query: str) -> str:
    try:
        spark.sql(f"REFRESH TABLE {table}")
        rows = spark.sql(query).collect()
    except Exception as e:
        return "refused: " + next(line for line in str(e).splitlines() if line.strip())
    return f"read {[tuple(r) for r in rows]}"


def test_spark_35_and_nanosecond_timestamps(spark, con):
    con.execute(
        "CREATE TABLE v3types.ns (id INT, ts TIMESTAMP_NS) USING iceberg"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute(
        "INSERT INTO v3types.ns SELECT 1, CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS)"
    )
    outcome = _spark_outcome(spark, "v3types.ns", "SELECT id FROM v3types.ns")
    assert outcome == "refused: Cannot convert unknown type to Spark: timestamp_ns"


def test_spark_35_and_unknown_columns(spark, con):
    con.execute(
        "CREATE TABLE v3types.unk (id INT, v VOID) USING iceberg"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO v3types.unk VALUES (1, NULL)")
    outcome = _spark_outcome(spark, "v3types.unk", "SELECT id FROM v3types.unk")
    assert outcome == "refused: Cannot convert unknown type to Spark: unknown"


def test_spark_reads_expression_defaults_and_the_default_keyword(spark, con):
    con.execute(
        "CREATE TABLE v3types.d (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO v3types.d VALUES (1)")
    con.execute(
        "ALTER TABLE v3types.d ADD COLUMNS (a BIGINT DEFAULT 1 + 2,"
        " s STRING DEFAULT upper('x') || 'y', d DATE DEFAULT date_add(DATE'2024-01-01', 1))"
    )
    con.execute("INSERT INTO v3types.d VALUES (2, DEFAULT, DEFAULT, NULL)")
    con.execute("INSERT INTO v3types.d (id, a, s, d) VALUES (3, 30, DEFAULT, DEFAULT)")
    con.execute("UPDATE v3types.d SET a = DEFAULT WHERE id = 3")
    query = "SELECT id, a, s, d FROM v3types.d ORDER BY id"
    expected = con.execute(query).fetchall()
    assert [r[:3] for r in expected] == [(1, 3, "Xy"), (2, 3, "Xy"), (3, 3, "Xy")]
    assert _spark_outcome(spark, "v3types.d", "SELECT count(*) FROM v3types.d") == "read [(3,)]"
    assert_same_rows(expected, spark.sql(query).collect(), ordered=True, context=query)


def test_spark_35_cannot_load_a_list_default(spark, con, spark_warehouse):
    """Why icesql refuses list and map defaults: Iceberg 1.10 makes no literal of one, so the
    table no longer loads (the metadata written by hand, as another writer would)."""
    import json
    from pathlib import Path

    con.execute(
        "CREATE TABLE v3types.ld (id INT, l ARRAY<INT>) USING iceberg"
        " TBLPROPERTIES ('format-version'='3')"
    )
    meta = Path(spark_warehouse) / "v3types" / "ld" / "metadata"
    version = int((meta / "version-hint.text").read_text())
    md = json.loads((meta / f"v{version}.metadata.json").read_text())
    md["schemas"][-1]["fields"][1]["write-default"] = [1, 2]
    (meta / f"v{version + 1}.metadata.json").write_text(json.dumps(md))
    (meta / "version-hint.text").write_text(str(version + 1))
    outcome = _spark_outcome(spark, "v3types.ld", "SELECT count(*) FROM v3types.ld")
    assert outcome.startswith("refused: Cannot create expression literal from java.util.ArrayList")
    assert con.execute("SELECT count(*) FROM v3types.ld").fetchall() == [(0,)]
