"""Iceberg data types as small frozen dataclasses, and their JSON form (spec Appendix C).

Types are values: two ``DecimalType(9, 2)`` compare equal and hash alike, so they can key
dicts and sit inside other frozen trees. ``str(t)`` is the spec's type string::

    >>> str(DecimalType(9, 2)), str(FixedType(16)), str(TimestamptzNanoType())
    ('decimal(9,2)', 'fixed[16]', 'timestamptz_ns')
    >>> type_from_json("decimal(9, 2)") == DecimalType(9, 2)
    True

Default values on fields (``initial_default`` / ``write_default``) are held in icesql's
value convention (see ``icesql.spec.values``) and written with the JSON single-value
serialization of Appendix D.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from icesql.errors import NotSupportedError

__all__ = [
    "BinaryType",
    "BooleanType",
    "DEFAULT_ALGORITHM",
    "DEFAULT_CRS",
    "DateType",
    "DecimalType",
    "DoubleType",
    "FixedType",
    "FloatType",
    "GeographyType",
    "GeometryType",
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "IcebergType",
    "IntegerType",
    "ListType",
    "LongType",
    "MapType",
    "NestedField",
    "NestedType",
    "PRIMITIVE_TYPES",
    "PrimitiveType",
    "StringType",
    "StructType",
    "TimeType",
    "TimestampNanoType",
    "TimestampType",
    "TimestamptzNanoType",
    "TimestamptzType",
    "UUIDType",
    "UnknownType",
    "VariantType",
    "effective_default",
    "field_from_json",
    "field_to_json",
    "is_nested",
    "is_primitive",
    "json_int",
    "min_format_version",
    "type_from_json",
    "type_to_json",
]

DEFAULT_CRS = "OGC:CRS84"
DEFAULT_ALGORITHM = "spherical"
MAX_DECIMAL_PRECISION = 38
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1  # the values of an int (and of a date, in days)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # the values of a long, time or timestamp


class IcebergType:
    """Root of every Iceberg type; subclasses are frozen dataclasses."""

    __slots__ = ()


class PrimitiveType(IcebergType):
    """A type without child fields (includes variant/geometry/geography, which are leaves)."""

    __slots__ = ()


class NestedType(IcebergType):
    """A type with child fields that carry their own ids: struct, list, map."""

    __slots__ = ()

    @property
    def fields(self) -> tuple[NestedField, ...]:
        raise NotImplementedError


@dataclass(frozen=True)
class BooleanType(PrimitiveType):
    """True or false."""

    def __str__(self) -> str:
        return "boolean"


@dataclass(frozen=True)
class IntegerType(PrimitiveType):
    """32-bit signed integer; can promote to long."""

    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class LongType(PrimitiveType):
    """64-bit signed integer."""

    def __str__(self) -> str:
        return "long"


@dataclass(frozen=True)
class FloatType(PrimitiveType):
    """32-bit IEEE 754 float; can promote to double."""

    def __str__(self) -> str:
        return "float"


@dataclass(frozen=True)
class DoubleType(PrimitiveType):
    """64-bit IEEE 754 float."""

    def __str__(self) -> str:
        return "double"


@dataclass(frozen=True)
class DecimalType(PrimitiveType):
    """Fixed-point decimal; precision at most 38, scale fixed by the type."""

    precision: int
    scale: int

    def __post_init__(self) -> None:
        if not 0 < self.precision <= MAX_DECIMAL_PRECISION:
            raise ValueError(f"decimal precision must be 1..38, got {self.precision}")

    def __str__(self) -> str:
        return f"decimal({self.precision},{self.scale})"


@dataclass(frozen=True)
class DateType(PrimitiveType):
    """Calendar date; values are days since 1970-01-01."""

    def __str__(self) -> str:
        return "date"


@dataclass(frozen=True)
class TimeType(PrimitiveType):
    """Time of day; values are microseconds since midnight."""

    def __str__(self) -> str:
        return "time"


@dataclass(frozen=True)
class TimestampType(PrimitiveType):
    """Timestamp without zone; values are microseconds since the epoch."""

    def __str__(self) -> str:
        return "timestamp"


@dataclass(frozen=True)
class TimestamptzType(PrimitiveType):
    """Timestamp with zone, stored in UTC; values are microseconds since the epoch."""

    def __str__(self) -> str:
        return "timestamptz"


@dataclass(frozen=True)
class TimestampNanoType(PrimitiveType):
    """Timestamp without zone, nanosecond precision (v3)."""

    def __str__(self) -> str:
        return "timestamp_ns"


@dataclass(frozen=True)
class TimestamptzNanoType(PrimitiveType):
    """Timestamp with zone, nanosecond precision, stored in UTC (v3)."""

    def __str__(self) -> str:
        return "timestamptz_ns"


@dataclass(frozen=True)
class StringType(PrimitiveType):
    """UTF-8 character string."""

    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True)
class UUIDType(PrimitiveType):
    """Universally unique identifier; 16 bytes big-endian when serialized."""

    def __str__(self) -> str:
        return "uuid"


@dataclass(frozen=True)
class FixedType(PrimitiveType):
    """Fixed-length byte array of ``length`` bytes."""

    length: int

    def __str__(self) -> str:
        return f"fixed[{self.length}]"


@dataclass(frozen=True)
class BinaryType(PrimitiveType):
    """Arbitrary-length byte array."""

    def __str__(self) -> str:
        return "binary"


@dataclass(frozen=True)
class UnknownType(PrimitiveType):
    """Type of a column whose type is not known yet (v3); always optional and null."""

    def __str__(self) -> str:
        return "unknown"


@dataclass(frozen=True)
class VariantType(PrimitiveType):
    """Semi-structured value (v3); opaque to icesql's value model."""

    def __str__(self) -> str:
        return "variant"


