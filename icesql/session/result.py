"""What a statement produced: rows as an Arrow stream, or a count of affected rows; ``done``
and ``rows`` make the results of statements that are not queries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

if TYPE_CHECKING:
    from icesql.scan.table_scan import TableScan

__all__ = ["DML_TARGET", "Result", "done", "rows"]

# meta key of the table node a row-level statement changes: ``Result.target`` is its scan
DML_TARGET = "icesql_dml_target"


@dataclass
class Result:
    """What a statement produced: rows as an Arrow stream, or a count of affected rows."""

    reader: pa.RecordBatchReader | None = None
    rowcount: int = -1
    scans: list[TableScan] = field(default_factory=list)
    duck_cursor: duckdb.DuckDBPyConnection | None = None
    target: TableScan | None = None  # the scan of the table node marked DML_TARGET
    on_close: list[Callable[[], None]] = field(default_factory=list)  # e.g. progress's end
    engine: str = "local"  # which engine ran the statement: local (DuckDB) or spark

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


def rows(schema: pa.Schema | Sequence[tuple[str, pa.DataType]], data: Sequence[Sequence[object]]) -> Result:
    """A small result set, e.g. SHOW TABLES."""
    if not isinstance(schema, pa.Schema):
        schema = pa.schema(list(schema))
    columns = [pa.array([r[i] for r in data], type=f.type) for i, f in enumerate(schema)]
    table = pa.Table.from_arrays(columns, schema=schema)
    return Result(reader=table.to_reader(), rowcount=-1)
