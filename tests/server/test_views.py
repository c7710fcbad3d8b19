"""``icesql serve``'s view endpoints at the HTTP level: the bodies Java's ``RESTViewBuilder``
and ``RESTViewOperations`` send, the spec's answers (``LoadViewResult``, ``ErrorModel`` with
the status each operation lists), and what is written: the view's metadata file, gzip as
Java's view operations write it, under the warehouse. A refused request changes nothing."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3

import pytest
from rest_support import RestServer, stop_rest_server

from icesql.server import open_server

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 0, "name": "id", "required": False, "type": "long"},
        {"id": 1, "name": "label", "required": False, "type": "string", "doc": "a name"},
    ],
}
TABLE_SCHEMA = {
    "type": "struct",
    "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}],
}
SUMMARY = {"engine-name": "spark", "engine-version": "3.5.8", "iceberg-version": "1.10.2"}


def _version(sql: str = "SELECT id, label FROM db.t", version_id: int = 1, schema_id: int = 0):
    """A ViewVersion as Java's RESTViewBuilder makes one."""
    return {
        "version-id": version_id,
        "timestamp-ms": 1_700_000_000_000 + version_id,
        "schema-id": schema_id,
        "summary": dict(SUMMARY),
        "default-catalog": "rest",
        "default-namespace": ["db"],
        "representations": [{"type": "sql", "sql": sql, "dialect": "spark"}],
    }


def _create_body(name: str = "v", **extra):
    return {
        "name": name,
        "schema": SCHEMA,
        "view-version": _version(),
        "properties": {"comment": "the ids"},
        **extra,
    }


def _error(answer, code, kind, says=None):
    status, body = answer
    assert status == code, body
    assert body["error"]["code"] == code and body["error"]["type"] == kind, body
    assert "Traceback" not in body["error"]["message"], body
    if says is not None:
        assert says in body["error"]["message"], body


def _files(folder):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs)


@pytest.fixture
def db(rest):
    assert rest.request("POST", "namespaces", {"namespace": ["db"]})[0] == 200
    return rest


def test_config_advertises_the_view_endpoints(rest):
    endpoints = rest.request("GET", "config")[1]["endpoints"]
    for endpoint in (
        "GET /v1/{prefix}/namespaces/{namespace}/views",
        "POST /v1/{prefix}/namespaces/{namespace}/views",
        "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "POST /v1/{prefix}/views/rename",
    ):
        assert endpoint in endpoints


def test_a_created_view_is_java_s_first_version_in_a_gzip_file(db):
    status, created = db.request("POST", "namespaces/db/views", _create_body())
    assert status == 200, created
    location = created["metadata-location"]
    assert location.startswith(f"{db.warehouse}/db/v/metadata/00000-")
    assert location.endswith(".gz.metadata.json")
    with open(location, "rb") as f:
        assert json.loads(gzip.decompress(f.read())) == created["metadata"]
    metadata = created["metadata"]
    assert metadata["format-version"] == 1 and len(metadata["view-uuid"]) == 36
    assert metadata["location"] == f"{db.warehouse}/db/v"
    assert metadata["properties"] == {"comment": "the ids"}
    assert metadata["schemas"] == [SCHEMA]
    assert metadata["current-version-id"] == 1
    assert metadata["versions"] == [_version()]  # the client's SQL, summary and namespace
    assert metadata["version-log"] == [{"timestamp-ms": 1_700_000_000_001, "version-id": 1}]
    assert created["config"] == {}
    status, loaded = db.request("GET", "namespaces/db/views/v")
    assert status == 200 and loaded == created
    assert db.request("HEAD", "namespaces/db/views/v") == (204, None)
    assert db.request("HEAD", "namespaces/db/views/nope") == (404, None)
    # a view is no table, and a table no view
    _error(db.request("GET", "namespaces/db/tables/v"), 404, "NoSuchTableException")
    assert db.request("GET", "namespaces/db/tables")[1] == {"identifiers": []}


def test_the_schema_id_sent_is_replaced_by_the_one_assigned(db):
    body = _create_body(
        schema={**SCHEMA, "schema-id": 7}, **{"view-version": _version(schema_id=7)}
    )
    metadata = db.request("POST", "namespaces/db/views", body)[1]["metadata"]
    assert [s["schema-id"] for s in metadata["schemas"]] == [0]
    assert metadata["versions"][0]["schema-id"] == 0


