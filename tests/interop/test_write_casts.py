"""INSERT's implicit casts and errors agree with Spark's, statement by statement.

The same INSERT runs against a Spark twin and icesql's table: both must accept it or both
must refuse it, and whatever was accepted must read back the same. A refused statement
must leave icesql's table at the same metadata version.
"""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows

import icesql

COLUMNS = "a INT NOT NULL, b STRING, d DATE, ts TIMESTAMP, dec DECIMAL(5,2), l BIGINT, f FLOAT"
STATEMENTS = [
    "VALUES (1, 'x')",
    "VALUES (1, 'x', NULL, NULL, NULL, NULL, NULL, 9)",
    "VALUES (NULL, 'x', NULL, NULL, NULL, NULL, NULL)",
    "VALUES ('5', 'x', NULL, NULL, NULL, NULL, NULL)",
    "VALUES (1, 5, NULL, NULL, NULL, NULL, NULL)",
    "VALUES (1, 'x', '2024-01-01', '2024-01-01 10:00:00', NULL, NULL, NULL)",
    "VALUES (3000000000, 'x', NULL, NULL, NULL, NULL, NULL)",
    "VALUES (1.7, 'x', NULL, NULL, 1.005, 1.5, 1)",
    "VALUES (1, 1.0D, NULL, NULL, 123456.0, NULL, NULL)",
    "VALUES (1, 'x', TIMESTAMP '2024-01-01 10:00:00', DATE '2024-01-02', 1.234, 2.9D, 1.5D)",
    "VALUES (-1.7D, true, NULL, NULL, NULL, NULL, NULL)",
    "VALUES (1, 'x', NULL, NULL, NULL, CAST('NaN' AS DOUBLE), NULL)",
    "VALUES (2, 'y', NULL, NULL, -999.994, -9223372036854775808, CAST('Infinity' AS DOUBLE))",
    "VALUES (true, 'x', NULL, NULL, NULL, NULL, NULL)",
    "(b, a, d, ts, dec, l, f) VALUES ('z', 8, NULL, NULL, NULL, NULL, NULL)",
    "(a, b) VALUES (7, 'y')",
]


@pytest.fixture(scope="module")
def tables(spark, spark_warehouse):
    con = icesql.connect(spark_warehouse)
    con.execute("DROP NAMESPACE IF EXISTS w_casts CASCADE")
    con.execute("CREATE NAMESPACE w_casts")
    con.execute(f"CREATE TABLE w_casts.t ({COLUMNS}) USING iceberg")
    spark.sql(f"CREATE TABLE w_casts.twin ({COLUMNS}) USING iceberg")
    yield con
    con.close()


@pytest.mark.parametrize("statement", STATEMENTS)
def test_insert_agrees_with_spark(spark, tables, statement):
    con = tables
    try:
        spark.sql(f"INSERT INTO w_casts.twin {statement}")
        spark_error = None
    except Exception as e:
        spark_error = e
    before = con.catalog.current_version(("w_casts", "t"))[0]
    try:
        con.execute(f"INSERT INTO w_casts.t {statement}")
        ours = None
    except icesql.Error as e:
        ours = e
    if spark_error is None:
        assert ours is None, f"Spark accepts {statement!r}, icesql refuses: {ours}"
    else:
        assert ours is not None, (
            f"Spark refuses {statement!r} ({str(spark_error)[:200]}), icesql accepts"
        )
        assert "w_casts.t" in str(ours)
        assert con.catalog.current_version(("w_casts", "t"))[0] == before
    spark.sql("REFRESH TABLE w_casts.t")
    assert_same_rows(
        spark.sql("SELECT * FROM w_casts.twin").collect(),
        spark.sql("SELECT * FROM w_casts.t").collect(),
        ordered=False,
        context=statement,
    )
