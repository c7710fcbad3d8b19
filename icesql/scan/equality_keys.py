"""Membership of multi-column keys in a set of equality-delete rows, NULL matching NULL.

Hash joins treat NULL keys as never equal, while an equality delete's NULL means ``IS NULL``.
Three ways, picked by cost:

* Arrow's Acero semi-join, with every key column that has NULLs among the deletes split into
  (value with NULLs filled by a sentinel, is-NULL flag), on small delete sets, the common
  case of one delete file per partition: a call has far less fixed cost than a DuckDB
  query;
* DuckDB's semi-join on ``IS NOT DISTINCT FROM`` for large delete sets, where its parallel
  join outruns Acero's, and for floating-point keys, where NaN must match NaN;
* a set of Python tuples when neither engine can join the key types.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb
import numpy as np
import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.spec.arrays import int_array, ints

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # Arrow kernels load with the first batch that needs one, not with the module
    pc = lazy_module("pyarrow.compute")

__all__ = ["KeyMatcher"]

DUCKDB_FROM_ROWS = 50_000
_ROW = "__icesql_row"
_NAN = ("NaN",)  # NaN equals NaN in equality deletes (Java compares with Double.compare)


def python_values(column: pa.Array | pa.ChunkedArray) -> list[object]:
    """Values as Python objects, NaN replaced by a marker equal to itself."""
    values = column.to_pylist()
    if pa.types.is_floating(column.type):
        return [_NAN if isinstance(v, float) and v != v else v for v in values]
    return values


class KeyMatcher:
    """Which rows of a batch's key columns equal some row of ``table`` (the delete keys)."""

    def __init__(self, table: pa.Table):
        self.width = table.num_columns
        self.names = [f"k{i}" for i in range(self.width)]
        self.table = table.rename_columns(self.names)
        self._lock = threading.Lock()
        self._duck: duckdb.DuckDBPyConnection | None = None
        self._tuples: frozenset[tuple[object, ...]] | None = None
        floats = any(pa.types.is_floating(t) for t in self.table.schema.types)
        self._use_arrow = not floats and self.table.num_rows < DUCKDB_FROM_ROWS
        self._use_duckdb = True
        self._plan: list[tuple[str, object]] = []  # per column: ("plain"|"flag"|"sentinel", v)
        self._right: pa.Table | None = None

    def deleted(self, columns: Sequence[pa.Array]) -> np.ndarray:
        rows = len(columns[0])
        if self.table.num_rows == 0 or rows == 0:
            return np.zeros(rows, dtype=bool)
        if self._use_arrow:
            try:
                return self._arrow(columns, rows)
            except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
                self._use_arrow = False
        if self._use_duckdb:
            try:
                return self._duckdb(columns, rows)
            except duckdb.Error:
                self._use_duckdb = False
        return self._python(columns, rows)

    # --- Acero ---------------------------------------------------------------------------

    def _arrow(self, columns: Sequence[pa.Array], rows: int) -> np.ndarray:
        with self._lock:
            if self._right is None:
                self._right = self._null_safe(self.table.columns, build=True)
        left = self._null_safe(columns, build=False)
        left = left.append_column(_ROW, int_array(np.arange(rows, dtype=np.int64)))
        keys = [n for n in left.column_names if n != _ROW]
        found = left.join(self._right, keys=keys, join_type="left semi")
        mask = np.zeros(rows, dtype=bool)
        mask[ints(found.column(_ROW))] = True
        return mask

    def _null_safe(self, columns: Sequence[pa.Array | pa.ChunkedArray], build: bool) -> pa.Table:
        """Key columns a NULL-never-matches join can use: a delete column with NULLs becomes
        (value, NULLs filled with one of its values; is-NULL flag), or only the flag when all
        of it is NULL. ``build`` decides the plan from the delete side."""
        if build:
            self._plan = []
            for col in columns:
                if col.null_count == 0:
                    self._plan.append(("plain", None))
                elif col.null_count == len(col):
                    self._plan.append(("flag", None))
                else:
                    self._plan.append(("sentinel", pc.drop_null(col)[0]))
        arrays: dict[str, pa.Array | pa.ChunkedArray] = {}
        for name, col, (kind, sentinel) in zip(self.names, columns, self._plan):
            if kind != "flag":
                arrays[name] = col if kind == "plain" else pc.fill_null(col, sentinel)
            if kind != "plain":
                arrays[f"{name}_null"] = pc.is_null(col)
        return pa.table(arrays)

    # --- DuckDB ------------------------------------------------------------------------

    def _duckdb(self, columns: Sequence[pa.Array], rows: int) -> np.ndarray:
        with self._lock:
            if self._duck is None:
                con = duckdb.connect()
                con.register("dels", self.table)
                con.execute("CREATE TABLE d AS SELECT DISTINCT * FROM dels")
                con.unregister("dels")
                self._duck = con
            cursor = self._duck.cursor()
        on = " AND ".join(f"b.{n} IS NOT DISTINCT FROM d.{n}" for n in self.names)
        try:
            arrays = [*columns, int_array(np.arange(rows, dtype=np.int64))]
            cursor.register("b", pa.table(arrays, names=[*self.names, _ROW]))
            found = cursor.sql(f"SELECT b.{_ROW} FROM b SEMI JOIN d ON {on}")
            hits = ints(found.to_arrow_table().column(0))
        finally:
            cursor.close()
        mask = np.zeros(rows, dtype=bool)
        mask[hits] = True
        return mask

    # --- Python ------------------------------------------------------------------------

    def _python(self, columns: Sequence[pa.Array], rows: int) -> np.ndarray:
        with self._lock:
            if self._tuples is None:
                keys = zip(*(python_values(self.table.column(i)) for i in range(self.width)))
                self._tuples = frozenset(keys)
        found = zip(*(python_values(c) for c in columns))
        return np.fromiter((row in self._tuples for row in found), dtype=bool, count=rows)
