"""The expression tree: operators and their negation / flip (checked against DuckDB's
three-valued SQL, NaN and nulls included), the builders' constant folding, operand checks,
value semantics and the text of every node."""

from __future__ import annotations

import datetime as dt

import duckdb
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
    Reference,
    UnboundPredicate,
    and_,
    equal,
    greater_than_or_equal,
    in_,
    is_null,
    less_than,
    negate,
    not_,
    not_in,
    or_,
    predicate,
    starts_with,
)
from icesql.spec.types import (
    BinaryType,
    DateType,
    NestedField,
    StringType,
    TimestampType,
    TimestamptzType,
)

NAN = float("nan")
# a double column and a string column, with a null and (for x) NaN among the values
ROWS = pa.table(
    {
        "x": pa.array([None, NAN, -1.0, 0.0, 2.0, 5.0, 7.5, float("inf")], pa.float64()),
        "s": pa.array([None, "", "a", "ab", "abc", "b", "ba", "zz"]),
    }
)


def _operand(op: Operation):
    if op.is_unary:
        return None
    if op in (Operation.STARTS_WITH, Operation.NOT_STARTS_WITH):
        return "ab"
    return [2.0, NAN, 7.5] if op.is_set else 2.0


def _pred(op: Operation, value=None) -> UnboundPredicate:
    column = "s" if op in (Operation.STARTS_WITH, Operation.NOT_STARTS_WITH) else "x"
    return predicate(op, column, _operand(op) if value is None else value)


def test_operator_kinds_partition_the_operators() -> None:
    for op in Operation:
        assert [op.is_unary, op.is_set, op.is_literal].count(True) == 1, op
    assert {op for op in Operation if op.is_unary} == {
        Operation.IS_NULL,
        Operation.NOT_NULL,
        Operation.IS_NAN,
        Operation.NOT_NAN,
    }
    assert {op for op in Operation if op.is_set} == {Operation.IN, Operation.NOT_IN}


@pytest.mark.parametrize("op", list(Operation), ids=lambda op: op.name)
def test_negated_operator_matches_exactly_where_sql_not_does(op: Operation) -> None:
    pred = _pred(op)
    negated = _pred(op.negate())
    assert op.negate().negate() is op and op.negate() is not op
    # DuckDB's NOT, NaN and NULL semantics are the reference (NaN equals itself and sorts
    # above every number, as in Spark)
    by_not, by_negation = matching_rows(ROWS, [Not(pred), negated])
    assert by_negation == by_not, f"{negated} vs NOT {pred}"


@pytest.mark.parametrize("op", list(Operation), ids=lambda op: op.name)
def test_flipped_operator_swaps_the_operands(op: Operation) -> None:
    if not op.is_literal or op in (Operation.STARTS_WITH, Operation.NOT_STARTS_WITH):
        assert op.flip() is op
        return
    sql = {
        Operation.LT: "<",
        Operation.LT_EQ: "<=",
        Operation.GT: ">",
        Operation.GT_EQ: ">=",
        Operation.EQ: "=",
        Operation.NOT_EQ: "<>",
    }[op]
    flipped = matching_rows(ROWS, [_pred(op.flip())])[0]
    # "2.0 op x", evaluated by DuckDB as written
    swapped = {
        i
        for i, v in enumerate(ROWS["x"].to_pylist())
        if v is not None and _duck(f"2.0::DOUBLE {sql} ?", v)
    }
    assert flipped == swapped


def _duck(sql: str, value: float) -> bool:
    with duckdb.connect() as con:
        return bool(con.execute(f"SELECT {sql}", [value]).fetchall()[0][0])


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (and_(), ALWAYS_TRUE),
        (or_(), ALWAYS_FALSE),
        (and_(ALWAYS_TRUE, is_null("a")), is_null("a")),
        (and_(is_null("a"), ALWAYS_FALSE, is_null("b")), ALWAYS_FALSE),
        (
            and_(is_null("a"), is_null("b"), is_null("c")),
            And(And(is_null("a"), is_null("b")), is_null("c")),
        ),
        (or_(ALWAYS_FALSE, is_null("a")), is_null("a")),
        (or_(is_null("a"), ALWAYS_TRUE), ALWAYS_TRUE),
        (or_(is_null("a"), is_null("b")), Or(is_null("a"), is_null("b"))),
        (not_(ALWAYS_TRUE), ALWAYS_FALSE),
        (not_(ALWAYS_FALSE), ALWAYS_TRUE),
        (not_(not_(is_null("a"))), is_null("a")),
        (not_(is_null("a")), Not(is_null("a"))),
    ],
    ids=str,
)
def test_builders_fold_constants(expr, expected) -> None:
    assert expr == expected


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (negate(ALWAYS_TRUE), ALWAYS_FALSE),
        (negate(Not(is_null("a"))), is_null("a")),
        (
            negate(and_(less_than("a", 5), is_null("b"))),
            Or(greater_than_or_equal("a", 5), predicate(Operation.NOT_NULL, "b")),
        ),
        (negate(or_(equal("a", 1), ALWAYS_FALSE)), predicate(Operation.NOT_EQ, "a", 1)),
        (negate(in_("a", [1, 2])), not_in("a", [2, 1])),
    ],
    ids=str,
)
def test_negate_pushes_not_to_the_predicates(expr, expected) -> None:
    assert expr == expected


