"""Statement dispatch: one parsed statement in, one result (an Arrow stream) out.

SELECT: each Iceberg table reference is resolved (catalog prefix, branch/tag suffix, time
travel), bound to a snapshot and schema, and replaced by a registered ``TableScan`` that
DuckDB consumes as an Arrow stream; DuckDB executes the rest of the query.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import duckdb
import pyarrow as pa
from sqlglot import exp

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table
from icesql.errors import Error, NotSupportedError, ProgrammingError
from icesql.expressions.tree import ALWAYS_TRUE
from icesql.scan.explain import explain_scans
from icesql.scan.metadata_tables import MetadataTables
from icesql.scan.planner import ManifestCache
from icesql.scan.source import TableScan
from icesql.scan.time_travel import select_version
from icesql.session import DML_TARGET, Result, Settings
from icesql.sql.bound_query import TableSource, bind_query
from icesql.sql.dialect import DIALECT, number_parameters, parse
from icesql.sql.metadata_columns import hide_metadata_columns
from icesql.sql.names import name_select_items
from icesql.sql.predicates import pushed_filters
from icesql.sql.tables import (
    TableReference,
    drop_table_prefixes,
    resolve_reference,
    table_nodes,
)
from icesql.sql.translate import duckdb_errors, to_duckdb_sql
from icesql.statements import statement_handler
from icesql.statements.types import spark_type

QUERY_TYPES = (exp.Query,)
# How far DuckDB's pipelines run ahead of the rows fetched (a per-connection setting, 10 MiB by
# default in DuckDB 2.0: about 20 files of 20,000 rows read before the first row). 1 MiB keeps
# fetchone lazy and measured no slower fetching 20M rows whole.
STREAMING_BUFFER = "1MB"
_view_ids = itertools.count()


class Engine:
    """One per connection: the catalog, a DuckDB database, caches of immutable files and the
    session's settings (``SET``). It is the ``icesql.session.Session`` the statement handlers
    work in, and dispatches each statement to its handler."""

    def __init__(self, catalog: Catalog, default_namespace: Sequence[str] = ("default",)):
        self.catalog = catalog
        self.default_namespace = tuple(default_namespace)
        self.manifest_cache = ManifestCache()
        self.settings = Settings()
        self.duck = duckdb.connect(":memory:")
        self.duck.execute("SET GLOBAL TimeZone = 'UTC'")

    def close(self) -> None:
        self.duck.close()

    # -- entry point ---------------------------------------------------------------------
    def execute(self, sql: str, params: Sequence[object] = ()) -> Result:
        statements = parse(sql)
        if not statements:
            raise ProgrammingError("no statement to execute")
        if len(statements) > 1:
            raise ProgrammingError(
                f"expected one statement, got {len(statements)}; execute them one at a time"
            )
        return self.execute_statement(statements[0], params)

    def execute_statement(self, statement: exp.Expr, params: Sequence[object] = ()) -> Result:
        explained = _explained_query(statement)
        if explained is not None:
            count = number_parameters(explained)
            if count != len(params):
                raise ProgrammingError(
                    f"the statement has {count} parameter marker(s) but {len(params)} value(s)"
                    " were given"
                )
            return self.query(explained, params, explain=True)
        count = number_parameters(statement)
        if count != len(params):
            raise ProgrammingError(
                f"the statement has {count} parameter marker(s) but {len(params)} value(s) were given"
            )
        if isinstance(statement, QUERY_TYPES):
            return self.query(statement, params)
        handler = statement_handler(statement)  # DDL, INSERT, SHOW, DESCRIBE, ALTER, SET
        if handler is not None:
            return handler(self, statement, params)
        raise NotSupportedError(f"{_statement_kind(statement)} statements are not supported yet")

    # -- SELECT ----------------------------------------------------------------------------
    def query(self, statement: exp.Expr, params: Sequence[object], explain: bool = False) -> Result:
        """Run a query; with ``explain``, plan it and return the Iceberg scan plans and
        DuckDB's plan as one ``plan`` text instead of rows."""
        name_select_items(statement)  # Spark's names for unaliased items, from the text as written
        refs = [
            resolve_reference(
                node, self.catalog.table_exists, self.catalog.name, self.default_namespace, params
            )
            for node in table_nodes(statement)
        ]
        drop_table_prefixes(statement, refs, self.catalog.name)
        tables: dict[tuple[str, ...], Table] = {}
        target_view = None
        bound: list[tuple[TableReference, str, TableScan]] = []
        metadata_views: list[tuple[str, pa.Table]] = []
        for ref in refs:
            table = tables.get(ref.identifier)
            if table is None:
                table = tables[ref.identifier] = self.catalog.load_table(ref.identifier)
            version = select_version(
                table.metadata,
                table.name,
                version=ref.travel.version,
                timestamp_ms=self._timestamp_ms(ref.travel.timestamp, params),
                ref=ref.travel.ref,
                ref_kind=ref.travel.ref_kind,
            )
            view = f"__icesql_scan_{next(_view_ids)}"
            if ref.metadata_table is not None:
                tables_ = MetadataTables(table, version.snapshot, self.manifest_cache)
                metadata_views.append((view, tables_.build(ref.metadata_table)))
                _replace_with_view(ref, view, default_alias=ref.metadata_table)
                continue
            bound.append((ref, view, TableScan(table, version, cache=self.manifest_cache)))
            if ref.node.meta.get(DML_TARGET):
                target_view = view
        for ref, view, _ in bound:
            _replace_with_view(ref, view)
        # one binding pass: the columns each scan reads, the conditions that may prune its
        # files, the types Spark's rewrites read (the SQL keeps its WHERE/ON: DuckDB
        # evaluates all of it)
        binding = bind_query(statement, {
            view: TableSource(scan.version.schema,
                              {f.name: spark_type(f.type) for f in scan.read_schema.fields})
            for _, view, scan in bound
        })
        meta = list(binding.metadata_columns)  # _file, _pos, ...: hidden columns
        filters = pushed_filters(binding, params)
        labels = {view: _scan_label(ref) for ref, view, _ in bound}
        scans = []
        for _, view, scan in bound:
            used = binding.tables[view].columns
            scan = TableScan(
                scan.table,
                scan.version,
                sorted(used) if used is not None else None,
                self.manifest_cache,
                row_filter=filters.get(view, ALWAYS_TRUE),
                metadata_columns=meta,
            )
            # plan now, so that planning errors surface here and not inside DuckDB's stream
            scan.tasks()
            scans.append((view, scan))
        hide_metadata_columns(
            statement,
            {v: s.metadata_columns.names for v, s in scans if s.metadata_columns is not None},
        )
        sql, values = to_duckdb_sql(statement, params)
        cursor = self.duck.cursor()
        cursor.execute(f"SET streaming_buffer_size = '{STREAMING_BUFFER}'")
        try:
            for view, arrow_table in metadata_views:
                cursor.register(view, arrow_table)
            with duckdb_errors([s for _, s in scans]):
                for view, scan in scans:
                    sql = _register_scan(cursor, view, scan, self.settings.native_parquet, sql)
                if explain:
                    sql = "EXPLAIN " + sql
                relation = cursor.sql(sql, params=values) if values else cursor.sql(sql)
                if explain:
                    duck_plan = "\n".join(str(row[-1]) for row in relation.fetchall())
                    for _, scan in scans:
                        scan.release()
                    text = explain_scans([(labels[v], scan) for v, scan in scans])
                    text = f"{text}\n\n== DuckDB plan ==\n{duck_plan}".lstrip()
                    cursor.close()
                    table = pa.table({"plan": [text]})
                    return Result(reader=table.to_reader(), scans=[s for _, s in scans])
                reader = relation.to_arrow_reader(64 * 1024)
        except Error:
            for _, scan in scans:
                scan.release()
            cursor.close()
            raise
        target = next((s for v, s in scans if v == target_view), None)
        return Result(reader=reader, scans=[s for _, s in scans], duck_cursor=cursor, target=target)

    def _timestamp_ms(self, node: exp.Expr | None, params: Sequence[object]) -> int | None:
        """Evaluate a ``TIMESTAMP AS OF`` expression in the session time zone (UTC)."""
        if node is None:
            return None
        if isinstance(node, exp.Literal) and not node.is_string:
            return int(float(node.this) * 1000)  # Spark casts a number to seconds
        sql, values = to_duckdb_sql(
            exp.select(exp.func("epoch_ms", exp.cast(node.copy(), "TIMESTAMPTZ"))), params
        )
        cursor = self.duck.cursor()
        try:
            with duckdb_errors([]):
                row = cursor.execute(sql, values).fetchone()
        finally:
            cursor.close()
        if row is None or row[0] is None:
            raise ProgrammingError(f"TIMESTAMP AS OF value is NULL: {node.sql(dialect=DIALECT)}")
        return int(row[0])


