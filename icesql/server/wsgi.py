"""The HTTP side of ``icesql serve``: the routes as a WSGI application, served by waitress.

Why waitress: it is a production WSGI server in pure Python (no compiler, the same on Linux,
macOS and Windows) with a fixed pool of worker threads, HTTP/1.1 keep-alive (Java's and
PyIceberg's connection pools reuse connections), chunked request bodies, and each request's
body read whole before the application runs, so a body nobody needs (Spark's ``/metrics``
reports) never leaves a kept-alive connection out of step. The catalog's operations are
synchronous (one SQL statement and a small metadata file each): WSGI fits them, ASGI would
only add a hop through an event loop. It is the optional extra ``icesql[server]``.

One log line per request (method, path, status, milliseconds); an unexpected exception is
logged here with its traceback and answered 500 without one. ``stop()`` is graceful: the
listening socket is closed first (new connections are refused), requests already received
(commits) run to the end and their answers are sent, idle kept-alive connections are closed,
and only then do the worker threads stop.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from http import HTTPStatus
from typing import Any
from urllib.parse import quote, urlsplit

from icesql.errors import OperationalError
from icesql.server.limits import BadRequestError, Limits
from icesql.server.routes import Auth, Request, Router, error_response

__all__ = ["RestCatalogApp", "RestCatalogServer", "UiApp"]

log = logging.getLogger("icesql.server")

IDLE_TIMEOUT_S = 60  # a kept-alive connection with no request for this long is closed
DRAIN_TIMEOUT_S = 60.0  # how long stop() waits for requests in flight
THREADS = 8  # worker threads: requests served at once (commits of one table serialise anyway)
_LOOP_S = 0.5

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


def _raw_target(environ: Mapping[str, Any]) -> tuple[str, str]:
    """The path as the client sent it (still percent-encoded) and the query string.

    WSGI's ``PATH_INFO`` is already decoded, which would turn a name's ``%2F`` into a path
    separator; waitress keeps the request line as ``REQUEST_URI`` (gunicorn as ``RAW_URI``)."""
    raw = environ.get("REQUEST_URI") or environ.get("RAW_URI")
    if raw:
        parts = urlsplit(raw)
        return parts.path or "/", parts.query
    return quote(environ.get("PATH_INFO") or "/", safe="/"), environ.get("QUERY_STRING", "")


def _headers(environ: Mapping[str, Any]) -> dict[str, str]:
    headers = {
        "-".join(w.capitalize() for w in key[5:].split("_")): value
        for key, value in environ.items()
        if key.startswith("HTTP_")
    }
    for key, name in (("CONTENT_TYPE", "Content-Type"), ("CONTENT_LENGTH", "Content-Length")):
        if environ.get(key):
            headers[name] = environ[key]
    return headers


def _body(environ: Mapping[str, Any], limits: Limits) -> bytes:
    """The whole request body (waitress has de-chunked and bounded it; checked again for
    another WSGI server)."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise BadRequestError("malformed Content-Length header") from None
    limits.check_size(length)
    return environ["wsgi.input"].read(length) if length > 0 else b""


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:  # e.g. 419, the spec's authentication timeout, unknown to http.HTTPStatus
        return "Error"


class RestCatalogApp:
    """The WSGI application: every request through the ``Router``, answered as JSON."""

    def __init__(self, router: Router) -> None:
        self.router = router
        catalog = router.service.catalog
        self.ui = UiApp({catalog.name: catalog}, catalog.name, router.auth, router.limits)

    def __call__(
        self, environ: Mapping[str, Any], start_response: StartResponse
    ) -> Iterable[bytes]:
        started = time.perf_counter()
        method = environ["REQUEST_METHOD"]
        path, query = _raw_target(environ)
        if path == "/ui" or path.startswith("/ui/"):
            return self.ui(environ, start_response)
        try:
            body = _body(environ, self.router.limits)
            request = Request(method, path, query, body, _headers(environ))
            status, payload = self.router.respond(request)
        except Exception as e:  # a server fault (or a bad Content-Length): logged in full
            status, payload = error_response(e)
            if status >= 500:
                log.exception("unexpected error in %s %s", method, path[:200])
        data = b"" if payload is None or method == "HEAD" else json.dumps(payload).encode()
        headers = [("Content-Length", str(len(data)))]
        if payload is not None:
            headers.append(("Content-Type", "application/json"))
        start_response(f"{status} {_phrase(status)}", headers)
        log.info("%s %s %d %.1fms", method, path, status, (time.perf_counter() - started) * 1000)
        return [data]


