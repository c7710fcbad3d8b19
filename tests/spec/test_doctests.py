"""The examples in the spec modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "types",
    "values",
    "schema",
    "transforms",
    "partitioning",
    "sorting",
    "arrow",
    "name_mapping",
    "dispatch",
    "geo",
    "lru",
]


def _spec_names() -> dict:
    """Every public spec name, so examples can use types without importing them."""
    names: dict = {}
    for name in MODULES:
        module = importlib.import_module(f"icesql.spec.{name}")
        names.update({k: getattr(module, k) for k in getattr(module, "__all__", [])})
    from decimal import Decimal

    names["Decimal"] = Decimal
    return names


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"icesql.spec.{name}")
    result = doctest.testmod(module, extraglobs=_spec_names(), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
