"""The HTTP side of ``icesql serve``: routes, bearer-token auth, the spec's ErrorModel, logs.

Served by the standard library's ``ThreadingHTTPServer`` speaking HTTP/1.1 with keep-alive
(the connection pools of Java's and PyIceberg's clients reuse connections): one thread per
connection, which is plenty for a local catalog whose requests are one SQLite statement and
one small metadata file each, and it adds no dependency. Every request body is read to its
end before answering, even when it is ignored (``/metrics``), so a kept-alive connection
never falls out of step.

Errors are answered as ``{"error": {"message", "type", "code"}}`` with the status the spec
gives them (400/401/403/404/406/409/422/500/503); an unexpected exception is logged with its
traceback here and answered 500 without one. One log line per request: method, path,
status, milliseconds. ``shutdown()`` stops accepting, lets requests in flight (commits)
finish, and closes idle kept-alive connections.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote

from icesql.catalog.base import CommitStateUnknownError
from icesql.errors import (
    AlreadyExistsError,
    CommitConflictError,
    CorruptFileError,
    Error,
    NoSuchNamespaceError,
    NoSuchTableError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
)
from icesql.server.service import (
    BadRequestError,
    ForbiddenError,
    NamespaceNotEmptyError,
    NoSuchWarehouseError,
    RestCatalogService,
    UnprocessableError,
)

__all__ = ["Auth", "RestCatalogServer", "error_response"]

log = logging.getLogger("icesql.server")

NAMESPACE_SEPARATOR = "\x1f"  # the spec's default separator of namespace levels (%1F)
TOKEN_LIFETIME_S = 3600
IDLE_TIMEOUT_S = 60  # a kept-alive connection with no request for this long is closed
MAX_BODY = 64 * 1024 * 1024

ENDPOINTS = [
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
]


class NotAuthorizedError(Error):
    """A missing, unknown or expired bearer token (401)."""


class _NotFound(ProgrammingError):
    """No route for this method and path (404)."""


# (error class, status, the spec's / Java's exception type), most specific first
_ERRORS: list[tuple[type[BaseException], int, str]] = [
    (NotAuthorizedError, 401, "NotAuthorizedException"),
    (ForbiddenError, 403, "ForbiddenException"),
    (NoSuchWarehouseError, 404, "NoSuchWarehouseException"),
    (NoSuchTableError, 404, "NoSuchTableException"),
    (NoSuchNamespaceError, 404, "NoSuchNamespaceException"),
    (_NotFound, 404, "NotFoundException"),
    (NamespaceNotEmptyError, 409, "NamespaceNotEmptyException"),
    (AlreadyExistsError, 409, "AlreadyExistsException"),
    (CommitConflictError, 409, "CommitFailedException"),
    (UnprocessableError, 422, "UnprocessableEntityException"),
    (NotSupportedError, 406, "UnsupportedOperationException"),
    (BadRequestError, 400, "BadRequestException"),
    (ProgrammingError, 400, "BadRequestException"),
    (CommitStateUnknownError, 500, "CommitStateUnknownException"),
    (CorruptFileError, 500, "InternalServerError"),
    (OperationalError, 503, "ServiceUnavailableException"),
]


def error_response(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """The status and ErrorModel body for ``exc``; unknown exceptions give a bare 500."""
    for kind, code, name in _ERRORS:
        if isinstance(exc, kind):
            return code, {"error": {"message": str(exc), "type": name, "code": code}}
    message = "internal server error (see the server log)"
    return 500, {"error": {"message": message, "type": "InternalServerError", "code": 500}}


class Auth:
    """Bearer tokens: ``--token T`` (also what client credentials with secret ``T`` get) and
    ``--credentials`` (``client_id:secret`` pairs that get fresh tokens); none means open."""

    def __init__(self, token: str | None = None, credentials: Mapping[str, str] | None = None):
        self.token = token
        self.credentials = dict(credentials or {})
        self._issued: dict[str, float] = {}
        self._lock = threading.Lock()

    @property
    def required(self) -> bool:
        return self.token is not None or bool(self.credentials)

    def check(self, header: str | None) -> None:
        if not self.required:
            return
        scheme, _, value = (header or "").partition(" ")
        if scheme.lower() != "bearer" or not value:
            raise NotAuthorizedError("authentication required: send Authorization: Bearer <token>")
        if not self.valid(value.strip()):
            raise NotAuthorizedError("invalid or expired bearer token")

    def valid(self, token: str) -> bool:
        if self.token is not None and secrets.compare_digest(token, self.token):
            return True
        with self._lock:
            expires = self._issued.get(token)
        return expires is not None and expires > time.monotonic()

    def grant(self, form: Mapping[str, str], basic: tuple[str, str] | None) -> str | None:
        """A token for client credentials or a token exchange, None when they are wrong."""
        grant_type = form.get("grant_type")
        if grant_type == "client_credentials":
            client_id, secret = basic or (form.get("client_id", ""), form.get("client_secret", ""))
            if self.token is not None and secrets.compare_digest(secret, self.token):
                return self.token
            known = self.credentials.get(client_id)
            if known is None or not secrets.compare_digest(secret, known):
                return None if self.required else self._issue()
            return self._issue()
        subject = form.get("subject_token", "")
        return self._issue() if (self.valid(subject) or not self.required) else None

    def _issue(self) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._issued[token] = time.monotonic() + TOKEN_LIFETIME_S
        return token


Route = Callable[["_Request"], tuple[int, Any]]


class _Request:
    """A decoded request: the path segments (percent-decoded one by one, so an encoded
    ``/`` stays inside its segment and is refused as a name), query and body."""

    def __init__(self, method: str, path: str, query: str, body: bytes, headers: Mapping[str, str]):
        self.method = method
        self.segments = [unquote(s) for s in path.split("/")[1:]]
        self.query = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        self.body = body
        self.headers = headers

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except (ValueError, UnicodeDecodeError) as e:
            raise BadRequestError(f"malformed JSON in the request body: {e}") from None


def _namespace(segment: str) -> tuple[str, ...]:
    return tuple(segment.split(NAMESPACE_SEPARATOR))


class Router:
    """Maps ``(method, path)`` to the service; every path is under ``/v1``."""

    def __init__(self, service: RestCatalogService, auth: Auth) -> None:
        self.service = service
        self.auth = auth

    def handle(self, request: _Request) -> tuple[int, Any]:
        seg, method = request.segments, request.method
        if len(seg) < 2 or seg[0] != "v1":
            raise _NotFound(f"no such endpoint: {method} /{'/'.join(seg)}")
        rest = seg[1:]
        if rest == ["oauth", "tokens"] and method == "POST":
            return self._token(request)
        self.auth.check(request.headers.get("Authorization"))
        s = self.service
        match method, rest:
            case "GET", ["config"]:
                return 200, s.config(request.query.get("warehouse"), ENDPOINTS)
            case "GET", ["namespaces"]:
                parent = request.query.get("parent")
                return 200, s.list_namespaces(_namespace(parent) if parent else ())
            case "POST", ["namespaces"]:
                return 200, s.create_namespace(request.json())
            case "GET", ["namespaces", ns]:
                return 200, s.load_namespace(_namespace(ns))
            case "HEAD", ["namespaces", ns]:
                s.namespace_exists(_namespace(ns))
                return 204, None
            case "DELETE", ["namespaces", ns]:
                s.drop_namespace(_namespace(ns))
                return 204, None
            case "POST", ["namespaces", ns, "properties"]:
                return 200, s.update_namespace_properties(_namespace(ns), request.json())
            case "GET", ["namespaces", ns, "tables"]:
                return 200, s.list_tables(_namespace(ns))
            case "POST", ["namespaces", ns, "tables"]:
                return 200, s.create_table(_namespace(ns), request.json())
            case "POST", ["namespaces", ns, "register"]:
                return 200, s.register_table(_namespace(ns), request.json())
            case "GET", ["namespaces", ns, "tables", t]:
                return 200, s.load_table((*_namespace(ns), t), request.query.get("snapshots"))
            case "HEAD", ["namespaces", ns, "tables", t]:
                s.table_exists((*_namespace(ns), t))
                return 204, None
            case "POST", ["namespaces", ns, "tables", t]:
                return 200, s.commit_table((*_namespace(ns), t), request.json())
            case "DELETE", ["namespaces", ns, "tables", t]:
                purge = request.query.get("purgeRequested", "false").lower() == "true"
                s.drop_table((*_namespace(ns), t), purge)
                return 204, None
            case "POST", ["namespaces", ns, "tables", t, "metrics"]:
                s.table_exists((*_namespace(ns), t))  # the body was read; reports are dropped
                return 204, None
            case "POST", ["tables", "rename"]:
                s.rename_table(request.json())
                return 204, None
            case "POST", ["transactions", "commit"]:
                s.commit_transaction(request.json())
                return 204, None
        raise _NotFound(f"no such endpoint: {method} /{'/'.join(seg)}")

    def _token(self, request: _Request) -> tuple[int, Any]:
        """OAuth2 client credentials (and token exchange) -> a bearer token, RFC 6749 errors."""
        try:
            form = {k: v[-1] for k, v in parse_qs(request.body.decode("utf-8")).items()}
        except UnicodeDecodeError:
            form = {}
        basic = None
        scheme, _, value = (request.headers.get("Authorization") or "").partition(" ")
        if scheme.lower() == "basic":
            try:
                client_id, _, secret = base64.b64decode(value).decode("utf-8").partition(":")
                basic = (unquote(client_id), unquote(secret))
            except (ValueError, UnicodeDecodeError):
                return 400, {"error": "invalid_request", "error_description": "bad Basic header"}
        if form.get("grant_type") not in (
            "client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange"
        ):
            return 400, {"error": "unsupported_grant_type",
                         "error_description": f"grant_type {form.get('grant_type')!r}"}
        token = self.auth.grant(form, basic)
        if token is None:
            return 401, {"error": "invalid_client", "error_description": "unknown client credentials"}
        return 200, {
            "access_token": token,
            "token_type": "bearer",
            "expires_in": TOKEN_LIFETIME_S,
            "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
        }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: RestCatalogServer
    timeout = IDLE_TIMEOUT_S

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, busy=False)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.untrack(self.connection)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._serve()

    def do_POST(self) -> None:  # noqa: N802
        self._serve()

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve()

    def do_DELETE(self) -> None:  # noqa: N802
        self._serve()

    def do_PUT(self) -> None:  # noqa: N802
        self._serve()

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise BadRequestError(f"request body of {length} bytes is too large")
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        started = time.perf_counter()
        self.server.track(self.connection, busy=True)
        path, _, query = self.path.partition("?")
        try:
            try:
                body = self._read_body()
            except ValueError:
                raise BadRequestError("malformed request body framing") from None
            request = _Request(self.command, path, query, body, self.headers)
            status, payload = self.server.router.handle(request)
        except Exception as e:  # noqa: BLE001 - every failure becomes an ErrorModel
            status, payload = error_response(e)
            if status == 500 and not isinstance(e, Error):
                log.exception("unexpected error in %s %s", self.command, path)
            if status in (400, 401) and isinstance(e, BadRequestError) and "framing" in str(e):
                self.close_connection = True
        if self.server.stopping:
            self.close_connection = True
        self._send(status, payload)
        self.server.track(self.connection, busy=False)
        ms = (time.perf_counter() - started) * 1000
        log.info("%s %s %d %.1fms", self.command, path, status, ms)

    def _send(self, status: int, payload: Any) -> None:
        data = b"" if payload is None or self.command == "HEAD" else json.dumps(payload).encode()
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if data:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        """The access log is the one line ``_serve`` writes; http.server's goes nowhere."""


