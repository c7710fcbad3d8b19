"""View metadata updates: the REST spec's view ``action``s, applied as Java's
``ViewMetadata.Builder`` applies them.

Creating, replacing and altering a view are all lists of updates (plain JSON objects, as the
REST protocol sends them), so a catalog that writes files and a REST client that sends a
commit build the same next version: ``create_updates`` / ``replace_updates`` make the lists,
``apply_view_updates`` makes the metadata. The builder's rules are kept: an identical schema
or version is reused by id; a new one takes the highest id + 1; ``-1`` means "the one added
last"; a version may hold one SQL text per dialect; a replacement may not drop a dialect
unless ``replace.drop-dialect.allowed``; only the newest ``version.history.num-entries``
versions (10) are kept, and the log is cut before a version no longer kept::

    >>> from icesql.spec.schema import Schema
    >>> from icesql.spec.types import LongType, NestedField
    >>> schema = Schema((NestedField(0, "n", LongType(), required=False),))
    >>> first = apply_view_updates(None, create_updates(
    ...     "u", "/wh/db/v", schema, "SELECT 1 AS n", ("db",), None, {}, {}, now_ms=5))
    >>> second = apply_view_updates(first, replace_updates(
    ...     schema, "SELECT 2 AS n", ("db",), None, {}, {}, now_ms=9))
    >>> second.current_version_id, [e["version-id"] for e in second.raw["version-log"]]
    (2, [1, 2])
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping, Sequence
from typing import Any

from icesql.errors import CommitConflictError, ProgrammingError
from icesql.metadata.view_metadata import SUPPORTED_VIEW_FORMAT_VERSION, ViewMetadata
from icesql.spec.schema import Schema

__all__ = [
    "InvalidViewUpdateError",
    "ViewRequirementFailedError",
    "apply_view_updates",
    "check_view_requirements",
    "create_updates",
    "replace_updates",
]

LAST_ADDED = -1
HISTORY_SIZE = "version.history.num-entries"
HISTORY_SIZE_DEFAULT = 10
DROP_DIALECT_ALLOWED = "replace.drop-dialect.allowed"
VIEW_ACTIONS = frozenset(
    {
        "assign-uuid",
        "upgrade-format-version",
        "add-schema",
        "set-location",
        "set-properties",
        "remove-properties",
        "add-view-version",
        "set-current-view-version",
    }
)


class InvalidViewUpdateError(ProgrammingError):
    """A malformed update, or one the view's metadata cannot take (a client error)."""


class ViewRequirementFailedError(CommitConflictError):
    """The view is no longer the one the change was made from."""


def create_updates(
    uuid: str,
    location: str,
    schema: Schema,
    sql: str,
    default_namespace: Sequence[str],
    default_catalog: str | None,
    properties: Mapping[str, str],
    summary: Mapping[str, str],
    now_ms: int | None = None,
) -> list[dict[str, Any]]:
    """The updates that make a new view (Java's ``ViewBuilder.create``)."""
    return [
        {"action": "assign-uuid", "uuid": uuid},
        {"action": "upgrade-format-version", "format-version": SUPPORTED_VIEW_FORMAT_VERSION},
        {"action": "set-location", "location": location},
        *([{"action": "set-properties", "updates": dict(properties)}] if properties else []),
        *replace_updates(schema, sql, default_namespace, default_catalog, {}, summary, now_ms, 1),
    ]


def replace_updates(
    schema: Schema,
    sql: str,
    default_namespace: Sequence[str],
    default_catalog: str | None,
    properties: Mapping[str, str],
    summary: Mapping[str, str],
    now_ms: int | None = None,
    version_id: int = 1,
) -> list[dict[str, Any]]:
    """The updates that make a new current version (``ViewBuilder.replace``: properties are
    added to the view's, the version id is settled when applied)."""
    version: dict[str, Any] = {
        "version-id": version_id,
        "timestamp-ms": now_ms if now_ms is not None else int(time.time() * 1000),
        "schema-id": LAST_ADDED,
        "summary": dict(summary),
        "default-namespace": list(default_namespace),
        "representations": [{"type": "sql", "sql": sql, "dialect": "spark"}],
    }
    if default_catalog is not None:
        version["default-catalog"] = default_catalog
    return [
        *([{"action": "set-properties", "updates": dict(properties)}] if properties else []),
        {"action": "add-schema", "schema": schema.to_json()},
        {"action": "add-view-version", "view-version": version},
        {"action": "set-current-view-version", "view-version-id": LAST_ADDED},
    ]


