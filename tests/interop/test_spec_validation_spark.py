"""Partition specs and sort orders Iceberg refuses, run through Spark and icesql.

Each case runs in Spark 3.5 + Iceberg and in icesql against the same warehouse: both must
refuse it, or both accept it with the same partition spec (source column, transform and name
of every field) or sort order. A statement icesql refuses changes nothing.
"""

from __future__ import annotations

import pytest

import icesql

COLUMNS = (
    "id INT, l BIGINT, s STRING, ts TIMESTAMP, tsn TIMESTAMP_NTZ, d DATE, b BOOLEAN, f FLOAT,"
    " dec DECIMAL(9, 2), bin BINARY, st STRUCT<x: INT>, arr ARRAY<INT>"
)

CREATE_CASES = [
    "bucket(4, id)",
    "bucket(4, id, s)",
    "bucket(id, 4)",
    "truncate(4, s)",
    "truncate(s, 4)",
    "truncate(4, s, id)",
    "years(ts), months(ts)",
    "days(ts), hours(ts)",
    "years(ts), days(ts)",
    "days(d), months(d)",
    "years(ts), months(tsn)",
    "id, id",
    "id, bucket(4, id)",
    "bucket(4, id), bucket(8, id)",
    "bucket(4, id), bucket(4, id)",
    "truncate(2, s), truncate(3, s)",
    "bucket(4, b)",
    "bucket(4, f)",
    "truncate(4, ts)",
    "truncate(4, b)",
    "years(s)",
    "hours(d)",
    "days(id)",
    "st",
    "arr",
    "st.x",
    "bucket(4, st.x)",
    "bucket(4, dec), truncate(10, dec)",
    "bucket(4, bin), truncate(3, bin)",
    "months(ts), bucket(2, s), truncate(3, l)",
]

# (table partitioning, ADD PARTITION FIELD term)
ADD_CASES = [
    ("days(ts)", "bucket(2, id, ts)"),
    ("days(ts)", "hours(ts)"),
    ("days(ts)", "months(tsn)"),
    ("days(ts)", "days(ts)"),
    ("bucket(4, id)", "bucket(8, id)"),
    ("bucket(4, id)", "bucket(4, id)"),
    ("days(ts)", "truncate(4, ts)"),
    ("days(ts)", "bucket(2, f)"),
    ("days(ts)", "identity(id)"),
    ("days(ts)", "id"),
    ("days(ts)", "years(s)"),
]

ORDER_CASES = [
    "id",
    "bucket(4, id) DESC, s",
    "days(ts), id",
    "truncate(4, ts)",
    "bucket(4, f)",
    "years(s)",
    "st",
    "bucket(4, id, s)",
]


def _spec(con, name: str) -> list[tuple]:
    md = con.catalog.load_table(("specval", name)).metadata
    schema = md.schema()
    return [
        (tuple(schema.find_column_name(i) for i in f.all_source_ids), str(f.transform), f.name)
        for f in md.spec().fields
    ]


def _order(con, name: str) -> list[tuple]:
    md = con.catalog.load_table(("specval", name)).metadata
    schema = md.schema()
    return [
        (schema.find_column_name(f.source_id), str(f.transform), f.direction, f.null_order)
        for f in md.sort_order().fields
    ]


def _run_spark(spark, sql: str) -> str | None:
    try:
        spark.sql(sql)
    except Exception as e:
        return next((line for line in str(e).splitlines() if line.strip()), type(e).__name__)
    return None


def _run_icesql(con, sql: str) -> str | None:
    try:
        con.execute(sql)
    except icesql.Error as e:
        return str(e)
    return None


@pytest.fixture(scope="module")
def con(spark, spark_warehouse):
    spark.sql("DROP NAMESPACE IF EXISTS specval CASCADE")
    spark.sql("CREATE NAMESPACE specval")
    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


def _both(spark, con, spark_sql: str, icesql_sql: str, what, s: str, i: str) -> bool:
    """Run both; True when both refused."""
    spark_error = _run_spark(spark, spark_sql)
    icesql_error = _run_icesql(con, icesql_sql)
    assert (spark_error is None) == (icesql_error is None), (
        f"Spark: {spark_error or 'accepted'}; icesql: {icesql_error or 'accepted'}"
    )
    if spark_error is None:
        assert what(con, s) == what(con, i)
    return spark_error is not None


@pytest.mark.parametrize("partitioning", CREATE_CASES)
def test_create_partitioned_by(spark, con, partitioning):
    n = CREATE_CASES.index(partitioning)
    sql = (
        "CREATE TABLE specval.{} ("
        + COLUMNS
        + ") USING iceberg PARTITIONED BY ("
        + partitioning
        + ")"
    )
    if _both(spark, con, sql.format(f"cs{n}"), sql.format(f"ci{n}"), _spec, f"cs{n}", f"ci{n}"):
        assert not con.catalog.table_exists(("specval", f"ci{n}"))


@pytest.mark.parametrize(("partitioning", "term"), ADD_CASES)
def test_add_partition_field(spark, con, partitioning, term):
    n = ADD_CASES.index((partitioning, term))
    create = (
        "CREATE TABLE specval.{} ("
        + COLUMNS
        + ") USING iceberg PARTITIONED BY ("
        + partitioning
        + ")"
    )
    spark.sql(create.format(f"as{n}"))
    con.execute(create.format(f"ai{n}"))
    before = con.catalog.load_table(("specval", f"ai{n}")).metadata.to_json()
    alter = "ALTER TABLE specval.{} ADD PARTITION FIELD " + term
    if _both(spark, con, alter.format(f"as{n}"), alter.format(f"ai{n}"), _spec, f"as{n}", f"ai{n}"):
        assert con.catalog.load_table(("specval", f"ai{n}")).metadata.to_json() == before


@pytest.mark.parametrize("order", ORDER_CASES)
def test_write_ordered_by(spark, con, order):
    n = ORDER_CASES.index(order)
    create = "CREATE TABLE specval.{} (" + COLUMNS + ") USING iceberg"
    spark.sql(create.format(f"os{n}"))
    con.execute(create.format(f"oi{n}"))
    alter = "ALTER TABLE specval.{} WRITE ORDERED BY " + order
    before = con.catalog.load_table(("specval", f"oi{n}")).metadata.to_json()
    if _both(
        spark, con, alter.format(f"os{n}"), alter.format(f"oi{n}"), _order, f"os{n}", f"oi{n}"
    ):
        assert con.catalog.load_table(("specval", f"oi{n}")).metadata.to_json() == before
