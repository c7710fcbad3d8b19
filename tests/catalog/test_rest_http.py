"""The REST client's HTTP: kept-alive connections, JSON bodies, bearer tokens and the OAuth2
client-credentials exchange, against a small local HTTP server that records what it got."""

from __future__ import annotations

import json
import socket
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from icesql.catalog.rest_http import RestHttp, error_message
from icesql.errors import OperationalError


class Recorder:
    """Answers every request with ``answer(method, path, headers, body)`` -> (status, json)."""

    def __init__(self, answer, close_after_each: bool = False) -> None:
        self.requests: list[tuple[str, str, dict, bytes]] = []
        self.connections = 0
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                recorder.connections += 1

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                recorder.requests.append((self.command, self.path, headers, body))
                status, payload = answer(self.command, self.path, headers, body)
                data = json.dumps(payload).encode() if payload is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                if close_after_each:  # without saying so: an idle timeout's silent close
                    self.close_connection = True

            do_GET = do_POST = do_DELETE = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def echo():
    server = Recorder(lambda m, p, h, b: (200, {"path": p, "body": json.loads(b) if b else None}))
    yield server
    server.close()


def test_requests_reuse_one_connection_and_carry_json(echo):
    with RestHttp(echo.uri, {"header.X-Custom": "1"}, "c") as http:
        for i in range(3):
            response = http.request("GET", "/v1/x", {"q": f"a b{i}"})
            assert response.status == 200
            assert response.body == {"path": f"/v1/x?q=a+b{i}", "body": None}
        assert echo.connections == 1
        posted = http.request("POST", "/v1/y", body={"i": 1}).body
        assert posted == {"path": "/v1/y", "body": {"i": 1}}
    headers = echo.requests[0][2]
    assert headers["content-type"] == "application/json"
    assert headers["x-custom"] == "1"
    assert headers["x-iceberg-access-delegation"] == "vended-credentials"
    assert "authorization" not in headers


def test_a_connection_the_server_closed_is_opened_again():
    server = Recorder(lambda m, p, h, b: (200, {"path": p}), close_after_each=True)
    try:
        with RestHttp(server.uri, {}, "c") as http:
            assert [http.request("GET", f"/v1/{i}").body for i in range(3)] == [
                {"path": f"/v1/{i}"} for i in range(3)
            ]
        assert server.connections == 3 and len(server.requests) == 3  # none sent twice
    finally:
        server.close()


def test_a_bearer_token_is_sent(echo):
    with RestHttp(echo.uri, {"token": "t0k"}, "c") as http:
        http.request("GET", "/v1/config")
    assert echo.requests[-1][2]["authorization"] == "Bearer t0k"


def test_client_credentials_are_exchanged_and_renewed_on_401():
    issued: list[str] = []

    def answer(method, path, headers, body):
        if path == "/v1/oauth/tokens":
            form = urllib.parse.parse_qs(body.decode())
            assert form["grant_type"] == ["client_credentials"] and form["client_id"] == ["me"]
            if form["client_secret"] != ["pw"]:
                return 401, {"error": "invalid_client", "error_description": "bad secret"}
            issued.append(f"token-{len(issued)}")
            return 200, {"access_token": issued[-1], "token_type": "bearer", "expires_in": 3600}
        if headers.get("authorization") != f"Bearer {issued[-1]}":
            return 401, {
                "error": {"message": "expired", "type": "NotAuthorizedException", "code": 401}
            }
        return 200, {"ok": True}

    server = Recorder(answer)
    try:
        props = {"credential": "me:pw", "scope": "PRINCIPAL_ROLE:ALL"}
        with RestHttp(server.uri, props, "c") as http:
            assert http.request("GET", "/v1/config").body == {"ok": True}
            issued.append("rotated")  # the server forgets the token it gave
            assert http.request("GET", "/v1/config").body == {"ok": True}  # renewed, retried
        assert issued[-1] == "token-2" or issued[-1].startswith("token-")
        with (
            RestHttp(server.uri, {"credential": "me:wrong"}, "prod") as bad,
            pytest.raises(
                OperationalError, match=r"REST catalog 'prod': the OAuth2 token request.*\(401\)"
            ),
        ):
            bad.request("GET", "/v1/config")
    finally:
        server.close()


def test_error_messages_read_the_error_model():
    assert error_message({"error": {"message": "no table", "type": "NoSuchTableException"}}) == (
        "NoSuchTableException: no table"
    )
    assert error_message("plain text") == "plain text"
    assert error_message({"odd": 1}) == '{"odd": 1}'


def test_only_http_urls_are_taken():
    with pytest.raises(OperationalError, match="not an http"):
        RestHttp("file:///x", {}, "c")


def test_a_change_is_never_sent_twice():
    """The server drops the connection without answering a POST: the client reports it and
    does not send the POST again, which could apply a commit twice."""

    def answer(method, path, headers, body):
        return 200, {"ok": method}

    server = Recorder(answer)
    try:
        with RestHttp(server.uri, {}, "c") as http:
            assert http.request("GET", "/v1/config").body == {"ok": "GET"}
            assert http.request("POST", "/v1/commit", body={}).body == {"ok": "POST"}
            assert server.connections == 2  # the POST did not ride the kept-alive connection
            server.server.shutdown()  # stop answering: the next POST finds nobody
            server.server.server_close()
            posts = len([r for r in server.requests if r[0] == "POST"])
            with pytest.raises(OSError):
                http.request("POST", "/v1/commit", body={})
        assert len([r for r in server.requests if r[0] == "POST"]) == posts
    finally:
        server.close()


def test_an_answer_cut_off_midway_is_a_lost_answer():
    """A server killed while answering (headers sent, part of the body not): the client
    reports a connection error (an OSError, which a commit turns into 'state unknown'), not
    http.client's own exception, and opens a new connection for the next request."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def read_request(conn: socket.socket) -> None:
        """The whole request: closed with part of it unread, the socket would be reset
        (ECONNRESET at the client) instead of ending the cut-off answer."""
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(body) < length:
            body += conn.recv(65536)

    def serve() -> None:
        for answer in (
            b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"cut": ',
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
        ):
            conn, _ = listener.accept()
            with conn:
                read_request(conn)
                conn.sendall(answer)
                if answer.endswith(b"{}"):
                    conn.recv(1)  # keep the connection until the client has read

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        with RestHttp(f"http://127.0.0.1:{port}", {}, "c") as http:
            with pytest.raises(ConnectionError, match="POST .*/v1/commit: incomplete answer"):
                http.request("POST", "/v1/commit", body={})
            assert http.request("GET", "/v1/config").body == {}
    finally:
        listener.close()


def test_close_closes_the_connection_of_every_thread(echo):
    """Each thread keeps a connection of its own; close() closes them all, not only the
    caller's, and the client stays usable."""
    http = RestHttp(echo.uri, {}, "c")
    kept = []

    def request() -> None:
        http.request("GET", "/v1/config")
        kept.append(http._local.connection)

    threads = [threading.Thread(target=request) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    request()
    assert len({id(c) for c in kept}) == 3 and all(c.sock is not None for c in kept)
    http.close()
    assert all(c.sock is None for c in kept)
    assert http.request("GET", "/v1/config").status == 200  # on a new connection
    assert echo.connections == 4
    http.close()
