"""What a statement produced: rows as an Arrow stream, or a count of affected rows; ``done``
and ``rows`` make the results of statements that are not queries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import duckdb

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.scan.table_scan import TableScan

__all__ = ["DML_TARGET", "DuckRows", "Result", "done", "rows"]

# meta key of the table node a row-level statement changes: ``Result.target`` is its scan
DML_TARGET = "icesql_dml_target"


class Result:
    """What a statement produced: rows as an Arrow stream (``reader``), or a count of affected
    rows. A query DuckDB fetches as Python tuples itself holds ``duck_rows`` instead
    (``icesql.engine.tuple_rows``): ``reader`` then makes the Arrow stream of its rows not fetched yet,
    on first use, so a result read as tuples never imports pyarrow."""

    def __init__(
        self,
        reader: pa.RecordBatchReader | None = None,
        rowcount: int = -1,
        scans: list[TableScan] | None = None,
        duck_cursor: duckdb.DuckDBPyConnection | None = None,
        target: TableScan | None = None,  # the scan of the table node marked DML_TARGET
        on_close: list[Callable[[], None]] | None = None,  # e.g. progress's end
        engine: str = "local",  # which engine ran the statement: local (DuckDB) or spark
        duck_rows: DuckRows | None = None,
    ):
        self._reader = reader
        self.rowcount = rowcount
        self.scans: list[TableScan] = scans if scans is not None else []
        self.duck_cursor = duck_cursor
        self.target = target
        self.on_close: list[Callable[[], None]] = on_close if on_close is not None else []
        self.engine = engine
        self.duck_rows = duck_rows

    @property
    def reader(self) -> pa.RecordBatchReader | None:
        if self._reader is None and self.duck_rows is not None:
            self._reader, self.duck_rows = self.duck_rows.to_reader(), None
        return self._reader

    @reader.setter
    def reader(self, reader: pa.RecordBatchReader | None) -> None:
        self._reader, self.duck_rows = reader, None

    @property
    def has_rows(self) -> bool:
        """Whether the statement returned rows (without making their Arrow stream)."""
        return self._reader is not None or self.duck_rows is not None

    def close(self) -> None:
        while self.on_close:
            self.on_close.pop()()
        for scan in self.scans:
            scan.release()
        if self.duck_cursor is not None:
            try:
                self.duck_cursor.close()
            except duckdb.Error:
                pass
            self.duck_cursor = None


def done(rowcount: int = -1) -> Result:
    """A statement that returns no rows (DDL: -1; INSERT: the rows written)."""
    return Result(rowcount=rowcount)


class DuckRows(Protocol):
    """Rows DuckDB fetches as Python tuples (``icesql.tuple_rows.DuckRows``)."""

    description: list[tuple]  # as Cursor.description

    def fetch(self, n: int | None) -> list[tuple]:
        """Up to ``n`` rows (the rest with None)."""
        ...

    def to_reader(self) -> pa.RecordBatchReader:
        """The rows not fetched yet, as an Arrow stream."""
        ...


def rows(
    schema: pa.Schema | Sequence[tuple[str, pa.DataType]], data: Sequence[Sequence[object]]
) -> Result:
    """A small result set, e.g. SHOW TABLES."""
    import pyarrow as pa

    if not isinstance(schema, pa.Schema):
        schema = pa.schema(list(schema))
    columns = [pa.array([r[i] for r in data], type=f.type) for i, f in enumerate(schema)]
    table = pa.Table.from_arrays(columns, schema=schema)
    return Result(reader=table.to_reader(), rowcount=-1)
