"""Every ``>>>`` example in the icesql package runs and shows what it says.

One test per module, found by walking the package, so a new module's examples run without
anyone listing it (the lists of modules this file replaced had missed half of them). Each
example imports what it uses, as a reader pasting it into a REPL would, so no names are
injected here. A module that needs an optional dependency the environment lacks is skipped
with that dependency's name; any other import error fails.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import icesql

# ELLIPSIS: tracebacks and long reprs are shown abridged with "..." in the docstrings.
OPTIONS = doctest.ELLIPSIS


def _module_names() -> list[str]:
    """Every module of the package whose source holds an example, by name.

    Read as text, not imported: a module is imported by its own test, where a missing optional
    dependency becomes a skip rather than a collection error. walk_packages imports packages
    to list their modules; one that cannot be imported is kept, so its test says why.
    """
    unimportable: list[str] = []
    names = ["icesql"] + [
        info.name
        for info in pkgutil.walk_packages(icesql.__path__, "icesql.", onerror=unimportable.append)
    ]
    return sorted(name for name in names if name in unimportable or ">>>" in _source(name))


def _source(name: str) -> str:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, name
    return Path(spec.origin).read_text(encoding="utf-8")


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == "icesql" or missing.startswith("icesql."):
            raise
        pytest.skip(f"{name} needs the optional dependency {missing!r}")


@pytest.mark.parametrize("name", _module_names())
def test_docstring_examples(name: str) -> None:
    module = _import(name)
    # exclude_empty: a docstring without examples is no test; module=module keeps the
    # finder from collecting the examples of objects a module only imports.
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = [t for t in finder.find(module, name, module=module) if t.examples]
    # A ">>>" in the source that no docstring holds (a string, a comment) is no example.
    assert tests, f"{name} has '>>>' in its source but no docstring example"
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    report: list[str] = []
    for test in tests:
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)
