"""Small readers for JSON fields that say which key was wrong, for the metadata parsers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, overload

from icesql.spec.types import json_int


@overload
def get_int(obj: Mapping[str, Any], key: str, required: Literal[True] = True) -> int: ...
@overload
def get_int(obj: Mapping[str, Any], key: str, required: bool) -> int | None: ...
def get_int(obj: Mapping[str, Any], key: str, required: bool = True) -> int | None:
    """An integer JSON field; ValueError (with the key) when missing or of another type."""
    value = obj.get(key)
    if value is None:
        if required:
            raise ValueError(f"missing required field {key!r}")
        return None
    return json_int(value, key)


@overload
def get_str(obj: Mapping[str, Any], key: str, required: Literal[True] = True) -> str: ...
@overload
def get_str(obj: Mapping[str, Any], key: str, required: bool) -> str | None: ...
def get_str(obj: Mapping[str, Any], key: str, required: bool = True) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise ValueError(f"missing required field {key!r}")
        return None
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} must be a string, got {value!r}")
    return value


def extra_keys(obj: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in known}


def json_object(obj: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise ValueError(f"{what} must be a JSON object, got {obj!r}")
    return obj
