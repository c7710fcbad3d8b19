"""Binding: literal conversion to each column type, safe widening, and folding."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from icesql.errors import ProgrammingError
from icesql.expressions.binding import bind
from icesql.expressions.literals import UnrepresentableLiteral
from icesql.expressions.tree import (
    Not,
    equal,
    greater_than,
    greater_than_or_equal,
    in_,
    is_nan,
    is_null,
    less_than,
    less_than_or_equal,
    not_equal,
    not_in,
    not_nan,
    not_null,
    or_,
    starts_with,
)
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    NestedField,
    StringType,
)

S = Schema(
    (
        NestedField(1, "i", IntegerType(), required=True),
        NestedField(2, "x", DoubleType()),
        NestedField(3, "s", StringType()),
        NestedField(4, "d", DateType()),
        NestedField(5, "dec", DecimalType(5, 2)),
        NestedField(6, "f", FloatType()),
    )
)


def b(expr) -> str:
    return str(bind(S, expr))


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (less_than("I", 5), "i < 5"),
        (less_than("i", Decimal("5.5")), "i <= 5"),
        (less_than_or_equal("i", Decimal("-5.5")), "i <= -6"),
        (greater_than("i", 5.5), "i > 5"),
        (greater_than_or_equal("i", Decimal("5.5")), "i > 5"),
        (equal("i", Decimal("5.5")), "false"),
        (not_equal("i", Decimal("5.5")), "true"),  # i is required: every row differs
        (in_("i", [Decimal("5.5"), 6]), "i = 6"),
        (in_("i", [1, None]), "i = 1"),
        (not_in("i", [1, None]), "false"),
        (is_null("i"), "false"),
        (not_null("i"), "true"),
        (is_nan("i"), "false"),
        (not_nan("s"), "s IS NOT NULL"),
        (equal("x", float("nan")), "x IS NAN"),
        (not_equal("x", float("nan")), "x IS NOT NAN"),
        (greater_than("x", float("nan")), "false"),
        (less_than("x", float("nan")), "x IS NOT NAN"),
        (in_("x", [1.5, float("nan")]), "(x = 1.5 OR x IS NAN)"),
        (less_than("x", Decimal("0.1")), "x <= 0.10000000000000002"),
        (greater_than("x", Decimal("0.1")), "x >= 0.09999999999999999"),
        (equal("dec", Decimal("1.5")), "dec = 1.50"),
        (less_than("dec", Decimal("1.555")), "dec <= 1.55"),
        (equal("d", dt.date(2024, 1, 2)), "d = '2024-01-02'"),
        (less_than("d", dt.datetime(2024, 1, 2, 10, tzinfo=dt.UTC)), "d <= '2024-01-02'"),
        (equal("s", "5"), "s = '5'"),
        (equal("i", "5"), "i = 5"),
        (Not(or_(equal("i", 1), is_null("s"))), "(i != 1 AND s IS NOT NULL)"),
        (starts_with("s", "ab"), "s STARTS WITH 'ab'"),
    ],
    ids=str,
)
def test_bind(expr, expected) -> None:
    assert b(expr) == expected


@pytest.mark.parametrize(
    "expr",
    [
        equal("i", "5.5"),  # strings must convert exactly: engines round them
        equal("i", 2**40),
        equal("x", Decimal("0.1")),
        equal("f", 0.1),
        equal("dec", 1.5),  # a double literal makes the engine compare in doubles
        equal("d", "2024-01-02 10:00:00"),
        starts_with("i", "1"),
    ],
    ids=str,
)
def test_unrepresentable_literals_are_refused(expr) -> None:
    with pytest.raises(UnrepresentableLiteral):
        bind(S, expr)


def test_unknown_column() -> None:
    with pytest.raises(ProgrammingError, match="nope"):
        bind(S, equal("nope", 1))
