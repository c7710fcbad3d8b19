"""Partition specs: which transforms of which columns make a data file's partition tuple.

A spec's partition tuple is a struct whose field ids are the partition field ids (1000 and
up), so manifests can be read without the table schema; the path of a partition follows Java
Iceberg exactly, so files land where Spark would put them::

    >>> from icesql.spec.schema import Schema
    >>> from icesql.spec.transforms import Day, Identity
    >>> from icesql.spec.types import NestedField, StringType, TimestampType
    >>> schema = Schema((NestedField(1, "ts", TimestampType()), NestedField(2, "s", StringType())))
    >>> spec = PartitionSpec(0, (PartitionField(1, 1000, Day(), "ts_day"),
    ...                          PartitionField(2, 1001, Identity(), "s")))
    >>> spec.partition_path([-1, "a b/c"], schema)
    'ts_day=1969-12-31/s=a+b%2Fc'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from icesql.errors import ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.transforms import Transform, parse_transform
from icesql.spec.types import (
    IcebergType,
    ListType,
    MapType,
    NestedField,
    StructType,
    UnknownType,
    is_primitive,
    json_int,
)

__all__ = [
    "PARTITION_DATA_ID_START",
    "PartitionField",
    "PartitionSpec",
    "UNPARTITIONED_SPEC",
    "check_partition_names",
    "escape_path_part",
]

PARTITION_DATA_ID_START = 1000
"""The first partition field id (v1 assigned 1000, 1001, ... by position)."""


@dataclass(frozen=True)
class PartitionField:
    """One partition field. ``source_ids`` holds every source of a multi-argument transform
    (v3); for the usual single source it is empty and ``source_id`` is the source."""

    source_id: int
    field_id: int
    transform: Transform
    name: str
    source_ids: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        if not isinstance(self.source_ids, tuple):
            object.__setattr__(self, "source_ids", tuple(self.source_ids))

    @property
    def all_source_ids(self) -> tuple[int, ...]:
        return self.source_ids or (self.source_id,)

    @staticmethod
    def from_json(obj: dict[str, Any], default_field_id: int | None = None) -> PartitionField:
        """Parse one field; v1 fields without ``field-id`` take ``default_field_id``."""
        source_ids: tuple[int, ...] = ()
        if "source-id" in obj:
            source_id = json_int(obj["source-id"], "source-id")
        elif obj.get("source-ids"):
            source_ids = tuple(json_int(i, "source-ids") for i in obj["source-ids"])
            source_id = source_ids[0]
            source_ids = source_ids if len(source_ids) > 1 else ()
        else:
            raise ValueError(f"partition field has no source-id: {obj!r}")
        field_id = obj.get("field-id", default_field_id)
        if field_id is None:
            raise ValueError(f"partition field has no field-id: {obj!r}")
        return PartitionField(
            source_id,
            json_int(field_id, "field-id"),
            parse_transform(obj["transform"]),
            obj["name"],
            source_ids,
        )

    def to_json(self) -> dict[str, Any]:
        """Only ``source-ids`` for a multi-argument transform, otherwise only ``source-id``."""
        out: dict[str, Any] = {}
        if len(self.source_ids) > 1:
            out["source-ids"] = list(self.source_ids)
        else:
            out["source-id"] = self.source_id
        out["field-id"] = self.field_id
        out["name"] = self.name
        out["transform"] = str(self.transform)
        return out

    def __str__(self) -> str:
        return f"{self.field_id}: {self.name}: {self.transform}({self.source_id})"


@dataclass(frozen=True)
class PartitionSpec:
    """An ordered list of partition fields, identified by ``spec_id``."""

    spec_id: int = 0
    fields: tuple[PartitionField, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.fields, tuple):
            object.__setattr__(self, "fields", tuple(self.fields))

    def is_unpartitioned(self) -> bool:
        """No fields, or only void ones (Java's rule: void fields partition nothing)."""
        return all(f.transform.is_void for f in self.fields)

    def is_partitioned(self) -> bool:
        return not self.is_unpartitioned()

    @property
    def last_assigned_field_id(self) -> int:
        """Highest partition field id, or 999 for an empty spec (next id is this + 1)."""
        return max((f.field_id for f in self.fields), default=PARTITION_DATA_ID_START - 1)

    def fields_by_source_id(self, source_id: int) -> list[PartitionField]:
        return [f for f in self.fields if source_id in f.all_source_ids]

    def is_equivalent(self, other: PartitionSpec) -> bool:
        """Same fields (source ids, transform, name) in the same order; ids may differ."""
        if len(self.fields) != len(other.fields):
            return False
        return all(
            a.all_source_ids == b.all_source_ids
            and str(a.transform) == str(b.transform)
            and a.name == b.name
            for a, b in zip(self.fields, other.fields)
        )

    def partition_type(self, schema: Schema) -> StructType:
        """The partition tuple's struct: partition field ids and names, optional fields of each
        transform's result type. A source column missing from ``schema`` (dropped) gives
        ``unknown``, so old manifests stay readable."""
        out = []
        for f in self.fields:
            source = _source_type(schema, f.source_id)
            result: IcebergType = (
                UnknownType()
                if isinstance(source, UnknownType)
                else f.transform.result_type(source)
            )
            out.append(NestedField(f.field_id, f.name, result, required=False))
        return StructType(tuple(out))

    def partition_path(self, values: Sequence[Any], schema: Schema) -> str:
        """``name=value/...`` with Java's human strings, URL-encoded as Java's URLEncoder
        does (space as ``+``). ``values`` are convention values in field order."""
        if len(values) != len(self.fields):
            raise ValueError(
                f"partition spec {self.spec_id} has {len(self.fields)} fields, "
                f"got {len(values)} values"
            )
        parts = []
        for f, value in zip(self.fields, values):
            source = _source_type(schema, f.source_id)
            text = "null" if value is None else f.transform.to_human_string(source, value)
            parts.append(f"{escape_path_part(f.name)}={escape_path_part(text)}")
        return "/".join(parts)

    def validate(self, schema: Schema) -> None:
        """Java's ``checkCompatibility``, for every spec a table uses: each source (every one of
        a v3 multi-argument field's ``source-ids``) exists, is primitive, sits in structs only
        (not in a list or map) and is a type the transform accepts; names and field ids are
        unique. ``void`` fields are not checked (v1 keeps dropped fields as ``void``).
        Raises ProgrammingError naming the field, the transform and the column."""
        names: set[str] = set()
        ids: set[int] = set()
        for f in self.fields:
            if f.name in names:
                raise ProgrammingError(f"duplicate partition field name {f.name!r}")
            if f.field_id in ids:
                raise ProgrammingError(f"duplicate partition field id {f.field_id}")
            names.add(f.name)
            ids.add(f.field_id)
            if f.transform.is_void:
                continue
            for sid in f.all_source_ids:
                if not schema.has_field_id(sid):
                    raise ProgrammingError(
                        f"partition field {f.name!r} ({f.transform}) refers to missing column"
                        f" id {sid}"
                    )
                source = schema.find_type(sid)
                column = schema.find_column_name(sid)
                where = f"cannot partition by {f.transform}({column}) (partition field {f.name!r})"
                if not is_primitive(source):
                    raise ProgrammingError(f"{where}: {source} is not a primitive type")
                if _inside_list_or_map(schema, sid):
                    raise ProgrammingError(f"{where}: {column!r} is inside a list or map")
                if not f.transform.can_transform(source):
                    raise ProgrammingError(f"{where}: {f.transform} does not apply to {source}")

    def validate_new(self, schema: Schema) -> None:
        """Java's ``PartitionSpec.Builder`` rules for a spec a statement builds (CREATE, CTAS,
        REPLACE): besides :meth:`validate`, no two fields on one source with the same transform
        or two time transforms (``years(ts), months(ts)`` is redundant), and a name equals a
        column's only for the identity partition of that very column."""
        seen: dict[tuple[int, str], PartitionField] = {}
        for f in self.fields:
            if f.transform.is_void:
                continue
            kind = "time" if str(f.transform) in _TIME_TRANSFORMS else str(f.transform)
            key = (f.source_id, kind)
            if key in seen:
                other = seen[key]
                column = (
                    schema.find_column_name(f.source_id)
                    if schema.has_field_id(f.source_id)
                    else str(f.source_id)
                )
                if str(other.transform) == str(f.transform):
                    raise ProgrammingError(
                        f"cannot partition by {f.transform}({column}) twice (partition fields"
                        f" {other.name!r} and {f.name!r})"
                    )
                raise ProgrammingError(
                    f"cannot partition by {f.transform}({column}) (partition field {f.name!r}):"
                    f" redundant with {other.name!r} ({other.transform}({column})), as Iceberg"
                    " allows one time transform per column"
                )
            seen[key] = f
        check_partition_names(schema, self)
        self.validate(schema)

    @staticmethod
    def from_json(obj: dict[str, Any] | list[dict[str, Any]]) -> PartitionSpec:
        """Parse a spec object; a bare field list (v1 ``partition-spec``) gets spec id 0.
        Fields without ``field-id`` (v1) are numbered 1000, 1001, ... by position."""
        if isinstance(obj, list):
            spec_id, raw_fields = 0, obj
        else:
            spec_id, raw_fields = json_int(obj.get("spec-id", 0), "spec-id"), obj.get("fields", [])
        return PartitionSpec(
            spec_id,
            tuple(
                PartitionField.from_json(f, PARTITION_DATA_ID_START + i)
                for i, f in enumerate(raw_fields)
            ),
        )

    def to_json(self) -> dict[str, Any]:
        return {"spec-id": self.spec_id, "fields": [f.to_json() for f in self.fields]}

    def __str__(self) -> str:
        return "[" + ", ".join(str(f) for f in self.fields) + "]"


UNPARTITIONED_SPEC = PartitionSpec(0, ())

_TIME_TRANSFORMS = frozenset({"year", "month", "day", "hour"})


def check_partition_names(schema: Schema, spec: PartitionSpec) -> None:
    """Java's rules: names are unique; a name may equal a column's only for the identity
    partition of that very column (or a ``void`` field)."""
    seen: set[str] = set()
    for f in spec.fields:
        if f.name in seen:
            raise ProgrammingError(f"cannot use partition name {f.name!r} twice")
        seen.add(f.name)
        try:
            column = schema.find_field_by_name(f.name, case_sensitive=True)
        except ProgrammingError:
            continue
        if not (str(f.transform) == "identity" and column.field_id == f.source_id):
            if not f.transform.is_void:
                raise ProgrammingError(
                    f"cannot create partition {f.name!r} from {f.transform}: a column of that"
                    " name exists"
                )


def _source_type(schema: Schema, source_id: int) -> IcebergType:
    return schema.find_type(source_id) if schema.has_field_id(source_id) else UnknownType()


def _inside_list_or_map(schema: Schema, field_id: int) -> bool:
    path = schema.find_column_name(field_id).split(".")
    current: IcebergType = schema.as_struct()
    for part in path[:-1]:
        if isinstance(current, ListType | MapType):
            return True
        assert isinstance(current, StructType)
        child = current.field_by_name(part)
        if child is None:  # a name containing dots; fall back to "not nested"
            return False
        current = child.type
    return isinstance(current, ListType | MapType)


_URL_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")


def escape_path_part(text: str) -> str:
    """``java.net.URLEncoder.encode(text, "UTF-8")``: keep ``[A-Za-z0-9.-*_]``, space to ``+``,
    every other UTF-8 byte as ``%XX``."""
    out = []
    for b in text.encode("utf-8"):
        if b in _URL_SAFE:
            out.append(chr(b))
        elif b == 0x20:
            out.append("+")
        else:
            out.append(f"%{b:02X}")
    return "".join(out)