def test_a_given_location_is_kept_and_one_outside_the_warehouse_refused(db):
    body = _create_body(location=f"{db.warehouse}/elsewhere/v/")
    status, created = db.request("POST", "namespaces/db/views", body)
    assert status == 200 and created["metadata"]["location"] == f"{db.warehouse}/elsewhere/v"
    assert created["metadata-location"].startswith(f"{db.warehouse}/elsewhere/v/metadata/")
    answer = db.request("POST", "namespaces/db/views", _create_body("w", location="/tmp/x"))
    _error(answer, 403, "ForbiddenException", says="outside the warehouse")
    assert db.request("HEAD", "namespaces/db/views/w")[0] == 404


def test_names_taken_by_a_view_or_a_table_are_a_409(db):
    assert db.request("POST", "namespaces/db/views", _create_body())[0] == 200
    assert (
        db.request("POST", "namespaces/db/tables", {"name": "t", "schema": TABLE_SCHEMA})[0] == 200
    )
    before = _files(db.warehouse)
    for name in ("v", "t"):
        _error(
            db.request("POST", "namespaces/db/views", _create_body(name)),
            409,
            "AlreadyExistsException",
        )
    answer = db.request("POST", "namespaces/db/tables", {"name": "v", "schema": TABLE_SCHEMA})
    _error(answer, 409, "AlreadyExistsException")
    # table operations never reach a view of the same name
    _error(db.request("DELETE", "namespaces/db/tables/v"), 404, "NoSuchTableException")
    rename = {
        "source": {"namespace": ["db"], "name": "t"},
        "destination": {"namespace": ["db"], "name": "v"},
    }
    _error(db.request("POST", "tables/rename", rename), 409, "AlreadyExistsException")
    _error(db.request("DELETE", "namespaces/db/views/t"), 404, "NoSuchViewException")
    assert db.request("HEAD", "namespaces/db/views/v")[0] == 204
    assert db.request("HEAD", "namespaces/db/tables/t")[0] == 204
    _error(
        db.request("POST", "namespaces/nope/views", _create_body()), 404, "NoSuchNamespaceException"
    )
    assert _files(db.warehouse) == before


