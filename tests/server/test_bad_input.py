"""``icesql serve`` under hostile input (issue #44, found by fuzzing): every case is a 4xx
ErrorModel naming what was wrong, writes nothing to the warehouse or the catalog, puts no
local path in its message, and leaves the server serving."""

from __future__ import annotations

import http.client
import json
import os
from urllib.parse import quote

import pytest
from rest_support import RestServer, stop_rest_server

from icesql.catalog.base import CommitStateUnknownError
from icesql.errors import CorruptFileError, OperationalError
from icesql.server import open_server
from icesql.server.operations import client_statuses
from icesql.server.routes import error_response

SCHEMA = {
    "type": "struct",
    "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}],
}


def _files(folder):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs)


@pytest.fixture
def served(rest):
    """A server with namespace ``db`` and table ``db.t``; after the test, the warehouse's
    files and the catalog's names are as before and the server still answers."""
    assert rest.request("POST", "namespaces", {"namespace": ["db"]})[0] == 200
    assert rest.request("POST", "namespaces/db/tables", {"name": "t", "schema": SCHEMA})[0] == 200
    before = _files(rest.warehouse), rest.request("GET", "namespaces")[1]
    yield rest
    assert (_files(rest.warehouse), rest.request("GET", "namespaces")[1]) == before
    assert rest.request("GET", "namespaces/db/tables")[1] == {
        "identifiers": [{"namespace": ["db"], "name": "t"}]
    }
    assert rest.request("GET", "config")[0] == 200


def _refused(answer, code=400, kind="BadRequestException", says=None):
    status, body = answer
    assert status == code, body
    assert body["error"]["code"] == code and body["error"]["type"] == kind, body
    message = body["error"]["message"]
    assert "Traceback" not in message and "catalog.db" not in message, message
    if says is not None:
        assert says in message, message
    return message


COMMIT_PATH = "namespaces/db/tables/t"


@pytest.mark.parametrize("action", [{}, [], 1, None, True])
def test_an_update_action_of_the_wrong_type_is_a_400(served, action):
    body = {"requirements": [], "updates": [{"action": action}]}
    _refused(served.request("POST", COMMIT_PATH, body), says="action")
    change = {"identifier": {"namespace": ["db"], "name": "t"}, **body}
    _refused(served.request("POST", "transactions/commit", {"table-changes": [change]}))


@pytest.mark.parametrize(
    "body",
    [
        {"requirements": [{"type": {}}], "updates": []},
        {"requirements": {}, "updates": []},
        {"requirements": [], "updates": [{"action": "set-properties", "updates": []}]},
        {"requirements": [], "updates": [{"action": "add-schema", "schema": []}]},
        {"requirements": [], "updates": [{"action": "add-schema", "schema": {"fields": {}}}]},
        {"requirements": [], "updates": [{"action": "add-spec", "spec": {"fields": [[]]}}]},
        {"requirements": [], "updates": [{"action": "add-snapshot", "snapshot": {"x": []}}]},
        {"requirements": [], "updates": [{"action": "remove-snapshots", "snapshot-ids": "1"}]},
        # integers given as strings: refused by name, not converted
        {"requirements": [], "updates": [{"action": "add-spec", "spec": {"spec-id": "1"}}]},
        {
            "requirements": [],
            "updates": [
                {
                    "action": "add-spec",
                    "spec": {"fields": [{"source-id": "1", "transform": "identity", "name": "p"}]},
                }
            ],
        },
        {
            "requirements": [],
            "updates": [{"action": "add-sort-order", "sort-order": {"order-id": "1"}}],
        },
        {"identifier": [], "requirements": [], "updates": []},
        {"identifier": {"namespace": "db", "name": "t"}, "requirements": [], "updates": []},
    ],
)
def test_wrong_types_inside_a_commit_are_a_400(served, body):
    _refused(served.request("POST", COMMIT_PATH, body))