@dataclass(frozen=True)
class GeometryType(PrimitiveType):
    """Geospatial features with planar edges (v3), parameterised by a CRS.

    The default CRS is written as the bare ``geometry``, as the reference implementation does.
    """

    crs: str = DEFAULT_CRS

    def __str__(self) -> str:
        return "geometry" if self.crs == DEFAULT_CRS else f"geometry({self.crs})"


@dataclass(frozen=True)
class GeographyType(PrimitiveType):
    """Geospatial features (v3), parameterised by CRS and edge-interpolation algorithm."""

    crs: str = DEFAULT_CRS
    algorithm: str = DEFAULT_ALGORITHM

    def __str__(self) -> str:
        if self.algorithm != DEFAULT_ALGORITHM:
            return f"geography({self.crs}, {self.algorithm})"
        if self.crs != DEFAULT_CRS:
            return f"geography({self.crs})"
        return "geography"


@dataclass(frozen=True)
class NestedField:
    """A named, id-carrying field of a struct (also used to describe list elements and map
    keys/values). Defaults are in the value convention; they do not take part in hashing
    because struct/list/map defaults are mutable containers.
    """

    field_id: int
    name: str
    type: IcebergType
    required: bool = False
    doc: str | None = None
    initial_default: Any = field(default=None, hash=False)
    write_default: Any = field(default=None, hash=False)

    @property
    def optional(self) -> bool:
        return not self.required

    def __str__(self) -> str:
        doc = f" ({self.doc})" if self.doc else ""
        req = "required" if self.required else "optional"
        return f"{self.field_id}: {self.name}: {req} {self.type}{doc}"


@dataclass(frozen=True)
class StructType(NestedType):
    """A tuple of named fields; a table schema is also a struct."""

    fields: tuple[NestedField, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.fields, tuple):
            object.__setattr__(self, "fields", tuple(self.fields))

    def field(self, field_id: int) -> NestedField | None:
        """The direct child with this id, or None."""
        for f in self.fields:
            if f.field_id == field_id:
                return f
        return None

    def field_by_name(self, name: str, case_sensitive: bool = True) -> NestedField | None:
        """The direct child with this name, or None."""
        if case_sensitive:
            return next((f for f in self.fields if f.name == name), None)
        lowered = name.lower()
        return next((f for f in self.fields if f.name.lower() == lowered), None)

    def __str__(self) -> str:
        return f"struct<{', '.join(str(f) for f in self.fields)}>"


@dataclass(frozen=True)
class ListType(NestedType):
    """A list whose element field has its own id and nullability."""

    element_id: int
    element_type: IcebergType
    element_required: bool

    @property
    def element_field(self) -> NestedField:
        return NestedField(self.element_id, "element", self.element_type, self.element_required)

    @property
    def fields(self) -> tuple[NestedField, ...]:
        return (self.element_field,)

    def __str__(self) -> str:
        return f"list<{self.element_type}>"


