"""A query icesql keeps by its text (``icesql.engine.plan_cache``) sees what Spark commits
between two runs of it: new rows, deleted rows, a new column."""

from __future__ import annotations


def test_a_repeated_query_sees_each_spark_commit(spark, con):
    ns = "w_kept_queries"
    con.execute(f"DROP NAMESPACE IF EXISTS {ns} CASCADE")
    con.execute(f"CREATE NAMESPACE {ns}")
    con.execute(
        f"CREATE TABLE {ns}.t (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='2')"
    )
    con.execute(f"INSERT INTO {ns}.t VALUES (1), (2)")
    count = f"SELECT count(*), sum(id) FROM {ns}.t"
    star = f"SELECT * FROM {ns}.t WHERE id >= 2 ORDER BY id"
    assert con.execute(count).fetchall() == [(2, 3)]
    assert con.execute(star).fetchall() == [(2,)]
    kept = len(con.engine._kept.queries)
    spark.sql(f"REFRESH TABLE {ns}.t")
    spark.sql(f"INSERT INTO {ns}.t VALUES (10)")
    assert con.execute(count).fetchall() == [(3, 13)]
    spark.sql(f"DELETE FROM {ns}.t WHERE id = 1")
    assert con.execute(count).fetchall() == [(2, 12)]
    spark.sql(f"ALTER TABLE {ns}.t ADD COLUMN note STRING")
    spark.sql(f"INSERT INTO {ns}.t VALUES (20, 'x')")
    assert con.execute(star).fetchall() == [(2, None), (10, None), (20, "x")]
    assert con.execute(count).fetchall() == [(3, 32)]
    assert len(con.engine._kept.queries) == kept  # the same texts, planned again in place
