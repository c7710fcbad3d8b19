"""A table schema: a struct of id-carrying fields, with lookups by id and by dotted name.

Names are indexed the way the reference implementation does it: nested struct fields as
``a.b``, list elements as ``xs.element``, map keys and values as ``m.key`` / ``m.value``; a
struct inside a list or map is also reachable without the ``element``/``value`` step
(``points.x`` for ``points.element.x``)::

    >>> from icesql.spec.types import DoubleType, LongType, NestedField, StructType
    >>> s = Schema((NestedField(1, "id", LongType(), True),
    ...             NestedField(2, "loc", StructType((NestedField(3, "lat", DoubleType()),)))))
    >>> s.find_field_by_name("LOC.lat").field_id, s.find_column_name(3)
    (3, 'loc.lat')
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from icesql.errors import ProgrammingError
from icesql.spec.types import (
    IcebergType,
    ListType,
    MapType,
    NestedField,
    NestedType,
    StructType,
    field_from_json,
    field_to_json,
    json_int,
)

__all__ = ["Schema", "walk_fields"]


def walk_fields(
    struct: NestedType, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], NestedField]]:
    """Every field below ``struct`` depth-first, with its full name path (list elements and
    map keys/values included, named ``element`` / ``key`` / ``value``)."""
    for f in struct.fields:
        path = prefix + (f.name,)
        yield path, f
        if isinstance(f.type, NestedType):
            yield from walk_fields(f.type, path)


@dataclass(frozen=True)
class Schema:
    """An Iceberg schema. Lookups are indexed once, on first use."""

    fields: tuple[NestedField, ...]
    schema_id: int = 0
    identifier_field_ids: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.fields, tuple):
            object.__setattr__(self, "fields", tuple(self.fields))
        if not isinstance(self.identifier_field_ids, tuple):
            object.__setattr__(self, "identifier_field_ids", tuple(self.identifier_field_ids))

    def as_struct(self) -> StructType:
        return StructType(self.fields)

    @property
    def column_names(self) -> list[str]:
        """Top-level column names in schema order."""
        return [f.name for f in self.fields]

    # --- indexes -------------------------------------------------------------------------------

    @cached_property
    def _by_id(self) -> dict[int, tuple[str, NestedField]]:
        index: dict[int, tuple[str, NestedField]] = {}
        for path, f in walk_fields(self.as_struct()):
            index[f.field_id] = (".".join(path), f)
        return index

    @cached_property
    def _by_name(self) -> dict[str, int]:
        """Full dotted names first, then the short names that skip ``element``/``value``."""
        full: dict[str, int] = {name: fid for fid, (name, _) in self._by_id.items()}
        short: dict[str, int] = {}
        for path, f in walk_fields(self.as_struct()):
            trimmed = _short_path(path, self.as_struct())
            if trimmed != path:
                short.setdefault(".".join(trimmed), f.field_id)
        return {**short, **full}

    @cached_property
    def _by_lower_name(self) -> dict[str, int]:
        index: dict[str, int] = {}
        for name, fid in self._by_name.items():
            index.setdefault(name.lower(), fid)
        return index

    # --- lookups -------------------------------------------------------------------------------

    def find_field(self, field_id: int) -> NestedField:
        """The field with this id at any depth; ProgrammingError if there is none."""
        entry = self._by_id.get(field_id)
        if entry is None:
            raise ProgrammingError(f"schema {self.schema_id} has no field with id {field_id}")
        return entry[1]

    def find_type(self, field_id: int) -> IcebergType:
        return self.find_field(field_id).type

    def find_column_name(self, field_id: int) -> str:
        """Full dotted name of a field id, e.g. ``loc.lat`` or ``tags.element``."""
        entry = self._by_id.get(field_id)
        if entry is None:
            raise ProgrammingError(f"schema {self.schema_id} has no field with id {field_id}")
        return entry[0]

    def has_field_id(self, field_id: int) -> bool:
        return field_id in self._by_id

    def field_ids(self) -> list[int]:
        """Every field id at any depth, depth-first in schema order."""
        return list(self._by_id)

    def find_field_by_name(self, name: str, case_sensitive: bool = False) -> NestedField:
        """The field with this (dotted) name; ProgrammingError naming the available columns if
        there is none. Case-insensitive by default, as Spark resolves names."""
        fid = self._lookup_name(name, case_sensitive)
        if fid is None:
            available = ", ".join(self.column_names) or "(none)"
            raise ProgrammingError(
                f"column {name!r} does not exist; available columns: {available}"
            )
        return self._by_id[fid][1]

    def _lookup_name(self, name: str, case_sensitive: bool) -> int | None:
        if case_sensitive:
            return self._by_name.get(name)
        return self._by_lower_name.get(name.lower())

    def highest_field_id(self) -> int:
        return max(self._by_id, default=0)

    def identifier_field_names(self) -> list[str]:
        return [self.find_column_name(fid) for fid in self.identifier_field_ids]

    # --- derived schemas -----------------------------------------------------------------------

    def select(self, *names: str, case_sensitive: bool = False) -> Schema:
        """Project to the named top-level columns, in the order given, keeping field ids."""
        chosen: list[NestedField] = []
        for name in names:
            f = self.as_struct().field_by_name(name, case_sensitive)
            if f is None:
                available = ", ".join(self.column_names) or "(none)"
                raise ProgrammingError(
                    f"column {name!r} does not exist; available columns: {available}"
                )
            if f not in chosen:
                chosen.append(f)
        kept = {fid for f in chosen for fid in _ids_below(f)}
        return Schema(
            tuple(chosen),
            self.schema_id,
            tuple(i for i in self.identifier_field_ids if i in kept),
        )

    # --- JSON (Appendix C) ---------------------------------------------------------------------

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Schema:
        """Parse a schema object (``schema-id`` defaults to 0 as v1 allows)."""
        if obj.get("type", "struct") != "struct" or not isinstance(obj.get("fields"), list):
            raise ValueError(f"not an Iceberg schema object (a list of fields): {obj!r}")
        schema_id = json_int(obj.get("schema-id", 0), "schema-id")
        ids = obj.get("identifier-field-ids") or []
        if not isinstance(ids, list):
            raise ValueError(f"field 'identifier-field-ids' must be a list, got {ids!r}")
        ids = [json_int(i, "identifier-field-ids") for i in ids]
        return Schema(tuple(field_from_json(f) for f in obj["fields"]), schema_id, tuple(ids))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "struct", "schema-id": self.schema_id}
        if self.identifier_field_ids:
            out["identifier-field-ids"] = list(self.identifier_field_ids)
        out["fields"] = [field_to_json(f) for f in self.fields]
        return out

    def __str__(self) -> str:
        body = "\n".join(f"  {f}" for f in self.fields)
        return f"table {{\n{body}\n}}"


def _ids_below(f: NestedField) -> list[int]:
    ids = [f.field_id]
    if isinstance(f.type, NestedType):
        ids.extend(child.field_id for _, child in walk_fields(f.type))
    return ids


def _short_path(path: tuple[str, ...], root: StructType) -> tuple[str, ...]:
    """Drop the ``element`` / ``value`` steps that lead into a list's or map's struct."""
    out: list[str] = []
    current: IcebergType = root
    for part in path:
        if isinstance(current, ListType) and part == "element":
            current = current.element_type
            if isinstance(current, StructType):
                continue
            out.append(part)
            continue
        if isinstance(current, MapType) and part in ("key", "value"):
            current = current.key_type if part == "key" else current.value_type
            if part == "value" and isinstance(current, StructType):
                continue
            out.append(part)
            continue
        assert isinstance(current, StructType)
        f = current.field_by_name(part)
        assert f is not None
        current = f.type
        out.append(part)
    return tuple(out)