@dataclass(frozen=True)
class MapType(NestedType):
    """A map; keys are always required, values may be optional."""

    key_id: int
    key_type: IcebergType
    value_id: int
    value_type: IcebergType
    value_required: bool

    @property
    def key_field(self) -> NestedField:
        return NestedField(self.key_id, "key", self.key_type, True)

    @property
    def value_field(self) -> NestedField:
        return NestedField(self.value_id, "value", self.value_type, self.value_required)

    @property
    def fields(self) -> tuple[NestedField, ...]:
        return (self.key_field, self.value_field)

    def __str__(self) -> str:
        return f"map<{self.key_type}, {self.value_type}>"


PRIMITIVE_TYPES: tuple[type[PrimitiveType], ...] = (
    BooleanType,
    IntegerType,
    LongType,
    FloatType,
    DoubleType,
    DecimalType,
    DateType,
    TimeType,
    TimestampType,
    TimestamptzType,
    TimestampNanoType,
    TimestamptzNanoType,
    StringType,
    UUIDType,
    FixedType,
    BinaryType,
    UnknownType,
    VariantType,
    GeometryType,
    GeographyType,
)
"""Every primitive type class: each per-type table (``icesql.spec.dispatch``) has a case for
each, so a type added here fails at import in every table that does not handle it yet."""


def is_primitive(t: IcebergType) -> bool:
    """True for every non-nested type (variant, geometry and geography included)."""
    return isinstance(t, PrimitiveType)


def is_nested(t: IcebergType) -> bool:
    """True for struct, list and map."""
    return isinstance(t, NestedType)


def effective_default(f: NestedField, initial: bool = True) -> Any:
    """The value ``f``'s ``initial-default`` (or ``write-default``) stands for. A struct's stored
    default holds no field values (spec: null or an empty struct); a non-null one is a new
    struct of each field's own default, at every depth."""
    value = f.initial_default if initial else f.write_default
    if value is None or not isinstance(f.type, StructType):
        return value
    return {c.field_id: effective_default(c, initial) for c in f.type.fields}


_V3_TYPES = (
    TimestampNanoType,
    TimestamptzNanoType,
    UnknownType,
    VariantType,
    GeometryType,
    GeographyType,
)


def min_format_version(t: IcebergType) -> int:
    """The first format version whose tables may hold ``t`` (a nested type: its children),
    as the spec's type table says; Java refuses a schema with a newer type
    (``Schema.checkCompatibility``), since older readers would misread it.

    >>> min_format_version(TimestampNanoType()), min_format_version(ListType(1, IntegerType(), False))
    (3, 1)
    """
    if isinstance(t, NestedType):
        return max((min_format_version(f.type) for f in t.fields), default=1)
    return 3 if isinstance(t, _V3_TYPES) else 1


# ---------------------------------------------------------------------------------------------
# JSON (Appendix C)

_SIMPLE: dict[str, IcebergType] = {
    str(t): t
    for t in (
        BooleanType(),
        IntegerType(),
        LongType(),
        FloatType(),
        DoubleType(),
        DateType(),
        TimeType(),
        TimestampType(),
        TimestamptzType(),
        TimestampNanoType(),
        TimestamptzNanoType(),
        StringType(),
        UUIDType(),
        BinaryType(),
        UnknownType(),
        VariantType(),
    )
}
_FIXED = re.compile(r"fixed\[\s*(\d+)\s*\]")
_DECIMAL = re.compile(r"decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)")
_GEOMETRY = re.compile(r"geometry(?:\(\s*([^,()]+?)\s*\))?")
_GEOGRAPHY = re.compile(r"geography(?:\(\s*([^,()]+?)\s*(?:,\s*([^,()]+?)\s*)?\))?")


def _primitive_from_string(text: str) -> IcebergType:
    lowered = text.strip().lower()
    if lowered in _SIMPLE:
        return _SIMPLE[lowered]
    if m := _FIXED.fullmatch(lowered):
        return FixedType(int(m.group(1)))
    if m := _DECIMAL.fullmatch(lowered):
        return DecimalType(int(m.group(1)), int(m.group(2)))
    # CRS strings are case-sensitive identifiers, so match them on the original text.
    stripped = text.strip()
    if m := _GEOMETRY.fullmatch(stripped):
        return GeometryType(m.group(1) or DEFAULT_CRS)
    if m := _GEOGRAPHY.fullmatch(stripped):
        return GeographyType(m.group(1) or DEFAULT_CRS, (m.group(2) or DEFAULT_ALGORITHM).lower())
    raise NotSupportedError(f"unknown Iceberg type: {text!r}")


