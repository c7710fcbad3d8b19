"""Spark SQL that icesql once answered differently from Spark 3.5, run in both engines.

Each query runs in Spark and in icesql over the same Spark-written tables; both must give the
same rows, and both must refuse the queries Spark refuses.
"""

from __future__ import annotations

import pytest
from spark_support import assert_same_query

import icesql


@pytest.fixture(scope="module")
def con(spark, spark_warehouse):
    spark.sql("DROP NAMESPACE IF EXISTS sqlc CASCADE")
    spark.sql("CREATE NAMESPACE sqlc")
    spark.sql("CREATE TABLE sqlc.t (a INT, s STRUCT<f: INT, g: STRING>) USING iceberg")
    spark.sql("INSERT INTO sqlc.t VALUES (1, named_struct('f', 10, 'g', 'x')), (2, NULL)")
    spark.sql("CREATE TABLE sqlc.u (a INT, b STRING) USING iceberg")
    spark.sql("INSERT INTO sqlc.u VALUES (1, 'one'), (3, 'three')")
    spark.sql(f"CREATE TABLE sqlc.vals ({VALUE_COLUMNS}) USING iceberg")
    spark.sql(f"INSERT INTO sqlc.vals VALUES {', '.join(VALUE_ROWS)}")
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


# one row per edge: NULLs, negatives, halves, zero, non-ASCII text, empty collections
VALUE_COLUMNS = (
    "k INT, i INT, l BIGINT, d DOUBLE, dec DECIMAL(10,3), s STRING, s2 STRING, dt DATE,"
    " ts TIMESTAMP, arr ARRAY<INT>, m MAP<STRING,INT>"
)
VALUE_ROWS = [
    "(1, 7, -7, 2.5, 2.5, 'hello world', 'a,b,,c', DATE'2024-02-29',"
    " TIMESTAMP'2024-02-29 13:45:30.123456', array(1, 2, 2, NULL), map('a', 1))",
    "(2, -7, 3, -2.5, -2.345, '  Mixed CASE  ', 'x1y22z333', DATE'1969-12-31',"
    " TIMESTAMP'1969-12-31 23:59:59', array(), map())",
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "(4, 0, 0, 0.5, 0.005, '', '', DATE'2000-01-01', TIMESTAMP'2000-01-01 00:00:00',"
    " array(3, 1), map('b', NULL))",
    "(5, 3, -2, -1.5, 1.005, 'ß éa', 'A.B.C', DATE'2024-12-31', TIMESTAMP'2024-12-31 23:59:59.999',"
    " array(NULL), NULL)",
    "(6, 2147483647, 9007199254740993, 1.005, 2.675, 'x', 'x', DATE'1900-01-01',"
    " TIMESTAMP'1900-01-01 00:00:00.5', array(5), map('c', 3))",
]

NUMBERS = [
    "pmod(i, 3)", "pmod(l, -3)", "pmod(d, 2)", "pmod(dec, 2)", "pmod(i, 0)",
    "i % 3", "l % -3", "d % 2", "i % 0", "dec % 0.004",
    "i div 2", "l div -2", "dec div 1", "dec div 0.001", "i div 0",
    "round(d, 0)", "round(d, 2)", "round(d)", "round(dec, 2)", "round(l, -1)", "round(d * 1.01, 1)",
    "round(2.675D, 2)", "round(-1.005D, 2)", "round(CAST(d AS FLOAT), 1)", "round(1234.5D, -2)",
    "bround(d, 0)", "bround(d, 2)", "bround(dec, 2)", "bround(l, -1)", "bround(2.5, 0)",
    "ln(d)", "log(d)", "log(2, d)", "log10(d)", "log2(d)", "log(d, 8)",
    "isnan(d)", "isnan(CAST('NaN' AS DOUBLE))", "nanvl(CAST('NaN' AS DOUBLE), d)",
    "positive(i)", "negative(l)", "e()",
    "format_number(d, 2)", "format_number(dec, 0)", "format_number(dec, 2)", "format_number(l, 1)",
    "format_number(i, 0)", "format_number(d * 1000000, 3)", "format_number(d, -1)",
    "format_number(CAST('NaN' AS DOUBLE), 2)", "format_number(-CAST('Infinity' AS DOUBLE), 1)",
    "format_number(CAST(d AS FLOAT), 2)",
]

