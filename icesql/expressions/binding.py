"""Binding: resolving column names to fields and literals to the fields' value convention.

Bind once, evaluate many: a bound expression is immutable and shared by every evaluation.
``bind`` first rewrites ``NOT`` away, then binds each predicate, folding what the field's
type decides on its own::

    >>> from icesql.spec.types import IntegerType, NestedField
    >>> from icesql.expressions.tree import in_, is_null, less_than
    >>> s = Schema((NestedField(1, "id", IntegerType(), required=True),))
    >>> str(bind(s, less_than("ID", Decimal("5.5"))))    # no int lies between 5 and 5.5
    'id <= 5'
    >>> str(bind(s, is_null("id"))), str(bind(s, in_("id", [7])))
    ('false', 'id = 7')

A literal the type cannot represent safely raises ``UnrepresentableLiteral`` (see
``icesql.expressions.literals``); an unknown column raises ``ProgrammingError``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from icesql.errors import ProgrammingError
from icesql.expressions.literals import (
    BELOW,
    EXACT,
    NEAREST,
    UnrepresentableLiteral,
    convert_literal,
)
from icesql.expressions.tree import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    BooleanExpression,
    BoundPredicate,
    BoundReference,
    Operation,
    UnboundPredicate,
    and_,
    not_,
    or_,
)
from icesql.expressions.visitors import BooleanExpressionVisitor, rewrite_not, visit
from icesql.spec.schema import Schema
from icesql.spec.types import DoubleType, FloatType, NestedField, StringType, StructType

__all__ = ["bind", "bind_predicate"]

_FLOATS = (FloatType, DoubleType)


def bind(
    struct: Schema | StructType, expr: BooleanExpression, case_sensitive: bool = False
) -> BooleanExpression:
    """``expr`` (NOT rewritten away) with every predicate bound to ``struct``: a table schema
    (names looked up like Spark, case-insensitive by default) or a partition struct.
    Predicates that are already bound are kept as they are."""
    return visit(rewrite_not(expr), _Binder(struct, case_sensitive))


class _Binder(BooleanExpressionVisitor[BooleanExpression]):
    def __init__(self, struct: Schema | StructType, case_sensitive: bool):
        self.struct = struct
        self.case_sensitive = case_sensitive

    def visit_true(self) -> BooleanExpression:
        return ALWAYS_TRUE

    def visit_false(self) -> BooleanExpression:
        return ALWAYS_FALSE

    def visit_not(self, child: BooleanExpression) -> BooleanExpression:
        return not_(child)

    def visit_and(self, left: BooleanExpression, right: BooleanExpression) -> BooleanExpression:
        return and_(left, right)

    def visit_or(self, left: BooleanExpression, right: BooleanExpression) -> BooleanExpression:
        return or_(left, right)

    def visit_unbound_predicate(self, pred: UnboundPredicate) -> BooleanExpression:
        return bind_predicate(self.struct, pred, self.case_sensitive)

    def visit_bound_predicate(self, pred: BoundPredicate) -> BooleanExpression:
        return pred  # already bound (binding is idempotent)


def _resolve(struct: Schema | StructType, name: str, case_sensitive: bool) -> BoundReference:
    if isinstance(struct, Schema):
        field = struct.find_field_by_name(name, case_sensitive)
        top = struct.fields
    else:
        found = struct.field_by_name(name, case_sensitive)
        if found is None:
            names = ", ".join(f.name for f in struct.fields) or "(none)"
            raise ProgrammingError(f"field {name!r} does not exist; available: {names}")
        field, top = found, struct.fields
    position = next((i for i, f in enumerate(top) if f.field_id == field.field_id), None)
    return BoundReference(field, position, name if isinstance(struct, Schema) else field.name)


def bind_predicate(
    struct: Schema | StructType, pred: UnboundPredicate, case_sensitive: bool = False
) -> BooleanExpression:
    """One predicate bound to ``struct``; may fold to ``true``/``false`` or widen (module
    docstring). Raises ``UnrepresentableLiteral`` when that is not possible."""
    ref = _resolve(struct, pred.term.name, case_sensitive)
    if isinstance(struct, Schema):
        ref = BoundReference(ref.field, ref.position, struct.find_column_name(ref.field_id))
    field = ref.field
    if pred.op.is_unary:
        return _bind_unary(pred.op, ref, field)
    if pred.op.is_set:
        return _bind_set(pred, ref)
    return _bind_literal(pred.op, ref, pred.literal)


def _bind_unary(op: Operation, ref: BoundReference, field: NestedField) -> BooleanExpression:
    is_float = isinstance(field.type, _FLOATS)
    if op is Operation.IS_NULL and field.required:
        return ALWAYS_FALSE
    if op is Operation.NOT_NULL and field.required:
        return ALWAYS_TRUE
    if op is Operation.IS_NAN and not is_float:
        return ALWAYS_FALSE
    if op is Operation.NOT_NAN and not is_float:
        return _bind_unary(Operation.NOT_NULL, ref, field)
    return BoundPredicate(op, ref)


def _convert(value: Any, t: Any) -> tuple[Any, str]:
    converted, relation = convert_literal(value, t)
    if isinstance(value, str) and relation != EXACT:
        # a string is cast to the column type by the engine, which may round it ('5.5' is 6)
        raise UnrepresentableLiteral(f"{value!r} is not exactly a {t}")
    return converted, relation


def _is_nan(value: Any) -> bool:
    return isinstance(value, float | Decimal) and value != value


def _bind_literal(op: Operation, ref: BoundReference, value: Any) -> BooleanExpression:
    t = ref.type
    if op in (Operation.STARTS_WITH, Operation.NOT_STARTS_WITH):
        if not isinstance(t, StringType) or not isinstance(value, str):
            raise UnrepresentableLiteral(f"{op.value} needs a string column and literal")
        return BoundPredicate(op, ref, value)
    if isinstance(t, _FLOATS) and _is_nan(value):
        return _nan_literal(op, ref)
    converted, relation = _convert(value, t)
    if relation == EXACT:
        return BoundPredicate(op, ref, converted)
    if relation == BELOW:  # converted < value, no value of the type in between
        return {
            Operation.LT: lambda: BoundPredicate(Operation.LT_EQ, ref, converted),
            Operation.LT_EQ: lambda: BoundPredicate(Operation.LT_EQ, ref, converted),
            Operation.GT: lambda: BoundPredicate(Operation.GT, ref, converted),
            Operation.GT_EQ: lambda: BoundPredicate(Operation.GT, ref, converted),
            Operation.EQ: lambda: ALWAYS_FALSE,
            Operation.NOT_EQ: lambda: _bind_unary(Operation.NOT_NULL, ref, ref.field),
        }[op]()
    assert relation == NEAREST
    if op in (Operation.LT, Operation.LT_EQ):
        return BoundPredicate(Operation.LT_EQ, ref, math.nextafter(converted, math.inf))
    if op in (Operation.GT, Operation.GT_EQ):
        return BoundPredicate(Operation.GT_EQ, ref, math.nextafter(converted, -math.inf))
    raise UnrepresentableLiteral(f"{value!r} is not exactly a {t}; {op.value} is not pushed")


def _nan_literal(op: Operation, ref: BoundReference) -> BooleanExpression:
    """Comparisons with NaN, which SQL orders above every other number and equal to itself."""
    field = ref.field
    return {
        Operation.EQ: lambda: BoundPredicate(Operation.IS_NAN, ref),
        Operation.NOT_EQ: lambda: BoundPredicate(Operation.NOT_NAN, ref),
        Operation.LT: lambda: BoundPredicate(Operation.NOT_NAN, ref),
        Operation.LT_EQ: lambda: _bind_unary(Operation.NOT_NULL, ref, field),
        Operation.GT: lambda: ALWAYS_FALSE,
        Operation.GT_EQ: lambda: BoundPredicate(Operation.IS_NAN, ref),
    }[op]()


def _bind_set(pred: UnboundPredicate, ref: BoundReference) -> BooleanExpression:
    t = ref.type
    values: set[Any] = set()
    has_nan = False
    for v in pred.literals:
        if v is None:
            continue  # x IN (.., NULL) is never TRUE through the null; NOT IN is handled below
        if isinstance(t, _FLOATS) and _is_nan(v):
            has_nan = True
            continue
        converted, relation = _convert(v, t)
        if relation == EXACT:
            values.add(converted)
        elif relation == NEAREST:
            raise UnrepresentableLiteral(f"{v!r} is not exactly a {t}; IN is not pushed")
        # BELOW: no value of the type equals the literal, drop it
    if pred.op is Operation.IN:
        if None in pred.literals and not values and not has_nan:
            return ALWAYS_FALSE
        base = _set_predicate(Operation.IN, ref, values)
        return or_(base, BoundPredicate(Operation.IS_NAN, ref)) if has_nan else base
    if None in pred.literals:
        return ALWAYS_FALSE  # x NOT IN (.., NULL) is never TRUE
    base = _set_predicate(Operation.NOT_IN, ref, values)
    return and_(base, BoundPredicate(Operation.NOT_NAN, ref)) if has_nan else base


def _set_predicate(op: Operation, ref: BoundReference, values: set[Any]) -> BooleanExpression:
    if not values:
        return (
            ALWAYS_FALSE if op is Operation.IN else _bind_unary(Operation.NOT_NULL, ref, ref.field)
        )
    if len(values) == 1:
        single = Operation.EQ if op is Operation.IN else Operation.NOT_EQ
        return BoundPredicate(single, ref, next(iter(values)))
    return BoundPredicate(op, ref, literals=frozenset(values))
