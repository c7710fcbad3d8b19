"""The Iceberg REST catalog's operations over a pointer-swapping catalog (the SQL catalog).

Each method takes the decoded request (names, query values, the JSON body) and returns the
JSON response body (or None for 204); failures are icesql errors that ``icesql.server.routes``
turns into the spec's ``ErrorModel``. Nothing here knows HTTP.

Commits are checked and applied here, not trusted: the server loads the table's current
metadata, checks the commit's requirements against it (``RequirementFailedError`` → 409),
applies the updates through the metadata builder (``icesql.metadata.table_commit``), writes
the new metadata file and swaps the catalog's pointer with its compare-and-swap. Commits to one table through this
server queue on a per-table lock; a swap lost to a writer outside the server (icesql or
PyIceberg on the same database) is re-done from the new current metadata, requirements
checked again, so a retry never applies a change the client did not base on what it asserted.

Names never become paths unchecked: every namespace level and table name passes the
catalog's ``check_identifier`` (no ``/``, ``\\``, NUL, ``..``, ``%2F``), and table locations
(given on create, set by a commit, or registered) must lie under the server's warehouse.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import posixpath
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from icesql.catalog.base import CommitFailedError, Identifier
from icesql.catalog.metastore import MetastoreCatalog
from icesql.catalog.table import Table
from icesql.errors import (
    AlreadyExistsError,
    Error,
    NoSuchNamespaceError,
    NoSuchTableError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.table_commit import DEFAULT_FORMAT_VERSION, TableCommit, apply_table_updates
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import RequirementFailedError, check_table_requirements
from icesql.metadata.table_updates import InvalidUpdateError
from icesql.server.limits import BadRequestError, check_names
from icesql.spec.fresh_ids import fresh_schema_fields
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema, walk_fields
from icesql.spec.sorting import SortOrder
from icesql.spec.types import StructType

__all__ = [
    "BadRequestError",
    "ForbiddenError",
    "NamespaceNotEmptyError",
    "RestCatalogService",
    "UnprocessableError",
]

COMMIT_ATTEMPTS = 4  # swaps lost to writers outside the server, each re-checked
FORMAT_VERSION_PROPERTY = "format-version"  # a create option, never stored (as in Java)
PARTITION_FIELD_ID_START = 1000


class ForbiddenError(Error):
    """The request is understood but not allowed, e.g. a location outside the warehouse (403)."""


class NamespaceNotEmptyError(ProgrammingError):
    """A namespace to drop still holds tables, views or namespaces (409)."""


class UnprocessableError(ProgrammingError):
    """A property both set and removed in one request (422)."""


def _obj(body: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        raise BadRequestError(f"{what}: the request body must be a JSON object")
    return body


def _str_map(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise BadRequestError(f"{what} must map strings to strings")
    return dict(value)


def _identifier_json(identifier: Identifier) -> dict[str, Any]:
    return {"namespace": list(identifier[:-1]), "name": identifier[-1]}


def _parse_identifier(value: Any, what: str) -> Identifier:
    if not (
        isinstance(value, Mapping)
        and isinstance(value.get("namespace"), list)
        and all(isinstance(p, str) for p in value["namespace"])
        and isinstance(value.get("name"), str)
    ):
        raise BadRequestError(f"{what} must be a table identifier {{namespace: [...], name}}")
    return (*value["namespace"], value["name"])


def _page(
    items: list[Identifier], page_token: str | None, page_size: str | None
) -> tuple[list[Identifier], str | None]:
    """One page of sorted ``items`` and the token of the next (None at the end).

    The spec's pagination: without ``pageToken`` every item in one answer; with it (empty to
    start) at most ``pageSize`` items after the one the token names. The token is the last
    item given (base64url JSON), so names created or dropped between pages neither repeat
    nor shift the listing."""
    if page_token is None:
        return items, None
    size = len(items) or 1
    if page_size is not None:
        try:
            size = int(page_size)
        except ValueError:
            size = 0
        if size < 1:
            raise BadRequestError(f"pageSize must be a positive integer, got {page_size!r}")
    if page_token:
        try:
            last = json.loads(base64.urlsafe_b64decode(page_token.encode("ascii")))
            if not isinstance(last, list) or not all(isinstance(p, str) for p in last):
                raise ValueError
        except (ValueError, UnicodeEncodeError, binascii.Error):
            raise BadRequestError(f"malformed pageToken {page_token!r}") from None
        items = [i for i in items if i > tuple(last)]
    page = items[:size]
    if len(items) <= size:
        return page, None
    return page, base64.urlsafe_b64encode(json.dumps(list(page[-1])).encode()).decode("ascii")


def _listing(key: str, items: list[Any], token: str | None, paged: bool) -> dict[str, Any]:
    """A list answer; ``next-page-token`` only when the client asked for pages."""
    return {key: items, "next-page-token": token} if paged else {key: items}


def _normal(location: str) -> str:
    """A location with ``file:`` spelled away and ``.``/``..`` steps resolved."""
    scheme, sep, rest = location.partition("://")
    if not sep:
        scheme, rest = "", location
        if rest.startswith("file:"):
            rest = rest[len("file:") :]
    elif scheme == "file":
        scheme = ""
    path = posixpath.normpath(rest) if rest else rest
    return f"{scheme}://{path}" if scheme else path


class RestCatalogService:
    """The REST catalog's operations over ``catalog``, placing tables under ``warehouse``."""

    def __init__(self, catalog: MetastoreCatalog, warehouse: str) -> None:
        self.catalog = catalog
        self.warehouse = warehouse.rstrip("/")
        self._root = _normal(self.warehouse)
        self._locks: dict[Identifier, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    # -- names, locations, locks ------------------------------------------------------------
    def check_namespace(self, namespace: Identifier) -> Identifier:
        if not namespace:
            raise BadRequestError("empty namespace")
        check_names(namespace, table=False)
        self.catalog.check_identifier(namespace, "namespace")
        return namespace

    def check_table(self, identifier: Identifier) -> Identifier:
        check_names(identifier, table=True)
        self.catalog.check_identifier(identifier)
        return identifier

    def check_location(self, location: str, what: str) -> None:
        normal = _normal(location)
        if normal != self._root and not normal.startswith(self._root.rstrip("/") + "/"):
            raise ForbiddenError(
                f"{what} {location!r} is outside the warehouse {self.warehouse!r} of this server"
            )

    @contextmanager
    def _locked(self, identifiers: Sequence[Identifier]) -> Iterator[None]:
        """Per-table locks, taken in sorted order so two transactions never deadlock."""
        with self._locks_guard:
            locks = [self._locks.setdefault(i, threading.Lock()) for i in sorted(set(identifiers))]
        with ExitStack() as stack:
            for lock in locks:
                stack.enter_context(lock)
            yield

    # -- config -----------------------------------------------------------------------------
    def config(self, warehouse: str | None, endpoints: list[str]) -> dict[str, Any]:
        """Serves one warehouse: a client naming another (by location or catalog name) is
        told so instead of silently getting this one."""
        if (
            warehouse
            and _normal(warehouse.rstrip("/")) != self._root
            and warehouse != self.catalog.name
        ):
            raise NoSuchWarehouseError(
                f"warehouse {warehouse!r} not found: this server serves {self.warehouse!r}"
            )
        return {"defaults": {}, "overrides": {"warehouse": self.warehouse}, "endpoints": endpoints}

    # -- namespaces -------------------------------------------------------------------------
    def list_namespaces(
        self, parent: Identifier, page_token: str | None = None, page_size: str | None = None
    ) -> dict[str, Any]:
        if parent:
            self.check_namespace(parent)
        page, token = _page(self.catalog.list_namespaces(parent), page_token, page_size)
        return _listing("namespaces", [list(n) for n in page], token, page_token is not None)

    def create_namespace(self, body: Any) -> dict[str, Any]:
        body = _obj(body, "create namespace")
        namespace = body.get("namespace")
        if not isinstance(namespace, list) or not all(isinstance(p, str) for p in namespace):
            raise BadRequestError("create namespace: 'namespace' must be a list of strings")
        properties = _str_map(body.get("properties"), "namespace properties")
        self.check_namespace(tuple(namespace))
        self.catalog.create_namespace(tuple(namespace), properties)
        return {"namespace": namespace, "properties": properties}

    def load_namespace(self, namespace: Identifier) -> dict[str, Any]:
        self.check_namespace(namespace)
        return {
            "namespace": list(namespace),
            "properties": self.catalog.namespace_properties(namespace),
        }

    def namespace_exists(self, namespace: Identifier) -> None:
        self.check_namespace(namespace)
        if not self.catalog.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {self.catalog.describe(namespace)}")

    def drop_namespace(self, namespace: Identifier) -> None:
        self.namespace_exists(namespace)
        inside = [
            *self.catalog.list_tables(namespace),
            *self.catalog.list_views(namespace),
            *self.catalog.list_namespaces(namespace),
        ]
        if inside:
            names = ", ".join(".".join(i) for i in inside)
            raise NamespaceNotEmptyError(
                f"namespace {self.catalog.describe(namespace)} is not empty: {names}"
            )
        self.catalog.drop_namespace(namespace)

    def update_namespace_properties(self, namespace: Identifier, body: Any) -> dict[str, Any]:
        body = _obj(body, "update namespace properties")
        removals = body.get("removals")
        removals = [] if removals is None else removals
        if not isinstance(removals, list) or not all(isinstance(k, str) for k in removals):
            raise BadRequestError("'removals' must be a list of strings")
        updates = _str_map(body.get("updates"), "'updates'")
        both = sorted(set(removals) & set(updates))
        if both:
            raise UnprocessableError(f"properties both set and removed: {', '.join(both)}")
        self.check_namespace(namespace)
        current = self.catalog.namespace_properties(namespace)
        self.catalog.update_namespace_properties(namespace, set(removals), updates)
        return {
            "updated": sorted(updates),
            "removed": sorted(k for k in set(removals) if k in current),
            "missing": sorted(k for k in set(removals) if k not in current),
        }

    # -- tables -----------------------------------------------------------------------------
    def list_tables(
        self, namespace: Identifier, page_token: str | None = None, page_size: str | None = None
    ) -> dict[str, Any]:
        self.check_namespace(namespace)
        page, token = _page(sorted(self.catalog.list_tables(namespace)), page_token, page_size)
        identifiers = [_identifier_json(t) for t in page]
        return _listing("identifiers", identifiers, token, page_token is not None)

    def load_table(self, identifier: Identifier, snapshots: str | None = None) -> dict[str, Any]:
        self.check_table(identifier)
        if snapshots not in (None, "all", "refs"):
            raise BadRequestError(f"snapshots must be 'all' or 'refs', got {snapshots!r}")
        table = self.catalog.load_table(identifier)
        return self._load_result(
            table.metadata, table.metadata_location, refs_only=snapshots == "refs"
        )

    def table_exists(self, identifier: Identifier) -> None:
        self.check_table(identifier)
        if not self.catalog.table_exists(identifier):
            raise NoSuchTableError(f"table not found: {self.catalog.describe(identifier)}")

    @staticmethod
    def _load_result(
        metadata: TableMetadata, location: str | None, refs_only: bool = False
    ) -> dict[str, Any]:
        raw = dict(metadata.raw)
        if refs_only:  # only the snapshots a branch or tag points at
            kept = {r.snapshot_id for r in metadata.refs.values()}
            raw["snapshots"] = [s for s in raw.get("snapshots") or [] if s["snapshot-id"] in kept]
        out: dict[str, Any] = {"metadata": raw, "config": {}}
        if location is not None:
            out = {"metadata-location": location, **out}
        return out

    def create_table(self, namespace: Identifier, body: Any) -> dict[str, Any]:
        """Create (or, with ``stage-create``, only describe) a table; fresh field ids are
        assigned as Java's server does, and the spec and sort order follow them by name."""
        body = _obj(body, "create table")
        name = body.get("name")
        if not isinstance(name, str):
            raise BadRequestError("create table: 'name' must be a string")
        identifier = self.check_table((*self.check_namespace(namespace), name))
        if not self.catalog.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {self.catalog.describe(namespace)}")
        if self.catalog.table_exists(identifier):
            raise AlreadyExistsError(f"table already exists: {self.catalog.describe(identifier)}")
        metadata = self._new_metadata(identifier, body)
        if body.get("stage-create") is True:
            return self._load_result(metadata, None)
        table = self.catalog.create_table(identifier, metadata)
        return self._load_result(table.metadata, table.metadata_location)

    def _new_metadata(self, identifier: Identifier, body: Mapping[str, Any]) -> TableMetadata:
        properties = _str_map(body.get("properties"), "table properties")
        version_text = properties.pop(FORMAT_VERSION_PROPERTY, str(DEFAULT_FORMAT_VERSION))
        try:
            given_schema = Schema.from_json(
                dict(_obj(body.get("schema"), "create table: 'schema'"))
            )
            spec_json = body.get("partition-spec")
            order_json = body.get("write-order")
            given_spec = (
                PartitionSpec.from_json(dict(_obj(spec_json, "create table: 'partition-spec'")))
                if spec_json is not None
                else PartitionSpec(0, ())
            )
            given_order = (
                SortOrder.from_json(dict(_obj(order_json, "create table: 'write-order'")))
                if order_json is not None
                else SortOrder(0, ())
            )
            format_version = int(version_text)
        except (
            ValueError,
            TypeError,
            KeyError,
            AttributeError,
            ProgrammingError,
            NotSupportedError,  # an unknown type name: the client's mistake
        ) as e:
            if isinstance(e, BadRequestError):
                raise
            raise BadRequestError(f"create table {'.'.join(identifier)}: {e}") from None
        schema, spec, order = _fresh(given_schema, given_spec, given_order)
        try:  # Java's CatalogHandlers build the spec and order with the same checks
            spec.validate_new(schema)
            order.validate(schema)
        except ProgrammingError as e:
            raise BadRequestError(f"create table {'.'.join(identifier)}: {e}") from None
        location = body.get("location")
        if location is not None and not isinstance(location, str):
            raise BadRequestError("create table: 'location' must be a string")
        location = (location or self.catalog.default_table_location(identifier)).rstrip("/")
        self.check_location(location, "table location")
        try:
            return new_table_metadata(location, schema, spec, order, properties, format_version)
        except Error as e:
            raise BadRequestError(f"create table {'.'.join(identifier)}: {e}") from None

    def register_table(self, namespace: Identifier, body: Any) -> dict[str, Any]:
        body = _obj(body, "register table")
        name, location = body.get("name"), body.get("metadata-location")
        if not isinstance(name, str) or not isinstance(location, str):
            raise BadRequestError("register table: 'name' and 'metadata-location' must be strings")
        overwrite = body.get("overwrite", False)
        if not isinstance(overwrite, bool):
            raise BadRequestError("register table: 'overwrite' must be a boolean")
        identifier = self.check_table((*self.check_namespace(namespace), name))
        self.check_location(location, "metadata location")
        with self._locked([identifier]):
            if self.catalog.table_exists(identifier) and not overwrite:
                raise AlreadyExistsError(
                    f"table already exists: {self.catalog.describe(identifier)}"
                )
            table = self.catalog.register_table(identifier, location, overwrite=overwrite)
        return self._load_result(table.metadata, table.metadata_location)

    def drop_table(self, identifier: Identifier, purge: bool) -> None:
        self.check_table(identifier)
        with self._locked([identifier]):
            self.catalog.drop_table(identifier, purge=purge)

    def rename_table(self, body: Any) -> None:
        body = _obj(body, "rename table")
        source = self.check_table(_parse_identifier(body.get("source"), "'source'"))
        target = self.check_table(_parse_identifier(body.get("destination"), "'destination'"))
        with self._locked([source, target]):
            self.catalog.rename_table(source, target)

    # -- commits ----------------------------------------------------------------------------
    def commit_table(self, identifier: Identifier, body: Any) -> dict[str, Any]:
        """One table's commit; the identifier comes from the path (Spark sends none)."""
        commit = TableCommit.from_json(body)
        self.check_table(identifier)
        if commit.identifier is not None and commit.identifier != identifier:
            raise BadRequestError(
                f"commit body names {'.'.join(commit.identifier)}, the path {'.'.join(identifier)}"
            )
        with self._locked([identifier]):
            if commit.creates:
                table = self._create_by_commit(identifier, commit)
            else:
                (table,) = self._commit_all([(identifier, commit)])
        return {"metadata-location": table.metadata_location, "metadata": dict(table.metadata.raw)}

    def commit_transaction(self, body: Any) -> None:
        """Several tables' commits, all or nothing (one database transaction swaps them)."""
        body = _obj(body, "commit transaction")
        changes = body.get("table-changes")
        if not isinstance(changes, list) or not changes:
            raise BadRequestError("commit transaction: 'table-changes' must be a non-empty list")
        commits = [TableCommit.from_json(c) for c in changes]
        identifiers = []
        for commit in commits:
            if commit.identifier is None:
                raise BadRequestError("commit transaction: every table change needs an identifier")
            if commit.creates:
                raise NotSupportedError("commit transaction: creating tables (assert-create)")
            identifiers.append(self.check_table(commit.identifier))
        if len(set(identifiers)) != len(identifiers):
            raise BadRequestError("commit transaction: a table appears more than once")
        with self._locked(identifiers):
            self._commit_all(list(zip(identifiers, commits)))

    def _commit_all(self, commits: list[tuple[Identifier, TableCommit]]) -> list[Table]:
        """Check and apply each commit on its table's current metadata and swap them all; a
        swap lost to an outside writer starts over from the new current metadata."""
        for attempt in range(1, COMMIT_ATTEMPTS + 1):
            changes = []
            for identifier, commit in commits:
                base = self.catalog.load_table(identifier)
                check_table_requirements(base.metadata, commit.requirements)
                metadata = apply_table_updates(
                    base.metadata, commit.updates, previous_metadata_file=base.metadata_location
                )
                if metadata.location != base.metadata.location:
                    self.check_location(metadata.location, "table location")
                changes.append((base, metadata))
            try:
                if len(changes) == 1:
                    return [self.catalog.commit_table(*changes[0])]
                return self.catalog.commit_tables(changes)
            except CommitFailedError:
                if attempt == COMMIT_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def _create_by_commit(self, identifier: Identifier, commit: TableCommit) -> Table:
        """The second half of a staged create (Spark's CTAS): the table is born with the
        commit's updates, or the commit fails because it exists by now."""
        if not self.catalog.namespace_exists(identifier[:-1]):
            raise NoSuchNamespaceError(
                f"namespace not found: {self.catalog.describe(identifier[:-1])}"
            )
        current = (
            self.catalog.load_table(identifier) if self.catalog.table_exists(identifier) else None
        )
        check_table_requirements(current.metadata if current else None, commit.requirements)
        metadata = apply_table_updates(
            None, commit.updates, location=self.catalog.default_table_location(identifier)
        )
        self.check_location(metadata.location, "table location")
        try:
            return self.catalog.create_table(identifier, metadata)
        except AlreadyExistsError:
            raise RequirementFailedError("Requirement failed: table already exists") from None


class NoSuchWarehouseError(NoSuchNamespaceError):
    """The ``warehouse`` a client asked for is not the one this server serves (404)."""


def _fresh(
    schema: Schema, spec: PartitionSpec, order: SortOrder
) -> tuple[Schema, PartitionSpec, SortOrder]:
    """Java's server-side fresh ids: columns from 1 in ``assignFreshIds`` order, partition
    fields from 1000; the spec and sort order follow their source columns."""
    fields = fresh_schema_fields(schema.fields, 1)
    pairs = zip(walk_fields(StructType(schema.fields)), walk_fields(StructType(fields)))
    ids = {old.field_id: new.field_id for (_, old), (_, new) in pairs}

    def new_id(old: int) -> int:
        if old not in ids:
            raise InvalidUpdateError(f"partition or sort field refers to unknown column {old}")
        return ids[old]

    identifier_ids = tuple(new_id(i) for i in schema.identifier_field_ids)
    fresh_spec = PartitionSpec(
        0,
        tuple(
            dataclasses.replace(
                f,
                source_id=new_id(f.source_id),
                field_id=PARTITION_FIELD_ID_START + i,
                source_ids=tuple(new_id(s) for s in f.source_ids),
            )
            for i, f in enumerate(spec.fields)
        ),
    )
    fresh_order = SortOrder(
        1 if order.fields else 0,
        tuple(
            dataclasses.replace(
                f, source_id=new_id(f.source_id), source_ids=tuple(new_id(s) for s in f.source_ids)
            )
            for f in order.fields
        ),
    )
    return Schema(fields, 0, identifier_ids), fresh_spec, fresh_order