def type_from_json(obj: Any) -> IcebergType:
    """Parse a type from its Appendix C JSON form (a string or a struct/list/map object).

    Raises NotSupportedError for an unknown type name, ValueError for a malformed object.
    """
    if isinstance(obj, str):
        return _primitive_from_string(obj)
    if not isinstance(obj, dict):
        raise ValueError(f"cannot parse Iceberg type from {obj!r}")
    kind = obj.get("type")
    try:
        if kind == "struct":
            if not isinstance(obj["fields"], list):
                raise ValueError(f"struct type JSON needs a list of fields: {obj!r}")
            return StructType(tuple(field_from_json(f) for f in obj["fields"]))
        if kind == "list":
            return ListType(
                _json_id(obj, "element-id"),
                type_from_json(obj["element"]),
                _json_bool(obj, "element-required"),
            )
        if kind == "map":
            return MapType(
                _json_id(obj, "key-id"),
                type_from_json(obj["key"]),
                _json_id(obj, "value-id"),
                type_from_json(obj["value"]),
                _json_bool(obj, "value-required"),
            )
    except KeyError as e:
        raise ValueError(f"{kind} type JSON is missing {e.args[0]!r}: {obj!r}") from None
    raise NotSupportedError(f"unknown Iceberg type: {kind!r}")


def json_int(value: Any, key: str) -> int:
    """``value`` of JSON field ``key``, which the spec makes an integer: a string or a float
    (a client's mistake) is refused by name rather than converted."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"field {key!r} must be an integer, got {value!r}")
    return value


def _json_id(obj: dict[str, Any], key: str) -> int:
    return json_int(obj[key], key)


def _json_bool(obj: dict[str, Any], key: str) -> bool:
    value = obj[key]
    if not isinstance(value, bool):
        raise ValueError(f"field {key!r} must be a boolean, got {value!r}")
    return value


def type_to_json(t: IcebergType) -> Any:
    """Serialize a type to its Appendix C JSON form (a string, or a dict for nested types)."""
    if isinstance(t, StructType):
        return {"type": "struct", "fields": [field_to_json(f) for f in t.fields]}
    if isinstance(t, ListType):
        return {
            "type": "list",
            "element-id": t.element_id,
            "element": type_to_json(t.element_type),
            "element-required": t.element_required,
        }
    if isinstance(t, MapType):
        return {
            "type": "map",
            "key-id": t.key_id,
            "key": type_to_json(t.key_type),
            "value-id": t.value_id,
            "value": type_to_json(t.value_type),
            "value-required": t.value_required,
        }
    return str(t)


def field_from_json(obj: dict[str, Any]) -> NestedField:
    """Parse one struct field, decoding defaults with the JSON single-value serialization."""
    from icesql.spec.values import from_json_value  # values imports types

    try:
        ftype = type_from_json(obj["type"])
        field_id, name, required, doc = obj["id"], obj["name"], obj["required"], obj.get("doc")
        if not (
            isinstance(field_id, int)
            and not isinstance(field_id, bool)
            and isinstance(name, str)
            and isinstance(required, bool)
            and (doc is None or isinstance(doc, str))
        ):
            raise ValueError(
                "struct field JSON needs an integer 'id', a string 'name' and 'doc' and a"
                f" boolean 'required': {obj!r}"
            )
        return NestedField(
            field_id=field_id,
            name=name,
            type=ftype,
            required=required,
            doc=doc,
            initial_default=from_json_value(ftype, obj.get("initial-default")),
            write_default=from_json_value(ftype, obj.get("write-default")),
        )
    except KeyError as e:
        raise ValueError(f"struct field JSON is missing {e.args[0]!r}: {obj!r}") from None


def field_to_json(f: NestedField) -> dict[str, Any]:
    """Serialize one struct field; absent doc and defaults are left out."""
    from icesql.spec.values import to_json_value

    out: dict[str, Any] = {
        "id": f.field_id,
        "name": f.name,
        "required": f.required,
        "type": type_to_json(f.type),
    }
    if f.doc is not None:
        out["doc"] = f.doc
    if f.initial_default is not None:
        out["initial-default"] = to_json_value(f.type, f.initial_default)
    if f.write_default is not None:
        out["write-default"] = to_json_value(f.type, f.write_default)
    return out
