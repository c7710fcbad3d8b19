"""The Iceberg REST catalog client (the REST OpenAPI spec), for Polaris, Unity, Nessie,
Lakekeeper, Gravitino, S3 Tables, Glue's REST endpoint and ``icesql serve``.

On connect, ``GET /v1/config`` gives the server's ``defaults`` (under the client's
properties) and ``overrides`` (over them), among them the path ``prefix``. Tables load with
``snapshots=all``; a table's ``config`` (vended credentials, when the server offers them for
the ``X-Iceberg-Access-Delegation`` header every request carries) configures the FileIO its
files are read and written with. A commit sends the updates the metadata builder recorded
(``TableMetadata.changes``) with the requirements their kinds call for
(``icesql.metadata.table_requirements.update_requirements``), so the server applies the
change to its own current version: one based on an older version still lands when nothing
it depended on moved (an append on ``main`` while someone else moved a tag). A new table
is one commit asserting that it does not exist (``assert-create``) and carrying the updates
that make its first version, the route Java's REST client takes for create transactions,
so the server keeps icesql's field ids, specs and first snapshot. 409 is a lost race
(``CommitFailedError``: icesql's commit loop re-reads and retries), any 5xx or a connection
that fails after the request was sent is an unknown outcome (``CommitStateUnknownError``:
never retried, never cleaned up). Namespace levels are joined by the spec's ``%1F``
separator in paths.

Views (the view spec, through the spec's ``/views`` endpoints) are used only where the
config's ``endpoints`` list advertises them, as Java's ``RESTSessionCatalog`` does (a server
that lists no endpoints has them only with ``view-endpoints-supported=true``); elsewhere
``list_views`` finds none and the other view methods refuse. A new view is one
``CreateViewRequest`` made from the metadata its updates give here (without a
``set-location`` the server places it); a change is one ``CommitViewRequest`` asserting the
view's UUID, checked and applied by the server on its current version.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from icesql import faults
from icesql.catalog.base import (
    Catalog,
    CommitFailedError,
    CommitStateUnknownError,
    Identifier,
)
from icesql.catalog.rest_http import HttpResponse, RestHttp, error_message
from icesql.catalog.table import Table, View
from icesql.errors import (
    AlreadyExistsError,
    CorruptFileError,
    InternalError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NoSuchViewError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
)
from icesql.io import FileIO
from icesql.metadata.table_commit import TableCommit
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import update_requirements
from icesql.metadata.view_metadata import ViewMetadata
from icesql.metadata.view_requests import create_request
from icesql.metadata.view_updates import apply_view_updates

if TYPE_CHECKING:
    from icesql.metadata.table_requirements import TableRequirement
    from icesql.metadata.table_updates import TableUpdate

__all__ = ["RestCatalog"]

NAMESPACE_SEPARATOR = "\x1f"
VIEWS_SUPPORTED = "view-endpoints-supported"  # Java's property for servers listing no endpoints
LIST_VIEWS = "GET /v1/{prefix}/namespaces/{namespace}/views"
CREATE_VIEW = "POST /v1/{prefix}/namespaces/{namespace}/views"
LOAD_VIEW = "GET /v1/{prefix}/namespaces/{namespace}/views/{view}"
VIEW_EXISTS = "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}"
UPDATE_VIEW = "POST /v1/{prefix}/namespaces/{namespace}/views/{view}"
DELETE_VIEW = "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}"
RENAME_VIEW = "POST /v1/{prefix}/views/rename"
# what a server listing no endpoints is taken to have, with views supported (Java's set)
VIEW_ENDPOINTS = frozenset(
    {LIST_VIEWS, CREATE_VIEW, LOAD_VIEW, UPDATE_VIEW, DELETE_VIEW, RENAME_VIEW}
)


class RestCatalog(Catalog):
    """Namespaces and tables served by an Iceberg REST catalog."""

    def __init__(
        self,
        name: str,
        uri: str,
        warehouse: str | None = None,
        properties: Mapping[str, str] | None = None,
        storage_options: dict | None = None,
    ) -> None:
        self.name = name
        props = {k: str(v) for k, v in (properties or {}).items()}
        self._http = RestHttp(uri, props, name)
        query = {"warehouse": warehouse} if warehouse else None
        try:
            config = self._ok(self._call("GET", "/v1/config", query), "read the catalog's config")
        except BaseException:  # refused (a wrong token): no catalog to close it later
            self._http.close()
            raise
        self.properties = {
            **(config.get("defaults") or {}),
            **props,
            **({"warehouse": warehouse} if warehouse else {}),
            **(config.get("overrides") or {}),
        }
        prefix = str(self.properties.get("prefix") or "").strip("/")
        self._prefix = f"/v1/{prefix}" if prefix else "/v1"
        self.warehouse = self.properties.get("warehouse")
        self._endpoints = _view_endpoints(config.get("endpoints"), self.properties)
        self._storage_options = storage_options
        self.io = FileIO(storage_options, self.properties)

    def close(self) -> None:
        """Close the HTTP connections the catalog keeps alive (every thread's)."""
        self._http.close()

    # -- plumbing -------------------------------------------------------------------------
    def _call(
        self, method: str, path: str, query: Mapping[str, str] | None = None, body: Any = None
    ) -> HttpResponse:
        try:
            return self._http.request(method, path, query, body)
        except OSError as e:
            raise OperationalError(
                f"REST catalog {self.name!r} ({self._http.uri}): {method} {path}: {e}"
            ) from e

    def _ok(self, response: HttpResponse, what: str) -> Any:
        if 200 <= response.status < 300:
            return response.body if response.body is not None else {}
        raise self._error(response, what)

    def _error(self, response: HttpResponse, what: str) -> Exception:
        text = f"REST catalog {self.name!r}: cannot {what}: {error_message(response.body)} ({response.status})"
        kind = (
            response.body.get("error", {}).get("type", "")
            if isinstance(response.body, dict)
            else ""
        )
        if response.status == 404:
            return NoSuchNamespaceError(text) if "Namespace" in kind else NoSuchTableError(text)
        if response.status == 409:
            return AlreadyExistsError(text)
        if response.status in (400, 422):
            return ProgrammingError(text)
        if response.status == 406 or (response.status == 501):
            return NotSupportedError(text)
        return OperationalError(text)

    def _ns(self, namespace: Identifier) -> str:
        for part in namespace:
            if not part or NAMESPACE_SEPARATOR in part:
                raise ProgrammingError(
                    f"invalid name part {part!r} in namespace {'.'.join(namespace)}"
                )
        return urllib.parse.quote(NAMESPACE_SEPARATOR.join(namespace), safe="")

    def _table_path(self, identifier: Identifier) -> str:
        if len(identifier) < 2 or not identifier[-1]:
            raise ProgrammingError(
                f"invalid table name {'.'.join(identifier)}: tables are named namespace.table"
            )
        name = urllib.parse.quote(identifier[-1], safe="")
        return f"{self._prefix}/namespaces/{self._ns(identifier[:-1])}/tables/{name}"

    def _describe(self, identifier: Identifier) -> str:
        return f"{'.'.join(identifier)} (catalog {self.name!r})"

    def _table(self, identifier: Identifier, result: Mapping[str, Any]) -> Table:
        location: Any = result.get("metadata-location")  # absent only for a staged table
        metadata = TableMetadata(result["metadata"], location)
        try:
            metadata.validate_bindings()
        except ValueError as e:
            raise CorruptFileError(
                location or self._describe(identifier), f"invalid table metadata: {e}"
            ) from None
        config = dict(result.get("config") or {})
        for credential in result.get("storage-credentials") or []:
            config.update(credential.get("config") or {})
        io = FileIO(self._storage_options, {**self.properties, **config}) if config else self.io
        return Table(identifier, metadata, location, io)

    def _paged(self, path: str, key: str, query: Mapping[str, str] | None, what: str) -> list[Any]:
        items: list[Any] = []
        params = dict(query or {})
        while True:
            body = self._ok(self._call("GET", path, params), what)
            items.extend(body.get(key) or [])
            token = body.get("next-page-token")
            if not token:
                return items
            params["pageToken"] = token

    # -- namespaces -----------------------------------------------------------------------
    def list_namespaces(self, parent: Identifier = ()) -> list[Identifier]:
        query = {"parent": NAMESPACE_SEPARATOR.join(parent)} if parent else None
        found = self._paged(f"{self._prefix}/namespaces", "namespaces", query, "list namespaces")
        return sorted(tuple(ns) for ns in found)

    def namespace_exists(self, namespace: Identifier) -> bool:
        if not namespace:
            return True
        response = self._call("GET", f"{self._prefix}/namespaces/{self._ns(namespace)}")
        if response.status == 404:
            return False
        self._ok(response, f"load namespace {self._describe(namespace)}")
        return True

    def namespace_properties(self, namespace: Identifier) -> dict[str, str]:
        body = self._ok(
            self._call("GET", f"{self._prefix}/namespaces/{self._ns(namespace)}"),
            f"load namespace {self._describe(namespace)}",
        )
        return dict(sorted((body.get("properties") or {}).items()))

    def create_namespace(
        self, namespace: Identifier, properties: dict[str, str] | None = None
    ) -> None:
        body = {"namespace": list(namespace), "properties": dict(properties or {})}
        self._ok(
            self._call("POST", f"{self._prefix}/namespaces", body=body),
            f"create namespace {self._describe(namespace)}",
        )

    def drop_namespace(self, namespace: Identifier) -> None:
        response = self._call("DELETE", f"{self._prefix}/namespaces/{self._ns(namespace)}")
        if response.status == 409:
            raise ProgrammingError(
                f"cannot drop namespace {self._describe(namespace)}: it is not empty"
                f" ({error_message(response.body)})"
            )
        self._ok(response, f"drop namespace {self._describe(namespace)}")

    def update_namespace_properties(
        self,
        namespace: Identifier,
        removals: AbstractSet[str] = frozenset(),
        updates: dict[str, str] | None = None,
    ) -> None:
        body = {"removals": sorted(removals), "updates": dict(updates or {})}
        self._ok(
            self._call(
                "POST", f"{self._prefix}/namespaces/{self._ns(namespace)}/properties", body=body
            ),
            f"update the properties of namespace {self._describe(namespace)}",
        )

    # -- tables ---------------------------------------------------------------------------
    def list_tables(self, namespace: Identifier) -> list[Identifier]:
        found = self._paged(
            f"{self._prefix}/namespaces/{self._ns(namespace)}/tables",
            "identifiers",
            None,
            f"list the tables of {self._describe(namespace)}",
        )
        return sorted((*t["namespace"], t["name"]) for t in found)

    def table_exists(self, identifier: Identifier) -> bool:
        if len(identifier) < 2:
            return False
        response = self._call("GET", self._table_path(identifier), {"snapshots": "refs"})
        if response.status == 404:
            return False
        self._ok(response, f"load table {self._describe(identifier)}")
        return True

    def load_table(self, identifier: Identifier) -> Table:
        if len(identifier) < 2:
            raise NoSuchTableError(
                f"table not found: {self._describe(identifier)} (tables are named namespace.table)"
            )
        response = self._call("GET", self._table_path(identifier), {"snapshots": "all"})
        if response.status == 404:
            raise NoSuchTableError(
                f"table not found: {self._describe(identifier)}: {error_message(response.body)}"
            )
        return self._table(
            identifier, self._ok(response, f"load table {self._describe(identifier)}")
        )

    def default_table_location(self, identifier: Identifier) -> str:
        """Where the server would put the table: the namespace's ``location`` property, else
        the location of a staged create (``stage-create``, which stores nothing), else
        ``<warehouse>/<namespace levels>``; then the table's name."""
        base = self.namespace_properties(identifier[:-1]).get("location")
        if base:
            return f"{str(base).rstrip('/')}/{identifier[-1]}"
        staged = self._call(
            "POST",
            f"{self._prefix}/namespaces/{self._ns(identifier[:-1])}/tables",
            body={
                "name": identifier[-1],
                "stage-create": True,
                "schema": {"type": "struct", "schema-id": 0, "fields": []},
            },
        )
        if 200 <= staged.status < 300 and isinstance(staged.body, dict):
            location = (staged.body.get("metadata") or {}).get("location")
            if location:
                return str(location)
        warehouse = str(self.warehouse or "")
        if "://" not in warehouse and not warehouse.startswith("/"):
            raise ProgrammingError(
                f"cannot place table {self._describe(identifier)}: the server gives no"
                f" location for it ({error_message(staged.body)}); give the table a LOCATION"
            )
        return "/".join((warehouse.rstrip("/"), *identifier))

    def create_table(self, identifier: Identifier, metadata: TableMetadata) -> Table:
        """One commit asserting the table does not exist and carrying its first version."""
        if not metadata.changes:
            raise InternalError(
                f"cannot create {self._describe(identifier)}: its metadata records no updates"
                " (make it with new_table_metadata)"
            )
        try:
            return self.commit(
                identifier, update_requirements(None, metadata.changes), metadata.changes
            )
        except CommitFailedError as e:
            raise AlreadyExistsError(
                f"table already exists: {self._describe(identifier)} ({e})"
            ) from None

    def commit_table(self, base: Table, metadata: TableMetadata) -> Table:
        """The updates that made ``metadata`` from ``base``, with what they require of it."""
        updates = metadata.changes
        requirements = update_requirements(base.metadata, updates)
        return self.commit(base.identifier, requirements, updates)

    def commit(
        self,
        identifier: Identifier,
        requirements: Sequence[TableRequirement],
        updates: Sequence[TableUpdate],
    ) -> Table:
        """Sent as they are: the server checks and applies them on its current metadata."""
        body = _table_change(identifier, requirements, updates)
        faults.reached("before-swap")
        try:
            response = self._http.request("POST", self._table_path(identifier), body=body)
            if 200 <= response.status < 300:
                faults.reached("after-swap")
        except OSError as e:  # sent, maybe applied: the answer was lost
            raise CommitStateUnknownError(
                f"commit to {self._describe(identifier)} may have succeeded: {e}"
            ) from e
        if response.status == 409:
            raise CommitFailedError(
                f"cannot commit to {self._describe(identifier)}: {error_message(response.body)}"
            )
        if response.status >= 500:
            raise CommitStateUnknownError(
                f"commit to {self._describe(identifier)} may have succeeded: the server answered"
                f" {response.status}: {error_message(response.body)}"
            )
        if response.status == 404:
            raise NoSuchTableError(
                f"table not found: {self._describe(identifier)}: {error_message(response.body)}"
            )
        return self._table(
            identifier, self._ok(response, f"commit to {self._describe(identifier)}")
        )

    def commit_transaction(
        self,
        changes: Sequence[tuple[Identifier, Sequence[TableRequirement], Sequence[TableUpdate]]],
    ) -> None:
        """Several tables' commits, all or nothing: the spec's ``/transactions/commit``."""
        body = {"table-changes": [_table_change(*change) for change in changes]}
        names = ", ".join(".".join(i) for i, _, _ in changes)
        try:
            response = self._http.request("POST", f"{self._prefix}/transactions/commit", body=body)
        except OSError as e:
            raise CommitStateUnknownError(
                f"transaction on {names} (catalog {self.name!r}) may have succeeded: {e}"
            ) from e
        if response.status == 409:
            raise CommitFailedError(
                f"cannot commit the transaction on {names} (catalog {self.name!r}): {error_message(response.body)}"
            )
        if response.status >= 500:
            raise CommitStateUnknownError(
                f"transaction on {names} (catalog {self.name!r}) may have succeeded: the server"
                f" answered {response.status}: {error_message(response.body)}"
            )
        self._ok(response, f"commit the transaction on {names}")

    def register_table(self, identifier: Identifier, metadata_location: str) -> Table:
        body = {"name": identifier[-1], "metadata-location": metadata_location}
        path = f"{self._prefix}/namespaces/{self._ns(identifier[:-1])}/register"
        return self._table(
            identifier,
            self._ok(
                self._call("POST", path, body=body), f"register table {self._describe(identifier)}"
            ),
        )

    def drop_table(self, identifier: Identifier, purge: bool = False) -> None:
        query = {"purgeRequested": "true"} if purge else None
        response = self._call("DELETE", self._table_path(identifier), query)
        if response.status == 404:
            raise NoSuchTableError(f"table not found: {self._describe(identifier)}")
        self._ok(response, f"drop table {self._describe(identifier)}")

    def rename_table(self, source: Identifier, target: Identifier) -> None:
        body = {
            "source": {"namespace": list(source[:-1]), "name": source[-1]},
            "destination": {"namespace": list(target[:-1]), "name": target[-1]},
        }
        self._ok(
            self._call("POST", f"{self._prefix}/tables/rename", body=body),
            f"rename {self._describe(source)} to {'.'.join(target)}",
        )

    # -- views ----------------------------------------------------------------------------
    @property
    def supports_views(self) -> bool:  # type: ignore[override]
        return VIEW_ENDPOINTS <= self._endpoints

    def no_views(self, endpoint: str | None = None) -> NotSupportedError:
        missing = f"{endpoint!r}" if endpoint else "the view endpoints"
        return NotSupportedError(
            f"REST catalog {self.name!r} ({self._http.uri}) keeps no Iceberg views: its config"
            f" does not list {missing} among its endpoints"
        )

    def _need(self, endpoint: str) -> None:
        if endpoint not in self._endpoints:
            raise self.no_views(endpoint)

    def _view_path(self, identifier: Identifier) -> str:
        if len(identifier) < 2 or not identifier[-1]:
            raise ProgrammingError(
                f"invalid view name {'.'.join(identifier)}: views are named namespace.view"
            )
        name = urllib.parse.quote(identifier[-1], safe="")
        return f"{self._prefix}/namespaces/{self._ns(identifier[:-1])}/views/{name}"

    def _view_error(self, response: HttpResponse, what: str) -> Exception:
        """Java's ``ViewErrorHandler``: a 404 is no such view unless the namespace is missing."""
        if response.status == 404 and "Namespace" not in _error_type(response.body):
            return NoSuchViewError(
                f"REST catalog {self.name!r}: cannot {what}: {error_message(response.body)}"
            )
        return self._error(response, what)

    def _view_ok(self, response: HttpResponse, what: str) -> Any:
        if 200 <= response.status < 300:
            return response.body if response.body is not None else {}
        raise self._view_error(response, what)

    def _view(self, identifier: Identifier, result: Any) -> View:
        """A ``LoadViewResult`` as a View; metadata that is no view spec v1 is corrupt."""
        location = result.get("metadata-location") if isinstance(result, dict) else None
        try:
            if not isinstance(location, str) or not isinstance(result.get("metadata"), dict):
                raise ValueError("the answer has no metadata-location and metadata")
            metadata = ViewMetadata(result["metadata"], location)
        except ValueError as e:
            raise CorruptFileError(
                str(location or self._describe(identifier)), f"invalid view metadata: {e}"
            ) from None
        return View(identifier, metadata, location)

    def list_views(self, namespace: Identifier) -> list[Identifier]:
        if LIST_VIEWS not in self._endpoints:
            return super().list_views(namespace)
        found = self._paged(
            f"{self._prefix}/namespaces/{self._ns(namespace)}/views",
            "identifiers",
            None,
            f"list the views of {self._describe(namespace)}",
        )
        return sorted((*v["namespace"], v["name"]) for v in found)

    def view_exists(self, identifier: Identifier) -> bool:
        if len(identifier) < 2:
            return False
        if VIEW_EXISTS in self._endpoints:
            response = self._call("HEAD", self._view_path(identifier))
        elif LOAD_VIEW in self._endpoints:  # servers of Iceberg 1.7 and older
            response = self._call("GET", self._view_path(identifier))
        else:
            return False
        if response.status == 404:
            return False
        self._view_ok(response, f"check view {self._describe(identifier)}")
        return True

    def load_view(self, identifier: Identifier) -> View:
        if LOAD_VIEW not in self._endpoints or len(identifier) < 2:
            return super().load_view(identifier)  # NoSuchViewError, as in Java
        what = f"load view {self._describe(identifier)}"
        return self._view(
            identifier, self._view_ok(self._call("GET", self._view_path(identifier)), what)
        )

    def create_view(self, identifier: Identifier, updates: Sequence[Mapping[str, Any]]) -> View:
        """One ``CreateViewRequest`` with the schema, version and properties ``updates`` make
        (their UUID is the server's to assign); 409 when the name is taken."""
        self._need(CREATE_VIEW)
        path = self._view_path(identifier).rpartition("/")[0]
        placed = any(u.get("action") == "set-location" for u in updates)
        unplaced = () if placed else ({"action": "set-location", "location": ""},)
        first = apply_view_updates(None, [*updates, *unplaced])
        body = create_request(identifier[-1], first, location=placed)
        what = f"create view {self._describe(identifier)}"
        return self._view(identifier, self._view_ok(self._call("POST", path, body=body), what))

    def commit_view(
        self,
        identifier: Identifier,
        requirements: Sequence[Mapping[str, Any]],
        updates: Sequence[Mapping[str, Any]],
    ) -> View:
        """A ``CommitViewRequest``; without an ``assert-view-uuid`` among ``requirements`` the
        UUID of the view as loaded now is asserted (Java always asserts it)."""
        self._need(UPDATE_VIEW)
        requirements = list(requirements)
        if not any(r.get("type") == "assert-view-uuid" for r in requirements):
            uuid = self.load_view(identifier).metadata.uuid
            requirements.append({"type": "assert-view-uuid", "uuid": uuid})
        body = {
            "identifier": {"namespace": list(identifier[:-1]), "name": identifier[-1]},
            "requirements": requirements,
            "updates": [dict(u) for u in updates],
        }
        where = self._describe(identifier)
        try:
            response = self._http.request("POST", self._view_path(identifier), body=body)
        except OSError as e:  # sent, maybe applied: the answer was lost
            raise CommitStateUnknownError(f"commit to view {where} may have succeeded: {e}") from e
        if response.status == 409:
            raise CommitFailedError(
                f"cannot commit to view {where}: {error_message(response.body)}"
            )
        if response.status >= 500:
            raise CommitStateUnknownError(
                f"commit to view {where} may have succeeded: the server answered"
                f" {response.status}: {error_message(response.body)}"
            )
        return self._view(identifier, self._view_ok(response, f"commit to view {where}"))

    def drop_view(self, identifier: Identifier) -> None:
        self._need(DELETE_VIEW)
        response = self._call("DELETE", self._view_path(identifier))
        self._view_ok(response, f"drop view {self._describe(identifier)}")

    def rename_view(self, source: Identifier, target: Identifier) -> None:
        self._need(RENAME_VIEW)
        for identifier in (source, target):
            self._view_path(identifier)  # both are named namespace.view
        body = {
            "source": {"namespace": list(source[:-1]), "name": source[-1]},
            "destination": {"namespace": list(target[:-1]), "name": target[-1]},
        }
        self._view_ok(
            self._call("POST", f"{self._prefix}/views/rename", body=body),
            f"rename view {self._describe(source)} to {'.'.join(target)}",
        )


def _table_change(
    identifier: Identifier,
    requirements: Sequence[TableRequirement],
    updates: Sequence[TableUpdate],
) -> dict[str, Any]:
    return TableCommit(tuple(identifier), tuple(requirements), tuple(updates)).to_json()


def _view_endpoints(listed: Any, properties: Mapping[str, str]) -> frozenset[str]:
    """The view endpoints a server offers: those its config lists; a server listing none
    has Java's set only when ``view-endpoints-supported`` is true."""
    if not listed:
        supported = str(properties.get(VIEWS_SUPPORTED, "false")).lower() == "true"
        return VIEW_ENDPOINTS if supported else frozenset()
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(e for e in listed if isinstance(e, str) and "/views" in e)


def _error_type(body: Any) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    return str(error.get("type", "")) if isinstance(error, dict) else ""
