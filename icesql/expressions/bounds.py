"""Lower and upper bounds as the evaluators read them: one decoding rule for every reader.

A file's column bounds (manifest entries) and a manifest's partition field bounds (manifest
list summaries) are Appendix D bytes. Two things make them more than ``from_bytes``:

* promotion: bounds are not rewritten when a column's type is promoted, so their length
  tells the type they were written with (``from_bytes`` reads an int under a long, a float
  under a double, a date under a timestamp). A reader that must compare bounds of two files
  as written asks for ``promoted=False``: such a bound then reads as unknown;
* truncation: string and binary bounds may be truncated; a lower bound is still at most,
  an upper bound at least every value, which is all the evaluators rely on.

Anything a rule cannot rely on reads as None (unknown), which only ever costs pruning: an
absent or undecodable bound, a nested type, a UUID (writers have disagreed on UUID order,
signed vs unsigned), a NaN bound (old writers), and the bounds of variant, geometry and
geography columns (bounding-box points and path objects, not values in any order)::

    >>> from icesql.spec.types import LongType
    >>> decode_bound(LongType(), (7).to_bytes(4, "little"))   # written when it was an int
    7
    >>> decode_bound(LongType(), (7).to_bytes(4, "little"), promoted=False) is None
    True
"""

from __future__ import annotations

from typing import Any

from icesql.spec.types import (
    GeographyType,
    GeometryType,
    IcebergType,
    PrimitiveType,
    UUIDType,
    VariantType,
)
from icesql.spec.values import binary_width, from_bytes

__all__ = ["decode_bound", "decode_bounds"]

_UNORDERED = (UUIDType, VariantType, GeometryType, GeographyType)


def decode_bound(t: IcebergType, data: bytes | None, promoted: bool = True) -> Any:
    """The bound ``data`` of a column of type ``t``, or None when unknown or unusable (module
    docstring); without ``promoted``, a bound written under an earlier type is unknown too."""
    if data is None or not isinstance(t, PrimitiveType) or isinstance(t, _UNORDERED):
        return None
    if not promoted:
        width = binary_width(t)  # the width t writes its own bounds with, if fixed
        if width is not None and len(data) != width:
            return None
    try:
        value = from_bytes(t, data)
    except Exception:
        return None
    if isinstance(value, float) and value != value:
        return None
    return value


def decode_bounds(
    t: IcebergType, lower: bytes | None, upper: bytes | None, promoted: bool = True
) -> tuple[Any, Any] | None:
    """Both bounds decoded (``decode_bound``), or None unless both are known."""
    lo = decode_bound(t, lower, promoted)
    if lo is None:
        return None
    hi = decode_bound(t, upper, promoted)
    return None if hi is None else (lo, hi)
