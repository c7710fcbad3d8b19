"""Inclusive metrics evaluation over many files at once: ``inclusive_metrics`` in bulk.

``bulk_inclusive_metrics(bound, columns)`` answers, for every file of ``columns`` (the
entries of one manifest, ``icesql.metadata.manifest_columns``), what
``inclusive_metrics_evaluator`` answers for it, as one boolean array (True: may match).
Each rule of ``_InclusiveVisitor`` is one array expression over the counts and decoded
bounds of the fields the filter names; no other field's metrics are decoded, and nothing is
called per file but the decoding of a bound (``decode_bound``, the one decoding rule).
Integer and floating bounds are compared as numpy arrays; other types (decimals, strings,
binary, booleans) element by element, with Python's own comparisons, exactly as the visitor.

``bulk_supported(bound)`` says whether an expression is made only of what this module
evaluates (NOT-free bound predicates, AND, OR, constants); otherwise planning judges files
one by one.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from icesql.expressions.bounds import decode_bound
from icesql.expressions.manifest_evaluator import IN_PREDICATE_LIMIT
from icesql.expressions.tree import (
    AlwaysFalse,
    AlwaysTrue,
    And,
    BooleanExpression,
    BoundPredicate,
    BoundReference,
    Operation,
    Or,
)
from icesql.spec.types import (
    DateType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
)

__all__ = ["MISSING", "MetricColumns", "bulk_inclusive_metrics", "bulk_supported"]

# a count the file does not carry; ``icesql.metadata.manifest_columns.MISSING`` is the same
MISSING = np.iinfo(np.int64).min
_INT_TYPES = (
    IntegerType,
    LongType,
    DateType,
    TimeType,
    TimestampType,
    TimestamptzType,
    TimestampNanoType,
    TimestamptzNanoType,
)
_FLOAT_TYPES = (FloatType, DoubleType)
# the Appendix D form of each fixed-width type, read as a whole column when every bound has
# the type's own width (a bound of another width was written before a promotion)
_FIXED: dict[type, tuple[int, str]] = {
    IntegerType: (4, "<i4"),
    DateType: (4, "<i4"),
    FloatType: (4, "<f4"),
    LongType: (8, "<i8"),
    TimeType: (8, "<i8"),
    TimestampType: (8, "<i8"),
    TimestamptzType: (8, "<i8"),
    TimestampNanoType: (8, "<i8"),
    TimestamptzNanoType: (8, "<i8"),
    DoubleType: (8, "<f8"),
}
_INT64 = (-(2**63), 2**63 - 1)


class MetricColumns(Protocol):
    """What the evaluation reads: per file record counts, and per field id counts (int64,
    ``MISSING`` where absent) and bound bytes (None where absent)."""

    n: int
    record_counts: np.ndarray
    derived: dict[Any, Any]  # what this module derives from the columns, kept with them

    def counts(self, kind: str, field_id: int) -> np.ndarray: ...

    def bounds(self, kind: str, field_id: int) -> list[bytes | None]: ...


def bulk_supported(expr: BooleanExpression) -> bool:
    """Whether ``bulk_inclusive_metrics`` evaluates ``expr`` (module docstring)."""
    if isinstance(expr, AlwaysTrue | AlwaysFalse):
        return True
    if isinstance(expr, And | Or):
        return bulk_supported(expr.left) and bulk_supported(expr.right)
    return (
        isinstance(expr, BoundPredicate) and type(expr.term) is BoundReference and expr.op in _RULES
    )


def bulk_inclusive_metrics(bound: BooleanExpression, columns: MetricColumns) -> np.ndarray:
    """Per file: may it hold a row matching ``bound``? (``inclusive_metrics_evaluator``'s
    answer, for every file of ``columns``.)"""
    view = _View(columns)
    out = view.eval(bound)
    rc = columns.record_counts
    out = out & (rc != 0)
    return out | (rc < 0)  # imported files with an unknown count (-1) may match


class _View:
    """The columns with per-field derived arrays computed once per evaluation."""

    def __init__(self, columns: MetricColumns):
        self.c = columns
        self.n = columns.n
        self._cache: dict[Any, Any] = {}

    def eval(self, expr: BooleanExpression) -> np.ndarray:
        if isinstance(expr, AlwaysTrue):
            return np.ones(self.n, bool)
        if isinstance(expr, AlwaysFalse):
            return np.zeros(self.n, bool)
        if isinstance(expr, And):
            return self.eval(expr.left) & self.eval(expr.right)
        if isinstance(expr, Or):
            return self.eval(expr.left) | self.eval(expr.right)
        if isinstance(expr, BoundPredicate) and expr.op in _RULES:
            return ~_RULES[expr.op](self, expr)  # each rule says where it CANNOT match
        raise TypeError(f"bulk metrics evaluation does not handle {expr}")

    # -- counts (FileMetrics, per field, over all files) -----------------------------------

    def _counts(self, kind: str, fid: int) -> tuple[np.ndarray, np.ndarray]:
        key = (kind, fid)
        found = self._cache.get(key)
        if found is None:
            values = self.c.counts(kind, fid)
            found = self._cache[key] = (values, values != MISSING)
        return found

    def nulls_only(self, fid: int) -> np.ndarray:
        v, vk = self._counts("value_counts", fid)
        n, nk = self._counts("null_value_counts", fid)
        return vk & nk & (v == n)

    def nans_only(self, fid: int) -> np.ndarray:
        v, vk = self._counts("value_counts", fid)
        n, nk = self._counts("nan_value_counts", fid)
        return vk & nk & (v == n)

    def nulls_or_nans_only(self, fid: int) -> np.ndarray:
        v, vk = self._counts("value_counts", fid)
        nulls, nulls_k = self._counts("null_value_counts", fid)
        nans, nans_k = self._counts("nan_value_counts", fid)
        total = np.where(nulls_k, nulls, 0) + np.where(nans_k, nans, 0)
        return vk & (nulls_k | nans_k) & (v == total)

    def no_numbers(self, fid: int) -> np.ndarray:
        return self.nulls_only(fid) | self.nans_only(fid) | self.nulls_or_nans_only(fid)

    def count_is_zero(self, kind: str, fid: int) -> np.ndarray:
        v, k = self._counts(kind, fid)
        return k & (v == 0)

    def may_contain_nan(self, term: BoundReference) -> np.ndarray:
        if not isinstance(term.type, _FLOAT_TYPES):
            return np.zeros(self.n, bool)
        return ~self.count_is_zero("nan_value_counts", term.field_id)

    # -- bounds ------------------------------------------------------------------------------

    def bound(self, kind: str, term: BoundReference) -> tuple[_Bounds, np.ndarray]:
        """The decoded bounds and where they are known (kept with the columns)."""
        key = ("bound", kind, term.field_id, term.type)
        derived = self.c.derived
        found = derived.get(key)
        if found is None:
            found = derived[key] = _decode(term.type, self.c.bounds(kind, term.field_id), self.n)
        return found


class _Bounds:
    """Decoded bounds: a numpy array for integer and floating types (``array``; zero where
    unknown), and the Python values (``values``, None where unknown), made on first use."""

    __slots__ = ("array", "_values")

    def __init__(self, array: np.ndarray | None, values: list[Any] | None):
        self.array = array
        self._values = values

    @property
    def values(self) -> list[Any]:
        assert self._values is not None
        return self._values

    def __iter__(self) -> Any:
        return iter(self.values)


def _decode(t: Any, raw: list[bytes | None], n: int) -> tuple[_Bounds, np.ndarray]:
    """Decode one column's bounds as ``decode_bound`` does, in bulk where the type allows."""
    fixed = _FIXED.get(type(t))
    if fixed is not None:
        width, dtype = fixed
        present = [b for b in raw if b is not None]
        if all(len(b) == width for b in present):
            known = np.fromiter((b is not None for b in raw), bool, n)
            wide = np.float64 if dtype[1] == "f" else np.int64
            array = np.zeros(n, wide)
            array[known] = np.frombuffer(b"".join(present), dtype)
            if wide is np.float64:
                known &= ~np.isnan(array)  # a NaN bound is unknown
                array[~known] = 0.0
            values = [v if k else None for v, k in zip(array.tolist(), known.tolist())]
            return _Bounds(array, values), known
    values = [decode_bound(t, b) for b in raw]
    known = np.fromiter((v is not None for v in values), bool, n)
    numeric: np.ndarray | None = None
    try:
        if isinstance(t, _INT_TYPES) and all(type(v) is int for v in values if v is not None):
            numeric = np.array([0 if v is None else v for v in values], np.int64)
        elif isinstance(t, _FLOAT_TYPES) and all(type(v) is float for v in values if v is not None):
            numeric = np.array([0.0 if v is None else v for v in values], np.float64)
    except OverflowError:
        numeric = None
    return _Bounds(numeric, values), known


