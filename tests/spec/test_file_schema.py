"""The schema data files store: v3 unknown fields left out, and the Arrow form of it."""

from __future__ import annotations

import doctest

import pyarrow as pa
import pytest

from icesql.errors import NotSupportedError
from icesql.spec import file_schema as module
from icesql.spec.file_schema import arrow_write_schema, file_schema
from icesql.spec.schema import Schema
from icesql.spec.types import ListType, LongType, NestedField, StructType, UnknownType


def test_unknown_struct_fields_are_left_out_at_every_level() -> None:
    """Spec: unknown fields are omitted from data files, in structs too (inside lists and maps
    as well); a list element or map value of type unknown has nothing to leave out."""
    inner = StructType((NestedField(3, "a", LongType()), NestedField(4, "b", UnknownType())))
    schema = Schema(
        (
            NestedField(
                1, "s", StructType((NestedField(2, "t", inner), NestedField(5, "u", UnknownType())))
            ),
            NestedField(6, "l", ListType(7, inner, False)),
        )
    )
    kept = file_schema(schema)
    assert str(kept.find_type(1)) == "struct<2: t: optional struct<3: a: optional long>>"
    assert str(kept.find_type(6)) == "list<struct<3: a: optional long>>"
    assert arrow_write_schema(schema).field("s").type == pa.struct(
        [pa.field("t", pa.struct([pa.field("a", pa.int64())]))]
    )
    with pytest.raises(NotSupportedError, match="list element or map key/value of type unknown"):
        file_schema(Schema((NestedField(1, "l", ListType(2, UnknownType(), False)),)))


def test_docstring_examples_run() -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
