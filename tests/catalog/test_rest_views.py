"""Views through the REST catalog client against a real ``icesql serve``, with PyIceberg's
RestCatalog as the other client of the same server: icesql's views are PyIceberg's to list,
load and drop, and PyIceberg's are icesql's to load. A proxy in front of the server changes
what its config advertises, or answers a commit as a failing server would."""

from __future__ import annotations

import json

import pytest

import icesql
from catalog.test_rest import FaultProxy
from icesql.catalog.base import CommitFailedError, CommitStateUnknownError
from icesql.catalog.rest import RestCatalog
from icesql.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NoSuchViewError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.metadata.view_updates import create_updates, replace_updates
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField, StringType

SCHEMA = Schema(
    (
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "label", StringType(), required=False, doc="a name"),
    )
)
SUMMARY = {"engine-name": "icesql", "engine-version": "test"}


def _updates(rest, name="v", sql="SELECT id, label FROM db.t", located=True, **properties):
    updates = create_updates(
        "uuid-of-the-client",
        f"{rest.warehouse}/db/{name}",
        SCHEMA,
        sql,
        ("db",),
        "rest",
        properties,
        SUMMARY,
        now_ms=1_700_000_000_000,
    )
    return [u for u in updates if located or u["action"] != "set-location"]


@pytest.fixture
def catalog(rest):
    catalog = RestCatalog("rest", rest.uri)
    catalog.create_namespace(("db",))
    yield catalog
    catalog.close()


def test_create_load_replace_rename_and_drop(rest, catalog):
    assert catalog.supports_views
    created = catalog.create_view(("db", "v"), _updates(rest, comment="ids"))
    md = created.metadata
    assert md.uuid != "uuid-of-the-client"  # the server assigns it, as Java's does
    assert md.location == f"{rest.warehouse}/db/v" and md.properties == {"comment": "ids"}
    assert md.sql_for("spark") == "SELECT id, label FROM db.t" and md.schema.fields == SCHEMA.fields
    assert dict(md.current_version.summary) == SUMMARY
    assert md.current_version.default_namespace == ("db",)
    assert md.current_version.default_catalog == "rest"
    assert md.current_version.timestamp_ms == 1_700_000_000_000
    loaded = catalog.load_view(("db", "v"))
    assert loaded.metadata_location == created.metadata_location
    assert loaded.metadata.raw == md.raw
    assert catalog.list_views(("db",)) == [("db", "v")]
    assert catalog.view_exists(("db", "v")) and not catalog.view_exists(("db", "w"))
    assert catalog.list_tables(("db",)) == [] and not catalog.table_exists(("db", "v"))

    narrower = Schema((SCHEMA.fields[0],))
    replaced = catalog.commit_view(
        ("db", "v"), [], replace_updates(narrower, "SELECT id FROM db.t", ("db",), None, {}, {})
    )
    assert replaced.metadata.current_version_id == 2
    assert replaced.metadata.sql_for("spark") == "SELECT id FROM db.t"
    assert replaced.metadata.schema.fields == narrower.fields
    assert catalog.load_view(("db", "v")).metadata_location == replaced.metadata_location

    catalog.create_namespace(("other",))
    catalog.rename_view(("db", "v"), ("other", "v"))
    assert catalog.list_views(("db",)) == [] and catalog.list_views(("other",)) == [("other", "v")]
    catalog.drop_view(("other", "v"))
    assert not catalog.view_exists(("other", "v"))


def test_errors_are_the_catalog_errors_of_views(rest, catalog):
    catalog.create_view(("db", "v"), _updates(rest))
    with pytest.raises(AlreadyExistsError, match=r"view db\.v .*AlreadyExistsException"):
        catalog.create_view(("db", "v"), _updates(rest))
    with pytest.raises(NoSuchNamespaceError):
        catalog.create_view(("nope", "v"), _updates(rest))
    with pytest.raises(NoSuchNamespaceError):
        catalog.list_views(("nope",))
    with pytest.raises(NoSuchViewError, match=r"db\.w"):
        catalog.load_view(("db", "w"))
    with pytest.raises(NoSuchViewError):
        catalog.drop_view(("db", "w"))
    with pytest.raises(NoSuchViewError):
        catalog.rename_view(("db", "w"), ("db", "x"))
    with pytest.raises(NoSuchViewError):
        catalog.commit_view(("db", "w"), [], [])
    with pytest.raises(NoSuchNamespaceError):
        catalog.rename_view(("db", "v"), ("nope", "v"))
    catalog.create_view(("db", "w"), _updates(rest, "w"))
    with pytest.raises(AlreadyExistsError):
        catalog.rename_view(("db", "v"), ("db", "w"))
    with pytest.raises(ProgrammingError, match="views are named namespace.view"):
        catalog.create_view(("v",), _updates(rest))
    uuid = catalog.load_view(("db", "v")).metadata.uuid
    stale = [{"type": "assert-view-uuid", "uuid": "not-" + uuid}]
    with pytest.raises(CommitFailedError, match="UUID"):
        catalog.commit_view(("db", "v"), stale, [{"action": "set-properties", "updates": {}}])


def test_a_view_without_a_location_is_placed_by_the_server(rest, catalog):
    view = catalog.create_view(("db", "v"), _updates(rest, located=False))
    assert view.metadata.location == f"{rest.warehouse}/db/v"
    assert view.metadata_location.startswith(f"{rest.warehouse}/db/v/metadata/00000-")


