"""The REST catalog client: what it does before any server answers."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import OperationalError


def test_an_unreachable_server_is_named():
    with pytest.raises(OperationalError, match=r"REST catalog 'prod' \(http://127\.0\.0\.1:9\)"):
        icesql.connect(catalog="rest", uri="http://127.0.0.1:9", name="prod")


def test_a_uri_that_is_not_http_is_refused():
    with pytest.raises(OperationalError, match="not an http"):
        icesql.connect(catalog="rest", uri="ftp://x/catalog")
