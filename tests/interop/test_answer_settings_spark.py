"""icesql's table of the settings that change Spark's answers, held against Spark 3.5.8's own
config entries (key, default, version, the values it takes), and the refused values shown to
change Spark's answers while icesql gives the default's."""

from __future__ import annotations

import pytest

import icesql
from icesql.session.answer_settings import ANSWER_SETTINGS


@pytest.fixture(scope="module")
def own(spark):
    """A session of the shared SparkContext whose settings these tests may change."""
    return spark.newSession()


def _entry(spark, key):
    sql_conf = getattr(getattr(spark._jvm.org.apache.spark.sql.internal, "SQLConf$"), "MODULE$")
    return sql_conf.getConfigEntry(key)


@pytest.mark.parametrize("row", ANSWER_SETTINGS, ids=lambda r: r.key)
def test_the_table_is_sparks(spark, own, row):
    entry = _entry(spark, row.key)
    assert entry is not None, f"Spark 3.5 has no setting {row.key}"
    assert entry.version() == row.since
    assert own.conf.get(row.key).lower() == row.default.lower()  # the tests' Spark runs in UTC
    for value in row.valid or ():
        own.conf.set(row.key, value)  # Spark takes every value icesql calls valid
        own.conf.unset(row.key)


@pytest.mark.parametrize(
    ("key", "value", "query"),
    [
        ("spark.sql.ansi.enabled", "true", "SELECT 1/0, CAST('abc' AS INT)"),
        (
            "spark.sql.legacy.setopsPrecedence.enabled",
            "true",
            "SELECT 1 AS x EXCEPT SELECT 1 INTERSECT SELECT 2",
        ),
        (
            "spark.sql.legacy.parser.havingWithoutGroupByAsWhere",
            "true",
            "SELECT 1 AS x FROM range(3) HAVING max(id) > 0",
        ),
        ("spark.sql.legacy.sizeOfNull", "false", "SELECT size(NULL)"),
        ("spark.sql.orderByOrdinal", "false", "SELECT id FROM range(3) ORDER BY 1 DESC"),
    ],
)
def test_refused_values_change_sparks_answer_and_icesql_gives_the_default(
    own, spark_warehouse, key, value, query
):
    def answer():
        try:
            return [tuple(r) for r in own.sql(query).collect()]
        except Exception as err:
            return type(err).__name__

    default = answer()
    own.conf.set(key, value)
    try:
        assert str(answer()) != str(default)  # str: 3.000000 and 3.0...0 are equal Decimals
    finally:
        own.conf.unset(key)
    with icesql.connect(spark_warehouse) as con:
        with pytest.raises(icesql.NotSupportedError, match=f"{key} = {value}"):
            con.execute(f"SET {key} = {value}")
        assert con.execute(query).fetchall() == default


@pytest.mark.parametrize(
    "query",
    [
        "SELECT CAST(1 AS DECIMAL(38,18)) * CAST(3 AS DECIMAL(38,18))",
        "SELECT 10.300000000000000000 * 3.000000000000000000",
        "SELECT 12345678912345.123456789123 / 0.000000012345678",
        "SELECT CAST(7 AS DECIMAL(38,10)) / CAST(3 AS DECIMAL(38,10))",
        "SELECT CAST(1.5 AS DECIMAL(38,20)) + CAST(2.25 AS DECIMAL(30,2))",
    ],
)
def test_decimals_without_precision_loss_are_sparks(own, spark_warehouse, query):
    key = "spark.sql.decimalOperations.allowPrecisionLoss"
    own.conf.set(key, "false")
    try:
        spark_rows = [tuple(r) for r in own.sql(query).collect()]
    finally:
        own.conf.unset(key)
    with icesql.connect(spark_warehouse) as con:
        con.execute(f"SET {key} = false")
        assert con.execute(query).fetchall() == spark_rows