NOT_SUPPORTED = [
    "SELECT format_number(d, '#,###.##') FROM sqlc.vals",
    "SELECT format_number(CAST(dec AS DECIMAL(30, 3)), 2) FROM sqlc.vals",
]

RANGE = [
    "SELECT * FROM range(3)",
    "SELECT id FROM range(1, 4)",
    "SELECT id, id * 2 FROM range(1, 10, 3)",
    "SELECT * FROM range(10, 1, -3, 2)",
    "SELECT x FROM range(3) t(x)",
    "SELECT t.id FROM range(3) t",
    "SELECT * FROM range(3) AS t(x)",
    "SELECT * FROM range(0)",
    "SELECT * FROM range(-2.5, 1)",
    "SELECT count(*), sum(id) FROM range(100)",
    "SELECT a.id, b.id FROM range(1, 4) a JOIN range(2, 5) b ON a.id = b.id",
    "SELECT u.a, r.id FROM sqlc.u JOIN range(2) r ON u.a > r.id",
]

QUALIFIED = [
    "SELECT sqlc.t.a FROM sqlc.t",
    "SELECT local.sqlc.t.a FROM sqlc.t",
    "SELECT sqlc.t.a FROM local.sqlc.t",
    "SELECT t.s.f, s.f, sqlc.t.s.f, t.s, local.sqlc.t.s.g FROM sqlc.t",
    "SELECT sqlc.t.* FROM sqlc.t",
    "SELECT sqlc.t.a, sqlc.u.b FROM sqlc.t JOIN sqlc.u ON sqlc.t.a = sqlc.u.a",
    "SELECT sqlc.t.a FROM sqlc.t WHERE sqlc.t.a > 1",
    "SELECT a FROM sqlc.t ORDER BY sqlc.t.a DESC",
    "SELECT sqlc.t.a, count(*) FROM sqlc.t GROUP BY sqlc.t.a",
    "SELECT (SELECT max(sqlc.u.a) FROM sqlc.u WHERE sqlc.u.a > sqlc.t.a) FROM sqlc.t",
    "SELECT SQLC.T.A FROM sqlc.t",
]

REFUSED = [
    "SELECT * FROM range(1, 10, 2, 0)",
    "SELECT * FROM range(NULL)",
    "SELECT * FROM range(3) AS r(a, b)",
    "SELECT range.id FROM range(2)",
    "SELECT sqlc.t.a FROM sqlc.t AS x",
    "SELECT t.a FROM sqlc.t AS x",
]


@pytest.mark.parametrize("query", RANGE + QUALIFIED)
def test_same_rows_as_spark(spark, con, query):
    assert_same_query(spark, con, query)


@pytest.mark.parametrize("expression", NUMBERS)
def test_functions_answer_like_spark(spark, con, expression):
    assert_same_query(spark, con, f"SELECT k, {expression} FROM sqlc.vals ORDER BY k")


@pytest.mark.parametrize("query", NOT_SUPPORTED)
def test_not_supported_where_spark_answers(spark, con, query):
    spark.sql(query).collect()
    with pytest.raises(icesql.NotSupportedError):
        con.execute(query).fetchall()


@pytest.mark.parametrize("query", REFUSED)
def test_refused_like_spark(spark, con, query):
    with pytest.raises(Exception):  # noqa: B017 - any Spark error: the point is that it refuses
        spark.sql(query).collect()
    with pytest.raises(icesql.ProgrammingError):
        con.execute(query).fetchall()
