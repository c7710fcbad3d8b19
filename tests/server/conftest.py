"""Fixtures of the REST server tests: ``rest`` (an open server) and ``rest_with_token``."""

from __future__ import annotations

import pytest
from rest_support import start_rest_server, stop_rest_server

TOKEN = "s3cr3t-token"


@pytest.fixture
def rest(tmp_path):
    server = start_rest_server(tmp_path)
    yield server
    stop_rest_server(server)


@pytest.fixture
def rest_with_token(tmp_path):
    server = start_rest_server(tmp_path, token=TOKEN, credentials={"client": "client-secret"})
    yield server
    stop_rest_server(server)