_EXPLAIN_MODES = ("EXTENDED", "FORMATTED", "CODEGEN", "COST")


def _register_scan(
    cursor: duckdb.DuckDBPyConnection, view: str, scan: TableScan, native_parquet: bool, sql: str
) -> str:
    """Make ``view`` in ``sql`` read the scan's rows: the files DuckDB reads itself with
    ``read_parquet`` (unless ``native_parquet`` is off) unioned with the Arrow stream of the
    rest. Returns ``sql`` with the view replaced by that subquery: a view would cost DuckDB
    a second bind of it, which is most of the planning of a scan of many files."""
    native = scan.native_read(view) if native_parquet else None
    if native is None:
        cursor.register(view, scan)
        return sql
    for name, relation in native.relations:
        cursor.register(name, relation)
    parts = [native.sql]
    if scan.streamed_tasks():
        stream = f"{view}_stream"
        cursor.register(stream, scan)
        parts.append(f'SELECT * FROM "{stream}"')
    subquery = "(" + " UNION ALL ".join(parts) + ")"
    # the view is always a table with an alias (_replace_with_view), never a qualifier
    return re.sub(rf'(?<![\w."]){view}(?= AS )', lambda _: subquery, sql)


def _explained_query(statement: exp.Expr) -> exp.Expr | None:
    """The query of an ``EXPLAIN [mode] <query>`` (sqlglot keeps EXPLAIN as a Command)."""
    if not isinstance(statement, exp.Command) or str(statement.this).upper() != "EXPLAIN":
        return None
    text = statement.expression.name if statement.expression is not None else ""
    first = text.split(None, 1)
    if first and first[0].upper() in _EXPLAIN_MODES:
        text = first[1] if len(first) > 1 else ""
    inner = parse(text)
    if len(inner) != 1 or not isinstance(inner[0], QUERY_TYPES):
        raise NotSupportedError("EXPLAIN is supported for queries (SELECT ...) only")
    return inner[0]


def _scan_label(ref: TableReference) -> str:
    alias = ref.node.alias
    return f"{ref.name} AS {alias}" if alias and alias != ref.identifier[-1] else ref.name


def _replace_with_view(ref: TableReference, view: str, default_alias: str | None = None) -> None:
    node = ref.node
    alias = node.args.get("alias")
    if alias is None:
        alias = exp.TableAlias(this=exp.to_identifier(default_alias or ref.identifier[-1]))
    node.replace(exp.Table(this=exp.to_identifier(view), alias=alias))


def _statement_kind(statement: exp.Expr) -> str:
    if isinstance(statement, exp.Command):
        return str(statement.this).upper()
    return type(statement).__name__.upper()
