"""The per-transform projection rules, called directly (the tables of every rule through a
whole spec are in ``test_projections``)."""

from __future__ import annotations

from icesql.expressions.binding import bind
from icesql.expressions.transform_projections import project, strict_project
from icesql.expressions.tree import Operation, equal, is_null, less_than, predicate
from icesql.spec.schema import Schema
from icesql.spec.transforms import Bucket, Identity, Truncate, UnknownTransform, Void
from icesql.spec.types import IntegerType, NestedField

SCHEMA = Schema((NestedField(1, "x", IntegerType()),))


def test_transforms_return_none_where_not_projectable() -> None:
    bound = bind(SCHEMA, less_than("x", 5))
    assert project(Bucket(4), "p", bound) is None
    assert strict_project(Bucket(4), "p", bound) is None
    assert project(Void(), "p", bound) is None
    assert str(project(Identity(), "p", bound)) == "p < 5"
    assert strict_project(Truncate(10), "p", bind(SCHEMA, equal("x", 5))) is None
    assert predicate(Operation.IS_NULL, "p") == project(
        Truncate(10), "p", bind(SCHEMA, is_null("x"))
    )


def test_transforms_without_rules_project_to_none_both_ways() -> None:
    bound = bind(SCHEMA, equal("x", 5))
    for transform in (Void(), UnknownTransform("zorder")):
        assert project(transform, "p", bound) is None
        assert strict_project(transform, "p", bound) is None
