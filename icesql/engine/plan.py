"""The plan stages: per scan the Iceberg filter that prunes its files, then each scan built
once, narrowed to the columns and filter the query needs, and planned.

Planning errors surface here, not inside DuckDB's stream. The pushed filters prune files
only: the SQL keeps its WHERE / ON, which DuckDB evaluates whole, so a filter that prunes
less than it could costs time, never rows (the tests replace ``pushed_filters`` to plan
without pruning and compare).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sqlglot import exp

from icesql._lazy import lazy_module
from icesql.engine.bind import Bound
from icesql.sql.bound_query import BoundQuery, TableSource
from icesql.sql.tables import TableReference

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.engine.plan_cache import KeptQuery
    from icesql.expressions import tree
    from icesql.expressions.tree import BooleanExpression
    from icesql.progress import ProgressTracker
    from icesql.scan import table_scan
    from icesql.scan.planner import ManifestCache
    from icesql.scan.table_scan import TableScan
    from icesql.sql import predicates
else:  # the read path loads with the first query that scans a table (icesql._lazy)
    table_scan = lazy_module("icesql.scan.table_scan")
    tree = lazy_module("icesql.expressions.tree")
    predicates = lazy_module("icesql.sql.predicates")

__all__ = [
    "Filtered",
    "Planned",
    "Planner",
    "plan",
    "planned",
    "push_filters",
    "pushed_filters",
    "replan",
]


class Planner(Protocol):
    """What planning asks of the connection (``icesql.engine.Engine`` is one)."""

    progress: ProgressTracker

    @property
    def manifest_cache(self) -> ManifestCache: ...


@dataclass(frozen=True)
class Filtered:
    """A bound query and, per scan view, the Iceberg filter that prunes its files."""

    bound: Bound
    filters: Mapping[str, BooleanExpression]

    def used_columns(self, view: str) -> list[str] | None:
        """The columns the query reads of a scan's view (None: all of them)."""
        used = self.bound.query.tables[view].columns
        return sorted(used) if used is not None else None

    def row_filter(self, view: str) -> BooleanExpression:
        return self.filters.get(view, tree.ALWAYS_TRUE)


@dataclass(frozen=True)
class Planned:
    """A bound query whose scans are planned: what the run stage hands to DuckDB."""

    statement: exp.Expr  # tables replaced by views
    scans: Mapping[str, TableScan]  # by view, in query order
    metadata_views: Mapping[str, pa.Table]
    python_views: Mapping[str, Any]  # Python objects DuckDB scans (icesql.sql.python_sources)
    labels: Mapping[str, str]  # by view: how EXPLAIN names the scan
    target_view: str | None
    sources: Mapping[str, TableSource]  # what binding typed from
    origin: Filtered | None = None  # what it was planned from (None: from a kept query)
    kept: KeptQuery | None = None  # the kept query this plan was made from, or is kept as
    # by view: the metadata columns stars leave out (icesql.sql.hidden_columns)
    hidden: Mapping[str, Sequence[str]] = field(default_factory=dict)
    # by view: how Spark qualifies its columns (the alias, else catalog, namespace, table)
    qualifiers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def target(self) -> TableScan | None:
        """The scan of the table a row-level statement changes, if any."""
        return self.scans.get(self.target_view) if self.target_view is not None else None

    def release(self) -> None:
        for scan in self.scans.values():
            scan.release()


def push_filters(_: object, bound: Bound) -> Filtered:
    """Per scan view, the Iceberg filter that prunes its files."""
    if not bound.query.tables:  # a query of no table: Iceberg predicates stay unloaded
        return Filtered(bound, {})
    return Filtered(bound, pushed_filters(bound.query, bound.params))


def pushed_filters(bound: BoundQuery, params: Sequence[object]) -> dict[str, BooleanExpression]:
    """``icesql.sql.predicates.pushed_filters``, loaded with the first query that scans (tests
    replace this name to plan without pruning)."""
    return predicates.pushed_filters(bound, params)


def plan(planner: Planner, filtered: Filtered) -> Planned:
    """Each scan built once, narrowed to the columns the query uses and to its pushed
    filter, and planned now; stars over scans with metadata columns leave those out."""
    bound = filtered.bound
    scans = {}
    for b in bound.scans:
        scan = table_scan.TableScan(
            b.table,
            b.version,
            filtered.used_columns(b.view),
            planner.manifest_cache,
            row_filter=filtered.row_filter(b.view),
            metadata_columns=bound.hidden,
            progress=planner.progress,
        )
        planned(planner.progress, scan)
        scans[b.view] = scan
    return Planned(
        bound.statement,
        scans,
        bound.metadata_views,
        bound.python_views,
        {b.view: _scan_label(b.ref) for b in bound.scans},
        bound.target_view,
        bound.sources,
        filtered,
        hidden=_hidden(scans),
        qualifiers={b.view: _qualifier(b.ref) for b in bound.scans},
    )


def replan(planner: Planner, kept: KeptQuery) -> Planned:
    """The plan of a kept query (``icesql.engine.plan_cache``), its scans made afresh over
    the versions it was bound to: their files are planned again (a manifest already read
    comes from the connection's cache)."""
    scans = {}
    for s in kept.scans:
        scan = table_scan.TableScan(
            s.table,
            s.version,
            s.columns,
            planner.manifest_cache,
            row_filter=s.row_filter,
            metadata_columns=kept.hidden,
            progress=planner.progress,
        )
        planned(planner.progress, scan)
        scans[s.view] = scan
    return Planned(
        kept.statement,
        scans,
        {},
        {},
        kept.labels,
        None,
        kept.sources,
        kept=kept,
        hidden=_hidden(scans),
    )


def _hidden(scans: Mapping[str, TableScan]) -> dict[str, Sequence[str]]:
    return {v: s.metadata_columns.names for v, s in scans.items() if s.metadata_columns is not None}


def planned(progress: ProgressTracker, scan: TableScan) -> None:
    """Plan ``scan`` now (planning errors surface here), telling progress listeners."""
    tasks = scan.tasks()
    if progress.active:
        progress.planned(len(tasks), sum(t.data_file.file_size_in_bytes for t in tasks))


def _own_alias(ref: TableReference) -> str | None:
    """The alias the statement gives the table, if it is not the table's own name."""
    alias = ref.node.alias
    return alias if alias and alias != ref.identifier[-1] else None


def _qualifier(ref: TableReference) -> tuple[str, ...]:
    alias = _own_alias(ref)
    if alias is not None:
        return (alias,)
    return (ref.catalog, *ref.identifier) if ref.catalog else ref.identifier


def _scan_label(ref: TableReference) -> str:
    alias = _own_alias(ref)
    return f"{ref.name} AS {alias}" if alias is not None else ref.name
