"""The routes of ``icesql serve``: paths to the service, bearer-token auth, the ErrorModel.

Independent of any HTTP server (``icesql.server.wsgi`` serves them): a ``Request`` is the
method, the raw path, the query and the whole body. Errors are answered as
``{"error": {"message", "type", "code"}}`` with the status the spec gives them
(400/401/403/404/406/409/422/500/503), never with a traceback.
"""

from __future__ import annotations

import base64
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
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
    NoSuchViewError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
)
from icesql.server.limits import BadRequestError, BodyTooLargeError, Limits
from icesql.server.operations import client_statuses, operation
from icesql.server.service import (
    ForbiddenError,
    NamespaceNotEmptyError,
    NoSuchWarehouseError,
    RestCatalogService,
    UnprocessableError,
)
from icesql.server.views import ViewService

__all__ = ["Auth", "Request", "Router", "error_response"]

log = logging.getLogger("icesql.server")

NAMESPACE_SEPARATOR = "\x1f"  # the spec's default separator of namespace levels (%1F)
TOKEN_LIFETIME_S = 3600

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
# advertised only when the served catalog keeps views (Java's clients use them only then)
VIEW_ENDPOINTS = [
    "GET /v1/{prefix}/namespaces/{namespace}/views",
    "POST /v1/{prefix}/namespaces/{namespace}/views",
    "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/views/rename",
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
    (NoSuchViewError, 404, "NoSuchViewException"),
    (NoSuchTableError, 404, "NoSuchTableException"),
    (NoSuchNamespaceError, 404, "NoSuchNamespaceException"),
    (_NotFound, 404, "NotFoundException"),
    (NamespaceNotEmptyError, 409, "NamespaceNotEmptyException"),
    (AlreadyExistsError, 409, "AlreadyExistsException"),
    (CommitConflictError, 409, "CommitFailedException"),
    (UnprocessableError, 422, "UnprocessableEntityException"),
    (NotSupportedError, 406, "UnsupportedOperationException"),
    (BodyTooLargeError, 413, "BadRequestException"),
    (BadRequestError, 400, "BadRequestException"),
    (ProgrammingError, 400, "BadRequestException"),
    (CommitStateUnknownError, 500, "CommitStateUnknownException"),
    (CorruptFileError, 500, "InternalServerError"),
    (OperationalError, 503, "ServiceUnavailableException"),
]


MAX_MESSAGE_CHARS = 2000  # an error echoing a huge request value is cut to this
# a 5xx message says what kind of fault, never its text: that names local files and databases
_SERVER_FAULT = "{kind} (details are in the server log)"


def error_response(
    exc: BaseException, statuses: frozenset[int] | None = None
) -> tuple[int, dict[str, Any]]:
    """The status and ErrorModel body for ``exc``; unknown exceptions give a bare 500.

    ``statuses``: the 4xx statuses the spec lists for the operation (``operations``); a
    client error of another status is answered 400, as the spec's client expects."""
    code, name = next(
        ((c, n) for kind, c, n in _ERRORS if isinstance(exc, kind)), (500, "InternalServerError")
    )
    if code >= 500:
        message = _SERVER_FAULT.format(kind="internal server error" if code == 500 else name)
        if isinstance(exc, CommitStateUnknownError):
            message = "the commit's state is unknown " + message
    else:
        message = str(exc)
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[:MAX_MESSAGE_CHARS] + "..."
        if statuses is not None and code not in statuses and code != 413:
            code, name = 400, "BadRequestException"
    return code, {"error": {"message": message, "type": name, "code": code}}


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
        if self.token is not None and _same(token, self.token):
            return True
        with self._lock:
            expires = self._issued.get(token)
        return expires is not None and expires > time.monotonic()

    def grant(self, form: Mapping[str, str], basic: tuple[str, str] | None) -> str | None:
        """A token for client credentials or a token exchange, None when they are wrong."""
        grant_type = form.get("grant_type")
        if grant_type == "client_credentials":
            client_id, secret = basic or (form.get("client_id", ""), form.get("client_secret", ""))
            if self.token is not None and _same(secret, self.token):
                return self.token
            known = self.credentials.get(client_id)
            if known is None or not _same(secret, known):
                return None if self.required else self._issue()
            return self._issue()
        subject = form.get("subject_token", "")
        return self._issue() if (self.valid(subject) or not self.required) else None

    def _issue(self) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._issued[token] = time.monotonic() + TOKEN_LIFETIME_S
        return token


def _same(given: str, expected: str) -> bool:
    """Constant-time equality of two secrets as UTF-8 bytes (``compare_digest`` refuses a
    ``str`` that is not ASCII, and a header or form may carry anything)."""
    return secrets.compare_digest(_utf8(given), _utf8(expected))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


Route = Callable[["Request"], tuple[int, Any]]


class Request:
    """A decoded request: the path segments of the RAW path (percent-decoded one by one, so
    an encoded ``/`` stays inside its segment and is refused as a name), query and body."""

    def __init__(self, method: str, path: str, query: str, body: bytes, headers: Mapping[str, str]):
        self.method = method
        self.path = path
        self.segments = [unquote(s) for s in path.split("/")[1:]]
        self.query = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        self.body = body
        self.headers = headers

    def json(self, limits: Limits) -> Any:
        return limits.parse_json(self.body)


def _namespace(segment: str) -> tuple[str, ...]:
    return tuple(segment.split(NAMESPACE_SEPARATOR))


