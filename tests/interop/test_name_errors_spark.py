"""Unresolved names and syntax errors, held against Spark 3.5's own: the same statement on the
same tables gives the same error class, the same quoted name and the same proposals (Spark's
``AnalysisException.getMessageParameters``), and syntax errors the same token."""

from __future__ import annotations

import re

import pytest

import icesql

pytestmark = pytest.mark.spark

NS = "errs"


@pytest.fixture(scope="module")
def con(spark, spark_warehouse):
    spark.sql(f"DROP NAMESPACE IF EXISTS {NS} CASCADE")
    spark.sql(f"CREATE NAMESPACE {NS}")
    spark.sql(f"CREATE TABLE {NS}.events (user_id INT, country STRING, n INT) USING iceberg")
    spark.sql(f"CREATE TABLE {NS}.users (user_id INT, name STRING) USING iceberg")
    spark.sql(f"CREATE TABLE {NS}.wide (xyz INT, ab1 INT, q INT, abcd INT, b INT, a INT, zz INT)")
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def _spark_error(spark, sql: str):
    from pyspark.errors import AnalysisException, ParseException

    with pytest.raises((AnalysisException, ParseException)) as info:
        spark.sql(sql).collect()
    return info.value


def _icesql_error(con, sql: str) -> str:
    with pytest.raises(icesql.ProgrammingError) as info:
        con.execute(sql).fetchall()
    return str(info.value)


COLUMN_STATEMENTS = [
    "SELECT contry FROM errs.events",
    "SELECT country FROM errs.events WHERE cuntry = 'de'",
    "SELECT country, count(*) FROM errs.events GROUP BY contry",
    "SELECT n FROM errs.events ORDER BY contry",
    "SELECT e.contry FROM errs.events e JOIN errs.users u ON e.user_id = u.user_id",
    "SELECT * FROM errs.events WHERE n IN (SELECT nme FROM errs.users)",
    "SELECT * FROM (SELECT n AS m FROM errs.events) s WHERE q > 1",
    "SELECT x.n FROM errs.events",
    "SELECT ab FROM errs.wide",
]


@pytest.mark.parametrize("sql", COLUMN_STATEMENTS)
def test_unresolved_columns_name_and_propose_as_spark(spark, con, sql):
    theirs = _spark_error(spark, sql)
    mine = _icesql_error(con, sql)
    assert theirs.getErrorClass() == re.match(r"\[([A-Z_.]+)\]", mine).group(1), mine  # type: ignore[union-attr]
    params = theirs.getMessageParameters()
    assert f"with name {params['objectName']} cannot" in mine
    assert f"[{params['proposal']}]" in mine, (mine, params)


def test_an_unknown_function_is_sparks_unresolved_routine(spark, con):
    sql = "SELECT cnt(*) FROM errs.events"
    theirs = _spark_error(spark, sql)
    mine = _icesql_error(con, sql)
    assert theirs.getErrorClass() == "UNRESOLVED_ROUTINE"
    assert mine.startswith(
        f"[UNRESOLVED_ROUTINE] Cannot resolve function {theirs.getMessageParameters()['routineName']}"
    )


def test_a_missing_table_is_sparks_table_or_view_not_found(spark, con):
    sql = "SELECT * FROM errs.evnts"
    theirs = _spark_error(spark, sql)
    mine = _icesql_error(con, sql)
    assert theirs.getErrorClass() == "TABLE_OR_VIEW_NOT_FOUND"
    assert mine.startswith(
        f"[TABLE_OR_VIEW_NOT_FOUND] The table or view {theirs.getMessageParameters()['relationName']}"
    )


SYNTAX_STATEMENTS = [
    "SELEC 1",
    "SELECT 1 +",
    "SELECT * FROM errs.events WHERE AND n = 1",
    "SELECT n FROM errs.events WHERE (n = 1",
    "SELECT n FROM errs.events WHERE n = = 1",
]


@pytest.mark.parametrize("sql", SYNTAX_STATEMENTS)
def test_syntax_errors_stop_at_sparks_token(spark, con, sql):
    theirs = _spark_error(spark, sql)
    mine = _icesql_error(con, sql)
    assert theirs.getErrorClass() == "PARSE_SYNTAX_ERROR"
    params = theirs.getMessageParameters()
    assert f"Syntax error at or near {params['error']}{params['hint']}." in mine, (mine, params)