class RestCatalogServer(ThreadingHTTPServer):
    """The REST catalog on ``(host, port)`` (port 0: any free one, see ``port``)."""

    daemon_threads = False  # server_close() waits for requests in flight
    block_on_close = True

    def __init__(self, service: RestCatalogService, auth: Auth, host: str = "127.0.0.1", port: int = 8181):
        self.router = Router(service, auth)
        self.stopping = False
        self._serving = threading.Event()
        self._stop_lock = threading.Lock()
        self._connections: dict[socket.socket, bool] = {}
        self._guard = threading.Lock()
        super().__init__((host, port), _Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def track(self, connection: socket.socket, busy: bool) -> None:
        with self._guard:
            self._connections[connection] = busy

    def untrack(self, connection: socket.socket) -> None:
        with self._guard:
            self._connections.pop(connection, None)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self._serving.set()
        try:
            super().serve_forever(poll_interval)
        finally:
            self._serving.clear()

    def serve_in_background(self) -> threading.Thread:
        """Serve from a new thread; returns once the server is accepting (tests, embedding)."""
        thread = threading.Thread(target=self.serve_forever, name="icesql-serve", daemon=True)
        thread.start()
        self._serving.wait()
        return thread

    def stop(self) -> None:
        """Graceful shutdown: no new connections, idle ones closed, requests in flight
        finished (their threads are joined), then the listening socket closed."""
        with self._stop_lock:
            self.stopping = True
            if self._serving.is_set():
                self.shutdown()
            with self._guard:
                idle = [c for c, busy in self._connections.items() if not busy]
            for connection in idle:
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self.server_close()