@pytest.mark.parametrize(
    "path, body",
    [
        ("namespaces", {"namespace": "db"}),
        ("namespaces", {"namespace": [1]}),
        ("namespaces", {"namespace": ["x"], "properties": []}),
        ("namespaces/db/properties", {"removals": {}, "updates": {}}),
        ("namespaces/db/properties", {"updates": {"k": 1}}),
        ("namespaces/db/tables", {"name": ["x"], "schema": SCHEMA}),
        ("namespaces/db/tables", {"name": "x", "schema": []}),
        ("namespaces/db/tables", {"name": "x", "schema": SCHEMA, "partition-spec": []}),
        ("namespaces/db/tables", {"name": "x", "schema": SCHEMA, "write-order": "x"}),
        ("namespaces/db/tables", {"name": "x", "schema": SCHEMA, "location": 1}),
        ("namespaces/db/register", {"name": "x", "metadata-location": {}}),
        ("tables/rename", {"source": [], "destination": {}}),
        ("transactions/commit", {"table-changes": {}}),
        ("transactions/commit", {"table-changes": [[]]}),
    ],
)
def test_wrong_types_in_other_bodies_are_a_400(served, path, body):
    _refused(served.request("POST", path, body))


WRITE_PATHS = [
    "namespaces",
    "namespaces/db/properties",
    "namespaces/db/tables",
    "namespaces/db/register",
    COMMIT_PATH,
    "tables/rename",
    "transactions/commit",
]


@pytest.mark.parametrize("path", WRITE_PATHS)
def test_json_nested_100000_levels_deep_is_a_400(served, path):
    deep = b"[" * 100_000 + b"]" * 100_000
    _refused(served.request("POST", path, raw=deep), says="nested deeper than 200 levels")
    shallow_but_over = b'{"a":' * 300 + b"1" + b"}" * 300
    _refused(served.request("POST", path, raw=shallow_but_over), says="nested deeper")


def test_a_body_over_the_limit_is_a_413_error_model_before_it_is_read(rest):
    """waitress refuses it from the Content-Length (ours, not its text/plain page)."""
    conn = http.client.HTTPConnection("127.0.0.1", rest.server.port, timeout=30)
    try:
        conn.putrequest("POST", "/v1/namespaces")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", str(70 * 1024 * 1024))
        conn.endheaders()
        conn.send(b'{"namespace": ["' + b"x" * 1024)
        response = conn.getresponse()
        assert response.getheader("Content-Type") == "application/json"
        _refused((response.status, json.loads(response.read())), 413, says="limit of 67108864")
    finally:
        conn.close()
    assert rest.request("GET", "namespaces")[1] == {"namespaces": []}


@pytest.mark.server
def test_the_limits_are_configurable(tmp_path):
    server = open_server(
        str(tmp_path / "wh"),
        f"sqlite:///{tmp_path / 'c.db'}",
        port=0,
        max_body_bytes=100,
        max_json_depth=3,
    )
    server.serve_in_background()
    rest = RestServer(server, str(tmp_path / "wh"), "", "rest")
    try:
        _refused(rest.request("POST", "namespaces", {"namespace": ["x" * 200]}), 413)
        _refused(rest.request("POST", "namespaces", {"namespace": [[["x"]]]}), says="3 levels")
        assert rest.request("POST", "namespaces", {"namespace": ["x"]})[0] == 200
    finally:
        stop_rest_server(rest)


def test_a_table_name_over_255_bytes_is_refused_before_anything_is_written(served):
    for name in ("t" * 256, "é" * 128):
        body = {"name": name, "schema": SCHEMA}
        _refused(served.request("POST", "namespaces/db/tables", body), says="255 bytes")
        body = {"name": name, "metadata-location": f"{served.warehouse}/x.metadata.json"}
        _refused(served.request("POST", "namespaces/db/register", body), says="255 bytes")
        _refused(served.request("GET", f"namespaces/db/tables/{quote(name)}"), says="255")
    longest = {"name": "t" * 255, "schema": SCHEMA, "stage-create": True}
    assert served.request("POST", "namespaces/db/tables", longest)[0] == 200


def test_a_namespace_of_100k_characters_is_a_400_without_a_local_path(served):
    long = "n" * 100_000
    _refused(served.request("POST", "namespaces", {"namespace": [long]}), says="255 bytes")
    for method in ("GET", "HEAD", "DELETE"):
        status, _ = served.request(method, f"namespaces/{long}")
        assert status == 400
    _refused(served.request("GET", f"namespaces?parent={long}"))
    _refused(served.request("GET", f"namespaces/{long}/tables"))
    many = ["n" * 200] * 10  # each level fits a file name, all of them no path
    _refused(served.request("POST", "namespaces", {"namespace": many}), says="in all")


