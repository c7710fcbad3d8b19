"""``icesql serve`` on waitress: kept-alive connections stay in step (every request body is read,
chunked ones too), the raw path reaches the routes, one log line per request, and ``stop()``
refuses new connections but finishes and acknowledges a commit already in flight."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import time

import pytest

from icesql.server.routes import Router
from icesql.server.wsgi import RestCatalogApp

SCHEMA = {
    "type": "struct",
    "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}],
}
SET_K = {"requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]}


def _table(rest):
    assert rest.request("POST", "namespaces", {"namespace": ["db"]})[0] == 200
    assert rest.request("POST", "namespaces/db/tables", {"name": "t", "schema": SCHEMA})[0] == 200


def _exchange(conn, method, path, body=None, headers=None):
    chunked = "Transfer-Encoding" in (headers or {})
    conn.request(method, path, body=body, headers=headers or {}, encode_chunked=chunked)
    response = conn.getresponse()
    data = response.read()
    return response.status, json.loads(data) if data else None


def test_one_kept_alive_connection_serves_many_requests_in_step(rest, caplog):
    _table(rest)
    conn = http.client.HTTPConnection("127.0.0.1", rest.server.port, timeout=10)
    caplog.set_level(logging.INFO, logger="icesql.server")
    try:
        assert _exchange(conn, "GET", "/v1/namespaces")[0] == 200
        sock = conn.sock
        report = json.dumps({"report-type": "scan-report", "filler": "x" * 100_000}).encode()
        # a body nobody needs (Spark's metrics reports), sent with and without a length
        assert _exchange(conn, "POST", "/v1/namespaces/db/tables/t/metrics", report)[0] == 204
        chunks = iter([report[:70_000], report[70_000:]])
        assert (
            _exchange(
                conn,
                "POST",
                "/v1/namespaces/db/tables/t/metrics",
                chunks,
                {"Transfer-Encoding": "chunked"},
            )[0]
            == 204
        )
        status, body = _exchange(conn, "POST", "/v1/namespaces/db/tables/t", json.dumps(SET_K))
        assert status == 200 and body["metadata"]["properties"] == {"k": "v"}
        # an encoded '/' stays inside its name (refused), it never becomes a separator
        status, body = _exchange(conn, "GET", "/v1/namespaces/db%2F..%2Fx/tables/t")
        assert status == 400 and body["error"]["type"] == "BadRequestException"
        status, body = _exchange(conn, "HEAD", "/v1/namespaces/db/tables/t")
        assert status == 204 and body is None
        assert conn.sock is sock  # one connection throughout
    finally:
        conn.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "icesql.server"]
    assert lines[-6].startswith("GET /v1/namespaces 200 ") and lines[-6].endswith("ms")
    assert [line.split()[:3] for line in lines[-5:]] == [
        ["POST", "/v1/namespaces/db/tables/t/metrics", "204"],
        ["POST", "/v1/namespaces/db/tables/t/metrics", "204"],
        ["POST", "/v1/namespaces/db/tables/t", "200"],
        ["GET", "/v1/namespaces/db%2F..%2Fx/tables/t", "400"],
        ["HEAD", "/v1/namespaces/db/tables/t", "204"],
    ]


def test_an_unexpected_error_is_a_500_without_a_traceback(rest, monkeypatch, caplog):
    _table(rest)

    def broken(*args):
        raise KeyError("secret internals")

    monkeypatch.setattr(rest.server.router.service, "load_table", broken)
    with caplog.at_level(logging.ERROR, logger="icesql.server"):
        status, body = rest.request("GET", "namespaces/db/tables/t")
    assert status == 500 and body["error"]["type"] == "InternalServerError"
    assert "secret" not in json.dumps(body) and "Traceback" not in json.dumps(body)
    assert any("secret internals" in (r.exc_text or "") for r in caplog.records)


def test_the_app_without_a_raw_uri_still_keeps_encoded_slashes_in_names(rest):
    """Another WSGI server may give only the decoded PATH_INFO: the name is still refused."""
    app = RestCatalogApp(Router(rest.server.router.service, rest.server.router.auth))
    answers = []

    def start_response(status, headers):
        answers.append(status)

    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/v1/namespaces/db%2F..", "QUERY_STRING": ""}
    body = json.loads(b"".join(app(environ, start_response)))
    assert answers == ["400 Bad Request"] and body["error"]["code"] == 400


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def test_stop_finishes_and_acknowledges_a_commit_in_flight(rest, monkeypatch):
    _table(rest)
    idle = http.client.HTTPConnection("127.0.0.1", rest.server.port, timeout=10)
    assert _exchange(idle, "GET", "/v1/namespaces")[0] == 200  # a kept-alive, idle connection
    service = rest.server.router.service
    entered, release = threading.Event(), threading.Event()
    commit = service.commit_table

    def slow_commit(identifier, body):
        entered.set()
        assert release.wait(30)
        return commit(identifier, body)

    monkeypatch.setattr(service, "commit_table", slow_commit)
    answer: dict[str, object] = {}
    client = threading.Thread(
        target=lambda: answer.update(r=rest.request("POST", "namespaces/db/tables/t", SET_K))
    )
    client.start()
    assert entered.wait(10)
    stopper = threading.Thread(target=rest.server.stop)
    stopper.start()
    deadline = time.monotonic() + 10
    while not _refused(rest.server.port):  # stop began: no new connections
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)
    assert stopper.is_alive() and client.is_alive()  # stop waits for the commit
    release.set()
    client.join(30)
    stopper.join(30)
    assert not stopper.is_alive()
    status, body = answer["r"]
    assert status == 200 and body["metadata"]["properties"] == {"k": "v"}
    table = service.catalog.load_table(("db", "t"))
    assert table.metadata_location == body["metadata-location"]
    with pytest.raises((OSError, http.client.HTTPException)):  # the idle one was closed
        _exchange(idle, "GET", "/v1/namespaces")
    idle.close()


def test_without_waitress_serve_names_the_extra_to_install(tmp_path, monkeypatch, capsys):
    import sys

    from icesql.errors import OperationalError
    from icesql.server import open_server
    from icesql.shell import main

    for module in ("waitress", "waitress.server", "waitress.channel", "waitress.task"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(OperationalError, match=r"pip install 'icesql\[server\]'"):
        open_server(str(tmp_path / "wh"), f"sqlite:///{tmp_path / 'c.db'}", port=0)
    argv = ["serve", "--warehouse", str(tmp_path / "wh"), "--uri", f"sqlite:///{tmp_path / 'c.db'}"]
    assert main(argv) == 1
    assert "pip install 'icesql[server]'" in capsys.readouterr().err
