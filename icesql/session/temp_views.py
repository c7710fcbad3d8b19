"""The temporary views of one connection, as Spark's ``SessionCatalog`` keeps them.

A view is kept as its query's text, never as a plan: each statement that names it parses
and binds the text again (``icesql.sql.temp_views``), so it reads the current snapshot of
every table it names, as a Spark 3.5 temporary view created by SQL does. What Spark records
beside the text is kept too: the view's column names and comments, the names the query's
columns had (a view over ``SELECT *`` keeps its columns when the table gains one), the
catalog and namespace it was created in (its unqualified names keep meaning the tables
they meant) and the temporary views it named (no other one may stand in for a table later).

Local and global temporary views live here per connection: Spark's global ones are shared
by the sessions of one application, and a connection is the only session icesql has.
Global views answer only to ``global_temp.name``. Names are matched case-insensitively and
kept lower-case, as Spark keeps them.

Objects given to ``Connection.register`` share the namespace of the local views, as Spark's
``DataFrame.createOrReplaceTempView`` does: a view cannot be created over a registered name
without ``OR REPLACE`` (which forgets the object), ``DROP VIEW`` forgets one, and registering
a name replaces the view of that name.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from icesql.errors import AlreadyExistsError

__all__ = ["TempView", "TempViews"]


@dataclass(frozen=True)
class TempView:
    """One temporary view: its query's text and what Spark records beside it."""

    name: str  # lower-case
    text: str  # the query, as Spark SQL
    columns: tuple[str, ...]  # the view's column names
    query_columns: tuple[str, ...]  # the names the query's columns had when it was created
    comments: tuple[str | None, ...]  # per column
    catalog: str  # the catalog and namespace it was created in
    namespace: tuple[str, ...]
    referred: frozenset[str]  # the local temporary views its text names
    referred_global: frozenset[str]  # the global ones (global_temp.name)
    is_global: bool = False
    comment: str | None = None


class TempViews:
    """The connection's temporary views; ``registered`` is ``Connection.register``'s record,
    whose names the local views share."""

    def __init__(self, registered: MutableMapping[str, Any]):
        self.registered = registered
        self._local: dict[str, TempView] = {}
        self._global: dict[str, TempView] = {}
        self.generation = 0  # changes with every view created or dropped (the plan cache)

    def get(self, name: str, is_global: bool = False) -> TempView | None:
        return (self._global if is_global else self._local).get(name.lower())

    def registered_name(self, name: str) -> str | None:
        """The registered object's name matching ``name`` case-insensitively, if any."""
        return next((k for k in self.registered if k.lower() == name.lower()), None)

    def exists(self, name: str, is_global: bool = False) -> bool:
        if is_global:
            return name.lower() in self._global
        return name.lower() in self._local or self.registered_name(name) is not None

    def create(self, view: TempView, replace: bool) -> None:
        """Add ``view``; without ``replace`` a view (or registered object) of its name is
        Spark's ``TEMP_TABLE_OR_VIEW_ALREADY_EXISTS`` and nothing changes."""
        if self.exists(view.name, view.is_global) and not replace:
            raise AlreadyExistsError(
                "[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view"
                f" `{view.name}`"
                " because it already exists. Choose a different name, drop or replace the"
                " existing view, or add the IF NOT EXISTS clause to tolerate pre-existing"
                " views. SQLSTATE: 42P07"
            )
        if view.is_global:
            self._global[view.name] = view
        else:
            self.forget_registered(view.name)
            self._local[view.name] = view
        self.generation += 1

    def drop(self, name: str, is_global: bool = False) -> bool:
        """Drop the view (or registered object) ``name``; False when there is none."""
        found = (self._global if is_global else self._local).pop(name.lower(), None)
        forgot = not is_global and self.forget_registered(name)
        self.generation += 1
        return found is not None or forgot

    def forget_registered(self, name: str) -> bool:
        key = self.registered_name(name)
        if key is None:
            return False
        del self.registered[key]
        return True

    def replaced_by_object(self, name: str) -> None:
        """``Connection.register(name, ...)``: the object replaces a local view of the name."""
        if self._local.pop(name.lower(), None) is not None:
            self.generation += 1

    def names(self, is_global: bool = False) -> list[str]:
        """The views' names, sorted; the local ones with the registered objects'."""
        if is_global:
            return sorted(self._global)
        return sorted({*self._local, *(k.lower() for k in self.registered)})
