"""Shared rules behind ``Transform.project`` / ``Transform.strict_project``.

Every function takes a bound predicate on a transform's source column and returns an
unbound predicate on the partition field ``name``, or None when the transform cannot carry
the predicate. Inclusive: a row matching ``pred`` has a partition value matching the result.
Strict: every row whose partition value matches the result matches ``pred``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from icesql.expressions.tree import (
    BooleanExpression,
    BoundPredicate,
    Operation,
    UnboundPredicate,
    predicate,
)

Apply = Callable[[Any], Any]


def keep_unary(name: str, pred: BoundPredicate) -> UnboundPredicate | None:
    """Null checks carry over: every transform maps null to null and only null to null."""
    if pred.op in (Operation.IS_NULL, Operation.NOT_NULL):
        return predicate(pred.op, name)
    return None


def remove_transform(name: str, pred: BoundPredicate) -> UnboundPredicate:
    """The same predicate on the partition field (identity: partition value = source value)."""
    if pred.op.is_unary:
        return predicate(pred.op, name)
    if pred.op.is_set:
        return predicate(pred.op, name, pred.literals)
    return predicate(pred.op, name, pred.literal)


def transform_set(name: str, pred: BoundPredicate, apply: Apply) -> UnboundPredicate:
    """IN / NOT IN of the transformed values (``=`` / ``!=`` when they collapse to one)."""
    values = {apply(v) for v in pred.literals}
    if len(values) == 1:
        single = Operation.EQ if pred.op is Operation.IN else Operation.NOT_EQ
        return predicate(single, name, next(iter(values)))
    return predicate(pred.op, name, values)


def truncate_ordered(
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


def truncate_ordered_strict(
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


def truncate_array(name: str, pred: BoundPredicate, apply: Apply) -> UnboundPredicate | None:
    """Inclusive projection through a prefix (truncate on strings and binary)."""
    v = pred.literal
    if pred.op in (Operation.LT, Operation.LT_EQ):
        return predicate(Operation.LT_EQ, name, apply(v))
    if pred.op in (Operation.GT, Operation.GT_EQ):
        return predicate(Operation.GT_EQ, name, apply(v))
    if pred.op is Operation.EQ:
        return predicate(Operation.EQ, name, apply(v))
    return None  # !=: the prefix is shared by values on both sides


def truncate_array_strict(name: str, pred: BoundPredicate, apply: Apply) -> UnboundPredicate | None:
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


def project_starts_with(
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


def fix_inclusive_time(projected: UnboundPredicate | None) -> BooleanExpression | None:
    """Widen an inclusive time projection for files written by Iceberg 0.10 and earlier,
    which put negative (pre-1970) values one ordinal too high: ``< -3`` also admits the
    wrongly placed ``-3``; ``= -3`` becomes ``IN (-3, -2)``."""
    if projected is None:
        return None
    op = projected.op
    if op in (Operation.LT, Operation.LT_EQ) and projected.literal < 0:
        return predicate(op, projected.term.name, projected.literal + 1)
    if op is Operation.EQ and projected.literal < 0:
        return predicate(Operation.IN, projected.term.name, {projected.literal, projected.literal + 1})
    if op is Operation.IN and any(v < 0 for v in projected.literals):
        values = set(projected.literals) | {v + 1 for v in projected.literals if v < 0}
        return predicate(Operation.IN, projected.term.name, values)
    if op in (Operation.NOT_EQ, Operation.NOT_IN):
        return None
    return projected


def fix_strict_time(projected: UnboundPredicate | None) -> BooleanExpression | None:
    """Narrow a strict time projection for files from Iceberg 0.10 and earlier (see
    ``fix_inclusive_time``): ``> v`` and ``>= v`` for ``v <= 0`` move up by one ordinal;
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