def _compare(values: _Bounds, known: np.ndarray, op: str, literal: Any) -> np.ndarray:
    """Where ``values[i] <op> literal`` holds, for the known values; False elsewhere."""
    arr = values.array
    if arr is not None and _numeric_literal(arr, literal):
        return known & _NUMPY_OPS[op](arr, literal)
    compare = _PY_OPS[op]
    return np.fromiter(
        (k and compare(v, literal) for v, k in zip(values.values, known.tolist())),
        bool,
        len(known),
    )


def _numeric_literal(values: np.ndarray, literal: Any) -> bool:
    if isinstance(literal, bool):
        return False
    if values.dtype == np.int64:
        return isinstance(literal, int) and _INT64[0] <= literal <= _INT64[1]
    return (
        isinstance(literal, float | int)
        and not isinstance(literal, bool)
        and (not isinstance(literal, int) or abs(literal) < 2**53)
    )


_NUMPY_OPS = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
}
_PY_OPS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
}


# -- the rules: each returns where the predicate CANNOT match (``_InclusiveVisitor``) ---------


def _is_null(v: _View, p: BoundPredicate) -> np.ndarray:
    return v.count_is_zero("null_value_counts", p.term.field_id)


def _not_null(v: _View, p: BoundPredicate) -> np.ndarray:
    return v.nulls_only(p.term.field_id)


