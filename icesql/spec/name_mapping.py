"""Name mapping (``schema.name-mapping.default``): field ids for data files written without
them (e.g. Parquet files imported from Hive), found by column name paths.

Serialized as a JSON list of ``{"field-id", "names", "fields"}`` objects::

    >>> m = NameMapping.from_json('[{"field-id": 3, "names": ["location"], "fields": ['
    ...     '{"field-id": 4, "names": ["latitude", "lat"]}]}]')
    >>> m.find(["location", "lat"]), m.find(["location", "lon"])
    (4, None)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from icesql.spec.schema import Schema
from icesql.spec.types import IcebergType, NestedType

__all__ = ["MappedField", "NameMapping", "create_mapping_from_schema"]


@dataclass(frozen=True)
class MappedField:
    """Names (aliases) that map to one field id, with mappings for nested fields."""

    field_id: int | None
    names: tuple[str, ...]
    fields: tuple[MappedField, ...] = ()

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MappedField:
        names = obj.get("names") or []
        if isinstance(names, str):
            names = [names]
        return MappedField(
            int(obj["field-id"]) if obj.get("field-id") is not None else None,
            tuple(names),
            tuple(MappedField.from_json(f) for f in obj.get("fields") or ()),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.field_id is not None:
            out["field-id"] = self.field_id
        out["names"] = list(self.names)
        if self.fields:
            out["fields"] = [f.to_json() for f in self.fields]
        return out


def _index(
    fields: Sequence[MappedField], prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], int]]:
    for f in fields:
        for name in f.names:
            path = prefix + (name,)
            if f.field_id is not None:
                yield path, f.field_id
            yield from _index(f.fields, path)


@dataclass(frozen=True)
class NameMapping:
    """The top-level field mappings of a table."""

    fields: tuple[MappedField, ...]

    @cached_property
    def _by_path(self) -> dict[tuple[str, ...], int]:
        return dict(_index(self.fields))

    def find(self, path_names: Sequence[str] | str) -> int | None:
        """The field id for a name path (``["location", "lat"]``; a plain string is a
        one-name path), or None when the mapping does not cover it. Names match exactly."""
        path = (path_names,) if isinstance(path_names, str) else tuple(path_names)
        return self._by_path.get(path)

    @staticmethod
    def from_json(obj: str | list[dict[str, Any]]) -> NameMapping:
        """Parse the table property's value (a JSON string) or its decoded list."""
        data = json.loads(obj) if isinstance(obj, str) else obj
        if not isinstance(data, list):
            raise ValueError(f"a name mapping is a JSON list, got {type(data).__name__}")
        return NameMapping(tuple(MappedField.from_json(f) for f in data))

    def to_json(self) -> list[dict[str, Any]]:
        return [f.to_json() for f in self.fields]

    def to_json_string(self) -> str:
        """The value to store in ``schema.name-mapping.default``."""
        return json.dumps(self.to_json())


def _mapped_children(t: IcebergType) -> tuple[MappedField, ...]:
    if not isinstance(t, NestedType):
        return ()
    return tuple(MappedField(f.field_id, (f.name,), _mapped_children(f.type)) for f in t.fields)


def create_mapping_from_schema(schema: Schema) -> NameMapping:
    """A mapping of every field by its current name (lists map ``element``, maps ``key`` and
    ``value``), as Java's ``MappingUtil.create`` builds it."""
    return NameMapping(_mapped_children(schema.as_struct()))
