"""A bounded fuzz of ``icesql serve`` from the REST spec itself (issue #44): schemathesis
generates requests for every operation of ``open-api/rest-catalog-open-api.yaml``, fitting
the spec and not (wrong JSON types at every level, missing fields, odd names), against a
real server; no answer may be a 5xx or a status the spec does not list for the operation,
and every error is an ErrorModel of its own status.

The copy of the spec in ``data/`` is apache/iceberg's at 7f879b11366e (August 2026); paths
are taken without ``{prefix}`` (the server's config names none). Half of the cases use the
existing ``db.t`` and ``db.v`` as path names, so requests reach the commit, table and view
code, not only the 404 of an unknown table or view.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
import yaml
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

SPEC = Path(__file__).parent / "data" / "rest-catalog-open-api.yaml"
SCHEMA = {
    "type": "struct",
    "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}],
}
VIEW = {
    "name": "v",
    "schema": SCHEMA,
    "view-version": {
        "version-id": 1,
        "timestamp-ms": 1,
        "schema-id": 0,
        "summary": {},
        "default-namespace": ["db"],
        "representations": [{"type": "sql", "sql": "SELECT id FROM db.t", "dialect": "spark"}],
    },
    "properties": {},
}
EXAMPLES = 5  # per operation, mode and kind of path: about 700 requests in all
BUDGET_S = 60


def _spec_without_prefix() -> dict[str, Any]:
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    paths = {}
    for path, item in spec["paths"].items():
        params = [p for p in item.get("parameters", []) if "prefix" not in p.get("$ref", "")]
        paths[path.replace("/{prefix}", "")] = {**item, "parameters": params}
    spec["paths"] = paths
    return spec


def _listed(operation: Any) -> set[int]:
    return {int(code) for code in operation.definition.raw["responses"] if str(code).isdigit()}


def _check(case: Any, response: requests.Response, listed: set[int]) -> None:
    where = f"{case.method} {case.formatted_path} {case.body!r:.300}"
    status = response.status_code
    assert status < 500, f"{where}: {status} {response.text[:500]}"
    assert status in listed, f"{where}: {status} not in {sorted(listed)}: {response.text[:300]}"
    if status >= 400 and case.method != "HEAD":
        body = json.loads(response.content)
        if case.path == "/v1/oauth/tokens":
            assert isinstance(body.get("error"), str), body
        else:
            assert body["error"]["code"] == status and body["error"]["type"], body


def _fuzz(strategy: Any, uri: str, session: requests.Session, listed: set[int]) -> None:
    """``EXAMPLES`` cases of ``strategy``, each sent to the server and checked."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,  # the same cases on every run: CI fails on a bug, not on luck
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def fuzz(case: Any) -> None:
        _check(case, case.call(base_url=uri, session=session), listed)

    fuzz()


@pytest.mark.slow
def test_no_request_the_spec_describes_gets_a_5xx_or_an_unlisted_status(rest):
    assert rest.request("POST", "namespaces", {"namespace": ["db"]})[0] == 200
    assert rest.request("POST", "namespaces/db/tables", {"name": "t", "schema": SCHEMA})[0] == 200
    assert rest.request("POST", "namespaces/db/views", VIEW)[0] == 200
    schema = schemathesis.openapi.from_dict(_spec_without_prefix())
    started = time.monotonic()
    with requests.Session() as session:
        for result in schema.get_all_operations():
            operation = result.ok()
            listed = _listed(operation)
            named = (("namespace", "db"), ("table", "t"), ("view", "v"))
            names = {p: v for p, v in named if p in operation.path}
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                for path_parameters in ({}, names):
                    strategy = operation.as_strategy(mode, path_parameters=path_parameters)

                    _fuzz(strategy, rest.uri, session, listed)
            assert time.monotonic() - started < BUDGET_S, "the fuzz is over its time budget"
    assert rest.request("GET", "config")[0] == 200
