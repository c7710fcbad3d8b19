"""The one bottom-up visit(), the per-operator dispatch of BoundPredicateVisitor, rewrite_not
(checked against DuckDB's NOT) and referenced_field_ids."""

from __future__ import annotations

import pyarrow as pa
import pytest
from expressions_support import matching_rows

from icesql.expressions.tree import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    And,
    BoundPredicate,
    BoundReference,
    Not,
    Operation,
    Or,
    and_,
    equal,
    greater_than,
    in_,
    is_nan,
    is_null,
    less_than,
    not_,
    not_in,
    not_starts_with,
    or_,
    starts_with,
)
from icesql.expressions.visitors import (
    BooleanExpressionVisitor,
    BoundPredicateVisitor,
    referenced_field_ids,
    rewrite_not,
    visit,
)
from icesql.spec.types import DoubleType, IntegerType, NestedField, StringType


class _Trace(BooleanExpressionVisitor[str]):
    """Records the order of calls: a parent must come after its children."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def _log(self, text: str) -> str:
        self.calls.append(text)
        return text

    def visit_true(self) -> str:
        return self._log("T")

    def visit_false(self) -> str:
        return self._log("F")

    def visit_not(self, child: str) -> str:
        return self._log(f"not({child})")

    def visit_and(self, left: str, right: str) -> str:
        return self._log(f"and({left},{right})")

    def visit_or(self, left: str, right: str) -> str:
        return self._log(f"or({left},{right})")

    def visit_unbound_predicate(self, pred) -> str:
        return self._log(str(pred.term))

    def visit_bound_predicate(self, pred) -> str:
        return self._log("#" + str(pred.term.field_id))


def test_visit_is_bottom_up_and_left_to_right() -> None:
    trace = _Trace()
    expr = Or(And(is_null("a"), Not(ALWAYS_TRUE)), And(ALWAYS_FALSE, _bound(Operation.IS_NULL)))
    assert visit(expr, trace) == "or(and(a,not(T)),and(F,#1))"
    assert trace.calls == [
        "a",
        "T",
        "not(T)",
        "and(a,not(T))",
        "F",
        "#1",
        "and(F,#1)",
        "or(and(a,not(T)),and(F,#1))",
    ]


def test_visit_refuses_what_is_not_a_node() -> None:
    with pytest.raises(TypeError, match="not an expression node: 'a = 1'"):
        visit("a = 1", _Trace())


TERM = BoundReference(NestedField(1, "c", IntegerType()), 0)


def _bound(op: Operation) -> BoundPredicate:
    if op.is_unary:
        return BoundPredicate(op, TERM)
    if op.is_set:
        return BoundPredicate(op, TERM, None, frozenset({1, 2}))
    return BoundPredicate(op, TERM, 7)


class _Combine(BoundPredicateVisitor[tuple]):
    def visit_true(self):
        return ("true",)

    def visit_false(self):
        return ("false",)

    def visit_and(self, left, right):
        return ("and", left, right)

    def visit_or(self, left, right):
        return ("or", left, right)


def _reporter(name: str):
    def method(self, *args):
        return (name, *args)

    return method


# one method per operator, reporting its name and the arguments it was given
_Dispatch = type(
    "_Dispatch",
    (_Combine,),
    {f"visit_{op.name.lower()}": _reporter(f"visit_{op.name.lower()}") for op in Operation},
)


@pytest.mark.parametrize("op", list(Operation), ids=lambda op: op.name)
def test_each_operator_reaches_its_own_method(op: Operation) -> None:
    pred = _bound(op)
    expected_args = () if op.is_unary else (frozenset({1, 2}),) if op.is_set else (7,)
    assert visit(pred, _Dispatch()) == (f"visit_{op.name.lower()}", TERM, *expected_args)


def test_bound_visitor_method_names_match_the_abstract_ones() -> None:
    names = {n for n in BoundPredicateVisitor.__abstractmethods__ if n.startswith("visit_")}
    assert {f"visit_{op.name.lower()}" for op in Operation} <= names


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (Not(_bound(Operation.IS_NULL)), "_Dispatch needs NOT rewritten first"),
        (is_null("c"), "_Dispatch needs a bound expression, got c IS NULL"),
    ],
)
def test_bound_visitor_refuses_not_and_unbound(expr, message) -> None:
    with pytest.raises(TypeError, match=message):
        visit(expr, _Dispatch())


ROWS = pa.table(
    {
        "a": pa.array([None, 1, 5, 7, 9, 5], pa.int32()),
        "x": pa.array([1.5, None, float("nan"), -1.0, 3.0, float("nan")]),
        "s": pa.array(["ab", "b", None, "abc", "", "zz"]),
    }
)
EXPRESSIONS = [
    not_(or_(less_than("a", 5), is_null("s"))),
    not_(and_(greater_than("x", 1.0), not_(starts_with("s", "a")))),
    not_(not_(in_("a", [1, 9]))),
    or_(not_(is_nan("x")), not_(not_in("a", [5]))),
    not_(and_(not_(equal("a", 5)), or_(not_starts_with("s", "ab"), not_(is_null("x"))))),
    and_(not_(ALWAYS_FALSE), not_(greater_than("x", 2.0))),
]


def _has_not(expr) -> bool:
    if isinstance(expr, Not):
        return True
    if isinstance(expr, And | Or):
        return _has_not(expr.left) or _has_not(expr.right)
    return False


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=str)
def test_rewrite_not_removes_not_and_keeps_the_rows(expr) -> None:
    rewritten = rewrite_not(expr)
    assert not _has_not(rewritten), str(rewritten)
    before, after = matching_rows(ROWS, [expr, rewritten])
    assert after == before, str(rewritten)


def test_rewrite_not_example() -> None:
    assert (
        str(rewrite_not(not_(or_(less_than("a", 5), is_null("b"))))) == "(a >= 5 AND b IS NOT NULL)"
    )
    assert rewrite_not(not_(ALWAYS_TRUE)) == ALWAYS_FALSE


def _ref(field_id: int, t) -> BoundReference:
    return BoundReference(NestedField(field_id, f"c{field_id}", t))


def test_referenced_field_ids() -> None:
    expr = Or(
        And(
            BoundPredicate(Operation.LT, _ref(3, IntegerType()), 1),
            Not(BoundPredicate(Operation.IS_NAN, _ref(5, DoubleType()))),
        ),
        And(ALWAYS_TRUE, BoundPredicate(Operation.EQ, _ref(3, IntegerType()), 2)),
    )
    assert referenced_field_ids(expr) == frozenset({3, 5})
    assert referenced_field_ids(ALWAYS_FALSE) == frozenset()
    starts = BoundPredicate(Operation.STARTS_WITH, _ref(8, StringType()), "x")
    assert referenced_field_ids(starts) == frozenset({8})
    with pytest.raises(TypeError, match="needs a bound expression, got a IS NULL"):
        referenced_field_ids(is_null("a"))
