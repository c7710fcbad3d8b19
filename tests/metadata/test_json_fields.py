"""Typed readers of JSON fields: the value when it has the type, otherwise a ValueError that
names the key (and the offending value) so a metadata parser's error points at the field."""

from __future__ import annotations

import json

import pytest

from icesql.metadata.json_fields import extra_keys, get_int, get_str, json_object

# parsed from JSON text, as the metadata parsers see them
DOC = json.loads(
    '{"n": 7, "big": 9223372036854775807, "neg": -1, "zero": 0, "flag": true, "f": 1.0,'
    ' "s": "x", "empty": "", "null": null, "list": [1]}'
)


@pytest.mark.parametrize(
    "key, expected",
    [("n", 7), ("big", 2**63 - 1), ("neg", -1), ("zero", 0)],
)
def test_get_int_returns_json_integers(key: str, expected: int) -> None:
    assert get_int(DOC, key) == expected


@pytest.mark.parametrize(
    "key, message",
    [
        ("flag", "field 'flag' must be an integer, got True"),  # bool is an int in Python
        ("f", "field 'f' must be an integer, got 1.0"),
        ("s", "field 's' must be an integer, got 'x'"),
        ("list", "field 'list' must be an integer, got [1]"),
        ("missing", "missing required field 'missing'"),
        ("null", "missing required field 'null'"),  # JSON null counts as absent
    ],
)
def test_get_int_names_the_key(key: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        get_int(DOC, key)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "key, expected",
    [("s", "x"), ("empty", ""), ("missing", None), ("null", None)],
)
def test_optional_fields_may_be_absent(key: str, expected: str | None) -> None:
    assert get_str(DOC, key, required=False) == expected
    if expected is None:
        assert get_int(DOC, key, required=False) is None


@pytest.mark.parametrize(
    "key, message",
    [
        ("n", "field 'n' must be a string, got 7"),
        ("flag", "field 'flag' must be a string, got True"),
        ("missing", "missing required field 'missing'"),
    ],
)
def test_get_str_names_the_key(key: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        get_str(DOC, key)
    assert str(info.value) == message
    if key != "missing":  # a present value of the wrong type is wrong even when optional
        with pytest.raises(ValueError, match=f"field {key!r}"):
            get_str(DOC, key, required=False)


def test_extra_keys_keeps_the_unknown_keys_in_order() -> None:
    assert extra_keys(DOC, frozenset({"n", "big", "neg", "zero", "flag", "f", "s"})) == {
        "empty": "",
        "null": None,
        "list": [1],
    }
    assert list(extra_keys({"b": 1, "a": 2, "c": 3}, frozenset({"a"}))) == ["b", "c"]
    assert extra_keys({}, frozenset({"a"})) == {}


@pytest.mark.parametrize("value", [[1], "x", 3, None])
def test_json_object_rejects_non_objects_naming_what(value) -> None:
    with pytest.raises(ValueError) as info:
        json_object(value, "snapshot")
    assert str(info.value) == f"snapshot must be a JSON object, got {value!r}"
    assert json_object(DOC, "snapshot") is DOC
