"""The examples in the docstrings of the expression, predicate, planning and SQL rewrite
modules run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "icesql.expressions.tree",
    "icesql.expressions.literals",
    "icesql.expressions.binding",
    "icesql.expressions.visitors",
    "icesql.expressions.evaluator",
    "icesql.expressions.projections",
    "icesql.expressions.transform_projections",
    "icesql.expressions.inclusive_metrics",
    "icesql.expressions.strict_metrics",
    "icesql.expressions.bounds",
    "icesql.sql.bound_query",
    "icesql.sql.predicates",
    "icesql.sql.semantics",
    "icesql.sql.spark.numbers",
    "icesql.sql.spark.text",
    "icesql.sql.spark.datetimes",
    "icesql.sql.spark.arrays",
    "icesql.sql.spark.relations",
    "icesql.sql.spark.aggregates",
    "icesql.sql.spark.overflow",
    "icesql.sql.spark.functions",
    "icesql.sql.spark.time_formats",
    "icesql.sql.output_names",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    extra = {}
    for spec_module in ("types", "schema"):
        m = importlib.import_module(f"icesql.spec.{spec_module}")
        extra.update({k: getattr(m, k) for k in getattr(m, "__all__", [])})
    from decimal import Decimal

    from icesql.spec.schema import Schema

    extra.update({"Decimal": Decimal, "Schema": Schema})
    result = doctest.testmod(module, extraglobs=extra, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
