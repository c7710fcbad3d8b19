"""v3 column defaults icesql sets, read by Spark 3.5 + Iceberg 1.10.

icesql adds columns with ``DEFAULT`` to a v3 table holding rows written before, changes a
write-default, and fills omitted columns on INSERT; Spark must read every row as icesql does:
the old rows through ``initial-default`` (they have no such column in their files), the new
ones from the files. Spark 3.5's SQL cannot set defaults on Iceberg tables itself.
"""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows

import icesql


@pytest.fixture(scope="module")
def con(spark, spark_warehouse):
    spark.sql("DROP NAMESPACE IF EXISTS specdef CASCADE")
    spark.sql("CREATE NAMESPACE specdef")
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def test_spark_reads_initial_and_write_defaults(spark, con):
    con.execute(
        "CREATE TABLE specdef.d (id INT, s STRING) USING iceberg TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO specdef.d VALUES (1, 'a')")
    con.execute(
        "ALTER TABLE specdef.d ADD COLUMNS (c INT DEFAULT 5, dt DATE DEFAULT DATE'2024-01-02',"
        " dec DECIMAL(9, 2) DEFAULT -1.5, t STRING DEFAULT 'x', n BIGINT NOT NULL DEFAULT 7)"
    )
    con.execute("ALTER TABLE specdef.d ALTER COLUMN c SET DEFAULT 6")
    con.execute("INSERT INTO specdef.d (id, s) VALUES (2, 'b')")
    con.execute("INSERT INTO specdef.d (id, s, c) VALUES (3, 'c', NULL)")
    query = "SELECT id, s, c, dt, dec, t, n FROM specdef.d ORDER BY id"
    expected = con.execute(query).fetchall()
    assert expected[0][2] == 5 and expected[1][2] == 6 and expected[2][2] is None
    spark.sql("REFRESH TABLE specdef.d")
    assert_same_rows(expected, spark.sql(query).collect(), ordered=True, context=query)


def test_spark_35_cannot_set_defaults_itself(spark, con):
    """What Spark 3.5 cannot do: DEFAULT in its ALTER TABLE on an Iceberg table."""
    con.execute(
        "CREATE TABLE specdef.e (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')"
    )
    with pytest.raises(Exception) as info:
        spark.sql("ALTER TABLE specdef.e ADD COLUMN c INT DEFAULT 5")
    assert "default" in str(info.value).lower()


def test_spark_35_insert_omitting_a_defaulted_column(spark, con):
    """What Spark 3.5 does with an INSERT that omits a column that has a write-default."""
    con.execute(
        "CREATE TABLE specdef.f (id INT, c INT) USING iceberg TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("ALTER TABLE specdef.f ALTER COLUMN c SET DEFAULT 6")
    spark.sql("REFRESH TABLE specdef.f")
    try:
        spark.sql("INSERT INTO specdef.f (id) VALUES (1)")
    except Exception as e:
        outcome = "refused: " + next(line for line in str(e).splitlines() if line.strip())
    else:
        outcome = f"wrote {con.execute('SELECT id, c FROM specdef.f').fetchall()}"
    print("SPARK35_OMITTED_DEFAULT", outcome)
    assert outcome.startswith("refused") or outcome == "wrote [(1, 6)]", outcome
