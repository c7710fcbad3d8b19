"""Fresh field ids in the order of Java's ``TypeUtil.assignFreshIds``: a struct's fields
first, then each field's nested type; a list's element and a map's key and value take their
ids before their contents; names found in a base schema keep their ids."""

from __future__ import annotations

from icesql.spec.fresh_ids import fresh_schema_fields
from icesql.spec.schema import Schema
from icesql.spec.types import (
    IntegerType,
    ListType,
    MapType,
    NestedField,
    StringType,
    StructType,
)


def _unnumbered() -> tuple[NestedField, ...]:
    """a int, b struct<c int, d list<struct<e int>>>, f map<string, struct<g int>>, h int,
    every id 0 (as DDL produces them)."""
    return (
        NestedField(0, "a", IntegerType(), required=True, doc="the a", write_default=7),
        NestedField(0, "b", StructType((
            NestedField(0, "c", IntegerType()),
            NestedField(0, "d", ListType(0, StructType((NestedField(0, "e", IntegerType()),)),
                                         True)),
        ))),
        NestedField(0, "f", MapType(0, StringType(), 0,
                                    StructType((NestedField(0, "g", IntegerType()),)), False)),
        NestedField(0, "h", IntegerType()),
    )  # fmt: skip


def _ids(fields) -> dict[str, int]:
    """Every field's id by its dotted name, as a schema's index names them."""
    schema = Schema(tuple(fields))
    return {name: schema.find_field_by_name(name, case_sensitive=True).field_id
            for name in ("a", "b", "b.c", "b.d", "b.d.element", "b.d.element.e", "f", "f.key",
                         "f.value", "f.value.g", "h")}  # fmt: skip


def test_ids_follow_javas_order() -> None:
    # Java: top-level a, b, f, h take 1-4; then b's c, d (5, 6); d's element (7), its e (8);
    # then f's key and value (9, 10) and the value's g (11)
    assert _ids(fresh_schema_fields(_unnumbered(), 1)) == {
        "a": 1, "b": 2, "f": 3, "h": 4, "b.c": 5, "b.d": 6, "b.d.element": 7,
        "b.d.element.e": 8, "f.key": 9, "f.value": 10, "f.value.g": 11,
    }  # fmt: skip


def test_the_first_id_is_an_offset_and_everything_else_is_kept() -> None:
    fields = fresh_schema_fields(_unnumbered(), 100)
    assert sorted(_ids(fields).values()) == list(range(100, 111))
    a, b, f, _ = fields
    assert (a.required, a.doc, a.write_default) == (True, "the a", 7)
    assert b.type.fields[1].type.element_required is True
    assert f.type.value_required is False and f.type.key_type == StringType()


def test_names_in_the_base_keep_their_ids() -> None:
    base = Schema((
        NestedField(1, "x", IntegerType()),
        NestedField(7, "b", StructType((NestedField(8, "c", IntegerType()),))),
        NestedField(9, "h", StringType()),
    ))  # fmt: skip
    fields = fresh_schema_fields(_unnumbered(), base.highest_field_id() + 1, base)
    ids = _ids(fields)
    assert (ids["b"], ids["b.c"], ids["h"]) == (7, 8, 9)
    # the others are numbered from 10 in Java's order, skipping nothing
    assert [ids[n] for n in ("a", "f", "b.d", "b.d.element", "b.d.element.e", "f.key",
                             "f.value", "f.value.g")] == list(range(10, 18))  # fmt: skip


def test_base_lookup_is_case_sensitive_and_empty_input_is_empty() -> None:
    base = Schema((NestedField(5, "A", IntegerType()),))
    [a] = fresh_schema_fields([NestedField(0, "a", IntegerType())], 6, base)
    assert a.field_id == 6
    assert fresh_schema_fields([], 1) == ()
