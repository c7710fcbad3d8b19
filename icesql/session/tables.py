"""The tables one statement has looked up and loaded, so that it loads each only once.

A statement names a table in several places: the handler resolves its target (DML, ALTER,
SHOW, DESCRIBE, CREATE / DROP, a procedure's ``table`` argument), the query pipeline binds
every table the statement reads (the target among them). Each asks this record, which asks
the catalog the first time only, so every part of the statement works on the same loaded
metadata: no part can see a newer version of the table than another, and there is no race
between two loads of its own to detect. A handler that needs the table or its own
not-found error asks ``find``: one round trip to a REST catalog, not an existence check and
then a load. What must see the catalog's state after something changed it still reloads from
the catalog: a commit's optimistic retry (``icesql.write.commit``), a procedure planning
again after a concurrent commit (``expire_snapshots``, ``rewrite_data_files``' partial
progress) and ``remove_orphan_files``' load after listing the files.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from icesql.errors import NoSuchTableError

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

    def find(self, catalog: Catalog, identifier: tuple[str, ...]) -> Table | None:
        """The table as ``load`` gives it, or None when the catalog holds no such table: one
        round trip where asking ``exists`` and then ``load`` would take two (a handler then
        raises its own not-found error)."""
        key = (catalog.name, tuple(identifier))
        if self.found.get(key) is False:
            return None
        try:
            return self.load(catalog, identifier)
        except NoSuchTableError:
            self.found[key] = False
            return None

    def forget(self, catalog: Catalog, identifier: tuple[str, ...]) -> None:
        """Ask the catalog again next time: the statement itself created, dropped or renamed
        the table (``DROP TABLE t, t`` finds the second one gone)."""
        key = (catalog.name, tuple(identifier))
        self.found.pop(key, None)
        self.loaded.pop(key, None)

    def exists_in(self, catalog: Catalog) -> Callable[[tuple[str, ...]], bool]:
        """Whether one catalog holds a table, the shape name resolution takes
        (``icesql.sql.tables.resolve_reference``). It asks by ``find``: the statement loads
        every table it resolves, so one load answers both."""
        return lambda identifier: self.find(catalog, identifier) is not None