def _without_view_endpoints(method: str, path: str, data: bytes) -> bytes:
    if not path.startswith("/v1/config"):
        return data
    config = json.loads(data)
    config["endpoints"] = [e for e in config["endpoints"] if "/views" not in e]
    return json.dumps(config).encode()


def _listing_no_endpoints(method: str, path: str, data: bytes) -> bytes:
    if not path.startswith("/v1/config"):
        return data
    return json.dumps({**json.loads(data), "endpoints": []}).encode()


def test_views_are_used_only_where_the_config_lists_them(rest, catalog):
    catalog.create_view(("db", "v"), _updates(rest))
    proxy = FaultProxy(rest.uri, lambda m, p: None, rewrite=_without_view_endpoints)
    try:
        blind = RestCatalog("rest", proxy.uri)
        try:
            assert not blind.supports_views
            assert blind.list_views(("db",)) == [] and not blind.view_exists(("db", "v"))
            with pytest.raises(NoSuchViewError):
                blind.load_view(("db", "v"))
            for call in (
                lambda: blind.create_view(("db", "w"), _updates(rest, "w")),
                lambda: blind.commit_view(("db", "v"), [], []),
                lambda: blind.drop_view(("db", "v")),
                lambda: blind.rename_view(("db", "v"), ("db", "w")),
            ):
                with pytest.raises(
                    NotSupportedError, match="does not list 'POST|does not list 'DEL"
                ):
                    call()
        finally:
            blind.close()
        assert catalog.view_exists(("db", "v")) and not catalog.view_exists(("db", "w"))
    finally:
        proxy.close()
    # a server that lists no endpoints at all has views only when told (Java's property)
    proxy = FaultProxy(rest.uri, lambda m, p: None, rewrite=_listing_no_endpoints)
    try:
        for properties, supported in (({}, False), ({"view-endpoints-supported": "true"}, True)):
            other = RestCatalog("rest", proxy.uri, properties=properties)
            try:
                assert other.supports_views is supported
                assert other.list_views(("db",)) == ([("db", "v")] if supported else [])
            finally:
                other.close()
    finally:
        proxy.close()


def test_a_commit_answered_500_or_lost_is_an_unknown_outcome(rest, catalog):
    catalog.create_view(("db", "v"), _updates(rest))

    def is_commit(method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/views/v")

    change = [{"action": "set-properties", "updates": {"k": "v"}}]
    for fault, landed in ((500, False), ("lose", True)):
        proxy = FaultProxy(rest.uri, lambda m, p, f=fault: f if is_commit(m, p) else None)
        try:
            flaky = RestCatalog("rest", proxy.uri)
            try:
                with pytest.raises(CommitStateUnknownError, match="may have succeeded"):
                    flaky.commit_view(("db", "v"), [], change)
            finally:
                flaky.close()
        finally:
            proxy.close()
        assert ("k" in catalog.load_view(("db", "v")).metadata.properties) is landed


def test_pyiceberg_lists_loads_and_drops_icesqls_views(rest, catalog):
    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRest

    catalog.create_view(("db", "v"), _updates(rest))
    catalog.create_view(("db", "w"), _updates(rest, "w", sql="SELECT 1 AS id"))
    with PyIcebergRest("rest", uri=rest.uri) as theirs:
        assert sorted(theirs.list_views("db")) == [("db", "v"), ("db", "w")]
        assert theirs.view_exists("db.v") and not theirs.view_exists("db.nope")
        view = theirs.load_view("db.v")
        assert view.sql_for("spark").sql == "SELECT id, label FROM db.t"
        assert [(f.field_id, f.name, f.doc) for f in view.schema().fields] == [
            (1, "id", None),
            (2, "label", "a name"),
        ]
        assert view.current_version().summary == SUMMARY
        assert view.metadata.view_uuid == catalog.load_view(("db", "v")).metadata.uuid
        theirs.drop_view("db.v")
        assert theirs.list_views("db") == [("db", "w")]
    assert catalog.list_views(("db",)) == [("db", "w")]
    assert not catalog.view_exists(("db", "v"))


def test_icesql_loads_a_view_pyiceberg_created(rest, catalog):
    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRest
    from pyiceberg.view.metadata import SQLViewRepresentation, ViewVersion

    with PyIcebergRest("rest", uri=rest.uri) as theirs:
        theirs.create_view(
            "db.p",
            pa.schema([pa.field("n", pa.int64()), pa.field("s", pa.string())]),
            ViewVersion(
                schema_id=0,
                summary={"engine-name": "pyiceberg"},
                representations=[
                    SQLViewRepresentation(
                        type="sql", sql="SELECT 1 AS n, 'a' AS s", dialect="spark"
                    )
                ],
                default_namespace=("db",),
            ),
            properties={"owner": "ana"},
        )
    view = catalog.load_view(("db", "p"))
    assert view.metadata.sql_for("spark") == "SELECT 1 AS n, 'a' AS s"
    assert [f.name for f in view.metadata.schema.fields] == ["n", "s"]
    assert dict(view.metadata.current_version.summary) == {"engine-name": "pyiceberg"}
    assert view.metadata.properties == {"owner": "ana"}
    assert view.metadata.location == f"{rest.warehouse}/db/p"


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
