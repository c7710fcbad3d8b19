"""Iceberg views shared by Spark 3.5 + Iceberg 1.10 and icesql in one JDBC (SQLite) catalog:
each reads, describes and lists the views the other creates, replaces and alters, with the
same rows, the same ``SHOW CREATE TABLE`` text and the same ``DESCRIBE EXTENDED`` rows."""

from __future__ import annotations

import pytest
from spark_support import jdbc_catalog_conf, spark_jdbc_catalog_available

import icesql

pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(
        not spark_jdbc_catalog_available(),
        reason="no SQLite JDBC driver for Spark (Debian's libxerial-sqlite-jdbc-java)",
    ),
]

CATALOG = "jviews"  # one JdbcCatalog per SQLite file in the JVM (SPARK.md)


@pytest.fixture(scope="module")
def shared(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("jdbc-views")
    sqlite, warehouse = str(root / "catalog.db"), str(root / "wh")
    for key, value in jdbc_catalog_conf(sqlite, warehouse, CATALOG).items():
        spark.conf.set(key, value)
    spark.sql(f"CREATE NAMESPACE {CATALOG}.db")
    spark.sql(f"CREATE TABLE {CATALOG}.db.t (id BIGINT, data STRING) USING iceberg")
    spark.sql(f"INSERT INTO {CATALOG}.db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    catalogs = {CATALOG: {"type": "jdbc", "uri": f"sqlite:///{sqlite}", "warehouse": warehouse}}
    with icesql.connect(catalogs=catalogs, default=CATALOG) as con:
        con.execute("USE db")
        yield con


def spark_rows(spark, sql):
    return [tuple(r) for r in spark.sql(sql).collect()]


def ice_rows(con, sql):
    return [tuple(r) for r in con.execute(sql).fetchall()]


def in_catalog(spark, statement):
    """Run ``statement`` with ``jviews.db`` current, as a user's session would, then give the
    shared session its catalog back."""
    before = spark.catalog.currentCatalog(), spark.catalog.currentDatabase()
    spark.sql(f"USE {CATALOG}.db")
    try:
        spark.sql(statement).collect()
    finally:
        spark.sql(f"USE {'.'.join(p for p in before if p)}")


def same_descriptions(spark, con, name):
    full = f"{CATALOG}.db.{name}"
    for sql in (f"SHOW CREATE TABLE {full}", f"DESCRIBE EXTENDED {full}", f"DESCRIBE {full}"):
        assert ice_rows(con, sql) == spark_rows(spark, sql), sql
    assert sorted(ice_rows(con, f"SHOW TBLPROPERTIES {full}")) == sorted(
        spark_rows(spark, f"SHOW TBLPROPERTIES {full}")
    )


def persistent_views(rows):
    return sorted(r for r in rows if not r[2])


def test_icesql_reads_the_views_spark_creates(spark, shared):
    in_catalog(
        spark,
        "CREATE VIEW sv (k COMMENT 'the key', d) COMMENT 'by spark' TBLPROPERTIES ('p'='1')"
        " AS SELECT id, upper(data) FROM t WHERE id > 1",
    )
    query = f"SELECT * FROM {CATALOG}.db.sv ORDER BY k"
    assert ice_rows(shared, query) == spark_rows(spark, query) == [(2, "B"), (3, "C")]
    assert ice_rows(shared, "SELECT d FROM sv WHERE k = 3") == [("C",)]
    same_descriptions(spark, shared, "sv")


def test_spark_reads_the_views_icesql_creates_replaces_and_alters(spark, shared):
    shared.execute(
        "CREATE VIEW iv (n COMMENT 'count') COMMENT 'by icesql' TBLPROPERTIES ('q'='2')"
        " AS SELECT count(*) FROM t WHERE id <= 2"
    )
    query = f"SELECT * FROM {CATALOG}.db.iv"
    assert spark_rows(spark, query) == ice_rows(shared, query) == [(2,)]
    same_descriptions(spark, shared, "iv")
    shared.execute("CREATE OR REPLACE VIEW iv AS SELECT id, data FROM t WHERE id = 3")
    shared.execute("ALTER VIEW iv SET TBLPROPERTIES ('r'='3')")
    query = f"SELECT * FROM {CATALOG}.db.iv"
    assert spark_rows(spark, query) == ice_rows(shared, query) == [(3, "c")]
    same_descriptions(spark, shared, "iv")
    shown = f"SHOW VIEWS IN {CATALOG}.db"
    assert persistent_views(ice_rows(shared, shown)) == persistent_views(spark_rows(spark, shown))


def test_each_replaces_renames_and_drops_the_others_views(spark, shared):
    in_catalog(spark, "CREATE OR REPLACE VIEW both_ AS SELECT id FROM t")
    shared.execute("CREATE OR REPLACE VIEW both_ AS SELECT max(id) AS top FROM t")
    assert spark_rows(spark, f"SELECT * FROM {CATALOG}.db.both_") == [(3,)]
    in_catalog(spark, "ALTER VIEW both_ RENAME TO both2")
    assert ice_rows(shared, "SELECT * FROM both2") == [(3,)]
    shared.execute("DROP VIEW both2")
    shown = f"SHOW VIEWS IN {CATALOG}.db"
    assert "both2" not in {r[1] for r in spark_rows(spark, shown)}
    assert persistent_views(ice_rows(shared, shown)) == persistent_views(spark_rows(spark, shown))


def _spark_error(spark, sql):
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as caught:
        spark.sql(sql).collect()
    return caught.value


def test_a_view_whose_table_changed_is_read_as_spark_reads_it(spark, shared):
    """Columns by position, up-cast to the view's types: a column widened past the view's
    type is refused by both, a column dropped under a ``*`` too; a new column is ignored."""
    in_catalog(spark, "CREATE TABLE evolving (a INT, b STRING, c BIGINT) USING iceberg")
    in_catalog(spark, "INSERT INTO evolving VALUES (1, 'x', 10)")
    in_catalog(spark, "CREATE VIEW over_evolving AS SELECT * FROM evolving")
    query = f"SELECT * FROM {CATALOG}.db.over_evolving"
    shared.execute("ALTER TABLE evolving ADD COLUMN d INT")
    assert ice_rows(shared, query) == spark_rows(spark, query) == [(1, "x", 10)]
    shared.execute("ALTER TABLE evolving DROP COLUMN b")  # c moves to b's place: a string
    assert ice_rows(shared, query) == spark_rows(spark, query) == [(1, "10", None)]
    shared.execute("ALTER TABLE evolving ALTER COLUMN a TYPE BIGINT")
    assert "CANNOT_UP_CAST_DATATYPE" in str(_spark_error(spark, query))
    with pytest.raises(
        icesql.ProgrammingError, match=r"CANNOT_UP_CAST_DATATYPE.*\"BIGINT\" to \"INT\""
    ):
        shared.execute(query)


def test_a_view_over_fewer_columns_than_its_schema_is_refused_by_both(spark, shared):
    """Spark 3.5 answers an internal error here; icesql names the view and the column."""
    in_catalog(spark, "CREATE TABLE shrinking (a INT, b STRING) USING iceberg")
    in_catalog(spark, "CREATE VIEW over_shrinking AS SELECT * FROM shrinking")
    shared.execute("ALTER TABLE shrinking DROP COLUMN b")
    query = f"SELECT * FROM {CATALOG}.db.over_shrinking"
    with pytest.raises(Exception, match="INTERNAL_ERROR"):  # Spark fails an assertion
        spark.sql(query).collect()
    with pytest.raises(icesql.ProgrammingError, match="INCOMPATIBLE_VIEW_SCHEMA_CHANGE"):
        shared.execute(query)
