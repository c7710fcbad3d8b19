"""Builds the example warehouse (``make_warehouse.py``) before the checks run."""

from __future__ import annotations

import pytest
from make_warehouse import build


def pytest_configure(config: pytest.Config) -> None:
    warehouse = config.getoption("icesql_warehouse") or config.getini("icesql_warehouse")
    build(config.inipath.parent / warehouse if config.inipath else warehouse)
