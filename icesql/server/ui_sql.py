"""The web UI's SQL editor: which statements may run without the token, and running one.

Without the server's token (and on a server that has none: read-only by default) only
statements that read run: queries, ``EXPLAIN``, ``SHOW ...`` and ``DESCRIBE``, decided from
the parsed statement, never its text; and they run over ``ReadOnlyCatalog``, which refuses
every write, so even a statement taken for a read by mistake commits nothing. With the token
any statement runs on the server's catalog. A result shows at most ``MAX_ROWS`` rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from icesql.catalog.base import Catalog, Identifier
from icesql.catalog.table import Table, View
from icesql.errors import Error
from icesql.sql.dialect import parse
from icesql.text_table import cell_text

__all__ = ["MAX_ROWS", "Outcome", "ReadOnlyCatalog", "reads_only", "run_sql"]

MAX_ROWS = 500


class ReadOnlyCatalog(Catalog):
    """``inner`` for reading; every write is refused by ``Catalog``'s own defaults."""

    def __init__(self, inner: Catalog) -> None:
        self._inner = inner
        self.name = inner.name

    def __getattr__(self, name: str) -> Any:  # warehouse, io, properties: what the engine reads
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._inner, name)

    def list_namespaces(self, parent: Identifier = ()) -> list[Identifier]:
        return self._inner.list_namespaces(parent)

    def namespace_exists(self, namespace: Identifier) -> bool:
        return self._inner.namespace_exists(namespace)

    def namespace_properties(self, namespace: Identifier) -> dict[str, str]:
        return self._inner.namespace_properties(namespace)

    def list_tables(self, namespace: Identifier) -> list[Identifier]:
        return self._inner.list_tables(namespace)

    def table_exists(self, identifier: Identifier) -> bool:
        return self._inner.table_exists(identifier)

    def load_table(self, identifier: Identifier) -> Table:
        return self._inner.load_table(identifier)

    def list_views(self, namespace: Identifier) -> list[Identifier]:
        return self._inner.list_views(namespace)

    def view_exists(self, identifier: Identifier) -> bool:
        return self._inner.view_exists(identifier)

    def load_view(self, identifier: Identifier) -> View:
        return self._inner.load_view(identifier)


def reads_only(sql: str) -> bool:
    """Whether ``sql`` is one statement that only reads (module docstring).

    >>> reads_only("SELECT 1"), reads_only("EXPLAIN SELECT 1"), reads_only("SHOW TABLES")
    (True, True, True)
    >>> reads_only("DELETE FROM db.t"), reads_only("CALL system.expire_snapshots('db.t')")
    (False, False)
    """
    try:
        statements = parse(sql)
    except (Error, ValueError):
        return False
    if len(statements) != 1 or statements[0] is None:
        return False
    node = statements[0]
    if isinstance(node, exp.Query | exp.Describe | exp.Show):
        return True
    if type(node).__name__.startswith("Show"):  # icesql's own SHOW nodes
        return True
    return isinstance(node, exp.Command) and str(node.this).upper() == "EXPLAIN"


@dataclass
class Outcome:
    """What a statement gave: columns and rows (as text) or a message."""

    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    truncated: bool = False
    message: str = ""
    error: str = ""


def run_sql(
    catalog: Catalog,
    others: Sequence[Catalog],
    sql: str,
    writable: bool,
    engine: Callable[[Catalog, Sequence[Catalog]], Any],
) -> Outcome:
    """Run one statement on ``catalog`` (``others`` reached by their names) as the module
    docstring says; an icesql error is the outcome's ``error``."""
    if not writable and not reads_only(sql):
        return Outcome(
            error="only queries, EXPLAIN, SHOW and DESCRIBE run here: statements that write"
            " need the server's token (icesql serve --token / icesql ui --token)"
        )
    if writable:
        session = engine(catalog, others)
    else:
        session = engine(ReadOnlyCatalog(catalog), [ReadOnlyCatalog(c) for c in others])
    try:
        result = session.execute(sql)
        try:
            if result.reader is None:
                count = result.rowcount
                return Outcome(message=f"OK{f', {count} rows' if count >= 0 else ''}")
            columns = list(result.reader.schema.names)
            rows: list[list[str]] = []
            truncated = False
            for batch in result.reader:
                values = [column.to_pylist() for column in batch.columns]
                for row in zip(*values, strict=True):
                    if len(rows) == MAX_ROWS:
                        truncated = True
                        break
                    rows.append([cell_text(v) for v in row])
                if truncated:
                    break
            return Outcome(columns, rows, truncated)
        finally:
            result.close()
    except Error as e:
        return Outcome(error=str(e))
    finally:
        session.close()
