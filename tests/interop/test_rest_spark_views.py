"""Spark 3.5's Iceberg ``RESTCatalog`` keeps views in ``icesql serve`` (issue #46): the
shared session's catalog ``rest`` is the session-wide server ``spark_rest``
(``tests/conftest.py``). Spark's ``CREATE VIEW`` / ``SELECT`` / ``SHOW VIEWS`` /
``CREATE OR REPLACE VIEW`` / ``ALTER VIEW`` / ``DROP VIEW`` run through the server's view
endpoints, and the views load in icesql's REST client with Spark's SQL text, schema and
summary; a view icesql's client creates is one Spark reads."""

from __future__ import annotations

import pytest
import spark_support
from spark_support import assert_same_rows

from icesql.catalog.rest import RestCatalog
from icesql.metadata.view_updates import create_updates
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField, StringType

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(
        not spark_support.spark_rest_catalog_available(),
        reason="Spark's RESTCatalog needs HttpClient 5 (apt-get install libhttpclient5-java"
        " libhttpcore5-java) or $ICESQL_SPARK_JARS",
    ),
]

QUERY = "SELECT id, upper(s) AS label FROM rest.spv.t WHERE id > 1"


@pytest.fixture
def catalog(spark_rest):
    catalog = RestCatalog("rest", spark_rest.uri)
    yield catalog
    catalog.close()


@pytest.fixture
def spv(spark):
    """Namespace ``rest.spv`` with table ``t``; dropped with its views after the test."""
    spark.sql("CREATE NAMESPACE rest.spv")
    spark.sql("CREATE TABLE rest.spv.t (id BIGINT, s STRING) USING iceberg")
    spark.sql("INSERT INTO rest.spv.t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    yield spark
    for name in _catalog_views(spark):
        spark.sql(f"DROP VIEW rest.spv.{name}")
    spark.sql("DROP TABLE rest.spv.t PURGE")
    spark.sql("DROP NAMESPACE rest.spv")


def _catalog_views(spark) -> list[str]:
    """``SHOW VIEWS`` also lists the shared session's temporary views; only the catalog's count."""
    rows = spark.sql("SHOW VIEWS IN rest.spv").collect()
    return [r.viewName for r in rows if not r.isTemporary]


@pytest.mark.spark
def test_sparks_view_lives_in_the_server_and_loads_in_icesql(spv, catalog):
    spark = spv
    spark.sql(f"CREATE VIEW rest.spv.v COMMENT 'labels' AS {QUERY}")
    assert_same_rows(
        spark.sql(QUERY).collect(), spark.sql("SELECT * FROM rest.spv.v").collect(), ordered=False
    )
    assert _catalog_views(spark) == ["v"]
    assert catalog.list_views(("spv",)) == [("spv", "v")]
    assert catalog.list_tables(("spv",)) == [("spv", "t")]

    view = catalog.load_view(("spv", "v"))
    md = view.metadata
    assert view.metadata_location.endswith(".gz.metadata.json")
    assert md.sql_for("spark") == QUERY  # the text Spark recorded, as written
    spark_schema = spark.table("rest.spv.v").schema
    assert [f.name for f in md.schema.fields] == [f.name for f in spark_schema.fields]
    assert [f.type for f in md.schema.fields] == [LongType(), StringType()]
    summary = md.current_version.summary
    assert summary["engine-name"] == "spark" and summary["engine-version"] == spark.version
    assert summary["app-id"] == spark.sparkContext.applicationId
    assert summary["iceberg-version"].startswith("Apache Iceberg 1.10")
    # Spark's current catalog and namespace (the hadoop catalog ``local`` names none)
    assert md.current_version.default_catalog == spark.catalog.currentCatalog() == "local"
    assert md.current_version.default_namespace == ()
    assert md.properties["spark.query-column-names"] == "id,label"
    assert md.properties["comment"] == "labels"

    # a replace is a commit asserting the view's UUID; an ALTER sets its properties
    spark.sql("CREATE OR REPLACE VIEW rest.spv.v AS SELECT id FROM rest.spv.t")
    spark.sql("ALTER VIEW rest.spv.v SET TBLPROPERTIES ('team' = 'ana')")
    replaced = catalog.load_view(("spv", "v")).metadata
    assert replaced.uuid == md.uuid and replaced.current_version_id == 2
    assert replaced.sql_for("spark") == "SELECT id FROM rest.spv.t"
    assert [f.name for f in replaced.schema.fields] == ["id"]
    assert replaced.properties["team"] == "ana"
    assert [r.id for r in spark.sql("SELECT * FROM rest.spv.v ORDER BY id").collect()] == [1, 2, 3]

    spark.sql("DROP VIEW rest.spv.v")
    assert _catalog_views(spark) == []
    assert catalog.list_views(("spv",)) == [] and not catalog.view_exists(("spv", "v"))


@pytest.mark.spark
def test_a_view_icesql_creates_through_the_server_is_read_by_spark(spv, catalog, spark_rest):
    spark = spv
    sql = "SELECT id, s FROM rest.spv.t WHERE s IS NOT NULL"
    schema = Schema(
        (
            NestedField(0, "id", LongType(), required=False),
            NestedField(1, "s", StringType(), required=False),
        )
    )
    updates = create_updates(
        "ignored",
        f"{spark_rest.warehouse}/spv/iv",
        schema,
        sql,
        ("spv",),
        None,
        {},
        {"engine-name": "icesql"},
    )
    catalog.create_view(("spv", "iv"), updates)
    assert _catalog_views(spark) == ["iv"]
    assert_same_rows(
        spark.sql(sql).collect(),
        spark.sql("SELECT * FROM rest.spv.iv").collect(),
        ordered=False,
    )
    spark.sql("DROP VIEW rest.spv.iv")
    assert not catalog.view_exists(("spv", "iv"))
