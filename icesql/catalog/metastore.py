"""Catalogs that keep, per table, a pointer to its current metadata file (SQL, Glue, Hive).

Creating or committing writes the whole next metadata file under a fresh name
(``<NNNNN>-<uuid>.metadata.json``, as Java and PyIceberg name them) and then asks the store
to move the table's pointer from the version the change was based on to that file, in one
atomic step: a SQL ``UPDATE ... WHERE metadata_location = <expected>`` affecting one row, a
Glue ``UpdateTable`` with the expected version. A store that answers "not moved" is a lost
race (``CommitFailedError``: the new file is deleted and the writer retries); a store that
does not answer is an unknown outcome (``CommitStateUnknownError``: nothing is deleted,
since the new file may be current). A subclass supplies the four pointer operations.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

from icesql import faults
from icesql.catalog import metadata_files
from icesql.catalog.base import (
    COMMIT_ATTEMPTS,
    Catalog,
    CommitFailedError,
    CommitStateUnknownError,
    Identifier,
)
from icesql.catalog.table import Table
from icesql.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.io import FileIO
from icesql.metadata.table_commit import apply_table_updates
from icesql.metadata.table_metadata import TableMetadata, parse_table_metadata
from icesql.metadata.table_requirements import TableRequirement, check_table_requirements
from icesql.metadata.table_updates import TableUpdate
from icesql.metadata.view_metadata import ViewMetadata

__all__ = ["MetastoreCatalog"]

_BAD_PARTS = ("", ".", "..")


class MetastoreCatalog(Catalog):
    """The metadata-file side of a pointer-swapping catalog; subclasses keep the pointers."""

    def __init__(self, name: str, warehouse: str | None, io: FileIO | None = None) -> None:
        self.name = name
        self.warehouse = warehouse.rstrip("/") if warehouse else None
        self.io = io or FileIO()

    # -- the pointers a subclass keeps ----------------------------------------------------
    @abstractmethod
    def _pointer(self, identifier: Identifier) -> str | None:
        """The table's current metadata location, or None when there is no such table."""

    @abstractmethod
    def _insert_pointer(self, identifier: Identifier, location: str) -> None:
        """Add a table pointing at ``location``; AlreadyExistsError when the name is taken."""

    @abstractmethod
    def _swap_pointer(self, identifier: Identifier, expected: str, location: str) -> bool:
        """Point the table at ``location`` if it points at ``expected``; False if it did not
        (another commit won). Raises CommitStateUnknownError when the outcome is unknown."""

    def _swap_pointers(self, swaps: list[tuple[Identifier, str, str]]) -> int | None:
        """Several ``_swap_pointer`` in one atomic step: None when all moved, else the index
        of a pointer that had moved on (and then none was moved). Stores without
        multi-row transactions commit one table at a time only."""
        if len(swaps) == 1:
            return None if self._swap_pointer(*swaps[0]) else 0
        raise NotSupportedError(
            f"catalog {self.name!r} ({type(self).__name__}) cannot commit several tables atomically"
        )

    @abstractmethod
    def _delete_pointer(self, identifier: Identifier) -> bool:
        """Remove the table's pointer; False when there was none."""

    # -- names ----------------------------------------------------------------------------
    def describe(self, identifier: Identifier) -> str:
        """``db.t`` in catalog ``name``: how errors name a table or namespace."""
        return f"{'.'.join(identifier)} (catalog {self.name!r})"

    def check_identifier(self, identifier: Identifier, what: str = "table") -> None:
        """Names become folders of the default location: no empty, ``.``/``..`` or path-like
        part, and no ``.`` inside a namespace level (levels are stored joined by ``.``)."""
        for i, part in enumerate(identifier):
            is_namespace_level = what == "namespace" or i < len(identifier) - 1
            if (
                part in _BAD_PARTS
                or any(c in part for c in "/\\\0")
                or "%2f" in part.lower()
                or (is_namespace_level and "." in part)
            ):
                raise ProgrammingError(
                    f"invalid name part {part!r} in {what} {self.describe(identifier)}"
                )
        if what in ("table", "view") and len(identifier) < 2:
            raise ProgrammingError(
                f"invalid {what} name {self.describe(identifier)}: {what}s are named"
                f" namespace.{what}"
            )

    # -- tables ---------------------------------------------------------------------------
    def table_exists(self, identifier: Identifier) -> bool:
        return len(identifier) >= 2 and self._pointer(identifier) is not None

    def load_table(self, identifier: Identifier) -> Table:
        location = self._pointer(identifier) if len(identifier) >= 2 else None
        if location is None:
            raise NoSuchTableError(f"table not found: {self.describe(identifier)}")
        metadata = parse_table_metadata(self.io.read_bytes(location), path=location)
        return Table(identifier, metadata, location, self.io)

    def default_table_location(self, identifier: Identifier) -> str:
        """``<warehouse>/<namespace levels>/<table>``, the layout of Java's JdbcCatalog."""
        self.check_identifier(identifier)
        if self.warehouse is None:
            raise ProgrammingError(
                f"cannot place table {self.describe(identifier)}: the catalog has no warehouse;"
                " connect with warehouse=... or give the table a LOCATION"
            )
        return "/".join((self.warehouse, *identifier))

    def create_table(self, identifier: Identifier, metadata: TableMetadata) -> Table:
        self.check_identifier(identifier)
        if not self.namespace_exists(identifier[:-1]):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(identifier[:-1])}")
        if self.table_exists(identifier):
            raise AlreadyExistsError(f"table already exists: {self.describe(identifier)}")
        location = self._write(metadata, None)
        try:
            self._insert_pointer(identifier, location)
        except CommitStateUnknownError:
            raise
        except BaseException:
            self._discard(location)
            raise
        return Table(identifier, TableMetadata(metadata.raw, location), location, self.io)

    def register_table(
        self, identifier: Identifier, metadata_location: str, *, overwrite: bool = False
    ) -> Table:
        """Point ``identifier`` at an existing metadata file; with ``overwrite`` an existing
        table's pointer is swapped to it (compare-and-swap: a concurrent commit wins, 409)."""
        self.check_identifier(identifier)
        if not self.namespace_exists(identifier[:-1]):
            raise NoSuchNamespaceError(f"namespace not found: {self.describe(identifier[:-1])}")
        metadata = parse_table_metadata(
            self.io.read_bytes(metadata_location), path=metadata_location
        )
        current = self._pointer(identifier) if overwrite else None
        if current is None:
            self._insert_pointer(identifier, metadata_location)
        elif not self._swap_pointer(identifier, current, metadata_location):
            raise CommitFailedError(
                f"table {self.describe(identifier)} changed while registering {metadata_location}"
            )
        return Table(identifier, metadata, metadata_location, self.io)

    def commit_table(self, base: Table, metadata: TableMetadata) -> Table:
        identifier = base.identifier
        location = self._write(metadata, base.metadata_location)
        faults.reached("after-metadata-json")
        faults.reached("before-swap")
        try:
            swapped = self._swap_pointer(identifier, base.metadata_location, location)
            if swapped:
                faults.reached("after-swap")
        except CommitStateUnknownError:
            raise
        except BaseException:
            self._discard(location)
            raise
        if not swapped:
            self._discard(location)
            if self._pointer(identifier) is None:
                raise NoSuchTableError(
                    f"table not found: {self.describe(identifier)} (dropped while committing)"
                )
            raise CommitFailedError(
                f"cannot commit to {self.describe(identifier)}: based on {base.metadata_location},"
                " which is no longer current; another commit won"
            )
        committed = Table(identifier, TableMetadata(metadata.raw, location), location, self.io)
        metadata_files.delete_dropped_metadata(
            self.io, base.metadata, committed.metadata, base.metadata_location
        )
        return committed

    def commit_transaction(
        self,
        changes: Sequence[tuple[Identifier, Sequence[TableRequirement], Sequence[TableUpdate]]],
    ) -> None:
        """Each change checked and applied on its table's current metadata, then all swapped
        in one step (``commit_tables``); a lost swap starts over, requirements checked again."""
        for attempt in range(1, COMMIT_ATTEMPTS + 1):
            staged = []
            for identifier, requirements, updates in changes:
                base = self.load_table(identifier)
                check_table_requirements(base.metadata, requirements)
                staged.append(
                    (
                        base,
                        apply_table_updates(
                            base.metadata, updates, previous_metadata_file=base.metadata_location
                        ),
                    )
                )
            try:
                self.commit_tables(staged)
                return
            except CommitFailedError:
                if attempt == COMMIT_ATTEMPTS:
                    raise

    def commit_tables(self, changes: list[tuple[Table, TableMetadata]]) -> list[Table]:
        """Commit several tables at once, all or nothing (the REST spec's multi-table
        transaction); CommitFailedError naming the table whose base is no longer current."""
        written: list[str] = []
        try:
            for base, metadata in changes:
                written.append(self._write(metadata, base.metadata_location))
            swaps = [
                (b.identifier, b.metadata_location, loc) for (b, _), loc in zip(changes, written)
            ]
            failed = self._swap_pointers(swaps)
        except CommitStateUnknownError:
            raise
        except BaseException:
            for location in written:
                self._discard(location)
            raise
        if failed is not None:
            for location in written:
                self._discard(location)
            identifier = changes[failed][0].identifier
            if self._pointer(identifier) is None:
                raise NoSuchTableError(
                    f"table not found: {self.describe(identifier)} (dropped while committing)"
                )
            raise CommitFailedError(
                f"cannot commit to {self.describe(identifier)}: another commit won;"
                " no table of the transaction was changed"
            )
        committed = []
        for (base, metadata), location in zip(changes, written):
            table = Table(base.identifier, TableMetadata(metadata.raw, location), location, self.io)
            metadata_files.delete_dropped_metadata(
                self.io, base.metadata, table.metadata, base.metadata_location
            )
            committed.append(table)
        return committed

    def drop_table(self, identifier: Identifier, purge: bool = False) -> None:
        table = self.load_table(identifier) if purge else None
        if not self._delete_pointer(identifier):
            raise NoSuchTableError(f"table not found: {self.describe(identifier)}")
        if table is not None:
            metadata_files.delete_table_files(table)

    # -- files ----------------------------------------------------------------------------
    def _write(self, metadata: TableMetadata | ViewMetadata, previous: str | None) -> str:
        location = metadata_files.new_metadata_location(metadata, previous)
        data = metadata_files.serialize(metadata, metadata_files.compressed(metadata))
        self.io.write_bytes(location, data)  # a fresh name: nothing to race for but the pointer
        return location

    def _discard(self, location: str) -> None:
        try:
            self.io.delete(location)
        except Exception:
            pass
