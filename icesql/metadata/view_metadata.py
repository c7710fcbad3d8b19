"""View metadata (a view's ``*.metadata.json``), format version 1 of Iceberg's view spec.

As with tables, the parsed JSON document is the source of truth: ``ViewMetadata.raw`` is
the object as read, the accessors are derived from it and ``to_json`` writes it back with
the fields in the order Java's ``ViewMetadataParser`` writes them, so what icesql does not
know survives. New versions are made by applying the REST spec's view updates
(``icesql.metadata.view_updates``), the one path for creating, replacing and altering::

    >>> md = parse_view_metadata('''{"view-uuid": "u", "format-version": 1,
    ...   "location": "/wh/db/v", "current-version-id": 1,
    ...   "schemas": [{"type": "struct", "schema-id": 0, "fields": [
    ...       {"id": 0, "name": "n", "required": false, "type": "long"}]}],
    ...   "versions": [{"version-id": 1, "timestamp-ms": 5, "schema-id": 0,
    ...       "summary": {"engine-name": "spark"}, "default-namespace": ["db"],
    ...       "representations": [{"type": "sql", "sql": "SELECT 1 AS n", "dialect": "spark"}]}],
    ...   "version-log": [{"timestamp-ms": 5, "version-id": 1}]}''')
    >>> md.sql_for("spark"), md.current_version.default_namespace
    ('SELECT 1 AS n', ('db',))
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

from icesql.errors import CorruptFileError, NotSupportedError
from icesql.metadata.json_fields import get_int, get_str, json_object
from icesql.spec.schema import Schema

__all__ = [
    "SUPPORTED_VIEW_FORMAT_VERSION",
    "ViewMetadata",
    "ViewVersion",
    "parse_view_metadata",
]

SUPPORTED_VIEW_FORMAT_VERSION = 1
_FIELD_ORDER = (  # ViewMetadataParser.toJson's order
    "view-uuid",
    "format-version",
    "location",
    "properties",
    "schemas",
    "current-version-id",
    "versions",
    "version-log",
)
_VERSION_ORDER = (
    "version-id",
    "timestamp-ms",
    "schema-id",
    "summary",
    "default-catalog",
    "default-namespace",
    "representations",
)


@dataclass(frozen=True)
class ViewVersion:
    """One immutable version of a view's definition."""

    raw: Mapping[str, Any]

    @property
    def version_id(self) -> int:
        return get_int(self.raw, "version-id")

    @property
    def schema_id(self) -> int:
        return get_int(self.raw, "schema-id")

    @property
    def timestamp_ms(self) -> int:
        return get_int(self.raw, "timestamp-ms")

    @property
    def summary(self) -> Mapping[str, str]:
        return MappingProxyType(dict(self.raw.get("summary") or {}))

    @property
    def default_catalog(self) -> str | None:
        value = self.raw.get("default-catalog")
        return str(value) if value is not None else None

    @property
    def default_namespace(self) -> tuple[str, ...]:
        return tuple(str(p) for p in self.raw.get("default-namespace") or ())

    @property
    def dialects(self) -> list[str]:
        """The dialects of its SQL representations, as written."""
        return [
            str(r.get("dialect"))
            for r in self.raw.get("representations") or ()
            if isinstance(r, dict) and r.get("type") == "sql"
        ]

    def sql_for(self, dialect: str) -> str | None:
        """The SQL text of the representation in ``dialect`` (case-insensitive), if any."""
        for r in self.raw.get("representations") or ():
            if (
                isinstance(r, dict)
                and r.get("type") == "sql"
                and str(r.get("dialect", "")).lower() == dialect.lower()
            ):
                return str(r.get("sql"))
        return None


