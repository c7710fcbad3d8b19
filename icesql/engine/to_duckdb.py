"""The to_duckdb stage: a planned query as the DuckDB SQL that runs it, and what DuckDB reads.

Each scan is read by DuckDB itself where it can (``read_parquet`` over the scan's files as
``icesql.scan.native_read`` splits them, a tree from ``icesql.sql.native_sql`` that goes
into the query in place of the scan's view:
a view would cost DuckDB a second bind of it, which is most of the planning of a scan of
many files), and as a registered Arrow stream for the rest. Nothing touches DuckDB here:
the run stage (``icesql.engine.run``) registers ``Translated.views`` on its cursor.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sqlglot import exp

from icesql.engine import plan_cache
from icesql.session import Settings, sandbox
from icesql.sql.hidden_columns import hide_metadata_columns
from icesql.sql.native_sql import native_query
from icesql.sql.translate import KEEP_SUMS_AS_WRITTEN, duckdb_errors, sums_arithmetic, to_duckdb_sql

if TYPE_CHECKING:
    from icesql.engine.plan import Planned
    from icesql.scan.read_parts import AntiJoin, FileRead
    from icesql.scan.table_scan import TableScan

__all__ = ["Translated", "Translator", "duckdb_statement", "to_duckdb"]

# How far DuckDB's pipelines run ahead of the rows fetched (a per-cursor setting; DuckDB's
# default lets it read many files before the first row): a small buffer keeps fetchone lazy,
# and fetching a large result whole is no slower for it.
STREAMING_BUFFER = "1MB"


class Translator(Protocol):
    """What translation asks of the connection (``icesql.engine.Engine`` is one)."""

    settings: Settings
    duck_roots: tuple[str, ...]


@dataclass(frozen=True)
class Translated:
    """A planned query as DuckDB runs it: the SQL and its values, the statements that set up
    the cursor first, the objects the cursor registers by name (metadata tables, Python
    objects, scans' Arrow streams and keep-masks), and per scan view what DuckDB reads in
    its place (its native read, which the overflow rerun translates again)."""

    planned: Planned
    params: tuple[object, ...]
    sql: str
    values: tuple[object, ...]
    setup: tuple[str, ...]
    views: Mapping[str, Any]
    sources: Mapping[str, Callable[[], exp.Expr]]  # a new tree per translation: none copied
    native_files: Mapping[str, tuple[int, int]]  # per native view: files DuckDB reads, bytes
    explain: bool = False

    def with_sql(self, sql: str, values: tuple[object, ...]) -> Translated:
        """The same reads under other SQL (the overflow rerun's)."""
        return dataclasses.replace(self, sql=sql, values=values)

    def source_trees(self) -> dict[str, exp.Expr]:
        """Per scan view, a new tree of what DuckDB reads in its place."""
        return _trees(self.sources)


def to_duckdb(
    translator: Translator, planned: Planned, params: tuple[object, ...], explain: bool = False
) -> Translated:
    """Decide what DuckDB reads for each scan, then translate the statement over it (a kept
    query reuses its last translation when it reads the same files: ``plan_cache``)."""
    views: dict[str, Any] = {**planned.metadata_views, **planned.python_views}
    sources: dict[str, Callable[[], exp.Expr]] = {}
    keys: list[tuple[str, object]] = []
    native_files: dict[str, tuple[int, int]] = {}
    readable = functools.partial(sandbox.under_roots, roots=translator.duck_roots)
    with duckdb_errors(list(planned.scans.values())):
        for view, scan in planned.scans.items():
            source = _duck_source(view, scan, translator.settings.native_parquet, readable, views)
            if source is not None:
                sources[view], key = source
                keys.append((view, key))
                native_files[view] = _native_size(scan)
    statement = duckdb_statement(planned)

    def translate() -> tuple[str, list[object]]:
        return to_duckdb_sql(statement, params, _trees(sources))

    if planned.kept is not None:
        sql, values = plan_cache.kept_translation(planned.kept, tuple(keys), translate)
    else:
        sql, values = translate()
    if explain:
        sql = "EXPLAIN " + sql
    setup = [f"SET streaming_buffer_size = '{STREAMING_BUFFER}'"]
    if sums_arithmetic(statement):
        setup.append(KEEP_SUMS_AS_WRITTEN)
    return Translated(
        planned,
        params,
        sql,
        tuple(values),
        tuple(setup),
        views,
        sources,
        native_files,
        explain,
    )


def duckdb_statement(planned: Planned) -> exp.Expr:
    """The planned statement as it is translated: stars over scans with metadata columns
    leave those out (on a copy: the planned statement is kept as it was bound)."""
    if not planned.hidden:
        return planned.statement
    return hide_metadata_columns(planned.statement.copy(), planned.hidden)


def _duck_source(
    view: str,
    scan: TableScan,
    native_parquet: bool,
    readable: Callable[[str], bool],
    views: dict[str, Any],
) -> tuple[Callable[[], exp.Expr], object] | None:
    """What the query reads in place of the scan's view: the files DuckDB reads itself with
    ``read_parquet`` (unless ``native_parquet`` is off) unioned with the Arrow stream of the
    rest, as a function that builds its tree (only a translation needs one: a kept query
    whose reads are the same reuses its last), and a key of those reads. The objects DuckDB
    scans by name go into ``views``; None when the whole scan is the view."""
    native = scan.native_read(view, readable) if native_parquet else None
    if native is None:
        views[view] = scan
        return None
    views.update(native.relations)
    stream = f"{view}_stream" if scan.streamed_tasks() else None
    if stream is not None:
        views[stream] = scan
    # equal reads are the same read_parquet calls
    return functools.partial(_source_tree, native.parts, stream), (native, stream)


def _trees(sources: Mapping[str, Callable[[], exp.Expr]]) -> dict[str, exp.Expr]:
    return {view: source() for view, source in sources.items()}


def _source_tree(parts: tuple[FileRead | AntiJoin, ...], stream: str | None) -> exp.Expr:
    source = native_query(parts)
    if stream is None:
        return source
    stream_table = exp.Table(this=exp.to_identifier(stream, quoted=True))
    rest = exp.Select(expressions=[exp.Star()]).from_(stream_table, copy=False)
    return exp.union(source, rest, distinct=False, copy=False)


def _native_size(scan: TableScan) -> tuple[int, int]:
    """How many planned files DuckDB reads itself for ``scan``, and their bytes."""
    streamed = {id(t) for t in scan.streamed_tasks()}
    native = [t for t in scan.tasks() if id(t) not in streamed]
    return len(native), sum(t.data_file.file_size_in_bytes for t in native)
