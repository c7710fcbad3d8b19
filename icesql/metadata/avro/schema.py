"""Avro schemas as Iceberg writes them: fields with ids, int-keyed maps as arrays of
key/value records, names made Avro-compatible; and the Iceberg schema of such an Avro schema
(what Java records under ``iceberg.schema`` in a manifest's header)."""

from __future__ import annotations

from typing import Any

_LOGICAL_TO_ICEBERG = {"date": "date", "time-micros": "time"}


def iceberg_schema(record: dict[str, Any]) -> dict[str, Any]:
    """The Iceberg JSON schema (schema-id 0) of a record schema built by this package."""
    return {"type": "struct", "schema-id": 0, "fields": _iceberg_fields(record, {})}


def _iceberg_fields(record: dict[str, Any], named: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for f in record["fields"]:
        t = f["type"]
        required = not (isinstance(t, list) and "null" in t)
        if isinstance(t, list):
            t = next(x for x in t if x != "null")
        field: dict[str, Any] = {
            "id": f["field-id"],
            "name": f.get("iceberg-field-name", f["name"]),
            "required": required,
            "type": _iceberg_type(t, named),
        }
        if "doc" in f:
            field["doc"] = f["doc"]
        out.append(field)
    return out


def _iceberg_type(t: Any, named: dict[str, Any]) -> Any:
    if isinstance(t, str):
        return named.get(t) or {"bytes": "binary"}.get(t, t)
    kind, logical = t["type"], t.get("logicalType")
    if "name" in t and kind == "fixed":
        named[t["name"]] = result = _iceberg_primitive(kind, logical, t)
        return result
    if kind == "record":
        return {"type": "struct", "fields": _iceberg_fields(t, named)}
    if kind == "array" and logical == "map":
        key, value = t["items"]["fields"]
        return {
            "type": "map",
            "key-id": key["field-id"],
            "key": _iceberg_type(key["type"], named),
            "value-id": value["field-id"],
            "value": _iceberg_type(value["type"], named),
            "value-required": True,
        }
    if kind == "array":
        return {
            "type": "list",
            "element-id": t["element-id"],
            "element": _iceberg_type(t["items"], named),
            "element-required": True,
        }
    return _iceberg_primitive(kind, logical, t)


def _iceberg_primitive(kind: str, logical: str | None, t: dict[str, Any]) -> str:
    if logical == "decimal":
        return f"decimal({t['precision']}, {t['scale']})"
    if logical == "uuid":
        return "uuid"
    if logical in ("timestamp-micros", "timestamp-nanos"):
        name = "timestamptz" if t.get("adjust-to-utc") else "timestamp"
        return name + ("_ns" if logical == "timestamp-nanos" else "")
    if logical in _LOGICAL_TO_ICEBERG:
        return _LOGICAL_TO_ICEBERG[logical]
    if kind == "fixed":
        return f"fixed[{t['size']}]"
    return {"bytes": "binary"}.get(kind, kind)


# ---------------------------------------------------------------------------------------------
# Schema building in the shape of Java's AvroSchemaUtil


def avro_field(
    name: str, avro_type: Any, field_id: int, optional: bool = False, doc: str | None = None
) -> dict[str, Any]:
    """One record field: optional fields are a union with null that defaults to null."""
    out: dict[str, Any] = {"name": name, "type": ["null", avro_type] if optional else avro_type}
    if doc is not None:
        out["doc"] = doc
    if optional:
        out["default"] = None
    out["field-id"] = field_id
    return out


def avro_int_map(key_id: int, value_id: int, value_type: str) -> dict[str, Any]:
    """An int-keyed map, stored as an array of key/value records (logical type ``map``)."""
    return {
        "type": "array",
        "items": {
            "type": "record",
            "name": f"k{key_id}_v{value_id}",
            "fields": [
                {"name": "key", "type": "int", "field-id": key_id},
                {"name": "value", "type": value_type, "field-id": value_id},
            ],
        },
        "logicalType": "map",
    }


def avro_list(element_id: int, element_type: Any) -> dict[str, Any]:
    return {"type": "array", "items": element_type, "element-id": element_id}


def compatible_name(name: str) -> str:
    """Java's ``AvroSchemaUtil.makeCompatibleName``: invalid characters become ``_xHEX``."""
    if not name:
        return name
    if _valid_first(name[0]) and all(_valid_rest(c) for c in name[1:]):
        return name
    out = [
        name[0]
        if _valid_first(name[0])
        else ("_" + name[0] if name[0].isdigit() else _escape(name[0]))
    ]
    out += [c if _valid_rest(c) else _escape(c) for c in name[1:]]
    return "".join(out)


def _valid_first(c: str) -> bool:
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _valid_rest(c: str) -> bool:
    return _valid_first(c) or ("0" <= c <= "9")


def _escape(c: str) -> str:
    return "_x" + format(ord(c), "X")