def _replace(uuid, sql="SELECT id FROM db.t"):
    """What Java's RESTViewOperations sends for CREATE OR REPLACE VIEW."""
    schema = {"type": "struct", "schema-id": 1, "fields": [SCHEMA["fields"][0]]}
    return {
        "requirements": [{"type": "assert-view-uuid", "uuid": uuid}],
        "updates": [
            {"action": "set-properties", "updates": {"comment": "only ids"}},
            {"action": "add-schema", "schema": schema, "last-column-id": 0},
            {"action": "add-view-version", "view-version": _version(sql, 2, -1)},
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    }


def test_a_replace_is_checked_and_applied_on_the_current_version(db):
    created = db.request("POST", "namespaces/db/views", _create_body())[1]
    uuid = created["metadata"]["view-uuid"]
    status, replaced = db.request("POST", "namespaces/db/views/v", _replace(uuid))
    assert status == 200, replaced
    metadata = replaced["metadata"]
    assert replaced["metadata-location"].startswith(f"{db.warehouse}/db/v/metadata/00001-")
    assert metadata["view-uuid"] == uuid and metadata["current-version-id"] == 2
    assert metadata["properties"] == {"comment": "only ids"}
    assert [s["schema-id"] for s in metadata["schemas"]] == [0, 1]
    assert metadata["versions"][1] == _version("SELECT id FROM db.t", 2, 1)
    assert [e["version-id"] for e in metadata["version-log"]] == [1, 2]
    assert db.request("GET", "namespaces/db/views/v")[1] == replaced
    # a stale UUID (the view dropped and made anew) fails and changes nothing
    answer = db.request("POST", "namespaces/db/views/v", _replace("not-" + uuid))
    _error(answer, 409, "CommitFailedException", says="UUID")
    # the identifier in the body must be the path's; an unknown view is the spec's 404
    other = {**_replace(uuid), "identifier": {"namespace": ["db"], "name": "w"}}
    _error(db.request("POST", "namespaces/db/views/v", other), 400, "BadRequestException")
    _error(db.request("POST", "namespaces/db/views/w", _replace(uuid)), 404, "NoSuchViewException")
    assert db.request("GET", "namespaces/db/views/v")[1] == replaced


def test_a_replace_that_drops_a_dialect_is_a_400(db):
    uuid = db.request("POST", "namespaces/db/views", _create_body())[1]["metadata"]["view-uuid"]
    body = _replace(uuid)
    version = body["updates"][2]["view-version"]
    version["representations"] = [{"type": "sql", "sql": "SELECT 1", "dialect": "trino"}]
    _error(db.request("POST", "namespaces/db/views/v", body), 400, "BadRequestException", "dialect")


def test_views_list_by_pages_rename_and_drop(db):
    for name in ("v3", "v1", "v2"):
        assert db.request("POST", "namespaces/db/views", _create_body(name))[0] == 200
    assert db.request("POST", "namespaces", {"namespace": ["other"]})[0] == 200
    listed = db.request("GET", "namespaces/db/views")[1]
    assert listed == {"identifiers": [{"namespace": ["db"], "name": f"v{i}"} for i in (1, 2, 3)]}
    status, first = db.request("GET", "namespaces/db/views?pageToken=&pageSize=2")
    assert [i["name"] for i in first["identifiers"]] == ["v1", "v2"]
    token = first["next-page-token"]
    status, second = db.request("GET", f"namespaces/db/views?pageToken={token}&pageSize=2")
    assert [i["name"] for i in second["identifiers"]] == ["v3"] and second[
        "next-page-token"
    ] is None
    _error(db.request("GET", "namespaces/nope/views"), 404, "NoSuchNamespaceException")

    def rename(source, target):
        return db.request(
            "POST",
            "views/rename",
            {
                "source": {"namespace": source[:-1], "name": source[-1]},
                "destination": {"namespace": target[:-1], "name": target[-1]},
            },
        )

    assert rename(["db", "v1"], ["other", "moved"]) == (204, None)
    assert db.request("HEAD", "namespaces/other/views/moved")[0] == 204
    assert db.request("HEAD", "namespaces/db/views/v1")[0] == 404
    _error(rename(["db", "v1"], ["db", "x"]), 404, "NoSuchViewException")
    _error(rename(["db", "v2"], ["nope", "x"]), 404, "NoSuchNamespaceException")
    _error(rename(["db", "v2"], ["db", "v3"]), 409, "AlreadyExistsException")
    # a namespace holding a view is not empty
    _error(db.request("DELETE", "namespaces/other"), 409, "NamespaceNotEmptyException")
    location = db.request("GET", "namespaces/other/views/moved")[1]["metadata-location"]
    assert db.request("DELETE", "namespaces/other/views/moved") == (204, None)
    assert not os.path.exists(location)  # as Java's JdbcCatalog: its current metadata file
    _error(db.request("DELETE", "namespaces/other/views/moved"), 404, "NoSuchViewException")
    assert db.request("DELETE", "namespaces/other") == (204, None)


def _bad_create_bodies():
    good = _create_body()
    version = good["view-version"]
    return [
        [],
        {**good, "name": 1},
        {k: v for k, v in good.items() if k != "schema"},
        {k: v for k, v in good.items() if k != "properties"},
        {**good, "location": 5},
        {**good, "properties": {"a": 1}},
        {**good, "schema": {"fields": {}}},
        {**good, "schema": {"fields": [{"id": 1, "name": "x", "type": "nope"}]}},
        {**good, "view-version": []},
        {**good, "view-version": {**version, "summary": {"a": []}}},
        {**good, "view-version": {**version, "default-namespace": "db"}},
        {**good, "view-version": {**version, "default-catalog": 3}},
        {**good, "view-version": {**version, "version-id": "1"}},
        {**good, "view-version": {**version, "timestamp-ms": 2**70}},
        {**good, "view-version": {**version, "representations": []}},
        {**good, "view-version": {**version, "representations": [{"type": "sql", "sql": 1}]}},
        {**good, "view-version": {**version, "representations": [{"type": "other"}]}},
        {
            **good,
            "view-version": {
                **version,
                "representations": [
                    {"type": "sql", "sql": "SELECT 1", "dialect": "spark"},
                    {"type": "sql", "sql": "SELECT 2", "dialect": "Spark"},
                ],
            },
        },
        {**good, "properties": {"version.history.num-entries": "0"}},
    ]


@pytest.mark.parametrize("body", _bad_create_bodies())
def test_a_malformed_create_is_a_400_that_writes_nothing(db, body):
    before = _files(db.warehouse)
    _error(db.request("POST", "namespaces/db/views", body), 400, "BadRequestException")
    assert _files(db.warehouse) == before
    assert db.request("GET", "namespaces/db/views")[1] == {"identifiers": []}


@pytest.mark.parametrize(
    "updates",
    [
        {},
        [1],
        [{"action": "add-snapshot", "snapshot": {}}],
        [{"action": "set-properties", "updates": []}],
        [{"action": "remove-properties", "removals": [1]}],
        [{"action": "set-location", "location": None}],
        [{"action": "add-schema", "schema": []}],
        [{"action": "add-view-version", "view-version": {"version-id": 2}}],
        [{"action": "set-current-view-version", "view-version-id": 99}],
        [{"action": "set-current-view-version", "view-version-id": True}],
        [{"action": "assign-uuid", "uuid": "another"}],
        [{"action": "upgrade-format-version", "format-version": 2}],
    ],
)
def test_a_malformed_replace_is_a_400_that_changes_nothing(db, updates):
    created = db.request("POST", "namespaces/db/views", _create_body())[1]
    before = _files(db.warehouse)
    answer = db.request("POST", "namespaces/db/views/v", {"requirements": [], "updates": updates})
    _error(answer, 400, "BadRequestException")
    assert _files(db.warehouse) == before
    assert db.request("GET", "namespaces/db/views/v")[1] == created


def test_a_set_location_outside_the_warehouse_is_a_403(db):
    created = db.request("POST", "namespaces/db/views", _create_body())[1]
    body = {"updates": [{"action": "set-location", "location": "/tmp/elsewhere"}]}
    _error(db.request("POST", "namespaces/db/views/v", body), 403, "ForbiddenException")
    assert db.request("GET", "namespaces/db/views/v")[1] == created


def test_path_like_view_names_are_refused(db):
    for name in ("..", "a%2Fb", "a\\b"):
        _error(
            db.request("POST", "namespaces/db/views", _create_body(name)),
            400,
            "BadRequestException",
        )
    _error(db.request("GET", "namespaces/db/views/.."), 400, "BadRequestException")
    assert db.request("GET", "namespaces/db/views")[1] == {"identifiers": []}


def test_a_catalog_without_views_advertises_none_and_refuses_them(tmp_path):
    """A SQL catalog database in Java's V0 layout (no ``iceberg_type`` column) keeps no
    views: the server says so in its config and answers each view operation with an error
    its operation lists, never a 5xx."""
    db_path = tmp_path / "catalog.db"
    with sqlite3.connect(db_path) as con:
        con.execute(
            "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace"
            " VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, metadata_location"
            " VARCHAR(1000), previous_metadata_location VARCHAR(1000),"
            " PRIMARY KEY (catalog_name, table_namespace, table_name))"
        )
    warehouse = str(tmp_path / "warehouse")
    server = open_server(warehouse, f"sqlite:///{db_path}", port=0)
    server.serve_in_background()
    rest = RestServer(server, warehouse, f"sqlite:///{db_path}", "rest")
    try:
        endpoints = rest.request("GET", "config")[1]["endpoints"]
        assert not [e for e in endpoints if "/views" in e]
        assert rest.request("POST", "namespaces", {"namespace": ["db"]})[0] == 200
        for method, path, body in (
            ("GET", "namespaces/db/views", None),
            ("POST", "namespaces/db/views", _create_body()),
            ("GET", "namespaces/db/views/v", None),
            ("POST", "namespaces/db/views/v", {"updates": []}),
            ("DELETE", "namespaces/db/views/v", None),
        ):
            _error(rest.request(method, path, body), 400, "BadRequestException", "no iceberg_type")
        assert rest.request("HEAD", "namespaces/db/views/v")[0] == 400
        rename = {
            "source": {"namespace": ["db"], "name": "v"},
            "destination": {"namespace": ["db"], "name": "w"},
        }
        _error(rest.request("POST", "views/rename", rename), 406, "UnsupportedOperationException")
        assert rest.request("DELETE", "namespaces/db") == (204, None)
    finally:
        stop_rest_server(rest)
