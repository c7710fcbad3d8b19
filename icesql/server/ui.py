"""The web UI of ``icesql serve``: read-only pages under ``/ui`` on the same WSGI application
as the REST catalog (``icesql.server.wsgi``).

Pages: the catalogs, a catalog's namespaces, a namespace's tables and views, a table (schema with field
ids and its evolution, partition specs, sort orders, properties, refs, the health report of
``icesql.health`` with its charts and advice, the snapshot timeline) and a snapshot's
summary; and a SQL editor (``ui_sql``) whose statements only read, unless the server's token
was given. Nothing else writes: the advice shows the ``CALL`` and its dry run, never runs it.
When the server has a token (``--token`` / ``--credentials``) the pages need it too, given
once in a form and kept in an ``HttpOnly``, ``SameSite=Strict`` cookie (or sent as a bearer
header). Every answer forbids scripts, framing and content sniffing.

A table's report is kept per metadata file for a minute (``_REPORT_TTL_S``): the page of a
table of many files reads its manifests once, not on every view.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from icesql.catalog.base import Catalog
from icesql.errors import Error, NoSuchNamespaceError, NoSuchTableError
from icesql.health import TableHealth, table_health
from icesql.health.advice import quoted_name
from icesql.server import ui_pages
from icesql.server.routes import Auth, Request
from icesql.server.ui_sql import run_sql

__all__ = ["COOKIE", "UiPages"]

COOKIE = "icesql_ui_token"
_REPORT_TTL_S = 60.0
_REPORTS_KEPT = 32
_SECURITY = [
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
        " form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
]
_HTML = "text/html; charset=utf-8"

Answer = tuple[int, list[tuple[str, str]], bytes]


class UiPages:
    """The ``/ui`` pages over ``catalogs`` (``default`` the one the SQL editor's unqualified
    names use); ``engine(catalog, others)`` makes the session a report or a statement runs in."""

    def __init__(
        self,
        catalogs: Mapping[str, Catalog],
        default: str,
        auth: Auth,
        engine: Callable[[Catalog, Sequence[Catalog]], Any],
    ) -> None:
        self.catalogs = dict(catalogs)
        self.catalog = self.catalogs[default]
        self.auth = auth
        self._engine = engine
        self._reports: dict[str, tuple[float, TableHealth]] = {}
        self._lock = threading.Lock()

    def respond(self, request: Request) -> Answer:
        try:
            return self._respond(request)
        except (NoSuchTableError, NoSuchNamespaceError) as e:
            return _html(404, ui_pages.error_page(404, str(e)))
        except Error as e:
            return _html(400, ui_pages.error_page(400, str(e)))

    def _respond(self, request: Request) -> Answer:
        seg, method = request.segments[1:], request.method
        if seg == ["assets", "ui.css"] and method == "GET":
            css = resources.files("icesql.server").joinpath("assets/ui.css").read_bytes()
            return 200, [("Content-Type", "text/css; charset=utf-8"), *_SECURITY], css
        if seg == ["login"]:
            return self._login(request)
        if seg == ["sql"]:
            return self._sql(request)
        if method not in ("GET", "HEAD"):
            return _html(405, ui_pages.error_page(405, "the web UI is read-only"))
        if not self._allowed(request):
            return 303, [("Location", "/ui/login"), *_SECURITY], b""
        if not seg or seg == [""]:
            kinds = [(n, type(c).__name__) for n, c in self.catalogs.items()]
            return _html(200, ui_pages.catalogs_page(kinds))
        if len(seg) < 2 or seg[0] != "catalogs":
            return _html(404, ui_pages.error_page(404, f"no such page: {request.path}"))
        name, rest = seg[1], seg[2:]
        catalog = self.catalogs.get(name)
        if catalog is None:
            return _html(404, ui_pages.error_page(404, f"no catalog {name}"))
        match rest:
            case []:
                return _html(200, ui_pages.catalog_page(name, self._namespaces(catalog, ())))
            case ["namespaces", ns]:
                namespace = _split(ns)
                if not catalog.namespace_exists(namespace):
                    raise NoSuchNamespaceError(f"namespace not found: {'.'.join(namespace)}")
                children = self._namespaces(catalog, namespace)
                tables = catalog.list_tables(namespace)
                try:
                    views = catalog.list_views(namespace)
                except Error:
                    views = []
                page = ui_pages.namespace_page(name, namespace, children, tables, views)
                return _html(200, page)
            case ["tables", ns, table]:
                loaded = catalog.load_table((*_split(ns), table))
                page = ui_pages.table_page(name, loaded, self._report(catalog, loaded))
                return _html(200, page)
            case ["tables", ns, table, "snapshots", snapshot]:
                loaded = catalog.load_table((*_split(ns), table))
                found = (
                    ui_pages.snapshot_page(name, loaded, int(snapshot))
                    if snapshot.isdigit()
                    else None
                )
                if found is None:
                    return _html(404, ui_pages.error_page(404, f"no snapshot {snapshot}"))
                return _html(200, found)
        return _html(404, ui_pages.error_page(404, f"no such page: {request.path}"))

    @staticmethod
    def _namespaces(catalog: Catalog, parent: tuple[str, ...]) -> list[tuple[str, ...]]:
        return [tuple(n) for n in catalog.list_namespaces(parent)]

    def _report(self, catalog: Catalog, table: Any) -> TableHealth:
        key = f"{catalog.name}\x00{table.metadata_location}"
        now = time.monotonic()
        with self._lock:
            kept = self._reports.get(key)
        if kept is not None and now - kept[0] < _REPORT_TTL_S:
            return kept[1]
        engine = self._engine(catalog, ())
        try:
            report = table_health(engine, quoted_name(tuple(table.identifier)))
        finally:
            engine.close()
        with self._lock:
            self._reports[key] = (now, report)
            for old in sorted(self._reports, key=lambda k: self._reports[k][0])[:-_REPORTS_KEPT]:
                del self._reports[old]
        return report

    def _sql(self, request: Request) -> Answer:
        """The SQL editor: reads for anyone the pages admit, writes with the token only."""
        if not self._allowed(request):
            return 303, [("Location", "/ui/login"), *_SECURITY], b""
        writable = self.auth.required  # admitted by a token server: the token was given
        name = self.catalog.name
        if request.method in ("GET", "HEAD"):
            return _html(200, ui_pages.sql_page(name, "", writable))
        if request.method != "POST":
            return _html(405, ui_pages.error_page(405, "GET or POST"))
        if not _same_origin(request):
            return _html(403, ui_pages.error_page(403, "a form of another site"))
        try:
            form = {k: v[-1] for k, v in parse_qs(request.body.decode("utf-8")).items()}
        except UnicodeDecodeError:
            form = {}
        sql = form.get("sql", "").strip().rstrip(";")
        if not sql:
            return _html(200, ui_pages.sql_page(name, "", writable))
        others = [c for c in self.catalogs.values() if c is not self.catalog]
        outcome = run_sql(self.catalog, others, sql, writable, self._engine)
        status = 403 if outcome.error.startswith("only queries") else 200
        return _html(status, ui_pages.sql_page(name, sql, writable, outcome))

    # -- the token ---------------------------------------------------------------------------
    def _allowed(self, request: Request) -> bool:
        if not self.auth.required:
            return True
        header = request.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and self.auth.valid(value.strip()):
            return True
        token = _cookie(request.headers.get("Cookie", ""), COOKIE)
        return token is not None and self.auth.valid(token)

    def _login(self, request: Request) -> Answer:
        if request.method == "GET":
            return _html(200, ui_pages.login_page(False))
        if request.method != "POST":
            return _html(405, ui_pages.error_page(405, "GET or POST"))
        try:
            form = {k: v[-1] for k, v in parse_qs(request.body.decode("utf-8")).items()}
        except UnicodeDecodeError:
            form = {}
        token = form.get("token", "")
        if not self.auth.required or not token or not self.auth.valid(token):
            return _html(403 if self.auth.required else 200, ui_pages.login_page(True))
        cookie = f"{COOKIE}={token}; Path=/ui; HttpOnly; SameSite=Strict"
        return 303, [("Location", "/ui/"), ("Set-Cookie", cookie), *_SECURITY], b""


def _same_origin(request: Request) -> bool:
    """A form posted from this server's own pages: its Origin (when the browser sends one)
    names the host the request went to."""
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return origin is None
    host = request.headers.get("Host", "")
    return origin.split("://", 1)[-1] == host


def _split(segment: str) -> tuple[str, ...]:
    return tuple(segment.split(ui_pages.NAMESPACE_SEPARATOR))


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value
    return None


def _html(status: int, page: bytes) -> Answer:
    return status, [("Content-Type", _HTML), *_SECURITY], page