def _is_nan(v: _View, p: BoundPredicate) -> np.ndarray:
    fid = p.term.field_id
    return v.count_is_zero("nan_value_counts", fid) | v.nulls_only(fid)


def _not_nan(v: _View, p: BoundPredicate) -> np.ndarray:
    return v.no_numbers(p.term.field_id)


def _below(op: str) -> Any:
    """lt (lower >= literal rules out) and lt_eq (lower > literal)."""

    def rule(v: _View, p: BoundPredicate) -> np.ndarray:
        lower, known = v.bound("lower_bounds", p.term)
        return v.no_numbers(p.term.field_id) | _compare(lower, known, op, p.literal)

    return rule


def _above(op: str) -> Any:
    """gt (upper <= literal rules out) and gt_eq (upper < literal), unless NaN may be."""

    def rule(v: _View, p: BoundPredicate) -> np.ndarray:
        upper, known = v.bound("upper_bounds", p.term)
        ruled = _compare(upper, known, op, p.literal) & ~v.may_contain_nan(p.term)
        return v.nulls_only(p.term.field_id) | ruled

    return rule


def _eq(v: _View, p: BoundPredicate) -> np.ndarray:
    lower, lk = v.bound("lower_bounds", p.term)
    upper, uk = v.bound("upper_bounds", p.term)
    return (
        v.no_numbers(p.term.field_id)
        | _compare(lower, lk, ">", p.literal)
        | _compare(upper, uk, "<", p.literal)
    )


def _not_eq(v: _View, p: BoundPredicate) -> np.ndarray:
    fid = p.term.field_id
    lower, lk = v.bound("lower_bounds", p.term)
    upper, uk = v.bound("upper_bounds", p.term)
    all_equal = _compare(lower, lk, "==", p.literal) & _compare(upper, uk, "==", p.literal)
    no_nulls = v.count_is_zero("null_value_counts", fid)
    return v.nulls_only(fid) | (all_equal & no_nulls & ~v.may_contain_nan(p.term))


def _in(v: _View, p: BoundPredicate) -> np.ndarray:
    no_numbers = v.no_numbers(p.term.field_id)
    if len(p.literals) > IN_PREDICATE_LIMIT:
        return no_numbers
    lower, lk = v.bound("lower_bounds", p.term)
    upper, uk = v.bound("upper_bounds", p.term)
    some = np.zeros(v.n, bool)
    for literal in p.literals:
        # lower <= literal <= upper, each side where known
        some |= (~lk | _compare(lower, lk, "<=", literal)) & (
            ~uk | _compare(upper, uk, ">=", literal)
        )
    return no_numbers | ~some


def _not_in(v: _View, p: BoundPredicate) -> np.ndarray:
    return v.nulls_only(p.term.field_id)


def _starts_with(v: _View, p: BoundPredicate) -> np.ndarray:
    lit = p.literal
    n = len(lit)
    lower, lk = v.bound("lower_bounds", p.term)
    upper, uk = v.bound("upper_bounds", p.term)
    lo = [k and lo[:n] > lit for lo, k in zip(lower, lk.tolist())]
    hi = [k and up[:n] < lit for up, k in zip(upper, uk.tolist())]
    ruled = np.array(lo, bool).reshape(-1) | np.array(hi, bool).reshape(-1)
    return v.nulls_only(p.term.field_id) | ruled


def _not_starts_with(v: _View, p: BoundPredicate) -> np.ndarray:
    lit = p.literal
    lower, lk = v.bound("lower_bounds", p.term)
    upper, uk = v.bound("upper_bounds", p.term)
    both = [
        a and b and lo.startswith(lit) and up.startswith(lit)
        for lo, up, a, b in zip(lower, upper, lk.tolist(), uk.tolist())
    ]
    return v.nulls_only(p.term.field_id) | np.array(both, bool).reshape(-1)


_RULES: dict[Operation, Any] = {
    Operation.IS_NULL: _is_null,
    Operation.NOT_NULL: _not_null,
    Operation.IS_NAN: _is_nan,
    Operation.NOT_NAN: _not_nan,
    Operation.LT: _below(">="),
    Operation.LT_EQ: _below(">"),
    Operation.GT: _above("<="),
    Operation.GT_EQ: _above("<"),
    Operation.EQ: _eq,
    Operation.NOT_EQ: _not_eq,
    Operation.IN: _in,
    Operation.NOT_IN: _not_in,
    Operation.STARTS_WITH: _starts_with,
    Operation.NOT_STARTS_WITH: _not_starts_with,
}
