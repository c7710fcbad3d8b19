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


OTHER_NAMES = {  # statement -> (Spark's error class, the parameter our message starts with)
    "SELECT cnt(*) FROM errs.events": (
        "UNRESOLVED_ROUTINE",
        "[UNRESOLVED_ROUTINE] Cannot resolve function {routineName} ",
    ),
    "SELECT * FROM errs.evnts": (
        "TABLE_OR_VIEW_NOT_FOUND",
        "[TABLE_OR_VIEW_NOT_FOUND] The table or view {relationName} ",
    ),
}


@pytest.mark.parametrize("sql", sorted(OTHER_NAMES))
def test_unknown_functions_and_tables_are_named_as_spark_names_them(spark, con, sql):
    error_class, start = OTHER_NAMES[sql]
    theirs = _spark_error(spark, sql)
    assert theirs.getErrorClass() == error_class
    assert _icesql_error(con, sql).startswith(start.format(**theirs.getMessageParameters()))


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
