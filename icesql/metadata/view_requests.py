"""The REST spec's view request bodies: ``CreateViewRequest`` and ``CommitViewRequest``.

A server reads them strictly (``read_create_request``, ``read_commit_request``): a field of
the wrong type is an ``InvalidViewUpdateError`` naming it (HTTP 400), never a fault deeper
down, and what is kept on disk has the shape Java's parsers read. A created view is made
by the same updates as a replaced one (``create_request_updates``), so one builder
(``icesql.metadata.view_updates``) makes every version. A client sends the request that
the view's first metadata gives (``create_request``), the shape Java's ``RESTViewBuilder``
sends::

    >>> from icesql.metadata.view_updates import apply_view_updates, create_updates
    >>> from icesql.spec.schema import Schema
    >>> from icesql.spec.types import LongType, NestedField
    >>> schema = Schema((NestedField(0, "n", LongType(), required=False),))
    >>> first = apply_view_updates(None, create_updates(
    ...     "u", "/wh/db/v", schema, "SELECT 1 AS n", ("db",), None, {}, {}, now_ms=5))
    >>> request = create_request("v", first)
    >>> sorted(request), request["view-version"]["schema-id"]
    (['location', 'name', 'properties', 'schema', 'view-version'], 0)
    >>> read_create_request(request).name
    'v'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.metadata.view_metadata import SUPPORTED_VIEW_FORMAT_VERSION, ViewMetadata
from icesql.metadata.view_updates import LAST_ADDED, InvalidViewUpdateError
from icesql.spec.schema import Schema

__all__ = [
    "CreateViewRequest",
    "create_request",
    "create_request_updates",
    "read_commit_request",
    "read_create_request",
    "read_view_update",
    "read_view_version",
]

SQL = "sql"


@dataclass(frozen=True)
class CreateViewRequest:
    """A ``CreateViewRequest`` as read: its schema and first version still JSON, checked."""

    name: str
    location: str | None
    schema: Mapping[str, Any]
    version: Mapping[str, Any]
    properties: Mapping[str, str]


def create_request(name: str, metadata: ViewMetadata, location: bool = True) -> dict[str, Any]:
    """The ``CreateViewRequest`` for a view whose first metadata is ``metadata`` (its current
    schema and version; ``location`` False leaves the place to the server)."""
    version = dict(metadata.current_version.raw)
    schema = next(
        s
        for s in metadata.raw["schemas"]
        if isinstance(s, Mapping) and s.get("schema-id") == version["schema-id"]
    )
    request: dict[str, Any] = {"name": name}
    if location:
        request["location"] = metadata.location
    request.update(
        {
            "schema": dict(schema),
            "view-version": version,
            "properties": dict(metadata.properties),
        }
    )
    return request


def create_request_updates(
    request: CreateViewRequest, uuid: str, location: str
) -> list[dict[str, Any]]:
    """The updates that make the view a ``CreateViewRequest`` asks for, as Java's server
    builds it: version 1 with the client's SQL, summary, default namespace and catalog and
    its timestamp, over the request's schema (whose id the builder assigns)."""
    version = {**request.version, "version-id": 1, "schema-id": LAST_ADDED}
    properties = dict(request.properties)
    return [
        {"action": "assign-uuid", "uuid": uuid},
        {"action": "upgrade-format-version", "format-version": SUPPORTED_VIEW_FORMAT_VERSION},
        {"action": "set-location", "location": location},
        *([{"action": "set-properties", "updates": properties}] if properties else []),
        {"action": "add-schema", "schema": dict(request.schema)},
        {"action": "add-view-version", "view-version": version},
        {"action": "set-current-view-version", "view-version-id": LAST_ADDED},
    ]


def read_create_request(body: Any) -> CreateViewRequest:
    """A ``CreateViewRequest``; Java's server takes only SQL representations, at least one."""
    what = "create view"
    obj = _object(body, what)
    name = _field(obj, "name", str, what)
    location = obj.get("location")
    if location is not None and not isinstance(location, str):
        raise InvalidViewUpdateError(f"{what}: field 'location' must be a string")
    schema = _schema(_field(obj, "schema", dict, what), what)
    version = read_view_version(_field(obj, "view-version", dict, what), f"{what}: view-version")
    kinds = {r["type"] for r in version["representations"]}
    if kinds - {SQL}:
        raise InvalidViewUpdateError(
            f"{what}: found unsupported view representations: {sorted(kinds - {SQL})}"
        )
    if not version["representations"]:
        raise InvalidViewUpdateError(f"{what}: cannot create a view without a query")
    properties = _str_map(_field(obj, "properties", dict, what), "properties", what)
    return CreateViewRequest(name, location, schema, version, properties)


