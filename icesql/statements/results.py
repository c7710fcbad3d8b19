"""Results of statements that are not queries: a row count, or a few rows of text."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from icesql.session import Result

__all__ = ["done", "rows"]


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
