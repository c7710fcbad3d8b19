"""Modules a layer loads on first use, declared once at the top of the module that uses them.

``table_scan = lazy_module("icesql.scan.table_scan")`` binds a stand-in that imports the module
when an attribute is first read (``table_scan.TableScan(...)``), so a statement that never
reaches the code (``SELECT 1`` reads no table: no scan planning, no Parquet reader) never pays
for importing it. The import statements for type checkers and import-linter stay in the
module, under ``TYPE_CHECKING``. Attributes are looked up on the real module each time (no
copy), so patching the module (tests' ``monkeypatch``) is seen.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["lazy_module"]


class _LazyModule:
    """Stands for a module until an attribute is read; then it is imported and read from."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not loaded yet"
        return f"<lazy module {self._name!r}, {state}>"


def lazy_module(name: str) -> Any:
    """A stand-in for module ``name`` that imports it on first attribute access."""
    return _LazyModule(name)