@pytest.mark.parametrize("level", ["a\x1fb", "a\nb", "tab\t", "\x7f", "\x9b"])
def test_control_characters_in_a_name_are_a_400(served, level):
    _refused(served.request("POST", "namespaces", {"namespace": [level]}), says="control")
    _refused(served.request("POST", "namespaces", {"namespace": ["db", level]}))
    body = {"name": level, "schema": SCHEMA}
    _refused(served.request("POST", "namespaces/db/tables", body), says="control")
    status, _ = served.request("GET", f"namespaces/db/tables/{quote(level)}")
    assert status == 400


def test_a_non_ascii_bearer_token_is_a_401(rest_with_token):
    rest = rest_with_token
    for token in ("tökén", "s3cr3t-tokeñ"):
        _refused(rest.request("GET", "namespaces", token=token), 401, "NotAuthorizedException")
    conn = http.client.HTTPConnection("127.0.0.1", rest.server.port, timeout=30)
    try:  # UTF-8 bytes in the header, as no library would send them
        conn.putrequest("GET", "/v1/namespaces")
        conn.putheader("Authorization", "Bearer \u2603".encode())
        conn.endheaders()
        response = conn.getresponse()
        _refused((response.status, json.loads(response.read())), 401, "NotAuthorizedException")
    finally:
        conn.close()
    assert rest.request("GET", "namespaces")[0] == 200


def test_the_token_endpoint_answers_oauth_errors_for_non_ascii_input(rest_with_token):
    rest = rest_with_token
    exchange = "grant_type=urn:ietf:params:oauth:grant-type:token-exchange&subject_token="
    for form, code, error in (
        (exchange + quote("tökén"), 400, "invalid_request"),
        (exchange + "wrong", 400, "invalid_request"),
        (
            "grant_type=client_credentials&client_id=client&client_secret=" + quote("sécret"),
            401,
            "invalid_client",
        ),
        (
            "grant_type=client_credentials&client_id=" + quote("clïent") + "&client_secret=x",
            401,
            "invalid_client",
        ),
    ):
        status, body = rest.request("POST", "oauth/tokens", raw=form.encode(), token=None)
        assert (status, body["error"]) == (code, error), body
    status, body = rest.request(
        "POST", "oauth/tokens", raw=f"{exchange}{rest.token}".encode(), token=None
    )
    assert status == 200 and body["access_token"]


def test_an_unknown_type_in_add_schema_is_a_400_not_a_406(served):
    schema = {
        "type": "struct",
        "schema-id": 1,
        "fields": [{"id": 1, "name": "id", "required": False, "type": "uint128"}],
    }
    body = {"requirements": [], "updates": [{"action": "add-schema", "schema": schema}]}
    _refused(served.request("POST", COMMIT_PATH, body), says="uint128")
    created = {"name": "x", "schema": schema}
    _refused(served.request("POST", "namespaces/db/tables", created), says="uint128")


def test_refusals_the_spec_lists_no_406_for_are_a_400(served):
    view = {"requirements": [], "updates": [{"action": "add-view-version", "view-version": {}}]}
    _refused(served.request("POST", COMMIT_PATH, view), says="views are not supported")
    status, body = served.request(
        "POST", "namespaces/db/tables/t/sign", {"method": "GET", "uri": "x", "headers": {}}
    )
    assert status == 400, body  # not implemented, and the spec lists no 404 for signRequest


def test_config_for_another_warehouse_is_the_specs_404(served):
    """The spec lists 404 NoSuchWarehouseException for getConfig (since apache/iceberg#15746)."""
    _refused(served.request("GET", "config?warehouse=bogus"), 404, "NoSuchWarehouseException")


@pytest.mark.parametrize(
    "exc, code",
    [
        (OperationalError("SQL catalog database 'sqlite:////srv/x/catalog.db': locked"), 503),
        (CommitStateUnknownError("cannot write /srv/wh/db/t/metadata/00001-x.json"), 500),
        (CorruptFileError("/srv/wh/db/t/metadata/00000-x.metadata.json", "bad JSON"), 500),
        (OSError(36, "File name too long", "/srv/wh/db/" + "t" * 300), 500),
    ],
)
def test_a_server_fault_is_a_5xx_that_names_no_local_path(exc, code):
    status, body = error_response(exc, client_statuses("updateTable"))
    assert status == code == body["error"]["code"]
    assert "/srv" not in body["error"]["message"] and "catalog.db" not in body["error"]["message"]
