"""The REST catalog's view operations (list, create, load, exists, replace, drop, rename)
over the served catalog's views, as Java's ``CatalogHandlers`` serves them.

Bodies are read strictly (``icesql.metadata.view_requests``: a malformed one is a 400 naming
the field); a create becomes the updates that make the view, with a fresh UUID, and goes
through the catalog's ``create_view`` like every other view; a replace is checked
(``assert-view-uuid``) and applied by the catalog on its current version, a swap lost to a
writer outside the server re-done there. Names pass the same checks as table names, and a
view's location (given on create, or set by a commit) must lie under the warehouse, where
its metadata files are written. A catalog that keeps no views refuses each operation
(``no_views``) and the routes do not advertise them.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from icesql.catalog.base import Identifier
from icesql.errors import NoSuchViewError
from icesql.metadata.view_requests import (
    create_request_updates,
    read_commit_request,
    read_create_request,
)
from icesql.server.limits import BadRequestError, check_names
from icesql.server.service import (
    RestCatalogService,
    _identifier_json,
    _listing,
    _obj,
    _page,
    _parse_identifier,
)

if TYPE_CHECKING:
    from icesql.catalog.table import View

__all__ = ["ViewService"]


class ViewService:
    """The view half of the REST catalog, sharing the table half's checks and locks."""

    def __init__(self, tables: RestCatalogService) -> None:
        self._tables = tables
        self.catalog = tables.catalog

    @property
    def supported(self) -> bool:
        return bool(self.catalog.supports_views)

    def _check(self, identifier: Identifier) -> Identifier:
        if not self.supported:
            raise self.catalog.no_views()
        check_names(identifier, table=True)
        self.catalog.check_identifier(identifier, "view")
        return identifier

    @staticmethod
    def _result(view: View) -> dict[str, Any]:
        return {
            "metadata-location": view.metadata_location,
            "metadata": dict(view.metadata.raw),
            "config": {},
        }

    def list_views(
        self, namespace: Identifier, page_token: str | None = None, page_size: str | None = None
    ) -> dict[str, Any]:
        self._tables.check_namespace(namespace)
        if not self.supported:
            raise self.catalog.no_views()
        page, token = _page(sorted(self.catalog.list_views(namespace)), page_token, page_size)
        identifiers = [_identifier_json(v) for v in page]
        return _listing("identifiers", identifiers, token, page_token is not None)

    def create_view(self, namespace: Identifier, body: Any) -> dict[str, Any]:
        request = read_create_request(body)
        identifier = self._check((*self._tables.check_namespace(namespace), request.name))
        location = (request.location or self.catalog.default_table_location(identifier)).rstrip("/")
        self._tables.check_location(location, "view location")
        updates = create_request_updates(request, str(uuid.uuid4()), location)
        with self._tables._locked([identifier]):  # the catalog refuses a name that is taken
            return self._result(self.catalog.create_view(identifier, updates))

    def load_view(self, identifier: Identifier) -> dict[str, Any]:
        return self._result(self.catalog.load_view(self._check(identifier)))

    def view_exists(self, identifier: Identifier) -> None:
        if not self.catalog.view_exists(self._check(identifier)):
            raise NoSuchViewError(f"view not found: {self.catalog.describe(identifier)}")

    def commit_view(self, identifier: Identifier, body: Any) -> dict[str, Any]:
        """Java's ``CatalogHandlers.updateView``; the identifier is the path's."""
        named, requirements, updates = read_commit_request(body)
        self._check(identifier)
        if named is not None and named != identifier:
            raise BadRequestError(
                f"commit body names {'.'.join(named)}, the path {'.'.join(identifier)}"
            )
        for update in updates:
            if update["action"] == "set-location":
                self._tables.check_location(update["location"], "view location")
        with self._tables._locked([identifier]):
            return self._result(self.catalog.commit_view(identifier, requirements, updates))

    def drop_view(self, identifier: Identifier) -> None:
        with self._tables._locked([self._check(identifier)]):
            self.catalog.drop_view(identifier)

    def rename_view(self, body: Any) -> None:
        body = _obj(body, "rename view")
        source = self._check(_parse_identifier(body.get("source"), "'source'"))
        target = self._check(_parse_identifier(body.get("destination"), "'destination'"))
        with self._tables._locked([source, target]):
            self.catalog.rename_view(source, target)
