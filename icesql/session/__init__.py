"""The session the statement handlers work in: what one connection holds, seen from below.

A handler (``icesql.statements``) needs the connection's catalogs, its current namespace, its
caches of immutable files, its settings (``SET``) and a way to run a query through the scan
path; ``Session`` names exactly that, and the engine implements it. So the handlers depend on
this small interface and the engine on the handlers, never the other way round.

This layer holds what both sides share: ``Result`` (what a statement produced), the
``Settings`` store, ``DML_TARGET`` (the mark of the table a row-level statement changes) and
``StatementTables`` (each table a statement names, loaded once) and ``TempViews`` (the
connection's temporary views, kept as text); how far a statement has got
is ``icesql.progress``, below the scan and write code that report it. It imports nothing from
``icesql.engine``, ``icesql.statements`` or the fronts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from icesql.progress import ProgressTracker
from icesql.session.result import DML_TARGET, Result
from icesql.session.settings import Settings
from icesql.session.tables import StatementTables
from icesql.session.temp_views import TempView, TempViews
from icesql.session.wap import WriteRef, read_branch, write_ref

if TYPE_CHECKING:
    import pyarrow as pa
    from sqlglot import exp

    from icesql.catalog.base import Catalog
    from icesql.scan.planner import ManifestCache

__all__ = [
    "DML_TARGET",
    "Result",
    "Session",
    "Settings",
    "StatementTables",
    "TempView",
    "TempViews",
    "WriteRef",
    "read_branch",
    "write_ref",
]


@runtime_checkable
class Session(Protocol):
    """What a statement handler may use of its connection."""

    catalog: Catalog  # the current catalog: the one unqualified names use (USE changes it)
    default_namespace: tuple[str, ...]  # the namespace of unqualified table names
    settings: Settings
    progress: ProgressTracker  # told of files planned and read, rows and files written
    temp_views: TempViews  # the connection's temporary views (icesql.session.temp_views)

    @property
    def catalogs(self) -> Mapping[str, Catalog]:
        """Every catalog of the connection, by name (read-only: handlers never swap it)."""
        ...

    @property
    def manifest_cache(self) -> ManifestCache:
        """Manifests already read, shared by the connection's queries."""
        ...

    @property
    def tables(self) -> StatementTables:
        """The tables the running statement has loaded: each table it names is loaded
        once, by whichever part of it asks first."""
        ...

    def query(self, statement: exp.Expr, params: Sequence[object]) -> Result:
        """Run a query (SELECT ...) through the scan path; its rows as an Arrow stream, and
        ``Result.target`` the scan of the table node marked ``DML_TARGET``, if any."""
        ...

    def query_columns(self, statement: exp.Expr, params: Sequence[object]) -> list[str]:
        """The names of the columns a query returns, found by binding it over its tables
        (the statement's own, already loaded): nothing is planned or read."""
        ...

    def python_rows(self, statement: exp.Expr) -> pa.Table | None:
        """The Arrow table a plain ``SELECT * FROM name`` of a Python object reads, when
        DuckDB would return its rows unchanged; None otherwise."""
        ...