class UiApp:
    """The web UI as a WSGI application (``icesql.server.ui``): the pages under ``/ui`` of
    ``icesql serve``, or on their own for ``icesql ui`` (``/`` then leads to ``/ui/``)."""

    def __init__(
        self, catalogs: Mapping[str, Any], default: str, auth: Auth, limits: Limits
    ) -> None:
        self.catalogs = dict(catalogs)
        self.default = default
        self.auth = auth
        self.limits = limits
        self._pages: Any = None  # loaded with the first page: the REST server may serve none

    def __call__(
        self, environ: Mapping[str, Any], start_response: StartResponse
    ) -> Iterable[bytes]:
        started = time.perf_counter()
        method = environ["REQUEST_METHOD"]
        path, query = _raw_target(environ)
        headers: list[tuple[str, str]]
        if path in ("/", "/ui"):
            status, headers, data = 308, [("Location", "/ui/")], b""
        elif not path.startswith("/ui/"):
            status, headers, data = 404, [("Content-Type", "text/plain")], b"not found"
        else:
            try:
                body = _body(environ, self.limits)
                request = Request(method, path, query, body, _headers(environ))
                if self._pages is None:
                    from icesql.server.ui import UiPages

                    self._pages = UiPages(self.catalogs, self.default, self.auth, _engine)
                status, headers, data = self._pages.respond(request)
            except BadRequestError as e:
                status, headers, data = 400, [("Content-Type", "text/plain")], str(e).encode()
            except Exception:
                log.exception("unexpected error in %s %s", method, path[:200])
                status, headers, data = 500, [("Content-Type", "text/plain")], b"server error"
        if method == "HEAD":
            data = b""
        start_response(
            f"{status} {_phrase(status)}", [("Content-Length", str(len(data))), *headers]
        )
        log.info("%s %s %d %.1fms", method, path, status, (time.perf_counter() - started) * 1000)
        return [data]


def _engine(catalog: Any, others: Any = ()) -> Any:
    """A session over the server's catalogs for one health report or statement (imported on
    first use: a REST server that serves no page never loads the engine)."""
    from icesql.engine import Engine

    return Engine(catalog, others=others)


def _waitress() -> tuple[Any, type]:
    """waitress's server module and a channel class that keeps connections alive after 204s."""
    try:
        import waitress.server
        from waitress.channel import HTTPChannel
        from waitress.task import ErrorTask, WSGITask
    except ImportError:
        raise OperationalError(
            "icesql serve needs the waitress WSGI server: pip install 'icesql[server]'"
        ) from None

    class KeepAliveTask(WSGITask):
        """waitress closes the connection after any response without a Content-Length, and a
        204 may not carry one; but a 204 has no body by definition, so an HTTP/1.1
        connection stays in step and is kept (Spark answers each scan and commit with a
        ``/metrics`` POST whose answer is 204)."""

        _bodiless = False

        def build_response_header(self) -> bytes:
            self._bodiless = (
                self.version == "1.1"
                and self.status[:3] in ("204", "304")
                and self.request.headers.get("CONNECTION", "").lower() != "close"
            )
            try:
                return super().build_response_header()
            finally:
                self._bodiless = False

        def set_close_on_finish(self) -> None:
            if not self._bodiless:
                super().set_close_on_finish()

    class ErrorModelTask(ErrorTask):
        """waitress's own refusals (a body over the limit, a malformed request line) as the
        spec's ErrorModel instead of text/plain, so every client reads every error alike."""

        def execute(self) -> None:
            error = self.request.error
            code = int(error.code)
            if code == 413:
                limit = self.channel.server.adj.max_request_body_size
                message = f"request body over this server's limit of {limit} bytes"
            else:
                message = f"{error.reason}: {error.body}"
            kind = "BadRequestException" if code < 500 else "InternalServerError"
            body = json.dumps({"error": {"message": message, "type": kind, "code": code}})
            self.status = f"{code} {error.reason}"
            self.response_headers.append(("Content-Type", "application/json"))
            self.set_close_on_finish()
            data = body.encode()
            self.content_length = len(data)
            self.write(data)

    class KeepAliveChannel(HTTPChannel):
        task_class = KeepAliveTask
        error_task_class = ErrorModelTask

    return waitress.server, KeepAliveChannel


