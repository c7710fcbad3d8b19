"""What a statement produced: rows as an Arrow stream, or a count of affected rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.scan.table_scan import TableScan

__all__ = ["DML_TARGET", "Result"]

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

    def close(self) -> None:
        for scan in self.scans:
            scan.release()
        if self.duck_cursor is not None:
            try:
                self.duck_cursor.close()
            except duckdb.Error:
                pass
            self.duck_cursor = None