def test_negate_keeps_a_bound_predicate_bound() -> None:
    term = BoundReference(NestedField(1, "a", StringType()), 0)
    assert negate(BoundPredicate(Operation.STARTS_WITH, term, "x")) == BoundPredicate(
        Operation.NOT_STARTS_WITH, term, "x"
    )


def test_negate_refuses_what_is_not_an_expression() -> None:
    with pytest.raises(TypeError, match="cannot negate 'a'"):
        negate("a")


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: predicate(Operation.LT, "a", None), ValueError, "< needs a non-null literal"),
        (
            lambda: UnboundPredicate(Operation.EQ, Reference("a")),
            ValueError,
            "= takes exactly one non-null literal",
        ),
        (
            lambda: UnboundPredicate(Operation.EQ, Reference("a"), 1, frozenset({2})),
            ValueError,
            "= takes exactly one",
        ),
        (
            lambda: UnboundPredicate(Operation.IS_NULL, Reference("a"), 1),
            ValueError,
            "IS NULL takes no literal",
        ),
        (
            lambda: UnboundPredicate(Operation.IS_NAN, Reference("a"), None, frozenset({1})),
            ValueError,
            "IS NAN takes no literal",
        ),
        (
            lambda: UnboundPredicate(Operation.IN, Reference("a"), 1),
            ValueError,
            "IN takes a set of literals",
        ),
        (
            lambda: UnboundPredicate(Operation.IN, Reference("a"), None, [1]),
            TypeError,
            "literals must be a frozenset, got list",
        ),
    ],
)
def test_operands_are_checked(make, error, message) -> None:
    with pytest.raises(error, match=message):
        make()


def test_nodes_are_values() -> None:
    assert in_("a", [3, 1, 1]) == in_("a", (1, 3))
    assert hash(in_("a", [3, 1])) == hash(in_("a", {1, 3}))
    assert len({and_(is_null("a"), is_null("b")), And(is_null("a"), is_null("b"))}) == 1
    assert equal("a", 1) != equal("b", 1)
    with pytest.raises(AttributeError):
        equal("a", 1).literal = 2  # type: ignore[misc]


def _bound(t, op: Operation, literal=None, literals=frozenset()) -> BoundPredicate:
    return BoundPredicate(op, BoundReference(NestedField(1, "c", t), 0), literal, literals)


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        (and_(greater_than_or_equal("id", 10), is_null("name")), "(id >= 10 AND name IS NULL)"),
        (
            not_(and_(greater_than_or_equal("id", 10), is_null("name"))),
            "NOT (id >= 10 AND name IS NULL)",
        ),
        (not_(equal("id", 1)), "NOT (id = 1)"),
        (or_(ALWAYS_TRUE, ALWAYS_TRUE), "true"),
        (And(ALWAYS_TRUE, ALWAYS_FALSE), "(true AND false)"),
        (in_("s", ["b", "a"]), "s IN ('a', 'b')"),
        (not_in("n", [10, 9]), "n NOT IN (10, 9)"),  # sorted as text
        (starts_with("s", "it's"), 's STARTS WITH "it\'s"'),
        (equal("b", b"\x01\xff"), "b = X'01ff'"),
        (predicate(Operation.NOT_NAN, "x"), "x IS NOT NAN"),
        (equal("d", 19724), "d = 19724"),  # unbound: no type to show the value by
        (
            _bound(DateType(), Operation.EQ, 19724),
            f"c = '{dt.date(1970, 1, 1) + dt.timedelta(days=19724)}'",
        ),
        (
            _bound(TimestampType(), Operation.LT, 1_704_067_200_000_001),
            "c < '2024-01-01T00:00:00.000001'",
        ),
        (
            _bound(TimestamptzType(), Operation.IN, None, frozenset({0})),
            "c IN ('1970-01-01T00:00Z')",
        ),  # as Java's OffsetDateTime.toString
        (_bound(BinaryType(), Operation.EQ, b"\x00"), "c = X'00'"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_text(expr, text) -> None:
    assert str(expr) == text


def test_bound_reference_reads_its_field() -> None:
    field = NestedField(7, "when", DateType())
    assert (BoundReference(field).field_id, BoundReference(field).type) == (7, DateType())
    assert str(BoundReference(field)) == "when"
    assert str(BoundReference(field, None, "s.when")) == "s.when"
