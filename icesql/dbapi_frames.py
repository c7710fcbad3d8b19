"""Query results as pandas and polars data frames, for ``Cursor.df()`` and ``Cursor.pl()``.

pandas and polars are optional (extras ``icesql[pandas]``, ``icesql[polars]``): they are
imported on the first call, and a missing one is named with the extra that installs it.

pandas columns keep their Arrow types (``pd.ArrowDtype``), so nothing is lost on the way:
integers with NULLs stay integers, NULL stays distinct from NaN, decimals stay exact, nested
values stay typed; strings use pandas' Arrow-backed string dtype. Timestamps become numpy
``datetime64`` of the same unit (with the time zone when there is one), which is lossless too
and what pandas' time-series functions expect.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from icesql._lazy import lazy_module

if TYPE_CHECKING:
    import pyarrow as pa
else:  # pyarrow loads on first use (icesql._lazy)
    pa = lazy_module("pyarrow")

__all__ = ["require", "to_pandas", "to_polars"]


def require(module: str, extra: str, caller: str) -> ModuleType:
    """Import an optional dependency, or raise ImportError naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"{caller} needs {module}, which is not installed: pip install 'icesql[{extra}]'"
        ) from e


def to_pandas(table: pa.Table, caller: str = "Cursor.df()") -> Any:
    """``table`` as a pandas DataFrame with Arrow-backed dtypes (module docstring).

    >>> to_pandas(pa.table({"n": pa.array([1, None])})).dtypes["n"]
    int64[pyarrow]
    """
    pd = require("pandas", "pandas", caller)
    strings = pd.StringDtype("pyarrow")

    def dtype(t: pa.DataType) -> Any:
        if pa.types.is_timestamp(t):
            return None  # numpy datetime64[unit] (with its tz): lossless, pandas' own
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
            return strings
        return pd.ArrowDtype(t)

    return table.to_pandas(types_mapper=dtype)


def to_polars(table: pa.Table, caller: str = "Cursor.pl()") -> Any:
    """``table`` as a polars DataFrame (zero-copy where polars' types allow)."""
    pl = require("polars", "polars", caller)
    return pl.from_arrow(table, rechunk=False)