class RestCatalogServer:
    """The REST catalog on ``(host, port)`` (port 0: any free one, see ``port``), bound at
    construction; ``serve_forever()`` serves until ``stop()``."""

    def __init__(
        self,
        router: Router | None,
        host: str = "127.0.0.1",
        port: int = 8181,
        threads: int = THREADS,
        app: UiApp | None = None,
    ) -> None:
        """``router`` the REST catalog's, or None with ``app`` the web UI alone."""
        server, channel_class = _waitress()
        self.router = router
        self._map: dict[int, Any] = {}
        limits = router.limits if router is not None else (app.limits if app else Limits())
        if router is None and app is None:
            raise ValueError("a server needs a router or an app")
        self._listener = server.create_server(
            RestCatalogApp(router) if router is not None else app,
            map=self._map,
            host=host,
            port=port,
            threads=threads,
            channel_timeout=IDLE_TIMEOUT_S,
            max_request_body_size=limits.max_body_bytes,
            ident="icesql",
            asyncore_use_poll=True,
        )
        self._listeners = [d for d in self._map.values() if isinstance(d, server.BaseWSGIServer)]
        for listener in self._listeners:
            listener.channel_class = channel_class
        self._dispatcher = self._listeners[0].task_dispatcher
        self._stopping = threading.Event()
        self._serving = threading.Event()
        self._finished = threading.Event()
        self._closed = False
        self._close_lock = threading.Lock()

    @property
    def port(self) -> int:
        return int(self._listeners[0].effective_port)

    @property
    def host(self) -> str:
        """The address the server listens on (127.0.0.1 unless told otherwise)."""
        return str(self._listeners[0].socket.getsockname()[0])

    def serve_forever(self) -> None:
        """Serve until ``stop()``; returns once requests in flight are answered."""
        from waitress import wasyncore

        self._serving.set()
        try:
            while not self._stopping.is_set():
                wasyncore.loop(timeout=_LOOP_S, map=self._map, use_poll=True, count=1)
            self._drain(wasyncore)
        finally:
            self._close()
            self._finished.set()

    def serve_in_background(self) -> threading.Thread:
        """Serve from a new thread; returns once the server is accepting (tests, embedding)."""
        thread = threading.Thread(target=self.serve_forever, name="icesql-serve", daemon=True)
        thread.start()
        self._serving.wait()
        return thread

    def stop(self) -> None:
        """Graceful shutdown (from any thread but the serving one; idempotent): no new
        connections, requests in flight finished and answered, then the workers stopped."""
        self._stopping.set()
        if self._serving.is_set():
            if not self._finished.is_set():
                try:
                    self._listeners[0].pull_trigger()  # wake the loop now, not at its timeout
                except OSError:  # closed meanwhile: the loop has ended
                    pass
            self._finished.wait()
        else:
            self._close()

    def _channels(self) -> Iterator[Any]:
        from waitress.channel import HTTPChannel

        return (d for d in list(self._map.values()) if isinstance(d, HTTPChannel))

    def _drain(self, wasyncore: Any) -> None:
        """In the serving thread: stop listening, then loop until every connection is closed,
        closing each one as soon as it has no request in flight and nothing left to send."""
        for listener in self._listeners:
            wasyncore.dispatcher.close(listener)  # the listening socket (not the trigger)
        deadline = time.monotonic() + DRAIN_TIMEOUT_S
        while True:
            busy = 0
            for channel in self._channels():
                if not channel.requests and not channel.total_outbufs_len:
                    channel.will_close = True  # closed by the next loop (not readable now)
                else:
                    busy += 1
            if not any(True for _ in self._channels()):
                return
            if time.monotonic() > deadline:
                log.warning("stopping with %d request(s) still in flight", busy)
                return
            wasyncore.loop(timeout=0.05, map=self._map, use_poll=True, count=1)

    def _close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        for channel in list(self._map.values()):
            try:
                channel.close()
            except OSError:
                pass
        self._dispatcher.shutdown(cancel_pending=True, timeout=DRAIN_TIMEOUT_S)
