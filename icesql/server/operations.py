"""The REST spec's operations and the client-error statuses it lists for each one.

A client knows what an operation may answer from the spec alone, so an error whose usual
status the spec does not list for that operation is answered 400 ``BadRequestException``
instead: the views or encryption keys a commit may not hold are refused with 400 (the spec
lists no 406 for ``updateTable``), and an operation this server does not implement whose
spec lists no 404 (``signRequest``) answers 400 too. 5xx statuses stay as they are (every
operation lists ``5XX``), and so do 413 (the server's body limit, before any operation).

    >>> operation("POST", ["namespaces", "db", "tables", "t"])
    'updateTable'
    >>> sorted(client_statuses("updateTable"))
    [400, 401, 403, 404, 409, 419]
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["client_statuses", "operation"]

# (method, path under /v1 without the prefix, operationId, its 4xx statuses), from
# open-api/rest-catalog-open-api.yaml (tests/server/data holds the copy the tests read)
_OPERATIONS: list[tuple[str, str, str, frozenset[int]]] = [
    (m, p, op, frozenset(codes))
    for m, p, op, codes in [
        ("GET", "config", "getConfig", {400, 401, 403, 404, 419}),
        ("POST", "oauth/tokens", "getToken", {400, 401}),
        ("GET", "namespaces", "listNamespaces", {400, 401, 403, 404, 419}),
        ("POST", "namespaces", "createNamespace", {400, 401, 403, 406, 409, 419}),
        ("GET", "namespaces/*", "loadNamespaceMetadata", {400, 401, 403, 404, 419}),
        ("HEAD", "namespaces/*", "namespaceExists", {400, 401, 403, 404, 419}),
        ("DELETE", "namespaces/*", "dropNamespace", {400, 401, 403, 404, 409, 419}),
        (
            "POST",
            "namespaces/*/properties",
            "updateProperties",
            {400, 401, 403, 404, 406, 419, 422},
        ),
        ("GET", "namespaces/*/tables", "listTables", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/tables", "createTable", {400, 401, 403, 404, 409, 419}),
        ("GET", "namespaces/*/functions", "listFunctions", {400, 401, 403, 404, 419}),
        ("GET", "namespaces/*/functions/*", "loadFunction", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/tables/*/plan", "planTableScan", {400, 401, 403, 404, 406, 419}),
        ("GET", "namespaces/*/tables/*/plan/*", "fetchPlanningResult", {400, 401, 403, 404, 419}),
        ("DELETE", "namespaces/*/tables/*/plan/*", "cancelPlanning", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/tables/*/tasks", "fetchScanTasks", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/register", "registerTable", {400, 401, 403, 404, 409, 419}),
        ("GET", "namespaces/*/tables/*", "loadTable", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/tables/*", "updateTable", {400, 401, 403, 404, 409, 419}),
        ("DELETE", "namespaces/*/tables/*", "dropTable", {400, 401, 403, 404, 419}),
        ("HEAD", "namespaces/*/tables/*", "tableExists", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/tables/*/unregister", "unregisterTable", {400, 401, 403, 404, 419}),
        ("GET", "namespaces/*/tables/*/credentials", "loadCredentials", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/tables/*/sign", "signRequest", {400, 401, 403, 419}),
        ("POST", "tables/rename", "renameTable", {400, 401, 403, 404, 406, 409, 419}),
        ("POST", "namespaces/*/tables/*/metrics", "reportMetrics", {400, 401, 403, 404, 419}),
        ("POST", "transactions/commit", "commitTransaction", {400, 401, 403, 404, 409, 419}),
        ("GET", "namespaces/*/views", "listViews", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/views", "createView", {400, 401, 403, 404, 409, 419}),
        ("GET", "namespaces/*/views/*", "loadView", {400, 401, 403, 404, 419}),
        ("POST", "namespaces/*/views/*", "replaceView", {400, 401, 403, 404, 409, 419}),
        ("DELETE", "namespaces/*/views/*", "dropView", {400, 401, 403, 404, 419}),
        ("HEAD", "namespaces/*/views/*", "viewExists", {400, 401, 404, 419}),
        ("POST", "views/rename", "renameView", {400, 401, 403, 404, 406, 409, 419}),
        ("POST", "namespaces/*/register-view", "registerView", {400, 401, 403, 404, 409, 419}),
    ]
]
_STATUSES = {op: codes for _, _, op, codes in _OPERATIONS}


def _matches(pattern: str, segments: Sequence[str]) -> bool:
    parts = pattern.split("/")
    return len(parts) == len(segments) and all(p in ("*", s) for p, s in zip(parts, segments))


def operation(method: str, segments: Sequence[str]) -> str | None:
    """The spec's operationId of ``method`` on the path segments after ``/v1``, else None."""
    return next((op for m, p, op, _ in _OPERATIONS if m == method and _matches(p, segments)), None)


def client_statuses(operation_id: str | None) -> frozenset[int] | None:
    """The 4xx statuses the spec lists for the operation (None: not an operation of it)."""
    return _STATUSES.get(operation_id) if operation_id else None
