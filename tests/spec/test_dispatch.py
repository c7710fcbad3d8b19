"""The per-primitive-type tables: complete over PRIMITIVE_TYPES, loud on a type they lack."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from icesql.errors import NotSupportedError
from icesql.spec.dispatch import PerPrimitiveType, UnhandledTypeError
from icesql.spec.types import PRIMITIVE_TYPES, IntegerType, LongType, PrimitiveType, StringType


@dataclass(frozen=True)
class Int128Type(PrimitiveType):
    """A primitive type icesql does not know."""

    def __str__(self) -> str:
        return "int128"


def test_a_table_missing_a_primitive_type_fails_where_it_is_built() -> None:
    with pytest.raises(TypeError, match="widths has no case for .*StringType"):
        PerPrimitiveType("widths", {cls: 1 for cls in PRIMITIVE_TYPES if cls is not StringType})


def test_two_cases_for_one_type_are_refused() -> None:
    with pytest.raises(TypeError, match="two cases for IntegerType"):
        PerPrimitiveType("x", {IntegerType: 1, (IntegerType, LongType): 2}, complete=False)


def test_an_unknown_type_raises_naming_the_type_and_the_operation() -> None:
    table = PerPrimitiveType("widths", {cls: 1 for cls in PRIMITIVE_TYPES})
    assert table[IntegerType()] == 1
    with pytest.raises(
        UnhandledTypeError,
        match=r"widths has no case for Iceberg type "
        r"int128 \(Int128Type\)",
    ) as e:
        table[Int128Type()]
    assert isinstance(e.value, NotSupportedError) and e.value.type == Int128Type()
    with pytest.raises(UnhandledTypeError):
        PerPrimitiveType("f", {cls: lambda t: 1 for cls in PRIMITIVE_TYPES})(Int128Type())
    assert table.get(Int128Type(), "none") == "none"


def test_a_subclass_of_a_known_type_is_not_taken_for_it() -> None:
    @dataclass(frozen=True)
    class MyString(StringType):
        pass

    with pytest.raises(UnhandledTypeError, match="MyString"):
        PerPrimitiveType("names", {cls: "n" for cls in PRIMITIVE_TYPES})[MyString()]