def read_commit_request(
    body: Any,
) -> tuple[tuple[str, ...] | None, list[dict[str, Any]], list[dict[str, Any]]]:
    """A ``CommitViewRequest``: its identifier (None when not given), requirements, updates."""
    what = "commit view"
    obj = _object(body, what)
    identifier = None
    if obj.get("identifier") is not None:
        ident = obj["identifier"]
        namespace = ident.get("namespace") if isinstance(ident, Mapping) else None
        name = ident.get("name") if isinstance(ident, Mapping) else None
        if not (isinstance(namespace, list) and _str_list(namespace) and isinstance(name, str)):
            raise InvalidViewUpdateError(f"{what}: invalid view identifier {ident!r:.100}")
        identifier = (*namespace, name)
    requirements = obj.get("requirements")
    requirements = [] if requirements is None else requirements
    if not isinstance(requirements, list):
        raise InvalidViewUpdateError(f"{what}: 'requirements' must be a list")
    updates = _field(obj, "updates", list, what)
    return (
        identifier,
        [_requirement(r, f"{what}: requirement") for r in requirements],
        [read_view_update(u, f"{what}: update") for u in updates],
    )


def read_view_update(update: Any, what: str = "view update") -> dict[str, Any]:
    """One ``ViewUpdate``, checked field by field (its JSON returned as given)."""
    obj = _object(update, what)
    action = obj.get("action")
    what = f"{what} {action!r}" if isinstance(action, str) else what
    if action == "assign-uuid":
        _field(obj, "uuid", str, what)
    elif action == "upgrade-format-version":
        _int(obj, "format-version", what)
    elif action == "add-schema":
        _schema(_field(obj, "schema", dict, what), what)
        if obj.get("last-column-id") is not None:
            _int(obj, "last-column-id", what)
    elif action == "set-location":
        _field(obj, "location", str, what)
    elif action == "set-properties":
        _str_map(_field(obj, "updates", dict, what), "updates", what)
    elif action == "remove-properties":
        if not _str_list(_field(obj, "removals", list, what)):
            raise InvalidViewUpdateError(f"{what}: field 'removals' must be a list of strings")
    elif action == "add-view-version":
        read_view_version(_field(obj, "view-version", dict, what), what)
    elif action == "set-current-view-version":
        _int(obj, "view-version-id", what)
    else:
        raise InvalidViewUpdateError(f"unknown or unsupported view update: {action!r}")
    return dict(obj)


def read_view_version(obj: Mapping[str, Any], what: str) -> dict[str, Any]:
    """A ``ViewVersion`` as the spec and Java's ``ViewVersionParser`` require it."""
    _int(obj, "version-id", what)
    _int(obj, "timestamp-ms", what, bits=64)
    _int(obj, "schema-id", what)
    _str_map(_field(obj, "summary", dict, what), "summary", what)
    if not _str_list(_field(obj, "default-namespace", list, what)):
        raise InvalidViewUpdateError(f"{what}: field 'default-namespace' must be a list of strings")
    catalog = obj.get("default-catalog")
    if catalog is not None and not isinstance(catalog, str):
        raise InvalidViewUpdateError(f"{what}: field 'default-catalog' must be a string")
    for representation in _field(obj, "representations", list, what):
        rep = _object(representation, f"{what}: representation")
        kind = _field(rep, "type", str, f"{what}: representation")
        if kind == SQL:
            _field(rep, "sql", str, f"{what}: SQL representation")
            _field(rep, "dialect", str, f"{what}: SQL representation")
    return dict(obj)


def _requirement(requirement: Any, what: str) -> dict[str, Any]:
    obj = _object(requirement, what)
    if obj.get("type") != "assert-view-uuid":
        raise InvalidViewUpdateError(f"unknown view requirement type: {obj.get('type')!r}")
    _field(obj, "uuid", str, what)
    return dict(obj)


def _schema(obj: Mapping[str, Any], what: str) -> Mapping[str, Any]:
    try:
        Schema.from_json(dict(obj))
    except (ValueError, TypeError, KeyError, AttributeError, ProgrammingError) as e:
        raise InvalidViewUpdateError(f"{what}: invalid schema: {e}") from None
    except NotSupportedError as e:  # an unknown type name: the request's mistake
        raise InvalidViewUpdateError(f"{what}: invalid schema: {e}") from None
    return obj


def _object(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidViewUpdateError(f"{what} must be a JSON object, got {value!r:.100}")
    return value


def _field(obj: Mapping[str, Any], key: str, kind: type, what: str) -> Any:
    if key not in obj:
        raise InvalidViewUpdateError(f"{what}: missing required field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidViewUpdateError(f"{what}: field {key!r} has the wrong type: {value!r:.100}")
    return value


def _int(obj: Mapping[str, Any], key: str, what: str, bits: int = 32) -> int:
    """An integer that fits Java's ``int`` (``long`` with ``bits=64``), as its parser needs."""
    value = _field(obj, key, int, what)
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise InvalidViewUpdateError(f"{what}: field {key!r} is out of range: {value}")
    return int(value)


def _str_map(value: Mapping[Any, Any], key: str, what: str) -> dict[str, str]:
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise InvalidViewUpdateError(f"{what}: field {key!r} must map strings to strings")
    return dict(value)


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(p, str) for p in value)
