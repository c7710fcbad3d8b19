"""Projections of one predicate through one partition transform.

``project(transform, name, pred)`` is the inclusive projection of a bound predicate on the
transform's source column onto the partition field ``name``: if a row matches ``pred``, its
partition value matches the result (None: the partition value cannot narrow the rows, read
as ``true``). ``strict_project`` is the strict one: if a partition value matches the result,
every row with that partition value matches ``pred`` (None: no partition value guarantees
it, read as ``false``). For example, through ``bucket[16]`` on an int column::

    >>> from icesql.expressions.binding import bind
    >>> from icesql.expressions.tree import equal, not_equal
    >>> from icesql.spec.schema import Schema
    >>> from icesql.spec.types import IntegerType, NestedField
    >>> schema = Schema((NestedField(1, "id", IntegerType()),))
    >>> str(project(Bucket(16), "id_bucket", bind(schema, equal("id", 34))))
    'id_bucket = 3'
    >>> str(strict_project(Bucket(16), "id_bucket", bind(schema, not_equal("id", 34))))
    'id_bucket != 3'

Java keeps these rules on each ``Transform`` (``project`` / ``projectStrict``, helpers in
``ProjectionUtil``); here the spec's transforms stay below the expressions, so the rules of
each transform live in this module, chosen by the transform's class. Transforms without
rules (void, unknown) project to None both ways.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import singledispatch
from typing import Any

from icesql.expressions.tree import (
    BooleanExpression,
    BoundPredicate,
    Operation,
    UnboundPredicate,
    predicate,
)
from icesql.spec.transforms import Bucket, Day, Hour, Identity, Month, Transform, Truncate, Year
from icesql.spec.types import BinaryType, DateType, DecimalType, IcebergType, StringType

__all__ = ["project", "strict_project"]

_STARTS = (Operation.STARTS_WITH, Operation.NOT_STARTS_WITH)


# ---------------------------------------------------------------------------------------------
# Dispatch


@singledispatch
def project(transform: Transform, name: str, pred: BoundPredicate) -> BooleanExpression | None:
    """Inclusive projection of ``pred`` through ``transform`` onto the partition field
    ``name`` (module docstring); None for transforms that keep nothing of the value."""
    return None


@singledispatch
def strict_project(
    transform: Transform, name: str, pred: BoundPredicate
) -> BooleanExpression | None:
    """Strict projection of ``pred`` through ``transform`` onto the partition field ``name``
    (module docstring); None for transforms that keep nothing of the value."""
    return None


@project.register(Identity)
def _identity(transform: Identity, name: str, pred: BoundPredicate) -> BooleanExpression | None:
    """The same predicate on the partition value, which is the source value (exact)."""
    return _remove_transform(name, pred)


@strict_project.register(Identity)
def _identity_strict(
    transform: Identity, name: str, pred: BoundPredicate
) -> BooleanExpression | None:
    """The same predicate on the partition value (exact)."""
    return _remove_transform(name, pred)


@project.register(Bucket)
def _bucket(transform: Bucket, name: str, pred: BoundPredicate) -> BooleanExpression | None:
    """``x = v`` gives ``bucket = bucket(v)``, ``IN`` the set of buckets; hashing keeps
    no order, so ranges and negations cannot be projected."""
    t = pred.term.type
    if pred.op.is_unary:
        return _keep_unary(name, pred)
    if pred.op is Operation.EQ:
        return predicate(pred.op, name, transform.apply(t, pred.literal))
    if pred.op is Operation.IN:
        return _transform_set(name, pred, lambda v: transform.apply(t, v))
    return None


@strict_project.register(Bucket)
def _bucket_strict(transform: Bucket, name: str, pred: BoundPredicate) -> BooleanExpression | None:
    """``x != v`` holds for a whole bucket other than ``bucket(v)``; likewise NOT IN."""
    t = pred.term.type
    if pred.op.is_unary:
        return _keep_unary(name, pred)
    if pred.op is Operation.NOT_EQ:
        return predicate(pred.op, name, transform.apply(t, pred.literal))
    if pred.op is Operation.NOT_IN:
        return _transform_set(name, pred, lambda v: transform.apply(t, v))
    return None


def _truncate_step(source_type: IcebergType) -> Any:
    """The smallest increment of a truncated number type (one unit of the last decimal
    place)."""
    if isinstance(source_type, DecimalType):
        return Decimal(1).scaleb(-source_type.scale)
    return 1


@project.register(Truncate)
def _truncate(transform: Truncate, name: str, pred: BoundPredicate) -> BooleanExpression | None:
    """Numbers: comparisons through the floor to a multiple of W (``x < v`` gives
    ``<= trunc(v - 1)``). Strings and binary: comparisons through the prefix; a string
    prefix shorter than W stays a starts-with, one of exactly W becomes ``=``."""
    t = pred.term.type
    apply = lambda v: transform.apply(t, v)  # noqa: E731
    if pred.op.is_unary:
        return _keep_unary(name, pred)
    if pred.op is Operation.IN:
        return _transform_set(name, pred, apply)
    if pred.op.is_set:
        return None  # NOT IN: a partition holds values inside and outside the set
    if isinstance(t, StringType) and pred.op in _STARTS:
        return _project_starts_with(name, pred, transform.width, strict=False)
    if isinstance(t, StringType | BinaryType):
        return _truncate_array(name, pred, apply)
    return _truncate_ordered(name, pred, apply, _truncate_step(t))


@strict_project.register(Truncate)
def _truncate_strict(
    transform: Truncate, name: str, pred: BoundPredicate
) -> BooleanExpression | None:
    """Numbers: ``x < v`` holds for partitions ``< trunc(v)``, ``x <= v`` for partitions
    ``< trunc(v + 1)``, ``x != v`` for partitions ``!= trunc(v)``. Strings and binary: a
    prefix strictly below/above the cut literal decides the comparison."""
    t = pred.term.type
    apply = lambda v: transform.apply(t, v)  # noqa: E731
    if pred.op.is_unary:
        return _keep_unary(name, pred)
    if pred.op is Operation.NOT_IN:
        return _transform_set(name, pred, apply)
    if pred.op.is_set:
        return None  # IN: neighbouring values share a partition
    if isinstance(t, StringType) and pred.op in _STARTS:
        return _project_starts_with(name, pred, transform.width, strict=True)
    if isinstance(t, StringType | BinaryType):
        return _truncate_array_strict(name, pred, apply)
    return _truncate_ordered_strict(name, pred, apply, _truncate_step(t))


def _is_identity_on(transform: Transform, source_type: IcebergType) -> bool:
    """``day`` of a date is the date itself: no pre-1970 correction applies."""
    return isinstance(transform, Day) and isinstance(source_type, DateType)


@project.register(Year)
@project.register(Month)
@project.register(Day)
@project.register(Hour)
def _time(transform: Transform, name: str, pred: BoundPredicate) -> BooleanExpression | None:
    """Comparisons through the (flooring, monotone) ordinal: ``ts < v`` gives
    ``ordinal <= f(v - 1 unit)``, ``ts >= v`` gives ``ordinal >= f(v)``, IN the set of
    ordinals. Negative ordinals are widened by one to also find files written by Iceberg
    0.10 and earlier (see ``_fix_inclusive_time``)."""
    t = pred.term.type
    apply = lambda v: transform.apply(t, v)  # noqa: E731
    if pred.op.is_unary:
        return _keep_unary(name, pred)
    projected: UnboundPredicate | None
    if pred.op is Operation.IN:
        projected = _transform_set(name, pred, apply)
    elif pred.op.is_literal:
        projected = _truncate_ordered(name, pred, apply, 1)
    else:
        return None  # NOT IN: an ordinal holds values inside and outside the set
    return projected if _is_identity_on(transform, t) else _fix_inclusive_time(projected)


@strict_project.register(Year)
@strict_project.register(Month)
@strict_project.register(Day)
@strict_project.register(Hour)
def _time_strict(transform: Transform, name: str, pred: BoundPredicate) -> BooleanExpression | None:
    """``ts < v`` holds for ordinals ``< f(v)``, ``ts <= v`` for ``< f(v + 1 unit)``,
    ``ts != v`` for ``!= f(v)``, NOT IN for the ordinals outside the set; narrowed for
    pre-1970 values of old writers (``_fix_strict_time``)."""
    t = pred.term.type
    apply = lambda v: transform.apply(t, v)  # noqa: E731
    if pred.op.is_unary:
        return _keep_unary(name, pred)
    projected: UnboundPredicate | None
    if pred.op is Operation.NOT_IN:
        projected = _transform_set(name, pred, apply)
    elif pred.op.is_literal:
        projected = _truncate_ordered_strict(name, pred, apply, 1)
    else:
        return None  # IN: neighbouring values share an ordinal
    return projected if _is_identity_on(transform, t) else _fix_strict_time(projected)


# ---------------------------------------------------------------------------------------------
# Shared rules: each takes a bound predicate on the source column and returns an unbound
# predicate on the partition field ``name``, or None when the transform cannot carry it.
# Inclusive: a row matching ``pred`` has a partition value matching the result. Strict:
# every row whose partition value matches the result matches ``pred``.

Apply = Callable[[Any], Any]


def _keep_unary(name: str, pred: BoundPredicate) -> UnboundPredicate | None:
    """Null checks carry over: every transform maps null to null and only null to null."""
    if pred.op in (Operation.IS_NULL, Operation.NOT_NULL):
        return predicate(pred.op, name)
    return None


def _remove_transform(name: str, pred: BoundPredicate) -> UnboundPredicate:
    """The same predicate on the partition field (identity: partition value = source value)."""
    if pred.op.is_unary:
        return predicate(pred.op, name)
    if pred.op.is_set:
        return predicate(pred.op, name, pred.literals)
    return predicate(pred.op, name, pred.literal)


def _transform_set(name: str, pred: BoundPredicate, apply: Apply) -> UnboundPredicate:
    """IN / NOT IN of the transformed values (``=`` / ``!=`` when they collapse to one)."""
    values = {apply(v) for v in pred.literals}
    if len(values) == 1:
        single = Operation.EQ if pred.op is Operation.IN else Operation.NOT_EQ
        return predicate(single, name, next(iter(values)))
    return predicate(pred.op, name, values)


def _truncate_ordered(
    name: str, pred: BoundPredicate, apply: Apply, step: Any
) -> UnboundPredicate | None:
    """Inclusive projection of a comparison through a monotone, flooring transform over a
    discrete domain (``step`` is its smallest increment): ``x < v`` is ``x <= v - step``,
    so the partition value is ``<= apply(v - step)``."""
    v = pred.literal
    if pred.op is Operation.LT:
        return predicate(Operation.LT_EQ, name, apply(v - step))
    if pred.op is Operation.LT_EQ:
        return predicate(Operation.LT_EQ, name, apply(v))
    if pred.op is Operation.GT:
        return predicate(Operation.GT_EQ, name, apply(v + step))
    if pred.op is Operation.GT_EQ:
        return predicate(Operation.GT_EQ, name, apply(v))
    if pred.op is Operation.EQ:
        return predicate(Operation.EQ, name, apply(v))
    return None  # !=, starts-with: a partition holds values on both sides


def _truncate_ordered_strict(
    name: str, pred: BoundPredicate, apply: Apply, step: Any
) -> UnboundPredicate | None:
    """Strict projection through a monotone, flooring transform: ``x < v`` holds for a whole
    partition when its value is ``< apply(v)``; ``x <= v`` when it is ``< apply(v + step)``."""
    v = pred.literal
    if pred.op is Operation.LT:
        return predicate(Operation.LT, name, apply(v))
    if pred.op is Operation.LT_EQ:
        return predicate(Operation.LT, name, apply(v + step))
    if pred.op is Operation.GT:
        return predicate(Operation.GT, name, apply(v))
    if pred.op is Operation.GT_EQ:
        return predicate(Operation.GT, name, apply(v - step))
    if pred.op is Operation.NOT_EQ:
        return predicate(Operation.NOT_EQ, name, apply(v))
    return None  # =: neighbouring values share the partition


def _truncate_array(name: str, pred: BoundPredicate, apply: Apply) -> UnboundPredicate | None:
    """Inclusive projection through a prefix (truncate on strings and binary)."""
    v = pred.literal
    if pred.op in (Operation.LT, Operation.LT_EQ):
        return predicate(Operation.LT_EQ, name, apply(v))
    if pred.op in (Operation.GT, Operation.GT_EQ):
        return predicate(Operation.GT_EQ, name, apply(v))
    if pred.op is Operation.EQ:
        return predicate(Operation.EQ, name, apply(v))
    return None  # !=: the prefix is shared by values on both sides


def _truncate_array_strict(
    name: str, pred: BoundPredicate, apply: Apply
) -> UnboundPredicate | None:
    """Strict projection through a prefix: a prefix strictly below ``apply(v)`` means the
    whole value is below ``v``."""
    v = pred.literal
    if pred.op in (Operation.LT, Operation.LT_EQ):
        return predicate(Operation.LT, name, apply(v))
    if pred.op in (Operation.GT, Operation.GT_EQ):
        return predicate(Operation.GT, name, apply(v))
    if pred.op is Operation.NOT_EQ:
        return predicate(Operation.NOT_EQ, name, apply(v))
    return None  # =: other values share the prefix


def _project_starts_with(
    name: str, pred: BoundPredicate, width: int, strict: bool
) -> UnboundPredicate | None:
    """starts-with through ``truncate[width]`` on strings: a prefix no longer than the width
    is decided by the partition value alone (exact both ways); a longer one only narrows the
    partition (inclusive) or, negated, is implied by its cut prefix (strict)."""
    prefix: str = pred.literal
    positive = pred.op is Operation.STARTS_WITH
    if len(prefix) < width:
        return predicate(pred.op, name, prefix)
    if len(prefix) == width:
        return predicate(Operation.EQ if positive else Operation.NOT_EQ, name, prefix)
    if positive and not strict:
        return predicate(Operation.STARTS_WITH, name, prefix[:width])
    if not positive and strict:
        return predicate(Operation.NOT_STARTS_WITH, name, prefix[:width])
    return None  # a longer prefix cannot be decided from a cut value


def _fix_inclusive_time(projected: UnboundPredicate | None) -> BooleanExpression | None:
    """Widen an inclusive time projection for files written by Iceberg 0.10 and earlier,
    which put negative (pre-1970) values one ordinal too high: ``< -3`` also admits the
    wrongly placed ``-3``; ``= -3`` becomes ``IN (-3, -2)``."""
    if projected is None:
        return None
    op = projected.op
    if op in (Operation.LT, Operation.LT_EQ) and projected.literal < 0:
        return predicate(op, projected.term.name, projected.literal + 1)
    if op is Operation.EQ and projected.literal < 0:
        return predicate(
            Operation.IN, projected.term.name, {projected.literal, projected.literal + 1}
        )
    if op is Operation.IN and any(v < 0 for v in projected.literals):
        values = set(projected.literals) | {v + 1 for v in projected.literals if v < 0}
        return predicate(Operation.IN, projected.term.name, values)
    if op in (Operation.NOT_EQ, Operation.NOT_IN):
        return None
    return projected


def _fix_strict_time(projected: UnboundPredicate | None) -> BooleanExpression | None:
    """Narrow a strict time projection for files from Iceberg 0.10 and earlier (see
    ``_fix_inclusive_time``): ``> v`` and ``>= v`` for ``v <= 0`` move up by one ordinal;
    ``!= -3`` becomes ``NOT IN (-3, -2)``."""
    if projected is None:
        return None
    op = projected.op
    name = projected.term.name
    if op in (Operation.GT, Operation.GT_EQ) and projected.literal <= 0:
        return predicate(op, name, projected.literal + 1)
    if op is Operation.NOT_EQ and projected.literal < 0:
        return predicate(Operation.NOT_IN, name, {projected.literal, projected.literal + 1})
    if op is Operation.NOT_IN and any(v < 0 for v in projected.literals):
        values = set(projected.literals) | {v + 1 for v in projected.literals if v < 0}
        return predicate(Operation.NOT_IN, name, values)
    if op in (Operation.EQ, Operation.IN):
        return None
    return projected