class Router:
    """Maps ``(method, path)`` to the service; every path is under ``/v1``."""

    def __init__(
        self, service: RestCatalogService, auth: Auth, limits: Limits | None = None
    ) -> None:
        self.service = service
        self.views = ViewService(service)
        self.auth = auth
        self.limits = limits or Limits()

    def respond(self, request: Request) -> tuple[int, Any]:
        """``handle``, with an icesql error answered as the spec's ErrorModel (with a status
        the spec lists for the operation); other exceptions propagate (a server fault)."""
        rest = request.segments[1:] if request.segments[:1] == ["v1"] else None
        try:
            return self.handle(request)
        except Error as e:
            statuses = client_statuses(operation(request.method, rest)) if rest else None
            status, payload = error_response(e, statuses)
            if status >= 500:  # the client sees only the kind of fault: the log has it all
                log.error("%s %s: %s", request.method, request.path[:200], e, exc_info=e)
            return status, payload

    def handle(self, request: Request) -> tuple[int, Any]:
        seg, method = request.segments, request.method
        if len(seg) < 2 or seg[0] != "v1":
            raise _NotFound(f"no such endpoint: {method} /{'/'.join(seg)}")
        rest = seg[1:]
        if rest == ["oauth", "tokens"] and method == "POST":
            return self._token(request)
        self.auth.check(request.headers.get("Authorization"))
        s, v = self.service, self.views
        match method, rest:
            case "GET", ["config"]:
                endpoints = ENDPOINTS + (VIEW_ENDPOINTS if v.supported else [])
                return 200, s.config(request.query.get("warehouse"), endpoints)
            case "GET", ["namespaces"]:
                parent, q = request.query.get("parent"), request.query
                return 200, s.list_namespaces(
                    _namespace(parent) if parent else (), q.get("pageToken"), q.get("pageSize")
                )
            case "POST", ["namespaces"]:
                return 200, s.create_namespace(request.json(self.limits))
            case "GET", ["namespaces", ns]:
                return 200, s.load_namespace(_namespace(ns))
            case "HEAD", ["namespaces", ns]:
                s.namespace_exists(_namespace(ns))
                return 204, None
            case "DELETE", ["namespaces", ns]:
                s.drop_namespace(_namespace(ns))
                return 204, None
            case "POST", ["namespaces", ns, "properties"]:
                return 200, s.update_namespace_properties(_namespace(ns), request.json(self.limits))
            case "GET", ["namespaces", ns, "tables"]:
                q = request.query
                return 200, s.list_tables(_namespace(ns), q.get("pageToken"), q.get("pageSize"))
            case "POST", ["namespaces", ns, "tables"]:
                return 200, s.create_table(_namespace(ns), request.json(self.limits))
            case "POST", ["namespaces", ns, "register"]:
                return 200, s.register_table(_namespace(ns), request.json(self.limits))
            case "GET", ["namespaces", ns, "tables", t]:
                return 200, s.load_table((*_namespace(ns), t), request.query.get("snapshots"))
            case "HEAD", ["namespaces", ns, "tables", t]:
                s.table_exists((*_namespace(ns), t))
                return 204, None
            case "POST", ["namespaces", ns, "tables", t]:
                return 200, s.commit_table((*_namespace(ns), t), request.json(self.limits))
            case "DELETE", ["namespaces", ns, "tables", t]:
                purge = request.query.get("purgeRequested", "false").lower() == "true"
                s.drop_table((*_namespace(ns), t), purge)
                return 204, None
            case "POST", ["namespaces", ns, "tables", t, "metrics"]:
                s.table_exists((*_namespace(ns), t))  # the body was read; reports are dropped
                return 204, None
            case "POST", ["tables", "rename"]:
                s.rename_table(request.json(self.limits))
                return 204, None
            case "POST", ["transactions", "commit"]:
                s.commit_transaction(request.json(self.limits))
                return 204, None
            case "GET", ["namespaces", ns, "views"]:
                q = request.query
                return 200, v.list_views(_namespace(ns), q.get("pageToken"), q.get("pageSize"))
            case "POST", ["namespaces", ns, "views"]:
                return 200, v.create_view(_namespace(ns), request.json(self.limits))
            case "GET", ["namespaces", ns, "views", name]:
                return 200, v.load_view((*_namespace(ns), name))
            case "HEAD", ["namespaces", ns, "views", name]:
                v.view_exists((*_namespace(ns), name))
                return 204, None
            case "POST", ["namespaces", ns, "views", name]:
                return 200, v.commit_view((*_namespace(ns), name), request.json(self.limits))
            case "DELETE", ["namespaces", ns, "views", name]:
                v.drop_view((*_namespace(ns), name))
                return 204, None
            case "POST", ["views", "rename"]:
                v.rename_view(request.json(self.limits))
                return 204, None
        raise _NotFound(f"no such endpoint: {method} /{'/'.join(seg)}")

    def _token(self, request: Request) -> tuple[int, Any]:
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
            "client_credentials",
            "urn:ietf:params:oauth:grant-type:token-exchange",
        ):
            return 400, {
                "error": "unsupported_grant_type",
                "error_description": f"grant_type {form.get('grant_type')!r}",
            }
        token = self.auth.grant(form, basic)
        if token is None and form.get("grant_type") != "client_credentials":
            # RFC 8693 2.2.2: an unacceptable subject_token is invalid_request (400)
            return 400, {
                "error": "invalid_request",
                "error_description": "invalid or expired subject_token",
            }
        if token is None:
            return 401, {
                "error": "invalid_client",
                "error_description": "unknown client credentials",
            }
        return 200, {
            "access_token": token,
            "token_type": "bearer",
            "expires_in": TOKEN_LIFETIME_S,
            "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
        }
