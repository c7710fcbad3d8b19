"""The SQL catalog: Iceberg Java's ``JdbcCatalog`` tables, shared with PyIceberg's ``SqlCatalog``.

Two tables hold everything (``JdbcUtil``'s layout, which PyIceberg copies)::

    iceberg_tables(catalog_name, table_namespace, table_name, metadata_location,
                   previous_metadata_location[, iceberg_type])
    iceberg_namespace_properties(catalog_name, namespace, property_key, property_value)

Rows are selected by ``catalog_name`` (the catalog's ``name``), so several catalogs can share
one database. Namespaces are their levels joined by ``.``; a namespace exists when a table
or a property row names it or a namespace below it, and creating one without properties
stores ``exists=true``, as both Java and PyIceberg do. The optional ``iceberg_type`` column
(Java's V1 schema, PyIceberg 0.12) marks views; where it exists, tables are the rows whose
type is ``TABLE`` or NULL, new rows are typed ``TABLE``, and views are the rows typed
``VIEW`` (their metadata files ``<location>/metadata/<NNNNN>-<uuid>.gz.metadata.json``, as
Java's ``JdbcViewOperations`` writes them); without the column the catalog keeps no views.
A database without the catalog tables gets them, in the V1 layout, unless
``init_catalog_tables=false``.

A commit is ``UPDATE iceberg_tables SET metadata_location = <new>,
previous_metadata_location = <expected> WHERE ... AND metadata_location = <expected>``: one
row changed is a commit, none a lost race. Several tables commit together (the REST spec's
multi-table transaction) as several such UPDATEs in one database transaction that is rolled
back unless each changed its row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from icesql.catalog.base import (
    COMMIT_ATTEMPTS,
    CommitFailedError,
    CommitStateUnknownError,
    Identifier,
)
from icesql.catalog.metastore import MetastoreCatalog
from icesql.catalog.sql_database import (
    Database,
    DuplicateKeyError,
    NoRowChangedError,
    Params,
    open_database,
)
from icesql.catalog.table import View
from icesql.errors import (
    AlreadyExistsError,
    Error,
    NoSuchNamespaceError,
    NoSuchTableError,
    NoSuchViewError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.io import FileIO
from icesql.metadata.view_metadata import parse_view_metadata
from icesql.metadata.view_updates import apply_view_updates, check_view_requirements

__all__ = ["SqlCatalog"]

TABLE_TYPE = "TABLE"
VIEW_TYPE = "VIEW"
EXISTS_PROPERTY = "exists"

_CREATE_TABLES = (
    "CREATE TABLE iceberg_tables ("
    "catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,"
    " table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000),"
    " previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5),"
    " PRIMARY KEY (catalog_name, table_namespace, table_name))"
)
_CREATE_PROPERTIES = (
    "CREATE TABLE iceberg_namespace_properties ("
    "catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL,"
    " property_key VARCHAR(255) NOT NULL, property_value VARCHAR(1000),"
    " PRIMARY KEY (catalog_name, namespace, property_key))"
)
_TABLE = "catalog_name = :catalog AND table_namespace = :namespace AND table_name = :name"
_VIEW_FILTER = f" AND iceberg_type = '{VIEW_TYPE}'"


class SqlCatalog(MetastoreCatalog):
    """Tables and namespaces in a SQL database, as Java's ``JdbcCatalog`` keeps them."""

    def __init__(
        self,
        name: str,
        uri: str,
        warehouse: str | None = None,
        io: FileIO | None = None,
        properties: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(name, warehouse, io)
        props = dict(properties or {})
        self.db: Database = open_database(uri)
        init = str(props.get("init_catalog_tables", "true")).lower() != "false"
        self._typed = self._prepare(init)

    def close(self) -> None:
        self.db.close()

    def _prepare(self, init: bool) -> bool:
        """Create the catalog tables if absent; whether ``iceberg_type`` exists (V1 layout)."""
        if not self._has_table("iceberg_tables"):
            if not init:
                raise ProgrammingError(
                    f"SQL catalog {self.name!r}: {self.db.uri} has no iceberg_tables table"
                    " (and init_catalog_tables is false)"
                )
            statements: list[tuple[str, Params]] = [(_CREATE_TABLES, {})]
            if not self._has_table("iceberg_namespace_properties"):
                statements.append((_CREATE_PROPERTIES, {}))
            try:
                self.db.change(statements)
            except Error:
                if not self._has_table("iceberg_tables"):  # else: another process made them
                    raise
        elif not self._has_table("iceberg_namespace_properties") and init:
            try:
                self.db.change([(_CREATE_PROPERTIES, {})])
            except Error:
                if not self._has_table("iceberg_namespace_properties"):
                    raise
        try:
            self.db.query("SELECT iceberg_type FROM iceberg_tables WHERE 1 = 0")
            return True
        except Error:
            return False

    def _has_table(self, table: str) -> bool:
        try:
            self.db.query(f"SELECT 1 FROM {table} WHERE 1 = 0")
            return True
        except Error:
            return False

    # -- helpers ----------------------------------------------------------------------------
    def _type_filter(self) -> str:
        return (
            f" AND (iceberg_type = '{TABLE_TYPE}' OR iceberg_type IS NULL)" if self._typed else ""
        )

    def _key(self, identifier: Identifier) -> dict[str, str]:
        return {
            "catalog": self.name,
            "namespace": ".".join(identifier[:-1]),
            "name": identifier[-1],
        }

    @staticmethod
    def _below(namespace: Identifier) -> str:
        """A LIKE pattern (escape ``!``) for the namespaces below ``namespace``."""
        text = ".".join(namespace)
        return text.replace("!", "!!").replace("_", "!_").replace("%", "!%") + ".%"

    # -- pointers ---------------------------------------------------------------------------
    def _pointer(self, identifier: Identifier) -> str | None:
        return self._location(identifier, self._type_filter())

    def _location(self, identifier: Identifier, kind: str) -> str | None:
        """The metadata location of the row of ``identifier`` that the ``kind`` filter keeps."""
        rows = self.db.query(
            f"SELECT metadata_location FROM iceberg_tables WHERE {_TABLE}{kind}",
            self._key(identifier),
        )
        return rows[0][0] if rows and rows[0][0] else None

    def _insert_pointer(self, identifier: Identifier, location: str) -> None:
        columns = "catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location"
        values = ":catalog, :namespace, :name, :location, NULL"
        if self._typed:
            columns, values = columns + ", iceberg_type", values + f", '{TABLE_TYPE}'"
        try:
            self.db.change(
                [
                    (
                        f"INSERT INTO iceberg_tables ({columns}) VALUES ({values})",
                        {**self._key(identifier), "location": location},
                    )
                ]
            )
        except DuplicateKeyError:
            raise AlreadyExistsError(f"table already exists: {self.describe(identifier)}") from None

    def _swap_pointer(self, identifier: Identifier, expected: str, location: str) -> bool:
        sql = (
            "UPDATE iceberg_tables SET metadata_location = :location,"
            f" previous_metadata_location = :expected WHERE {_TABLE}"
            f" AND metadata_location = :expected{self._type_filter()}"
        )
        params = {**self._key(identifier), "location": location, "expected": expected}
        try:
            (count,) = self.db.change([(sql, params)])
        except Error as e:
            # the outcome is known if the row can be read: only this commit knows `location`
            try:
                current = self._pointer(identifier)
            except Error:
                raise CommitStateUnknownError(
                    f"commit to {self.describe(identifier)} may have succeeded: {e}"
                ) from e
            if current == location:
                return True
            raise
        return count == 1

    def _swap_pointers(self, swaps: list[tuple[Identifier, str, str]]) -> int | None:
        """Every conditional UPDATE in one database transaction that rolls back unless each
        changed exactly one row: the tables of a multi-table commit move together or not."""
        sql = (
            "UPDATE iceberg_tables SET metadata_location = :location,"
            f" previous_metadata_location = :expected WHERE {_TABLE}"
            f" AND metadata_location = :expected{self._type_filter()}"
        )
        statements = [
            (sql, {**self._key(identifier), "location": location, "expected": expected})
            for identifier, expected, location in swaps
        ]
        try:
            self.db.change(statements, each_one=True)
        except NoRowChangedError as e:
            return e.index
        except Error as e:
            try:
                moved = [self._pointer(i) == location for i, _, location in swaps]
            except Error:
                raise CommitStateUnknownError(
                    f"multi-table commit in catalog {self.name!r} may have succeeded: {e}"
                ) from e
            if all(moved):
                return None
            if any(moved):
                raise CommitStateUnknownError(
                    f"multi-table commit in catalog {self.name!r} partly visible: {e}"
                ) from e
            raise
        return None

    def _delete_pointer(self, identifier: Identifier) -> bool:
        sql = f"DELETE FROM iceberg_tables WHERE {_TABLE}{self._type_filter()}"
        (count,) = self.db.change([(sql, self._key(identifier))])
        return count > 0

    # -- tables -----------------------------------------------------------------------------
    def list_tables(self, namespace: Identifier) -> list[Identifier]:
        if not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(namespace)}")
        rows = self.db.query(
            "SELECT table_name FROM iceberg_tables WHERE catalog_name = :catalog"
            f" AND table_namespace = :namespace{self._type_filter()}",
            {"catalog": self.name, "namespace": ".".join(namespace)},
        )
        return sorted((*namespace, r[0]) for r in rows)

    def rename_table(self, source: Identifier, target: Identifier) -> None:
        self.check_identifier(target)
        if not self.table_exists(source):
            raise NoSuchTableError(f"table not found: {self.describe(source)}")
        if not self.namespace_exists(target[:-1]):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(target[:-1])}")
        if self.table_exists(target):
            raise AlreadyExistsError(f"table already exists: {self.describe(target)}")
        if self._move_row(source, target, self._type_filter(), "table") != 1:
            raise NoSuchTableError(f"table not found: {self.describe(source)}")

    def _move_row(self, source: Identifier, target: Identifier, kind: str, what: str) -> int:
        """Rename the row of ``source`` (of the ``kind`` filter) to ``target``; the rows moved.
        A name taken meanwhile is AlreadyExistsError naming ``what`` (table or view)."""
        new = self._key(target)
        sql = (
            "UPDATE iceberg_tables SET table_namespace = :new_namespace, table_name = :new_name"
            f" WHERE {_TABLE}{kind}"
        )
        params = {**self._key(source), "new_namespace": new["namespace"], "new_name": new["name"]}
        try:
            (count,) = self.db.change([(sql, params)])
        except DuplicateKeyError:
            raise AlreadyExistsError(f"{what} already exists: {self.describe(target)}") from None
        return int(count)

    # -- views (rows typed VIEW, Java's V1 layout) ------------------------------------------
    @property
    def supports_views(self) -> bool:  # type: ignore[override]
        return self._typed

    def no_views(self) -> NotSupportedError:
        return NotSupportedError(
            f"SQL catalog {self.name!r}: its iceberg_tables table has no iceberg_type column"
            " (Java's V0 layout), so it keeps no views; Java adds the column with"
            " jdbc.schema-version=V1"
        )

    def _views(self) -> None:
        if not self._typed:
            raise self.no_views()

    def _view_pointer(self, identifier: Identifier) -> str | None:
        if not self._typed or len(identifier) < 2:
            return None
        return self._location(identifier, _VIEW_FILTER)

    def list_views(self, namespace: Identifier) -> list[Identifier]:
        if not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(namespace)}")
        if not self._typed:
            return []
        rows = self.db.query(
            "SELECT table_name FROM iceberg_tables WHERE catalog_name = :catalog"
            f" AND table_namespace = :namespace{_VIEW_FILTER}",
            {"catalog": self.name, "namespace": ".".join(namespace)},
        )
        return sorted((*namespace, r[0]) for r in rows)

    def view_exists(self, identifier: Identifier) -> bool:
        return self._view_pointer(identifier) is not None

    def load_view(self, identifier: Identifier) -> View:
        location = self._view_pointer(identifier)
        if location is None:
            raise NoSuchViewError(f"view not found: {self.describe(identifier)}")
        metadata = parse_view_metadata(self.io.read_bytes(location), path=location)
        return View(identifier, metadata, location)

    def create_view(self, identifier: Identifier, updates: Sequence[Mapping[str, Any]]) -> View:
        self._views()
        self.check_identifier(identifier, "view")
        if not self.namespace_exists(identifier[:-1]):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(identifier[:-1])}")
        if self.table_exists(identifier):
            raise AlreadyExistsError(
                f"a table of the same name already exists: {self.describe(identifier)}"
            )
        if self.view_exists(identifier):
            raise AlreadyExistsError(f"view already exists: {self.describe(identifier)}")
        metadata = apply_view_updates(None, updates)
        location = self._write(metadata, None)
        sql = (
            "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name,"
            " metadata_location, previous_metadata_location, iceberg_type)"
            f" VALUES (:catalog, :namespace, :name, :location, NULL, '{VIEW_TYPE}')"
        )
        try:
            self.db.change([(sql, {**self._key(identifier), "location": location})])
        except DuplicateKeyError:
            self._discard(location)
            raise AlreadyExistsError(
                f"a table or view of the same name already exists: {self.describe(identifier)}"
            ) from None
        except CommitStateUnknownError:
            raise
        except BaseException:
            self._discard(location)
            raise
        return View(identifier, parse_view_metadata(metadata.to_json(), location), location)

    def commit_view(
        self,
        identifier: Identifier,
        requirements: Sequence[Mapping[str, Any]],
        updates: Sequence[Mapping[str, Any]],
    ) -> View:
        self._views()
        sql = (
            "UPDATE iceberg_tables SET metadata_location = :location,"
            f" previous_metadata_location = :expected WHERE {_TABLE}"
            f" AND metadata_location = :expected{_VIEW_FILTER}"
        )
        for attempt in range(1, COMMIT_ATTEMPTS + 1):
            base = self.load_view(identifier)
            check_view_requirements(base.metadata, requirements)
            metadata = apply_view_updates(base.metadata, updates)
            location = self._write(metadata, base.metadata_location)
            params = {**self._key(identifier), "location": location}
            try:
                (count,) = self.db.change([(sql, {**params, "expected": base.metadata_location})])
            except BaseException:
                if self._view_pointer(identifier) != location:
                    self._discard(location)
                raise
            if count == 1:
                return View(identifier, parse_view_metadata(metadata.to_json(), location), location)
            self._discard(location)
            if attempt == COMMIT_ATTEMPTS:
                raise CommitFailedError(
                    f"cannot commit to view {self.describe(identifier)}: another commit won"
                )
        raise AssertionError("unreachable")

    def drop_view(self, identifier: Identifier) -> None:
        self._views()
        location = self._view_pointer(identifier)
        sql = f"DELETE FROM iceberg_tables WHERE {_TABLE}{_VIEW_FILTER}"
        (count,) = self.db.change([(sql, self._key(identifier))])
        if count == 0:
            raise NoSuchViewError(f"view not found: {self.describe(identifier)}")
        if location is not None:  # as Java's dropViewMetadata: the current metadata file
            self._discard(location)

    def rename_view(self, source: Identifier, target: Identifier) -> None:
        self._views()
        if source == target:
            return
        self.check_identifier(target, "view")
        if not self.namespace_exists(target[:-1]):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(target[:-1])}")
        if not self.view_exists(source):
            raise NoSuchViewError(f"view not found: {self.describe(source)}")
        if self.table_exists(target):
            raise AlreadyExistsError(f"table already exists: {self.describe(target)}")
        if self.view_exists(target):
            raise AlreadyExistsError(f"view already exists: {self.describe(target)}")
        if self._move_row(source, target, _VIEW_FILTER, "view") != 1:
            raise NoSuchViewError(f"view not found: {self.describe(source)}")

    # -- namespaces -------------------------------------------------------------------------
    def _namespace_names(self, parent: Identifier) -> set[str]:
        """Every namespace name at or below ``parent`` that a row mentions."""
        params = {"catalog": self.name, "namespace": ".".join(parent), "below": self._below(parent)}
        where = "(x = :namespace OR x LIKE :below ESCAPE '!')" if parent else "1 = 1"
        names: set[str] = set()
        for column, table in (
            ("table_namespace", "iceberg_tables"),
            ("namespace", "iceberg_namespace_properties"),
        ):
            rows = self.db.query(
                f"SELECT DISTINCT {column} FROM {table} WHERE catalog_name = :catalog"
                f" AND {where.replace('x', column)}",
                params,
            )
            names.update(r[0] for r in rows if r[0])
        return names

    def namespace_exists(self, namespace: Identifier) -> bool:
        return not namespace or bool(self._namespace_names(namespace))

    def list_namespaces(self, parent: Identifier = ()) -> list[Identifier]:
        if parent and not self.namespace_exists(parent):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(parent)}")
        children = set()
        for name in self._namespace_names(parent):
            levels = tuple(name.split("."))
            if len(levels) > len(parent) and levels[: len(parent)] == parent:
                children.add(levels[: len(parent) + 1])
        return sorted(children)

    def create_namespace(
        self, namespace: Identifier, properties: dict[str, str] | None = None
    ) -> None:
        if not namespace:
            raise ProgrammingError("cannot create the root namespace")
        self.check_identifier(namespace, "namespace")
        if self.namespace_exists(namespace):
            raise AlreadyExistsError(f"namespace already exists: {self.describe(namespace)}")
        props = dict(properties or {}) or {EXISTS_PROPERTY: "true"}
        try:
            self.db.change([self._insert_property(namespace, k, v) for k, v in props.items()])
        except DuplicateKeyError:
            raise AlreadyExistsError(
                f"namespace already exists: {self.describe(namespace)}"
            ) from None

    def drop_namespace(self, namespace: Identifier) -> None:
        if not namespace or not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(namespace)}")
        inside = [
            *self.list_tables(namespace),
            *self.list_views(namespace),
            *self.list_namespaces(namespace),
        ]
        if inside:
            names = ", ".join(".".join(i) for i in inside)
            raise ProgrammingError(
                f"cannot drop namespace {self.describe(namespace)}: it is not empty ({names})"
            )
        self.db.change(
            [
                (
                    "DELETE FROM iceberg_namespace_properties WHERE catalog_name = :catalog"
                    " AND namespace = :namespace",
                    {"catalog": self.name, "namespace": ".".join(namespace)},
                )
            ]
        )

    def namespace_properties(self, namespace: Identifier) -> dict[str, str]:
        if not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(namespace)}")
        rows = self.db.query(
            "SELECT property_key, property_value FROM iceberg_namespace_properties"
            " WHERE catalog_name = :catalog AND namespace = :namespace",
            {"catalog": self.name, "namespace": ".".join(namespace)},
        )
        return {k: v for k, v in sorted(rows)}

    def update_namespace_properties(
        self,
        namespace: Identifier,
        removals: AbstractSet[str] = frozenset(),
        updates: dict[str, str] | None = None,
    ) -> None:
        if not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(namespace)}")
        updates = dict(updates or {})
        both = set(removals) & set(updates)
        if both:
            raise ProgrammingError(f"properties both set and removed: {', '.join(sorted(both))}")
        key = {"catalog": self.name, "namespace": ".".join(namespace)}
        delete = (
            "DELETE FROM iceberg_namespace_properties WHERE catalog_name = :catalog"
            " AND namespace = :namespace AND property_key = :key"
        )
        statements = [(delete, {**key, "key": k}) for k in (*removals, *updates)]
        statements += [self._insert_property(namespace, k, v) for k, v in updates.items()]
        kept = set(self.namespace_properties(namespace)) - set(removals) | set(updates)
        if not kept:  # a namespace exists through its rows: removing every property keeps one
            statements.append(self._insert_property(namespace, EXISTS_PROPERTY, "true"))
        self.db.change(statements)

    def _insert_property(
        self, namespace: Identifier, key: str, value: str
    ) -> tuple[str, dict[str, str]]:
        return (
            "INSERT INTO iceberg_namespace_properties"
            " (catalog_name, namespace, property_key, property_value)"
            " VALUES (:catalog, :namespace, :key, :value)",
            {
                "catalog": self.name,
                "namespace": ".".join(namespace),
                "key": key,
                "value": str(value),
            },
        )
