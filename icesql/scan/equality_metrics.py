"""Whether an equality delete file can delete any row of a data file, judged by metrics.

An equality delete applies to every older data file of its partition; with many delete
files per partition (streaming writers commit one per checkpoint) most cannot match most
data files. As Java's ``DeleteFileIndex.canContainEqDeletesForFile``: the delete keys are
an AND over the equality fields, so one field whose non-NULL value ranges do not overlap,
while at most one side holds NULLs, rules the pair out.

Only types whose bounds order exactly like their values are compared (integers, dates,
times, timestamps, decimals); floats (NaN), strings (writers' collations differ) and the
rest always count as "may overlap", as does any missing or undecodable statistic and a
bound written under an earlier type (``icesql.expressions.bounds``, ``promoted=False``).

>>> from icesql.spec.content_file import DataFile
>>> from icesql.spec.types import IntegerType
>>> from icesql.spec.values import to_bytes
>>> def f(lo, hi, nulls):
...     b = lambda v: {1: to_bytes(IntegerType(), v)}
...     return DataFile(file_path="x", file_format="PARQUET", partition=(), record_count=1,
...                     file_size_in_bytes=1, lower_bounds=b(lo), upper_bounds=b(hi),
...                     null_value_counts={1: nulls}, equality_ids=(1,))
>>> may_delete_from(f(1, 5, 0), f(6, 9, 0), {1: IntegerType()})
False
>>> may_delete_from(f(1, 6, 0), f(6, 9, 0), {1: IntegerType()})
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Context
from typing import Any

import numpy as np

from icesql.expressions.bounds import decode_bounds
from icesql.spec.content_file import DataFile
from icesql.spec.types import (
    BooleanType,
    DateType,
    DecimalType,
    IcebergType,
    IntegerType,
    LongType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
)

__all__ = ["few_values", "may_delete_from", "may_meet"]

_ORDERED = (
    IntegerType,
    LongType,
    DateType,
    TimeType,
    TimestampType,
    TimestamptzType,
    TimestampNanoType,
    TimestamptzNanoType,
    DecimalType,
)
_EXACT = Context(prec=80)  # unscaling a decimal(38, s) bound must not round it


def may_delete_from(delete: DataFile, data: DataFile, types: Mapping[int, IcebergType]) -> bool:
    """False only when metrics prove no row of ``data`` equals a key of ``delete``."""
    for field_id in delete.equality_ids or ():
        t = types.get(field_id)
        if t is None or not isinstance(t, _ORDERED):
            continue
        if _may_hold_nulls(delete, field_id) and _may_hold_nulls(data, field_id):
            continue
        d = _range(delete, field_id, t)
        f = _range(data, field_id, t)
        if d is None or f is None:
            continue
        if d[1] < f[0] or d[0] > f[1]:
            return False
    return True


def may_meet(
    deletes: Sequence[DataFile], data: Sequence[DataFile], types: Mapping[int, IcebergType]
) -> np.ndarray:
    """``may_delete_from`` for every pair at once, all ``deletes`` having the same
    equality ids: ``[i, j]`` is False only when metrics prove no row of ``data[j]`` equals a
    key of ``deletes[i]``. Each file's bounds are decoded once."""
    out = np.ones((len(deletes), len(data)), dtype=bool)
    ids = (deletes[0].equality_ids or ()) if deletes else ()
    for field_id in ids:
        t = types.get(field_id)
        if t is None or not isinstance(t, _ORDERED):
            continue
        d_lo, d_hi, d_known, d_nulls = _bounds(deletes, field_id, t)
        f_lo, f_hi, f_known, f_nulls = _bounds(data, field_id, t)
        apart = ((d_hi[:, None] < f_lo[None, :]) | (d_lo[:, None] > f_hi[None, :])).astype(bool)
        known = d_known[:, None] & f_known[None, :] & ~(d_nulls[:, None] & f_nulls[None, :])
        out &= ~(apart & known)
    return out


def few_values(deletes: Sequence[DataFile], field_id: int, t: IcebergType, most: int) -> bool:
    """Whether the metrics of ``deletes`` prove that their column ``field_id`` holds at
    most ``most`` distinct values, NULL counted as one (a boolean column always does): the
    span of an integer-like column's bounds over all the files. False where any file lacks
    a bound.

    >>> from icesql.spec.content_file import DataFile
    >>> from icesql.spec.types import IntegerType
    >>> from icesql.spec.values import to_bytes
    >>> def f(lo, hi):
    ...     b = lambda v: {4: to_bytes(IntegerType(), v)}
    ...     return DataFile(file_path="x", file_format="PARQUET", partition=(), record_count=9,
    ...                     file_size_in_bytes=1, lower_bounds=b(lo), upper_bounds=b(hi),
    ...                     null_value_counts={4: 0}, equality_ids=(4,))
    >>> few_values([f(1, 4), f(2, 7)], 4, IntegerType(), 8), few_values([f(1, 9)], 4, IntegerType(), 8)
    (True, False)
    """
    if isinstance(t, BooleanType):
        return 3 <= most
    if not deletes or not isinstance(t, _ORDERED):
        return False
    lo, hi, known, nulls = _bounds(deletes, field_id, t)
    if not known.all():
        return False
    return int(hi.max()) - int(lo.min()) + 1 + int(nulls.any()) <= most


def _bounds(
    files: Sequence[DataFile], field_id: int, t: IcebergType
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per file: lower and upper bound (0 where unknown), whether both are known, and
    whether the column may hold NULLs."""
    ranges = [_range(f, field_id, t) for f in files]
    known = np.array([r is not None for r in ranges], dtype=bool)
    nulls = np.array([_may_hold_nulls(f, field_id) for f in files], dtype=bool)
    return _numbers(ranges, 0, t), _numbers(ranges, 1, t), known, nulls


def _numbers(ranges: Sequence[tuple[Any, Any] | None], side: int, t: IcebergType) -> np.ndarray:
    """One side of the ranges as integers (decimals unscaled; 0 where unknown): int64
    where they fit, Python integers otherwise."""
    scale = t.scale if isinstance(t, DecimalType) else None
    values = [
        0 if r is None else r[side] if scale is None else int(r[side].scaleb(scale, _EXACT))
        for r in ranges
    ]
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return np.array(values, dtype=object)


def _may_hold_nulls(file: DataFile, field_id: int) -> bool:
    """False only when the file's metrics count no NULL in the column."""
    count = (file.null_value_counts or {}).get(field_id)
    return count is None or count > 0


def _range(file: DataFile, field_id: int, t: IcebergType) -> tuple[Any, Any] | None:
    """The file's bounds of the column as written under ``t`` (a promoted column's older
    bounds are not compared), None where unknown."""
    lower = (file.lower_bounds or {}).get(field_id)
    upper = (file.upper_bounds or {}).get(field_id)
    return decode_bounds(t, lower, upper, promoted=False)
