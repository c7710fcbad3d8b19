"""Arrow batches as the Python tuples ``fetchall`` returns, made by DuckDB's converter.

pyarrow's ``to_pylist`` builds each value through a scalar object; DuckDB's own fetch writes
the same values from C++ in about half the time. A batch is handed to DuckDB only when every
column has a type DuckDB turns into exactly what ``to_pylist`` gives (``_same_values``);
any other batch, or one DuckDB refuses, is converted by pyarrow, so the two paths never
differ in a value or its Python type. The converter's DuckDB is an in-memory database of its
own, its time zone UTC (Arrow's timestamps with a zone are UTC instants: DuckDB would
otherwise give them the machine's zone), one connection a thread.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from icesql._lazy import lazy_module

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
else:
    duckdb = lazy_module("duckdb")
    pa = lazy_module("pyarrow")

__all__ = ["pyarrow_rows", "to_rows"]

_local = threading.local()
_database: list[duckdb.DuckDBPyConnection] = []
_lock = threading.Lock()


def to_rows(batch: pa.RecordBatch) -> list[tuple]:
    """The rows of ``batch`` as tuples, maps as dicts (as ``to_pylist`` with
    ``maps_as_pydicts="lossy"`` makes them).

    >>> import pyarrow as pa
    >>> to_rows(pa.record_batch({"id": [1, 2], "tags": [{"a": 1}, None]}))
    [(1, {'a': 1}), (2, None)]
    """
    if batch.num_columns and all(_same_values(f.type) for f in batch.schema):
        try:
            return _converter().from_arrow(batch).fetchall()
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


def _converter() -> duckdb.DuckDBPyConnection:
    """This thread's connection to the converter's database (a DuckDB connection is not to
    be shared between threads)."""
    con = getattr(_local, "con", None)
    if con is None:
        with _lock:
            if not _database:
                database = duckdb.connect()
                database.execute("SET TimeZone = 'UTC'")  # not as config: ICU loads after it
                _database.append(database)
            con = _local.con = _database[0].cursor()
    return con
