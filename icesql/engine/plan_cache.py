"""Planned queries kept by their text, so a query repeated on a connection is not parsed,
bound, planned and translated again (issues 21, 27: that was most of a warm query's cost).

A kept query is reused only while everything it was planned from still holds, checked on
every use: each table it read is loaded again (the catalog re-reads its current-metadata
pointer, so another writer's commit is seen) and must still be the same metadata file of the
same table (location, table uuid, last-updated time: a dropped table's name reused writes a
new table at the old path); each name lookup that decided which table a name meant
(``table_exists`` of every candidate tried) must answer the same. The key holds the rest a
plan depends on: the text, the parameter values with their types, the current catalog and
namespace and every session setting. Queries that read Python objects, metadata tables or a
``TIMESTAMP AS OF`` time are never kept (their meaning may change without any of this).
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from icesql.spec.lru import Lru

if TYPE_CHECKING:
    from sqlglot import exp

    from icesql.catalog.base import Catalog
    from icesql.catalog.table import Table
    from icesql.engine.plan import Filtered, Planned
    from icesql.expressions.tree import BooleanExpression
    from icesql.scan.time_travel import ReadVersion
    from icesql.sql.bound_query import TableSource

KEPT_QUERIES = 32  # per connection, least recently used dropped first
_PLAIN_PARAMS = (
    type(None),
    bool,
    int,
    float,
    str,
    bytes,
    decimal.Decimal,
    dt.date,
    dt.datetime,
    dt.time,
)

Key = tuple[object, ...]
TableKey = tuple[str, tuple[str, ...]]  # catalog name, identifier


def query_key(
    sql: str,
    params: Sequence[object],
    catalog: str,
    namespace: Sequence[str],
    settings: Sequence[tuple[str, str]],
) -> Key | None:
    """What a kept plan is looked up by; None when a parameter is not a plain value (its
    equality would not say the plan still fits)."""
    values = []
    for p in params:
        if type(p) not in _PLAIN_PARAMS:
            return None
        values.append((type(p).__name__, p))
    return (sql, tuple(values), catalog, tuple(namespace), tuple(settings))


@dataclass(frozen=True)
class KeptScan:
    """How to make one scan of the kept query again: its view, table version, columns,
    pushed filter."""

    view: str
    table: Table
    version: ReadVersion
    columns: list[str] | None
    row_filter: BooleanExpression


@dataclass
class KeptQuery:
    """A bound, planned query and what it depended on."""

    statement: exp.Expr  # bound, views in place (never changed)
    scans: list[KeptScan]
    hidden: list[str]  # metadata columns the query names
    labels: dict[str, str]
    sources: dict[str, TableSource]
    tables: dict[TableKey, tuple[str, str | None, int]]  # location, uuid, last-updated-ms
    lookups: dict[TableKey, bool]  # table_exists answers that resolved the names
    # the last translation: (what DuckDB read per view, SQL, values)
    translated: tuple[tuple[tuple[str, object], ...], str, list[object]] | None = None

    def still_holds(self, catalogs: dict[str, Catalog]) -> bool:
        """Whether every table is still at the same metadata and every name lookup answers
        as before (each table's pointer re-read from its catalog)."""
        from icesql.errors import NoSuchTableError

        for (catalog, identifier), seen in self.tables.items():
            try:
                table = catalogs[catalog].load_table(identifier)
            except NoSuchTableError:
                return False
            if version_of(table) != seen:
                return False
        for (catalog, identifier), found in self.lookups.items():
            if found and (catalog, identifier) in self.tables:
                continue  # loaded above
            if catalogs[catalog].table_exists(identifier) != found:
                return False
        return True


def kept_query(planned: Planned, filtered: Filtered) -> KeptQuery:
    """What to keep of a query planned from ``filtered``, to plan it again."""
    bound = filtered.bound
    scans = [
        KeptScan(
            b.view, b.table, b.version, filtered.used_columns(b.view), filtered.row_filter(b.view)
        )
        for b in bound.scans
    ]
    return KeptQuery(
        planned.statement,
        scans,
        bound.hidden,
        dict(planned.labels),
        dict(planned.sources),
        {k: version_of(t) for k, t in bound.tables.items()},
        dict(bound.lookups),
    )


def kept_translation(
    kept: KeptQuery,
    read: tuple[tuple[str, object], ...],
    translate: Callable[[], tuple[str, list[object]]],
) -> tuple[str, list[object]]:
    """The kept query's last translation when it read the same sources (``read``: per view,
    the key of what DuckDB read: the same files, so the same ``read_parquet`` calls), else
    ``translate()``, kept as the last one."""
    if kept.translated is not None and kept.translated[0] == read:
        return kept.translated[1], list(kept.translated[2])
    sql, values = translate()
    kept.translated = (read, sql, list(values))
    return sql, values


def version_of(table: Table) -> tuple[str, str | None, int]:
    """What tells one metadata file of one table from any other."""
    md = table.metadata
    return table.metadata_location, md.table_uuid, md.last_updated_ms


@dataclass
class KeptQueries:
    """A connection's kept queries: at most ``KEPT_QUERIES``, each over the newest version of
    its tables this connection has planned from."""

    queries: Lru[Key, KeptQuery] = field(default_factory=Lru)

    def get(self, key: Key) -> KeptQuery | None:
        return self.queries.get(key)

    def keep(self, key: Key, query: KeptQuery) -> None:
        """Keep ``query``; queries planned over an older version of one of its tables go
        (they can never hold again, and each holds its table's whole metadata)."""
        for other_key, other in self.queries.items():
            if any(other.tables.get(t, seen) != seen for t, seen in query.tables.items()):
                self.queries.pop(other_key)
        self.queries.put(key, query)
        self.queries.trim(KEPT_QUERIES)

    def drop(self, key: Key) -> None:
        self.queries.pop(key)


def recording(
    lookups: dict[TableKey, bool], catalog: str, exists: Callable[[tuple[str, ...]], bool]
) -> Callable[[tuple[str, ...]], bool]:
    """``exists`` that notes each answer in ``lookups``."""

    def check(identifier: tuple[str, ...]) -> bool:
        found = exists(identifier)
        lookups[(catalog, tuple(identifier))] = found
        return found

    return check
