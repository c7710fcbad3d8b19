"""The harness's size: small enough for a CI pass unless ``--soak`` (tests/conftest.py) asks
for the long run."""

from __future__ import annotations

import pytest


@pytest.fixture
def soak(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--soak"))
