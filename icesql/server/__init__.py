"""``icesql serve``: an Iceberg REST catalog server (tables and views) over the SQL catalog.

Spark's ``RESTCatalog``, PyIceberg's ``RestCatalog`` and icesql commit to the same tables
and views through it; they live in a SQL catalog database (Java's ``JdbcCatalog`` layout,
SQLite by default), so icesql and PyIceberg may also open that database directly.
``service`` holds the REST operations (no HTTP; ``views`` those of views), ``routes`` the
paths, auth and error model, ``wsgi`` the WSGI application and its server (waitress, the
extra ``icesql[server]``), ``ui`` the read-only web UI under ``/ui`` (``ui_pages`` its HTML):
on the REST server, or alone over any catalog (``open_ui_server``, ``icesql ui``). This package is a front: it uses the catalog, metadata and spec
layers and nothing imports it but the ``icesql`` command.

    >>> import tempfile
    >>> from icesql.server import open_server
    >>> warehouse = tempfile.TemporaryDirectory()
    >>> server = open_server(warehouse.name, "sqlite:///:memory:", port=0)
    >>> server.port > 0
    True
    >>> server.stop()
    >>> warehouse.cleanup()
"""

from __future__ import annotations

from collections.abc import Mapping

from icesql.catalog.base import Catalog
from icesql.catalog.sql import SqlCatalog
from icesql.io import FileIO
from icesql.server.limits import MAX_BODY_BYTES, MAX_JSON_DEPTH, Limits
from icesql.server.routes import Auth, Router
from icesql.server.service import RestCatalogService
from icesql.server.wsgi import THREADS, RestCatalogServer, UiApp

__all__ = [
    "Auth", "Limits", "RestCatalogServer", "RestCatalogService", "open_server", "open_ui_server",
]  # fmt: skip

DEFAULT_URI = "sqlite:///catalog.db"


def open_server(
    warehouse: str,
    uri: str = DEFAULT_URI,
    host: str = "127.0.0.1",
    port: int = 8181,
    token: str | None = None,
    credentials: Mapping[str, str] | None = None,
    name: str = "rest",
    properties: Mapping[str, str] | None = None,
    threads: int = THREADS,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_json_depth: int = MAX_JSON_DEPTH,
) -> RestCatalogServer:
    """A bound (not yet serving) REST catalog server: call ``serve_forever()``, then ``stop()``.

    ``warehouse`` is where the server places new tables (``<warehouse>/<namespace>/<table>``)
    and the only place table locations may point to; ``uri`` the SQL catalog database whose
    rows named ``name`` hold the tables; ``threads`` how many requests are served at once;
    a request body over ``max_body_bytes`` is refused (413), JSON nested deeper than
    ``max_json_depth`` too (400)."""
    props = {k: str(v) for k, v in (properties or {}).items()}
    catalog = SqlCatalog(name, uri, warehouse, FileIO(None, props), props)
    service = RestCatalogService(catalog, warehouse)
    try:
        limits = Limits(max_body_bytes, max_json_depth)
        router = Router(service, Auth(token, credentials), limits)
        return RestCatalogServer(router, host, port, threads)
    except BaseException:
        catalog.close()
        raise


def open_ui_server(
    catalogs: Mapping[str, Catalog],
    default: str,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    threads: int = THREADS,
) -> RestCatalogServer:
    """A bound server of the web UI alone over ``catalogs`` (any kind: a warehouse folder's,
    a REST or SQL catalog's; ``default`` the SQL editor's): ``icesql ui``. ``token`` makes
    its pages ask for it and lets the SQL editor write."""
    app = UiApp(catalogs, default, Auth(token), Limits())
    return RestCatalogServer(None, host, port, threads, app=app)