def check_view_requirements(
    metadata: ViewMetadata | None, requirements: Sequence[Mapping[str, Any]]
) -> None:
    """The REST spec's view requirements (``assert-view-uuid``) on the current metadata."""
    for requirement in requirements:
        kind = requirement.get("type")
        if kind != "assert-view-uuid":
            raise InvalidViewUpdateError(f"unknown view requirement type: {kind!r}")
        if metadata is None:
            raise ViewRequirementFailedError("Requirement failed: current view metadata is missing")
        if requirement.get("uuid") != metadata.uuid:
            raise ViewRequirementFailedError(
                f"Requirement failed: view UUID does not match: expected {metadata.uuid}"
                f" != {requirement.get('uuid')}"
            )


class _Builder:
    def __init__(self, base: ViewMetadata | None):
        raw = copy.deepcopy(dict(base.raw)) if base is not None else {}
        self.raw: dict[str, Any] = raw
        raw.setdefault("format-version", SUPPORTED_VIEW_FORMAT_VERSION)
        raw.setdefault("properties", {})
        for key in ("schemas", "versions", "version-log"):
            raw.setdefault(key, [])
        self.previous = base.current_version.raw if base is not None else None
        self.added_versions: set[int] = set()
        self.last_schema: int | None = None
        self.last_version: int | None = None
        self.history_entry: dict[str, int] | None = None

    def apply(self, update: Mapping[str, Any]) -> None:
        action = update.get("action")
        if action not in VIEW_ACTIONS:
            raise InvalidViewUpdateError(f"unknown or unsupported view update: {action!r}")
        getattr(self, "_" + str(action).replace("-", "_"))(update)

    def _assign_uuid(self, u: Mapping[str, Any]) -> None:
        uuid = _field(u, "uuid", str)
        if self.raw.get("view-uuid") not in (None, uuid):
            raise InvalidViewUpdateError("Cannot reassign uuid")
        self.raw["view-uuid"] = uuid

    def _upgrade_format_version(self, u: Mapping[str, Any]) -> None:
        version = _field(u, "format-version", int)
        if version != SUPPORTED_VIEW_FORMAT_VERSION:
            raise InvalidViewUpdateError(f"Unsupported format version: {version}")

    def _set_location(self, u: Mapping[str, Any]) -> None:
        self.raw["location"] = _field(u, "location", str)

    def _set_properties(self, u: Mapping[str, Any]) -> None:
        updates = _field(u, "updates", dict)
        self.raw["properties"].update({str(k): str(v) for k, v in updates.items()})

    def _remove_properties(self, u: Mapping[str, Any]) -> None:
        for key in _field(u, "removals", list):
            self.raw["properties"].pop(key, None)

    def _add_schema(self, u: Mapping[str, Any]) -> None:
        try:
            schema = Schema.from_json(dict(_field(u, "schema", dict)))
        except ValueError as e:
            raise InvalidViewUpdateError(f"invalid view schema: {e}") from e
        schemas = [Schema.from_json(s) for s in self.raw["schemas"]]
        for known in schemas:
            if known.fields == schema.fields and (
                known.identifier_field_ids == schema.identifier_field_ids
            ):
                self.last_schema = known.schema_id
                return
        new_id = max((s.schema_id + 1 for s in schemas), default=0)
        self.raw["schemas"].append({**schema.to_json(), "schema-id": new_id})
        self.last_schema = new_id

    def _add_view_version(self, u: Mapping[str, Any]) -> None:
        version = dict(_field(u, "view-version", dict))
        if version.get("schema-id") == LAST_ADDED:
            if self.last_schema is None:
                raise InvalidViewUpdateError(
                    "Cannot set last added schema: no schema has been added"
                )
            version["schema-id"] = self.last_schema
        schema_ids = {s.get("schema-id") for s in self.raw["schemas"]}
        if version.get("schema-id") not in schema_ids:
            raise InvalidViewUpdateError(
                f"Cannot add version with unknown schema: {version.get('schema-id')}"
            )
        dialects = [
            str(r.get("dialect", "")).lower()
            for r in version.get("representations") or ()
            if isinstance(r, dict) and r.get("type") == "sql"
        ]
        if len(dialects) != len(set(dialects)):
            raise InvalidViewUpdateError(
                "Invalid view version: Cannot add multiple queries for dialect"
                f" {next(d for d in dialects if dialects.count(d) > 1)}"
            )
        new_id = _field(version, "version-id", int)
        for known in self.raw["versions"]:
            if _same_version(known, version):
                self.last_version = known["version-id"]
                return
            if known["version-id"] >= new_id:
                new_id = known["version-id"] + 1
        version["version-id"] = new_id
        self.raw["versions"].append(version)
        self.added_versions.add(new_id)
        self.last_version = new_id

    def _set_current_view_version(self, u: Mapping[str, Any]) -> None:
        version_id = _field(u, "view-version-id", int)
        if version_id == LAST_ADDED:
            if self.last_version is None:
                raise InvalidViewUpdateError(
                    "Cannot set last version id: no current version id has been set"
                )
            version_id = self.last_version
        if version_id == self.raw.get("current-version-id"):
            return
        version = next((v for v in self.raw["versions"] if v["version-id"] == version_id), None)
        if version is None:
            raise InvalidViewUpdateError(
                f"Cannot set current version to unknown version: {version_id}"
            )
        self.raw["current-version-id"] = version_id
        added_now = version_id in self.added_versions
        stamp = version["timestamp-ms"] if added_now else int(time.time() * 1000)
        self.history_entry = {"timestamp-ms": stamp, "version-id": version_id}

    def build(self) -> ViewMetadata:
        raw = self.raw
        if "location" not in raw:
            raise InvalidViewUpdateError("Invalid location: null")
        if not raw["versions"]:
            raise InvalidViewUpdateError("Invalid view: no versions were added")
        if self.history_entry is not None:
            raw["version-log"].append(self.history_entry)
        props = raw["properties"]
        current = next(v for v in raw["versions"] if v["version-id"] == raw["current-version-id"])
        if self.previous is not None and props.get(DROP_DIALECT_ALLOWED, "false") != "true":
            before, after = _dialects(self.previous), _dialects(current)
            if not before <= after:
                raise InvalidViewUpdateError(
                    "Cannot replace view due to loss of view dialects"
                    f" ({DROP_DIALECT_ALLOWED}=false): previous dialects {sorted(before)},"
                    f" new dialects {sorted(after)}"
                )
        try:
            size = int(props.get(HISTORY_SIZE, HISTORY_SIZE_DEFAULT))
        except ValueError:
            raise InvalidViewUpdateError(f"{HISTORY_SIZE} must be an integer") from None
        if size <= 0:
            raise InvalidViewUpdateError(f"{HISTORY_SIZE} must be positive but was {size}")
        keep = max(len(self.added_versions | {current["version-id"]}), size)
        if len(raw["versions"]) > keep:
            newest = sorted((v["version-id"] for v in raw["versions"]), reverse=True)
            kept = {current["version-id"]}
            for version_id in newest:
                if len(kept) >= keep:
                    break
                kept.add(version_id)
            raw["versions"] = [v for v in raw["versions"] if v["version-id"] in kept]
            log: list[dict[str, Any]] = []
            for entry in raw["version-log"]:
                log = [*log, entry] if entry["version-id"] in kept else []
            raw["version-log"] = log
        return ViewMetadata(raw)


def apply_view_updates(
    base: ViewMetadata | None, updates: Sequence[Mapping[str, Any]]
) -> ViewMetadata:
    """The metadata ``updates`` make of ``base`` (None: a new view); ``base`` is unchanged."""
    builder = _Builder(base)
    for update in updates:
        builder.apply(update)
    return builder.build()


def _field(obj: Mapping[str, Any], key: str, kind: type) -> Any:
    value = obj.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidViewUpdateError(f"view update field {key!r} must be a {kind.__name__}")
    return value


def _same_version(one: Mapping[str, Any], two: Mapping[str, Any]) -> bool:
    return all(
        one.get(k) == two.get(k)
        for k in ("summary", "representations", "default-catalog", "default-namespace", "schema-id")
    )


def _dialects(version: Mapping[str, Any]) -> set[str]:
    return {
        str(r.get("dialect", "")).lower()
        for r in version.get("representations") or ()
        if isinstance(r, dict) and r.get("type") == "sql"
    }
