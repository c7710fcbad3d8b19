"""What every catalog offers: finding namespaces and tables, loading table metadata, and the
write operations (namespaces, create / drop / rename table, and the atomic commit).

The commit is the one step where catalogs differ: each swaps "the current metadata of this
table" from the version a change was based on to a new version, atomically, or fails
without changing anything. A definite failure raises ``CommitFailedError`` (the writer may
re-read the table and retry); a failure after which the outcome is not known raises
``CommitStateUnknownError``, and then nothing may be cleaned up, because the new metadata may
well be the table's current version.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from icesql.catalog.table import Table, View
from icesql.errors import (
    CommitConflictError,
    NoSuchNamespaceError,
    NoSuchViewError,
    NotSupportedError,
    OperationalError,
)

if TYPE_CHECKING:
    from icesql.metadata.table_metadata import TableMetadata
    from icesql.metadata.table_requirements import TableRequirement
    from icesql.metadata.table_updates import TableUpdate

COMMIT_ATTEMPTS = 4  # swaps lost to other writers before ``commit`` gives up

Identifier = tuple[str, ...]


class CommitFailedError(CommitConflictError):
    """The swap definitely did not happen: another commit won the race. Retryable."""


class CommitStateUnknownError(OperationalError):
    """The swap may or may not have happened; never clean up after this."""


class Catalog(ABC):
    """A catalog maps ``namespace.table`` names to the location of their current metadata."""

    name: str
    custom_locations = True  # whether CREATE TABLE ... LOCATION may place a table anywhere

    @abstractmethod
    def list_namespaces(self, parent: Identifier = ()) -> list[Identifier]:
        """Namespaces directly below ``parent`` (the root when empty)."""

    @abstractmethod
    def namespace_exists(self, namespace: Identifier) -> bool: ...

    @abstractmethod
    def list_tables(self, namespace: Identifier) -> list[Identifier]: ...

    @abstractmethod
    def table_exists(self, identifier: Identifier) -> bool: ...

    @abstractmethod
    def load_table(self, identifier: Identifier) -> Table:
        """The table's current metadata; raises NoSuchTableError naming the table."""

    def close(self) -> None:  # noqa: B027 - most catalogs hold nothing to release
        """Release what the catalog holds open (a database connection, HTTP sessions)."""

    # --- writing (catalogs that cannot write keep these defaults) ----------------------------

    def _read_only(self, what: str) -> NotSupportedError:
        return NotSupportedError(f"catalog {self.name!r} ({type(self).__name__}) cannot {what}")

    def create_namespace(
        self, namespace: Identifier, properties: dict[str, str] | None = None
    ) -> None:
        """Create a namespace; AlreadyExistsError if it exists."""
        raise self._read_only("create namespaces")

    def drop_namespace(self, namespace: Identifier) -> None:
        """Drop an empty namespace; NoSuchNamespaceError / ProgrammingError if not empty."""
        raise self._read_only("drop namespaces")

    def namespace_properties(self, namespace: Identifier) -> dict[str, str]:
        """A namespace's properties (NoSuchNamespaceError naming it if it does not exist);
        catalogs that store none return an empty dict."""
        if not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {'.'.join(namespace)}")
        return {}

    def update_namespace_properties(
        self,
        namespace: Identifier,
        removals: AbstractSet[str] = frozenset(),
        updates: dict[str, str] | None = None,
    ) -> None:
        """Remove and set namespace properties in one step."""
        raise self._read_only("store namespace properties")

    def register_table(self, identifier: Identifier, metadata_location: str) -> Table:
        """Add an existing table (its metadata file) under ``identifier``."""
        raise self._read_only("register tables")

    def default_table_location(self, identifier: Identifier) -> str:
        """Where a new table's files go unless a location is given."""
        raise self._read_only("create tables")

    def create_table(self, identifier: Identifier, metadata: TableMetadata) -> Table:
        """Register a new table whose first metadata version is ``metadata``; raises
        AlreadyExistsError when the name is taken (nothing is written then)."""
        raise self._read_only("create tables")

    def commit(
        self,
        identifier: Identifier,
        requirements: Sequence[TableRequirement],
        updates: Sequence[TableUpdate],
    ) -> Table:
        """The REST spec's commit, on any catalog: ``requirements`` checked on the table's
        current metadata, ``updates`` applied to it, and the result swapped in atomically. A
        swap lost to another writer starts over on the new current metadata, the requirements
        checked again, so a change that no longer holds fails (``RequirementFailedError``, a
        ``CommitConflictError``) and one that still holds lands."""
        from icesql.metadata.table_commit import apply_table_updates
        from icesql.metadata.table_requirements import check_table_requirements

        for attempt in range(1, COMMIT_ATTEMPTS + 1):
            base = self.load_table(identifier)
            check_table_requirements(base.metadata, requirements)
            metadata = apply_table_updates(
                base.metadata, updates, previous_metadata_file=base.metadata_location
            )
            try:
                return self.commit_table(base, metadata)
            except CommitFailedError:
                if attempt == COMMIT_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def commit_transaction(
        self,
        changes: Sequence[tuple[Identifier, Sequence[TableRequirement], Sequence[TableUpdate]]],
    ) -> None:
        """Several tables' commits in REST terms, all or nothing (the spec's multi-table
        transaction); catalogs that cannot swap several pointers at once refuse."""
        raise NotSupportedError(
            f"catalog {self.name!r} ({type(self).__name__}) cannot commit several tables at once"
        )

    def commit_table(self, base: Table, metadata: TableMetadata) -> Table:
        """Atomically replace ``base`` (the version the change was made from) by
        ``metadata``; CommitFailedError when ``base`` is no longer current."""
        raise self._read_only("commit")

    def drop_table(self, identifier: Identifier, purge: bool = False) -> None:
        """Remove a table (and with ``purge`` every file it references)."""
        raise self._read_only("drop tables")

    def rename_table(self, source: Identifier, target: Identifier) -> None:
        raise self._read_only("rename tables")

    # --- views (Iceberg's view spec; catalogs without views keep these defaults) -------------

    supports_views = False

    def no_views(self) -> NotSupportedError:
        """Why this catalog cannot keep a view (the catalogs that can say nothing)."""
        return NotSupportedError(
            f"catalog {self.name!r} ({type(self).__name__}) keeps no Iceberg views: views live"
            " in catalogs that implement them (a SQL/JDBC catalog or a REST catalog)"
        )

    def list_views(self, namespace: Identifier) -> list[Identifier]:
        """The views directly in ``namespace`` (none where the catalog keeps no views)."""
        if not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {'.'.join(namespace)}")
        return []

    def view_exists(self, identifier: Identifier) -> bool:
        return False

    def load_view(self, identifier: Identifier) -> View:
        """The view's current metadata; raises NoSuchViewError naming the view."""
        raise NoSuchViewError(f"view not found: {'.'.join(identifier)} (catalog {self.name!r})")

    def create_view(self, identifier: Identifier, updates: Sequence[Mapping[str, Any]]) -> View:
        """Register a new view whose first metadata is ``updates`` applied to nothing
        (``icesql.metadata.view_updates``); AlreadyExistsError when a table or view has the
        name (nothing is written then)."""
        raise self.no_views()

    def commit_view(
        self,
        identifier: Identifier,
        requirements: Sequence[Mapping[str, Any]],
        updates: Sequence[Mapping[str, Any]],
    ) -> View:
        """Apply ``updates`` to the view's current metadata (``requirements`` checked on it)
        and swap the result in atomically; a lost swap starts over on the new current one."""
        raise self.no_views()

    def drop_view(self, identifier: Identifier) -> None:
        """Remove a view (NoSuchViewError if there is none)."""
        raise self.no_views()

    def rename_view(self, source: Identifier, target: Identifier) -> None:
        raise self.no_views()
