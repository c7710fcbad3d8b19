"""The tables one statement has looked up and loaded, so that it loads each only once.

A statement names a table in several places: the handler resolves its target, the query
pipeline binds every table the statement reads (the target among them). Each asks this
record, which asks the catalog the first time only, so every part of the statement works on
the same loaded metadata: no part can see a newer version of the table than another, and
there is no race between two loads of its own to detect. A commit's optimistic retry still
reloads the table from its catalog (``icesql.write.commit``): that reload is the point of a
retry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from icesql.catalog.base import Catalog
    from icesql.catalog.table import Table

__all__ = ["StatementTables", "TableKey"]

TableKey = tuple[str, tuple[str, ...]]  # catalog name, identifier


class StatementTables:
    """Each table a statement names, looked up and loaded once from its catalog."""

    def __init__(self) -> None:
        self.found: dict[TableKey, bool] = {}
        self.loaded: dict[TableKey, Table] = {}

    def exists(self, catalog: Catalog, identifier: tuple[str, ...]) -> bool:
        """Whether the catalog holds the table (asked once; a loaded table exists)."""
        key = (catalog.name, tuple(identifier))
        found = self.found.get(key)
        if found is None:
            found = self.found[key] = key in self.loaded or catalog.table_exists(key[1])
        return found

    def load(self, catalog: Catalog, identifier: tuple[str, ...]) -> Table:
        """The table, loaded from its catalog the first time the statement asks for it."""
        key = (catalog.name, tuple(identifier))
        table = self.loaded.get(key)
        if table is None:
            table = self.loaded[key] = catalog.load_table(key[1])
            self.found[key] = True
        return table

    def exists_in(self, catalog: Catalog) -> Callable[[tuple[str, ...]], bool]:
        """``exists`` for one catalog, the shape name resolution takes
        (``icesql.sql.tables.resolve_reference``)."""
        return lambda identifier: self.exists(catalog, identifier)
