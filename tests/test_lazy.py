"""``icesql._lazy``: a module bound at the top of another loads when first read, once."""

from __future__ import annotations

from fresh_process_support import run_python

from icesql._lazy import lazy_module


def test_the_module_loads_on_first_attribute_read() -> None:
    code = (
        "import sys\n"
        "from icesql._lazy import lazy_module\n"
        "tree = lazy_module('icesql.expressions.tree')\n"
        "before = 'icesql.expressions.tree' in sys.modules\n"
        "value = tree.ALWAYS_TRUE\n"
        "import icesql.expressions.tree as real\n"
        "print(before, value is real.ALWAYS_TRUE, 'loaded' in repr(tree))\n"
    )
    assert run_python(code) == ["False True True"]


def test_patches_of_the_real_module_are_seen(monkeypatch) -> None:
    import icesql.spec.values as real

    values = lazy_module("icesql.spec.values")
    monkeypatch.setattr(real, "MICROS_PER_DAY", 7)
    assert values.MICROS_PER_DAY == 7


def test_a_missing_name_raises_attribute_error() -> None:
    values = lazy_module("icesql.spec.values")
    try:
        values.no_such_name  # noqa: B018
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("no AttributeError")
