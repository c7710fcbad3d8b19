"""What every catalog offers: finding namespaces and tables, and loading table metadata."""

from __future__ import annotations

from abc import ABC, abstractmethod

from icesql.catalog.table import Table

Identifier = tuple[str, ...]


class Catalog(ABC):
    """A catalog maps ``namespace.table`` names to the location of their current metadata."""

    name: str

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
