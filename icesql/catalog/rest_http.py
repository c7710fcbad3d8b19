"""HTTP for the REST catalog client: kept-alive connections, JSON bodies, and auth.

Auth follows the REST spec and the clients users already configure: a ``token`` property is
sent as a bearer token; a ``credential`` (``client_id:client_secret``) is exchanged for one
at the OAuth2 token endpoint (``oauth2-server-uri``, else ``<uri>/v1/oauth/tokens``) with the
client-credentials grant and ``scope`` (default ``catalog``), and exchanged again shortly
before it expires or when the server answers 401. ``header.<Name>`` properties become
request headers, as in Java and PyIceberg. Python's ``http.client`` is enough for this: one
connection per thread, kept alive across requests, re-opened when the server closed it. Only
reads (GET, HEAD) are ever sent twice: a change (a commit) goes on a connection of its own
whenever the kept one was used before, so a dropped connection is never mistaken for a change
that can be repeated.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from icesql.errors import OperationalError

__all__ = ["HttpResponse", "RestHttp", "error_message"]

DEFAULT_TIMEOUT_S = 60.0
_IDEMPOTENT = frozenset({"GET", "HEAD"})
_REFRESH_MARGIN_S = 60.0


@dataclass(frozen=True)
class HttpResponse:
    status: int
    body: Any  # the decoded JSON, or None


class RestHttp:
    """Requests to one REST catalog server."""

    def __init__(self, uri: str, properties: Mapping[str, str], catalog: str) -> None:
        parsed = urllib.parse.urlsplit(uri.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise OperationalError(f"REST catalog {catalog!r}: not an http(s) URL: {uri!r}")
        self.uri = uri.rstrip("/")
        self.catalog = catalog
        self._scheme, self._host, self._port = parsed.scheme, parsed.hostname, parsed.port
        self._base_path = parsed.path
        self._timeout = float(properties.get("rest.timeout-s", DEFAULT_TIMEOUT_S))
        self._local = threading.local()
        self._lock = threading.Lock()
        # every thread's kept connection, so close() closes them all, not only the caller's
        # (a lock of its own: _lock is held while a token is fetched, over a connection)
        self._kept: set[http.client.HTTPConnection] = set()
        self._kept_lock = threading.Lock()
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "icesql",
            "X-Iceberg-Access-Delegation": "vended-credentials",
            **{
                k[len("header.") :]: str(v)
                for k, v in properties.items()
                if k.startswith("header.")
            },
        }
        self._token: str | None = properties.get("token") or None
        self._credential = properties.get("credential") or None
        self._scope = properties.get("scope", "catalog")
        self._token_uri = properties.get("oauth2-server-uri") or f"{self.uri}/v1/oauth/tokens"
        self._expires_at: float | None = None

    # -- auth -----------------------------------------------------------------------------
    def _bearer(self, refresh: bool = False) -> str | None:
        if self._credential is None:
            return self._token
        with self._lock:
            stale = self._expires_at is not None and time.monotonic() >= self._expires_at
            if self._token is None or refresh or stale:
                self._fetch_token()
            return self._token

    def _fetch_token(self) -> None:
        client_id, _, secret = str(self._credential).rpartition(":")
        form = {"grant_type": "client_credentials", "client_secret": secret, "scope": self._scope}
        if client_id:
            form["client_id"] = client_id
        body = urllib.parse.urlencode(form).encode()
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
        }
        response = self._send("POST", self._token_uri, body, headers)
        if (
            response.status != 200
            or not isinstance(response.body, dict)
            or "access_token" not in response.body
        ):
            raise OperationalError(
                f"REST catalog {self.catalog!r}: the OAuth2 token request to {self._token_uri}"
                f" failed ({response.status}): {error_message(response.body)}"
            )
        self._token = str(response.body["access_token"])
        expires = response.body.get("expires_in")
        self._expires_at = (
            time.monotonic() + max(float(expires) - _REFRESH_MARGIN_S, 0.0) if expires else None
        )

    # -- requests -------------------------------------------------------------------------
    def request(
        self, method: str, path: str, query: Mapping[str, str] | None = None, body: Any = None
    ) -> HttpResponse:
        """``method`` on ``<uri><path>``; a 401 renews a client-credentials token once."""
        url = self.uri + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
        data = json.dumps(body).encode() if body is not None else None
        for attempt in (0, 1):
            headers = dict(self._headers)
            token = self._bearer(refresh=attempt == 1)
            if token:
                headers["Authorization"] = f"Bearer {token}"
            response = self._send(method, url, data, headers)
            if response.status != 401 or self._credential is None or attempt == 1:
                return response
        raise AssertionError("unreachable")

    def _send(
        self, method: str, url: str, data: bytes | None, headers: dict[str, str]
    ) -> HttpResponse:
        parsed = urllib.parse.urlsplit(url)
        target = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        same_server = (parsed.hostname, parsed.port) == (self._host, self._port)
        idempotent = method in _IDEMPOTENT
        if same_server and not idempotent and getattr(self._local, "reused", False):
            # a kept-alive connection may have been closed by the server meanwhile, and a
            # change cannot be sent twice to find out: it goes on a connection of its own
            self._drop_connection()
        for attempt in (0, 1):
            con = self._connection() if same_server else self._new_connection(parsed)
            try:
                con.request(method, target, body=data, headers=headers)
                raw = con.getresponse()
                payload = raw.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
                self._drop_connection()
                # a kept-alive connection the server closed: only the first write can tell,
                # and only a request that may be repeated is sent again
                if (
                    attempt == 0
                    and same_server
                    and idempotent
                    and getattr(self._local, "reused", False)
                ):
                    continue
                raise ConnectionError(f"{method} {url}: {e}") from e
            except OSError:
                self._drop_connection()
                raise
            except http.client.HTTPException as e:  # an answer cut off or garbled (a server
                # killed mid-response): the request may have been applied, as for a lost answer
                self._drop_connection()
                raise ConnectionError(f"{method} {url}: incomplete answer: {e!r}") from e
            finally:
                if not same_server:  # a token endpoint elsewhere: a connection per request
                    con.close()
            self._local.reused = True
            text = payload.decode("utf-8", "replace") if payload else ""
            try:
                decoded = json.loads(text) if text else None
            except ValueError:
                decoded = text
            return HttpResponse(raw.status, decoded)
        raise AssertionError("unreachable")

    def _connection(self) -> http.client.HTTPConnection:
        con = getattr(self._local, "connection", None)
        with self._kept_lock:
            if con is None or con not in self._kept:  # none yet, or closed by close()
                con = self._new_connection(urllib.parse.urlsplit(self.uri))
                self._local.connection = con
                self._local.reused = False
                self._kept.add(con)
        return con

    def _new_connection(self, parsed: urllib.parse.SplitResult) -> http.client.HTTPConnection:
        kind = (
            http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
        )
        if parsed.hostname is None:  # __init__ refused such a URI
            raise OperationalError(
                f"REST catalog {self.catalog!r}: not an http(s) URL: {self.uri!r}"
            )
        return kind(parsed.hostname, parsed.port, timeout=self._timeout)

    def _drop_connection(self) -> None:
        con = getattr(self._local, "connection", None)
        if con is not None:
            con.close()
            with self._kept_lock:
                self._kept.discard(con)
        self._local.connection = None

    def close(self) -> None:
        """Close the connection every thread keeps to the server. The client stays usable:
        a later request opens a new one."""
        with self._kept_lock:
            kept, self._kept = self._kept, set()
        for con in kept:
            con.close()

    def __enter__(self) -> RestHttp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def error_message(body: Any) -> str:
    """What the server said went wrong: the ErrorModel's type and message, else the body."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        return f"{error.get('type', '')}: {error.get('message', '')}".strip(": ")
    text = body if isinstance(body, str) else json.dumps(body)
    return text[:300]
