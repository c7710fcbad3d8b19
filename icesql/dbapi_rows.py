"""Arrow batches as the Python tuples ``fetchall`` returns, made by DuckDB's converter.

pyarrow's ``to_pylist`` builds each value through a scalar object; DuckDB's own fetch writes
the same values from C++ in about half the time. A batch is handed to DuckDB only when every
column has a type DuckDB turns into exactly what ``to_pylist`` gives (``_same_values``);
any other batch, or one DuckDB refuses, is converted by pyarrow, so the two paths never
differ in a value or its Python type. The DuckDB connection is the caller's: a cursor of the
engine's database, whose time zone is UTC (Arrow's timestamps with a zone are UTC instants;
another zone would shift them). A database of its own would be a second DuckDB instance in
the process, and the shell's exit then aborted now and then, racing its destruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from icesql._lazy import lazy_module

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
else:
    duckdb = lazy_module("duckdb")
    pa = lazy_module("pyarrow")

__all__ = ["pyarrow_rows", "to_rows"]


def to_rows(batch: pa.RecordBatch, duck: duckdb.DuckDBPyConnection) -> list[tuple]:
    """The rows of ``batch`` as tuples, maps as dicts (as ``to_pylist`` with
    ``maps_as_pydicts="lossy"`` makes them), converted on ``duck`` (a connection whose time
    zone is UTC) where DuckDB gives the same values.

    >>> import duckdb, pyarrow as pa
    >>> duck = duckdb.connect()
    >>> _ = duck.execute("SET TimeZone = 'UTC'")
    >>> to_rows(pa.record_batch({"id": [1, 2], "tags": [{"a": 1}, None]}), duck)
    [(1, {'a': 1}), (2, None)]
    """
    if batch.num_columns and all(_same_values(f.type) for f in batch.schema):
        try:
            return duck.from_arrow(batch).fetchall()
        except duckdb.Error:
            pass  # a batch DuckDB cannot scan (say, a struct with two fields of one name)
    return pyarrow_rows(batch)


def pyarrow_rows(batch: pa.RecordBatch) -> list[tuple]:
    """The rows of ``batch`` converted by pyarrow, a column at a time."""
    columns = [c.to_pylist(maps_as_pydicts="lossy") for c in batch.columns]
    return list(zip(*columns)) if columns else [() for _ in range(batch.num_rows)]


def _same_values(t: pa.DataType) -> bool:
    """Whether DuckDB converts Arrow type ``t`` to the Python values ``to_pylist`` does. Not
    so: fixed-size lists (tuples), nanosecond timestamps (pandas' ``Timestamp`` from Arrow),
    timestamps in another zone than UTC, intervals and durations, half floats, 256-bit
    decimals, unions and extension types (UUIDs)."""
    types = pa.types
    if types.is_timestamp(t):
        return t.unit != "ns" and t.tz in (None, "UTC", "+00:00")
    if types.is_struct(t):
        return all(_same_values(t.field(i).type) for i in range(t.num_fields))
    if types.is_map(t):
        return _same_values(t.key_type) and _same_values(t.item_type)
    if types.is_list(t) or types.is_large_list(t):
        return _same_values(t.value_type)
    if types.is_dictionary(t):
        return _same_values(t.value_type)
    return (
        types.is_boolean(t)
        or types.is_integer(t)
        or types.is_float32(t)
        or types.is_float64(t)
        or types.is_string(t)
        or types.is_large_string(t)
        or types.is_binary(t)
        or types.is_large_binary(t)
        or types.is_fixed_size_binary(t)
        or types.is_date32(t)
        or types.is_time64(t)
        or types.is_decimal128(t)
        or types.is_null(t)
    ) and not isinstance(t, pa.ExtensionType)
