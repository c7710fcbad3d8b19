"""One script of temporary-view statements run by Spark 3.5 and by icesql over the same
Spark-written table: each query returns the same rows, each refused statement the same
error class (and SHOW TABLES leaves views out in both: Spark's Iceberg catalog lists only
its tables)."""

from __future__ import annotations

import re

import pytest
from spark_support import assert_same_rows

import icesql

pytestmark = pytest.mark.spark

NS = "tviews"
SCRIPT = [
    "CREATE OR REPLACE TEMPORARY VIEW v AS SELECT * FROM tviews.t WHERE id > 1",
    "SELECT * FROM v",
    "INSERT INTO tviews.t VALUES (5, 'e')",  # the view sees the new snapshot
    "SELECT * FROM v",
    "CREATE OR REPLACE TEMPORARY VIEW w (k COMMENT 'key', label) AS SELECT id, upper(name) FROM v",
    "SELECT * FROM w WHERE k >= 3",
    "SELECT a.k, b.name FROM w a JOIN tviews.t b ON a.k = b.id",
    "WITH c AS (SELECT * FROM w) SELECT count(*) FROM c",
    "SELECT * FROM tviews.t WHERE id IN (SELECT k FROM w WHERE k < 4)",
    "DESCRIBE w",
    "DESCRIBE EXTENDED w",
    "CREATE OR REPLACE TEMPORARY VIEW noalias AS SELECT id + 1, upper(name) FROM tviews.t",
    "SELECT * FROM noalias",
    "CREATE OR REPLACE GLOBAL TEMPORARY VIEW g AS SELECT 7 AS x",
    "SELECT * FROM global_temp.g",
    "SHOW VIEWS LIKE 'w|v'",
    "SHOW TABLES IN tviews",
    "CREATE TEMPORARY VIEW v AS SELECT 1",
    "CREATE OR REPLACE TEMPORARY VIEW v AS SELECT * FROM w",
    "CREATE OR REPLACE TEMPORARY VIEW bad (a, b, c) AS SELECT 1, 2",
    "CREATE TEMPORARY VIEW dup AS SELECT 1 AS a, 2 AS A",
    "SELECT * FROM v VERSION AS OF 1",
    "DROP VIEW nope",
    "DROP VIEW IF EXISTS nope",
    "SELECT * FROM g",
    "DROP VIEW global_temp.g",
    "DROP VIEW noalias",
    "SELECT * FROM noalias",
]


@pytest.fixture(scope="module")
def table(spark, spark_warehouse):
    spark.sql(f"DROP NAMESPACE IF EXISTS {NS} CASCADE")
    spark.sql(f"CREATE NAMESPACE {NS}")
    spark.sql(f"CREATE TABLE {NS}.t (id INT, name STRING) USING iceberg PARTITIONED BY (id)")
    spark.sql(f"INSERT INTO {NS}.t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    yield spark_warehouse
    for view in ("v", "w", "noalias", "bad", "dup"):
        spark.sql(f"DROP VIEW IF EXISTS {view}")
    spark.sql("DROP VIEW IF EXISTS global_temp.g")


def _spark_run(spark, sql: str) -> tuple[str, object]:
    from pyspark.errors import AnalysisException, ParseException

    try:
        return "rows", [tuple(r) for r in spark.sql(sql).collect()]
    except (AnalysisException, ParseException) as e:
        return "error", e.getErrorClass()


def _icesql_run(con, sql: str) -> tuple[str, object]:
    try:
        cursor = con.execute(sql)
        return "rows", cursor.fetchall() if cursor.description else []
    except icesql.Error as e:
        found = re.match(r"\[([A-Z_.0-9]+)\]", str(e))
        return "error", found.group(1) if found else str(e)


def test_the_same_script_gives_the_same_answers(spark, table):
    with icesql.connect(table) as con:
        for sql in SCRIPT:
            if sql.startswith("INSERT"):
                spark.sql(sql)  # Spark writes, both read the same snapshot
                continue
            theirs, mine = _spark_run(spark, sql), _icesql_run(con, sql)
            assert theirs[0] == mine[0], (sql, theirs, mine)
            if theirs[0] == "error":
                assert theirs[1] == mine[1], sql
            else:
                assert_same_rows(theirs[1], mine[1], ordered=False, context=sql)
