"""``icesql serve`` at the HTTP level: the spec's statuses and ErrorModel for bad requests,
names that must never become paths, auth, multi-table transactions, and the command itself.
Each refused request leaves the catalog as it was."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

SCHEMA = {
    "type": "struct",
    "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"},
        {"id": 2, "name": "data", "required": False, "type": "string"},
    ],
}


def _table(rest, name="t", namespace="db"):
    rest.request("POST", "namespaces", {"namespace": [namespace]})
    status, body = rest.request(
        "POST", f"namespaces/{namespace}/tables", {"name": name, "schema": SCHEMA}
    )
    assert status == 200, body
    return body


def _location(rest, name="t"):
    status, body = rest.request("GET", f"namespaces/db/tables/{name}")
    assert status == 200, body
    return body["metadata-location"]


def _error(body, code, kind):
    assert body["error"]["code"] == code and body["error"]["type"] == kind, body
    assert "Traceback" not in body["error"]["message"]


def test_config_and_load_shapes(rest):
    status, body = rest.request("GET", f"config?warehouse={rest.warehouse}")
    assert status == 200 and body["overrides"] == {"warehouse": rest.warehouse}
    assert "POST /v1/{prefix}/transactions/commit" in body["endpoints"]
    status, body = rest.request("GET", "config?warehouse=elsewhere")
    _error(body, 404, "NoSuchWarehouseException")
    created = _table(rest)
    assert created["metadata-location"].startswith(f"{rest.warehouse}/db/t/metadata/00000-")
    assert created["metadata"]["format-version"] == 2
    status, loaded = rest.request("GET", "namespaces/db/tables/t?snapshots=refs")
    assert status == 200 and loaded["metadata"] == created["metadata"]
    assert rest.request("HEAD", "namespaces/db/tables/t")[0] == 204
    assert rest.request("HEAD", "namespaces/db")[0] == 204
    assert rest.request("HEAD", "namespaces/nope")[0] == 404
    status, body = rest.request(
        "POST", "namespaces/db/tables/t/metrics", {"report-type": "scan-report"}
    )
    assert status == 204 and body is None


def test_a_staged_create_writes_nothing_until_its_commit(rest):
    rest.request("POST", "namespaces", {"namespace": ["db"]})
    status, staged = rest.request(
        "POST",
        "namespaces/db/tables",
        {
            "name": "s",
            "schema": SCHEMA,
            "stage-create": True,
            "properties": {"format-version": "3"},
        },
    )
    assert status == 200 and "metadata-location" not in staged
    assert staged["metadata"]["next-row-id"] == 0
    assert rest.request("HEAD", "namespaces/db/tables/s")[0] == 404
    md = staged["metadata"]
    commit = {
        "requirements": [{"type": "assert-create"}],
        "updates": [
            {"action": "assign-uuid", "uuid": md["table-uuid"]},
            {"action": "upgrade-format-version", "format-version": 3},
            {"action": "add-schema", "schema": md["schemas"][0]},
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "add-spec", "spec": md["partition-specs"][0]},
            {"action": "set-default-spec", "spec-id": -1},
            {"action": "add-sort-order", "sort-order": md["sort-orders"][0]},
            {"action": "set-default-sort-order", "sort-order-id": -1},
            {"action": "set-location", "location": md["location"]},
        ],
    }
    status, body = rest.request("POST", "namespaces/db/tables/s", commit)
    assert status == 200, body
    assert body["metadata"]["table-uuid"] == md["table-uuid"]
    status, body = rest.request("POST", "namespaces/db/tables/s", commit)
    _error(body, 409, "CommitFailedException")
    assert "table already exists" in body["error"]["message"]


def test_bad_commits_change_nothing(rest):
    _table(rest)
    before = _location(rest)
    status, body = rest.request("POST", "namespaces/db/tables/t", raw=b'{"requirements": [')
    assert status == 400
    _error(body, 400, "BadRequestException")
    status, body = rest.request(
        "POST", "namespaces/db/tables/t", {"requirements": [], "updates": [{"action": "explode"}]}
    )
    _error(body, 400, "BadRequestException")
    assert "unknown table update action 'explode'" in body["error"]["message"]
    status, body = rest.request(
        "POST",
        "namespaces/db/tables/t",
        {
            "requirements": [{"type": "assert-current-schema-id", "current-schema-id": 7}],
            "updates": [{"action": "set-properties", "updates": {"k": "v"}}],
        },
    )
    _error(body, 409, "CommitFailedException")
    assert (
        "Requirement failed: current schema changed: expected id 7 != 0" in body["error"]["message"]
    )
    status, body = rest.request(
        "POST",
        "namespaces/db/tables/t",
        {"requirements": [], "updates": [{"action": "set-location", "location": "/etc"}]},
    )
    _error(body, 403, "ForbiddenException")
    assert _location(rest) == before
    assert rest.request("DELETE", "namespaces/db/tables/t")[0] == 204
    status, body = rest.request(
        "POST",
        "namespaces/db/tables/t",
        {"requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]},
    )
    _error(body, 404, "NoSuchTableException")
    assert rest.request("HEAD", "namespaces/db/tables/t")[0] == 404


def test_a_good_commit_names_its_new_version(rest):
    created = _table(rest)
    status, body = rest.request(
        "POST",
        "namespaces/db/tables/t",
        {
            "requirements": [
                {"type": "assert-table-uuid", "uuid": created["metadata"]["table-uuid"]}
            ],
            "updates": [{"action": "set-properties", "updates": {"k": "v"}}],
        },
    )
    assert status == 200 and body["metadata"]["properties"]["k"] == "v"
    assert "/00001-" in body["metadata-location"] and body["metadata-location"] == _location(rest)


@pytest.mark.parametrize(
    "path",
    [
        "namespaces/..",
        "namespaces/db%2F..%2Fescape",
        "namespaces/db%252Fx",
        "namespaces/a%00b",
        "namespaces/db/tables/..",
        "namespaces/db/tables/a%2Fb",
        "namespaces/db%1F../tables/t",
    ],
)
def test_names_that_would_be_paths_are_refused(rest, path):
    _table(rest)
    status, body = rest.request("GET", path)
    _error(body, 400, "BadRequestException")


def test_creating_path_like_names_or_outside_locations_is_refused(rest, tmp_path):
    rest.request("POST", "namespaces", {"namespace": ["db"]})
    for namespace in (["../up"], ["a/b"], ["a", ".."], ["x\u0000"], ["a%2Fb"]):
        status, body = rest.request("POST", "namespaces", {"namespace": namespace})
        _error(body, 400, "BadRequestException")
    status, body = rest.request("POST", "namespaces/db/tables", {"name": "../t", "schema": SCHEMA})
    _error(body, 400, "BadRequestException")
    status, body = rest.request(
        "POST",
        "namespaces/db/tables",
        {"name": "t", "schema": SCHEMA, "location": str(tmp_path / "x")},
    )
    _error(body, 403, "ForbiddenException")
    status, body = rest.request(
        "POST",
        "namespaces/db/tables",
        {"name": "t", "schema": SCHEMA, "location": f"{rest.warehouse}/db/../../x"},
    )
    _error(body, 403, "ForbiddenException")
    status, body = rest.request(
        "POST", "namespaces/db/register", {"name": "r", "metadata-location": "/etc/passwd"}
    )
    _error(body, 403, "ForbiddenException")
    assert rest.request("GET", "namespaces")[1] == {"namespaces": [["db"]]}
    assert rest.request("GET", "namespaces/db/tables")[1] == {"identifiers": []}
    assert not os.path.exists(tmp_path / "x")


def test_sparks_branch_lookup_through_a_multi_level_namespace_is_a_404(rest):
    _table(rest)
    status, body = rest.request("GET", "namespaces/db%1Ft/tables/branch_x?snapshots=all")
    _error(body, 404, "NoSuchTableException")
    status, body = rest.request("GET", "namespaces/db%1Ft")
    _error(body, 404, "NoSuchNamespaceException")


def test_namespace_errors(rest):
    _table(rest)
    status, body = rest.request("POST", "namespaces", {"namespace": ["db"]})
    _error(body, 409, "AlreadyExistsException")
    status, body = rest.request("DELETE", "namespaces/db")
    _error(body, 409, "NamespaceNotEmptyException")
    status, body = rest.request(
        "POST", "namespaces/db/properties", {"removals": ["a"], "updates": {"a": "1"}}
    )
    _error(body, 422, "UnprocessableEntityException")
    status, body = rest.request("GET", "namespaces/nope/tables")
    _error(body, 404, "NoSuchNamespaceException")
    status, body = rest.request("GET", "nothing/here")
    assert status == 404
    status, body = rest.request(
        "POST",
        "tables/rename",
        {
            "source": {"namespace": ["db"], "name": "t"},
            "destination": {"namespace": ["nope"], "name": "t"},
        },
    )
    _error(body, 404, "NoSuchNamespaceException")


def test_multi_table_transactions_are_all_or_nothing(rest):
    a, b = _table(rest, "a"), _table(rest, "b")
    before = (_location(rest, "a"), _location(rest, "b"))

    def change(name, created, uuid=None):
        return {
            "identifier": {"namespace": ["db"], "name": name},
            "requirements": [
                {"type": "assert-table-uuid", "uuid": uuid or created["metadata"]["table-uuid"]}
            ],
            "updates": [{"action": "set-properties", "updates": {"txn": "1"}}],
        }

    status, body = rest.request(
        "POST",
        "transactions/commit",
        {"table-changes": [change("a", a), change("b", b, uuid="wrong")]},
    )
    _error(body, 409, "CommitFailedException")
    assert (_location(rest, "a"), _location(rest, "b")) == before
    status, body = rest.request(
        "POST", "transactions/commit", {"table-changes": [change("a", a), change("b", b)]}
    )
    assert status == 204, body
    for name in ("a", "b"):
        assert rest.request("GET", f"namespaces/db/tables/{name}")[1]["metadata"]["properties"] == {
            "txn": "1"
        }


def test_missing_or_wrong_token(rest_with_token):
    rest = rest_with_token
    for token in (None, "wrong"):
        status, body = rest.request("POST", "namespaces", {"namespace": ["db"]}, token=token)
        _error(body, 401, "NotAuthorizedException")
        status, body = rest.request("GET", "config", token=token)
        assert status == 401
    assert rest.request("GET", "namespaces")[1] == {"namespaces": []}
    data = b"grant_type=client_credentials&client_id=client&client_secret=client-secret"
    status, body = rest.request("POST", "oauth/tokens", raw=data, token=None)
    assert status == 200 and body["token_type"] == "bearer"
    assert rest.request("GET", "namespaces", token=body["access_token"])[0] == 200
    data = b"grant_type=client_credentials&client_id=client&client_secret=nope"
    status, body = rest.request("POST", "oauth/tokens", raw=data, token=None)
    assert status == 401 and body["error"] == "invalid_client"


@pytest.mark.server
def test_the_serve_command_logs_each_request_and_stops_gracefully(tmp_path):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "icesql.shell",
            "serve",
            "--warehouse",
            str(tmp_path / "wh"),
            "--uri",
            f"sqlite:///{tmp_path / 'c.db'}",
            "--port",
            "0",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = proc.stderr.readline()
        assert banner.startswith("icesql serve: http://127.0.0.1:"), banner
        uri = banner.split()[2]
        with urllib.request.urlopen(f"{uri}/v1/config", timeout=10) as response:
            assert response.status == 200
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        log = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=20)
        proc.stderr.close()
    assert " GET /v1/config 200 " in log and "ms" in log
    assert "icesql serve: stopped" in log


def _pages(rest, path, size, key):
    """Every page of a listing by the spec's pageToken/pageSize, and the pages' lengths."""
    items, lengths, token = [], [], ""
    while token is not None:
        sep = "&" if "?" in path else "?"
        status, body = rest.request("GET", f"{path}{sep}pageToken={token}&pageSize={size}")
        assert status == 200, body
        items += body[key]
        lengths.append(len(body[key]))
        token = body["next-page-token"]
    return items, lengths


def test_listings_page_by_the_specs_page_token_and_size(rest):
    for name in ("b", "a", "c", "e", "d"):
        assert rest.request("POST", "namespaces", {"namespace": [name]})[0] == 200
    for name in ("n1", "n2", "n3"):
        assert rest.request("POST", "namespaces", {"namespace": ["a", name]})[0] == 200
    for name in ("t3", "t1", "t2", "t5", "t4"):
        assert (
            rest.request("POST", "namespaces/a/tables", {"name": name, "schema": SCHEMA})[0] == 200
        )
    # without pageToken: everything at once, as before (and no next-page-token)
    assert rest.request("GET", "namespaces")[1] == {"namespaces": [[n] for n in "abcde"]}
    assert rest.request("GET", "namespaces?pageSize=2")[1] == {"namespaces": [[n] for n in "abcde"]}
    items, lengths = _pages(rest, "namespaces", 2, "namespaces")
    assert items == [[n] for n in "abcde"] and lengths == [2, 2, 1]
    items, lengths = _pages(rest, "namespaces?parent=a", 2, "namespaces")
    assert items == [["a", "n1"], ["a", "n2"], ["a", "n3"]] and lengths == [2, 1]
    items, lengths = _pages(rest, "namespaces/a/tables", 3, "identifiers")
    assert [i["name"] for i in items] == ["t1", "t2", "t3", "t4", "t5"] and lengths == [3, 2]
    status, body = rest.request("GET", "namespaces/a/tables?pageToken=")
    assert len(body["identifiers"]) == 5 and body["next-page-token"] is None
    # the token names the last item given: a table dropped meanwhile shifts nothing
    status, first = rest.request("GET", "namespaces/a/tables?pageToken=&pageSize=2")
    assert rest.request("DELETE", "namespaces/a/tables/t1")[0] == 204
    status, second = rest.request(
        "GET", f"namespaces/a/tables?pageToken={first['next-page-token']}&pageSize=2"
    )
    assert [i["name"] for i in second["identifiers"]] == ["t3", "t4"]
    for query in ("pageToken=&pageSize=0", "pageToken=&pageSize=x", "pageToken=%21%21%21"):
        status, body = rest.request("GET", f"namespaces?{query}")
        _error(body, 400, "BadRequestException")


def test_register_with_overwrite_swaps_an_existing_table(rest):
    created = _table(rest)
    first = created["metadata-location"]
    status, body = rest.request(
        "POST",
        "namespaces/db/tables/t",
        {"requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]},
    )
    assert status == 200
    second = body["metadata-location"]
    status, body = rest.request(
        "POST", "namespaces/db/register", {"name": "t", "metadata-location": first}
    )
    _error(body, 409, "AlreadyExistsException")
    for bad, code, kind in (
        ({"overwrite": "yes", "metadata-location": first}, 400, "BadRequestException"),
        (
            {"overwrite": True, "metadata-location": "/etc/x.metadata.json"},
            403,
            "ForbiddenException",
        ),
    ):
        status, body = rest.request("POST", "namespaces/db/register", {"name": "t", **bad})
        _error(body, code, kind)
    assert _location(rest) == second
    status, body = rest.request(
        "POST",
        "namespaces/db/register",
        {"name": "t", "metadata-location": first, "overwrite": True},
    )
    assert status == 200 and body["metadata-location"] == first
    assert _location(rest) == first
    assert rest.request("GET", "namespaces/db/tables/t")[1]["metadata"]["properties"] == {}
    # overwrite on a new name registers it
    status, body = rest.request(
        "POST",
        "namespaces/db/register",
        {"name": "u", "metadata-location": second, "overwrite": True},
    )
    assert status == 200 and _location(rest, "u") == second


def test_more_bad_commits_change_nothing(rest_with_token):
    rest = rest_with_token
    _table(rest)
    before = _location(rest)
    good = {"requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]}
    for body, code, kind in (
        ({"requirements": [{"type": "assert-nothing"}], "updates": []}, 400, "BadRequestException"),
        ([1, 2], 400, "BadRequestException"),
        (
            {"requirements": [], "updates": [{"action": "set-properties"}]},
            400,
            "BadRequestException",
        ),
        (
            {
                "requirements": [
                    {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 1}
                ],
                "updates": good["updates"],
            },
            409,
            "CommitFailedException",
        ),
    ):
        status, answer = rest.request("POST", "namespaces/db/tables/t", body)
        _error(answer, code, kind)
    for token in (None, "wrong"):
        status, answer = rest.request("POST", "namespaces/db/tables/t", good, token=token)
        _error(answer, 401, "NotAuthorizedException")
        status, answer = rest.request("DELETE", "namespaces/db/tables/t", token=token)
        assert status == 401
    assert _location(rest) == before
    assert rest.request("GET", "namespaces/db/tables/t")[1]["metadata"]["properties"] == {}


def test_create_table_refuses_specs_and_orders_java_refuses(rest):
    rest.request("POST", "namespaces", {"namespace": ["db"]})
    schema = {
        "type": "struct",
        "schema-id": 0,
        "fields": [
            {"id": 1, "name": "ts", "required": False, "type": "timestamptz"},
            {"id": 2, "name": "f", "required": False, "type": "float"},
        ],
    }
    for spec, order, message in [
        (
            {
                "spec-id": 0,
                "fields": [
                    {"source-id": 1, "field-id": 1000, "name": "ts_year", "transform": "year"},
                    {"source-id": 1, "field-id": 1001, "name": "ts_month", "transform": "month"},
                ],
            },
            None,
            "redundant with 'ts_year'",
        ),
        (
            {
                "spec-id": 0,
                "fields": [
                    {"source-id": 2, "field-id": 1000, "name": "f_bucket", "transform": "bucket[4]"}
                ],
            },
            None,
            r"bucket[4](f) (partition field 'f_bucket'): bucket[4] does not apply to float",
        ),
        (
            None,
            {
                "order-id": 1,
                "fields": [
                    {
                        "source-id": 1,
                        "transform": "truncate[2]",
                        "direction": "asc",
                        "null-order": "nulls-first",
                    }
                ],
            },
            "cannot sort by truncate[2](ts)",
        ),
    ]:
        body = {"name": "bad", "schema": schema}
        if spec is not None:
            body["partition-spec"] = spec
        if order is not None:
            body["write-order"] = order
        status, answer = rest.request("POST", "namespaces/db/tables", body)
        _error(answer, 400, "BadRequestException")
        assert message in answer["error"]["message"]
        status, _ = rest.request("GET", "namespaces/db/tables/bad")
        assert status == 404
