"""The bind stage: every table a query names resolved, loaded once and put in as a view.

Each Iceberg table reference (catalog prefix, branch/tag suffix, time travel) is resolved
to a table and the snapshot it reads, once each temporary view is put in place of its
name (``icesql.sql.temp_views``); the table comes from the statement's own record
(``icesql.session.StatementTables``), so a table the handler already loaded (a DML
target) is not loaded again. Names of no Iceberg table may stand for Python objects
(``icesql.sql.python_sources``). The query is then bound once over the views
(``icesql.sql.bound_query``): the columns each scan reads, the conditions that may prune its
files, the metadata columns it names. No file is planned here: that is the plan stage's
(``icesql.engine.plan``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sqlglot import exp

from icesql._lazy import lazy_module
from icesql.engine import plan_cache
from icesql.engine.run import spark_terms
from icesql.errors import NoSuchTableError
from icesql.session import DML_TARGET, Settings, StatementTables, TempViews
from icesql.sql.bound_query import BoundQuery, TableSource, bind_query, query_type_name
from icesql.sql.catalog_views import check_view_columns, expand_catalog_views, view_finder
from icesql.sql.group_by_aliases import GROUP_BY_ALIASES, alias_references
from icesql.sql.grouping_sets import resolve_grouping_sets
from icesql.sql.input_files import rewrite_input_file_name
from icesql.sql.output_names import name_select_items
from icesql.sql.python_sources import PythonSource
from icesql.sql.spark.subqueries import NULL_IN_EMPTY_LIST, mark_in_subqueries
from icesql.sql.tables import (
    TableReference,
    drop_table_prefixes,
    replace_table,
    resolve_reference,
    table_nodes,
)
from icesql.sql.temp_views import expand_views

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.catalog.base import Catalog
    from icesql.catalog.table import Table
    from icesql.engine.plan_cache import TableKey
    from icesql.scan import metadata_tables
    from icesql.scan.planner import ManifestCache
    from icesql.scan.time_travel import ReadVersion
else:  # metadata tables load with the first query that reads one (icesql._lazy)
    metadata_tables = lazy_module("icesql.scan.metadata_tables")

__all__ = ["Bound", "BoundScan", "Binder", "Parsed", "bind"]

_view_ids = itertools.count()


class Binder(Protocol):
    """What binding asks of the connection (``icesql.engine.Engine`` is one)."""

    catalog: Catalog
    default_namespace: tuple[str, ...]
    temp_views: TempViews
    settings: Settings

    @property
    def tables(self) -> StatementTables: ...

    @property
    def catalogs(self) -> Mapping[str, Catalog]: ...

    @property
    def manifest_cache(self) -> ManifestCache: ...

    @property
    def search_path(self) -> tuple[str, ...]: ...

    def python_source(self, node: exp.Table) -> PythonSource | None: ...

    def read_version(
        self, ref: TableReference, table: Table, params: Sequence[object]
    ) -> ReadVersion: ...


@dataclass(frozen=True)
class Parsed:
    """One parsed query and its parameter values: what the pipeline starts from (binding
    works on a copy of the tree: the caller's is left as it was parsed)."""

    statement: exp.Expr
    params: tuple[object, ...]


@dataclass(frozen=True)
class BoundScan:
    """A table reference bound to a table and snapshot, and the view that stands for it."""

    ref: TableReference
    view: str
    table: Table
    version: ReadVersion


@dataclass(frozen=True)
class Bound:
    """What binding found: the scans, the metadata tables read (built as Arrow tables), the
    Python objects read, the view of the DML target, and the query bound once over them."""

    statement: exp.Expr  # tables replaced by views
    params: tuple[object, ...]
    scans: tuple[BoundScan, ...]
    metadata_views: Mapping[str, pa.Table]
    python_views: Mapping[str, Any]  # Python objects, by view
    target_view: str | None
    query: BoundQuery
    sources: Mapping[str, TableSource]  # what the binder typed each view from
    lookups: Mapping[TableKey, bool]  # the names resolved (for the plan cache)
    tables: Mapping[TableKey, Table]  # the tables loaded
    keepable: bool  # reads no Python object, metadata table or TIMESTAMP AS OF time

    @property
    def hidden(self) -> list[str]:
        """The metadata columns the query names (``_file``, ``_pos``, ...)."""
        return list(self.query.metadata_columns)


def _check_group_by_names(
    statement: exp.Expr,
    sources: Mapping[str, TableSource],
    metadata_views: Mapping[str, Any],
    search_path: tuple[str, ...],
) -> None:
    """Raise Spark's unresolved-column error for a GROUP BY name only an alias gives."""
    columns = {v: [f.name for f in s.schema.fields] for v, s in sources.items()}
    columns.update((v, list(t.column_names)) for v, t in metadata_views.items())
    for name in alias_references(statement, columns):
        message = f'Referenced column "{name}" not found in FROM clause!'
        error = spark_terms(statement, sources, metadata_views, {}, search_path, message)
        if error is not None:
            raise error


def bind(binder: Binder, parsed: Parsed) -> Bound:
    """Resolve each table reference to a snapshot and replace it by a view (in a copy of the
    parsed tree); then bind the query once over the scanned views (qualified, and typed where Spark's rewrites
    read types)."""
    statement, params = parsed.statement.copy(), parsed.params  # the parsed tree stays as it is
    name_select_items(statement)  # Spark's names for unaliased items, from the text as written
    resolve_grouping_sets(statement)  # before binding: what it writes is typed like the rest
    legacy = (binder.settings.get(NULL_IN_EMPTY_LIST) or "true").strip().lower() == "true"
    mark_in_subqueries(statement, legacy)
    # temporary views become subqueries of their text (icesql.sql.temp_views)
    expand_views(statement, binder.temp_views, binder.catalog.name, binder.default_namespace)
    lookups: dict[TableKey, bool] = {}
    exists = {
        name: plan_cache.recording(lookups, name, binder.tables.exists_in(catalog))
        for name, catalog in binder.catalogs.items()
    }
    # Iceberg views too, read afresh each time (icesql.sql.catalog_views): no plan is kept
    find = view_finder(binder.catalogs, exists, binder.catalog.name, binder.default_namespace)
    views_read = expand_catalog_views(statement, find, catalogs=list(binder.catalogs))
    refs = []
    python_views: dict[str, Any] = {}
    python_sources: dict[str, TableSource | None] = {}
    for node in table_nodes(statement):
        try:
            refs.append(
                resolve_reference(
                    node, exists, binder.catalog.name, binder.default_namespace, params
                )
            )
        except NoSuchTableError:
            source = binder.python_source(node)
            if source is None:
                raise
            view = f"__icesql_python_{next(_view_ids)}"
            python_views[view] = source.obj
            python_sources[view] = source.table_source()
            _replace_node(node, view, source.name)
    drop_table_prefixes(statement, refs)
    metrics_read = _reads_readable_metrics(statement)
    keepable = not python_views and not views_read
    tables: dict[TableKey, Table] = {}
    metadata_views: dict[str, pa.Table] = {}
    scans: list[BoundScan] = []
    target_view = None
    for ref in refs:  # each loaded once per statement, the handler's target too
        table = binder.tables.load(binder.catalogs[ref.catalog], ref.identifier)
        tables[ref.catalog, ref.identifier] = table
        if ref.travel.timestamp is not None:
            keepable = False  # its time may be an expression (now() - 1 hour)
        version = binder.read_version(ref, table, params)
        view = f"__icesql_scan_{next(_view_ids)}"
        if ref.metadata_table is not None:
            keepable = False
            built = metadata_tables.MetadataTables(
                table,
                version.snapshot,
                binder.manifest_cache,
                time_travel=not ref.travel.is_current,
                readable_metrics=metrics_read,
            )
            metadata_views[view] = built.build(ref.metadata_table)
            _replace_with_view(ref, view, default_alias=ref.metadata_table)
            continue
        scans.append(BoundScan(ref, view, table, version))
        if ref.node.meta.get(DML_TARGET):
            target_view = view
    for bound in scans:
        _replace_with_view(bound.ref, bound.view)
    rewrite_input_file_name(statement, [b.view for b in scans])
    sources = {}
    for bound in scans:
        schema = bound.version.schema
        types = {f.name: query_type_name(f.type) for f in schema.fields}
        sources[bound.view] = TableSource(schema, types)
    sources.update({v: s for v, s in python_sources.items() if s is not None})
    if (binder.settings.get(GROUP_BY_ALIASES) or "true").strip().lower() == "false":
        _check_group_by_names(statement, sources, metadata_views, binder.search_path)
    query = bind_query(statement, sources)
    if views_read:
        check_view_columns(query.tree, {v.lower(): s.types for v, s in sources.items()})
    return Bound(
        statement,
        params,
        tuple(scans),
        metadata_views,
        python_views,
        target_view,
        query,
        sources,
        lookups,
        tables,
        keepable,
    )


def _reads_readable_metrics(statement: exp.Expr) -> bool:
    """Whether a query may read the ``readable_metrics`` column of a metadata table: it
    selects a ``*`` or names the column (building it decodes every bound of every file)."""
    if any(not isinstance(star.parent, exp.Count) for star in statement.find_all(exp.Star)):
        return True
    return any(i.name.lower() == "readable_metrics" for i in statement.find_all(exp.Identifier))


def _replace_with_view(ref: TableReference, view: str, default_alias: str | None = None) -> None:
    node = ref.node
    alias = node.args.get("alias")
    if alias is None:
        alias = exp.TableAlias(this=exp.to_identifier(default_alias or ref.identifier[-1]))
    replace_table(node, exp.Table(this=exp.to_identifier(view), alias=alias))


def _replace_node(node: exp.Table, view: str, name: str) -> None:
    """Put ``view`` in place of a table node, which keeps answering to its alias or name."""
    alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name))
    replace_table(node, exp.Table(this=exp.to_identifier(view), alias=alias))
