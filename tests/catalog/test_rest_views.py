"""Iceberg views through the REST catalog client and a real ``icesql serve``: created,
read, replaced, altered, renamed and dropped by icesql, and listed, checked and dropped by
PyIceberg's ``RestCatalog`` (the other client of the server)."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import NoSuchTableError


@pytest.fixture
def con(rest):
    catalogs = {"r": {"type": "rest", "uri": rest.uri}}
    with icesql.connect(catalogs=catalogs, default="r") as connection:
        connection.execute("CREATE NAMESPACE db")
        connection.execute("CREATE TABLE db.t (id BIGINT)")
        connection.execute("INSERT INTO db.t VALUES (1), (2)")
        yield connection


def rows(con, sql):
    return con.execute(sql).fetchall()


def test_the_server_advertises_its_view_endpoints(rest):
    status, config = rest.request("GET", "config")
    assert status == 200
    assert "GET /v1/{prefix}/namespaces/{namespace}/views/{view}" in config["endpoints"]


def test_views_through_the_rest_client(con):
    con.execute("CREATE VIEW db.v (n COMMENT 'c') AS SELECT id * 10 FROM db.t")
    assert rows(con, "SELECT * FROM db.v ORDER BY n") == [(10,), (20,)]
    assert rows(con, "DESCRIBE db.v") == [("n", "bigint", "c")]
    con.execute("CREATE OR REPLACE VIEW db.v AS SELECT max(id) AS m FROM db.t")
    assert rows(con, "SELECT * FROM db.v") == [(2,)]
    con.execute("ALTER VIEW db.v SET TBLPROPERTIES ('a'='b')")
    assert dict(rows(con, "SHOW TBLPROPERTIES db.v"))["a"] == "b"
    view = con.engine.catalogs["r"].load_view(("db", "v"))
    assert [v.version_id for v in view.metadata.versions] == [1, 2]
    con.execute("ALTER VIEW db.v RENAME TO db.w")
    assert rows(con, "SHOW VIEWS IN db") == [("db", "w", False)]
    con.execute("DROP VIEW db.w")
    assert rows(con, "SHOW VIEWS IN db") == []
    with pytest.raises(NoSuchTableError, match="VIEW_NOT_FOUND"):
        con.execute("DROP VIEW db.w")


def test_pyiceberg_lists_checks_and_drops_icesqls_views(rest, con):
    from pyiceberg.catalog.rest import RestCatalog

    con.execute("CREATE VIEW db.p AS SELECT 1 AS x")
    client = RestCatalog("r", uri=rest.uri)
    assert client.list_views("db") == [("db", "p")]
    assert client.view_exists("db.p") and not client.view_exists("db.nope")
    client.drop_view("db.p")
    assert rows(con, "SHOW VIEWS IN db") == []