class ViewMetadata:
    """One version of a view's metadata document."""

    def __init__(self, raw: Mapping[str, Any], metadata_location: str | None = None):
        self._raw = dict(raw)
        self.metadata_location = metadata_location
        self._validate()

    @property
    def raw(self) -> Mapping[str, Any]:
        return MappingProxyType(self._raw)

    def to_json(self, indent: int | None = None) -> str:
        ordered = {k: self._raw[k] for k in _FIELD_ORDER if k in self._raw}
        ordered.update({k: v for k, v in self._raw.items() if k not in ordered})
        if not ordered.get("properties"):
            ordered.pop("properties", None)  # Java leaves an empty map out
        ordered["versions"] = [_ordered_version(v) for v in ordered.get("versions", [])]
        return json.dumps(ordered, indent=indent, ensure_ascii=False)

    def _validate(self) -> None:
        what = "view metadata"
        version = get_int(self._raw, "format-version")
        if version != SUPPORTED_VIEW_FORMAT_VERSION:
            raise NotSupportedError(
                f"view metadata format version {version} is not supported (only version 1)"
            )
        get_str(self._raw, "view-uuid")
        get_str(self._raw, "location")
        for key in ("schemas", "versions", "version-log"):
            if not isinstance(self._raw.get(key), list):
                raise ValueError(f"{what}: field {key!r} must be a list")
        current = self.current_version_id
        if current not in self._versions_by_id:
            raise ValueError(
                f"{what}: current version {current} is not among the versions"
                f" {sorted(self._versions_by_id)}"
            )
        if self.current_version.schema_id not in self._schemas_by_id:
            raise ValueError(
                f"{what}: schema {self.current_version.schema_id} of the current version is"
                " not among the schemas"
            )

    @property
    def uuid(self) -> str:
        return get_str(self._raw, "view-uuid")

    @property
    def location(self) -> str:
        return get_str(self._raw, "location")

    @property
    def properties(self) -> Mapping[str, str]:
        props = self._raw.get("properties") or {}
        return MappingProxyType({str(k): str(v) for k, v in props.items()})

    @property
    def current_version_id(self) -> int:
        return get_int(self._raw, "current-version-id")

    @cached_property
    def _versions_by_id(self) -> dict[int, ViewVersion]:
        versions = (ViewVersion(json_object(v, "view version")) for v in self._raw["versions"])
        return {v.version_id: v for v in versions}

    @cached_property
    def _schemas_by_id(self) -> dict[int, Schema]:
        schemas = (
            Schema.from_json(dict(json_object(s, "view schema"))) for s in self._raw["schemas"]
        )
        return {s.schema_id: s for s in schemas}

    @property
    def versions(self) -> list[ViewVersion]:
        return list(self._versions_by_id.values())

    @property
    def schemas(self) -> list[Schema]:
        return list(self._schemas_by_id.values())

    def version(self, version_id: int) -> ViewVersion | None:
        return self._versions_by_id.get(version_id)

    def schema_by_id(self, schema_id: int) -> Schema | None:
        return self._schemas_by_id.get(schema_id)

    @property
    def current_version(self) -> ViewVersion:
        return self._versions_by_id[self.current_version_id]

    @property
    def schema(self) -> Schema:
        """The schema of the current version."""
        return self._schemas_by_id[self.current_version.schema_id]

    def sql_for(self, dialect: str) -> str | None:
        return self.current_version.sql_for(dialect)


def parse_view_metadata(data: str | bytes, path: str | None = None) -> ViewMetadata:
    """Parse a view metadata document (gzip-compressed or not); errors name ``path``."""
    where = path or "<view metadata>"
    try:
        if isinstance(data, bytes) and data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        obj = json.loads(data)
    except (OSError, EOFError, zlib.error, ValueError) as e:
        raise CorruptFileError(where, f"not view metadata JSON: {e}") from e
    if not isinstance(obj, dict):
        raise CorruptFileError(where, "view metadata is not a JSON object")
    try:
        return ViewMetadata(obj, path)
    except ValueError as e:
        raise CorruptFileError(where, f"view metadata: {e}") from e


def _ordered_version(version: Any) -> Any:
    if not isinstance(version, dict):
        return version
    out = {k: version[k] for k in _VERSION_ORDER if k in version}
    out.update({k: v for k, v in version.items() if k not in out})
    return out
