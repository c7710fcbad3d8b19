"""Evaluating an expression on struct values (partition tuples): each row's answer checked
against DuckDB evaluating the same predicate, nulls and NaN included."""

from __future__ import annotations

import pyarrow as pa
import pytest
from expressions_support import matching_rows

from icesql.errors import ProgrammingError
from icesql.expressions.binding import bind
from icesql.expressions.evaluator import evaluate_bound, expression_evaluator
from icesql.expressions.tree import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    BoundPredicate,
    BoundReference,
    Not,
    Operation,
    and_,
    equal,
    greater_than,
    greater_than_or_equal,
    in_,
    is_nan,
    is_null,
    less_than,
    less_than_or_equal,
    not_,
    not_equal,
    not_in,
    not_nan,
    not_null,
    not_starts_with,
    or_,
    starts_with,
)
from icesql.spec.types import DoubleType, IntegerType, NestedField, StringType, StructType

NAN = float("nan")
STRUCT = StructType(
    (
        NestedField(1, "i", IntegerType()),
        NestedField(2, "x", DoubleType()),
        NestedField(3, "s", StringType()),
    )
)
COLUMNS = {
    "i": pa.array([None, -1, 0, 5, 7, 2**31 - 1, 5, None], pa.int32()),
    "x": pa.array([NAN, None, -0.0, 5.0, float("inf"), NAN, 2.5, 1e-300]),
    "s": pa.array(["", None, "a", "ab", "abc", "b", "ba", "é"]),
}
ROWS = list(zip(*(c.to_pylist() for c in COLUMNS.values())))
PREDICATES = [
    is_null("i"),
    not_null("x"),
    is_nan("x"),
    not_nan("x"),
    *(
        make(c, v)
        for c, v in (("i", 5), ("x", 2.5), ("x", 0.0), ("s", "ab"))
        for make in (
            less_than,
            less_than_or_equal,
            greater_than,
            greater_than_or_equal,
            equal,
            not_equal,
        )
    ),
    equal("x", NAN),
    not_equal("x", NAN),
    greater_than("x", NAN),
    less_than("x", NAN),
    in_("i", [0, 7]),
    not_in("i", [0, 7]),
    in_("x", [5.0, NAN]),
    not_in("x", [5.0, NAN]),
    in_("s", ["a", "zz"]),
    not_in("s", ["a"]),
    starts_with("s", "a"),
    starts_with("s", ""),
    not_starts_with("s", "a"),
    and_(greater_than("i", 0), is_nan("x")),
    or_(is_null("s"), less_than("x", 0.0)),
    not_(or_(equal("i", 5), starts_with("s", "b"))),
    not_(is_null("x")),
    ALWAYS_TRUE,
    ALWAYS_FALSE,
]


@pytest.mark.parametrize("expr", PREDICATES, ids=str)
def test_rows_match_as_duckdb_evaluates_them(expr) -> None:
    matches = expression_evaluator(STRUCT, expr)
    [expected] = matching_rows(pa.table(COLUMNS), [expr])
    assert {n for n, row in enumerate(ROWS) if matches(row)} == expected


def test_bind_once_evaluate_many() -> None:
    bound = bind(STRUCT, greater_than_or_equal("i", 5))
    assert [evaluate_bound(bound, row) for row in ROWS] == [
        False,
        False,
        False,
        True,
        True,
        True,
        True,
        False,
    ]
    assert [evaluate_bound(bound, (v, None, None)) for v in (4, 5)] == [False, True]


def test_names_resolve_case_sensitively_by_default() -> None:
    with pytest.raises(ProgrammingError, match="I"):
        expression_evaluator(STRUCT, equal("I", 5))
    assert expression_evaluator(STRUCT, equal("I", 5), case_sensitive=False)((5, None, None))


def test_a_field_without_a_position_cannot_be_read() -> None:
    nested = BoundPredicate(Operation.IS_NULL, BoundReference(NestedField(9, "n", IntegerType())))
    with pytest.raises(TypeError, match="field n is not a top-level field"):
        evaluate_bound(nested, (1,))


def test_not_must_be_rewritten_first() -> None:
    bound = bind(STRUCT, is_null("i"))
    with pytest.raises(TypeError, match="NOT rewritten first"):
        evaluate_bound(Not(bound), (None, None, None))
