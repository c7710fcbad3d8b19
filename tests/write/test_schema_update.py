"""Schema evolution rules of ``write/schema_update.py``, against its pure functions.

Each refusal checks the error class and that the message names the column (and the table),
since that message is what a user of ALTER TABLE sees.
"""

from __future__ import annotations

import re

import pytest

from icesql.errors import ProgrammingError
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import Bucket, Day, Identity, Void
from icesql.spec.types import (
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    UnknownType,
)
from icesql.write.schema_update import (
    add_column,
    delete_column,
    make_optional,
    move_column,
    promote_type,
    rename_column,
    set_identifier_fields,
    update_doc,
)

TABLE = "db.t"


def _schema() -> Schema:
    """id(1) req long, s(2) string, st(3) struct<a(4) req int, b(5) string>,
    pts(6) list<7: struct<x(8) int>>, m(9) map<10 string, 11 struct<v(12) int>>,
    f(13) float, n(14) int, dec(15) decimal(9,2), d(16) date; identifier field: id."""
    return Schema(
        (
            NestedField(1, "id", LongType(), True),
            NestedField(2, "s", StringType()),
            NestedField(
                3,
                "st",
                StructType(
                    (
                        NestedField(4, "a", IntegerType(), True),
                        NestedField(5, "b", StringType()),
                    )
                ),
            ),
            NestedField(
                6, "pts", ListType(7, StructType((NestedField(8, "x", IntegerType()),)), False)
            ),
            NestedField(
                9,
                "m",
                MapType(
                    10, StringType(), 11, StructType((NestedField(12, "v", IntegerType()),)), False
                ),
            ),
            NestedField(13, "f", FloatType()),
            NestedField(14, "n", IntegerType()),
            NestedField(15, "dec", DecimalType(9, 2)),
            NestedField(16, "d", DateType()),
        ),
        schema_id=0,
        identifier_field_ids=(1,),
    )


LAST_ID = 16


def _names(fields) -> list[str]:
    return [f.name for f in fields]


def _refused(match: str):
    """A refusal: a ProgrammingError whose message names the table and ``match``."""
    return pytest.raises(ProgrammingError, match=rf"{re.escape(TABLE)}.*{match}")


# --- add ------------------------------------------------------------------------------------


def test_add_top_level_column_goes_last_with_next_id():
    schema, last = add_column(
        _schema(), ["z"], NestedField(0, "ignored", LongType()), LAST_ID, TABLE
    )
    assert _names(schema.fields)[-1] == "z"
    z = schema.find_field_by_name("z")
    assert (z.field_id, z.type, z.required) == (17, LongType(), False)
    assert last == 17
    # the rest of the schema, and its identifier fields, are unchanged
    assert schema.fields[:-1] == _schema().fields
    assert schema.identifier_field_ids == (1,)


def test_add_nested_struct_numbers_children_after_parent_in_java_order():
    new = NestedField(
        0,
        "z",
        StructType(
            (
                NestedField(0, "p", IntegerType()),
                NestedField(0, "q", ListType(0, StringType(), False)),
            )
        ),
    )
    schema, last = add_column(_schema(), ["z"], new, LAST_ID, TABLE, first=True)
    z = schema.fields[0]
    assert z.name == "z" and z.field_id == 17
    # struct children first (18, 19), then the list's element (20)
    assert [f.field_id for f in z.type.fields] == [18, 19]
    assert z.type.fields[1].type.element_id == 20
    assert last == 20


def test_add_inside_struct_after_a_sibling():
    schema, last = add_column(
        _schema(), ["st", "c"], NestedField(0, "c", IntegerType()), LAST_ID, TABLE, after="a"
    )
    assert _names(schema.find_field_by_name("st").type.fields) == ["a", "c", "b"]
    assert schema.find_field_by_name("st.c").field_id == 17 and last == 17


def test_add_into_list_element_and_map_value_struct_by_short_name():
    schema, _ = add_column(
        _schema(), ["pts", "y"], NestedField(0, "y", DoubleType()), LAST_ID, TABLE
    )
    element = schema.find_field_by_name("pts").type.element_type
    assert _names(element.fields) == ["x", "y"]
    schema, _ = add_column(schema, ["M", "w"], NestedField(0, "w", DoubleType()), 17, TABLE)
    value = schema.find_field_by_name("m").type.value_type
    assert _names(value.fields) == ["v", "w"] and value.fields[1].field_id == 18


def test_add_required_column_is_refused():
    with _refused("'z'"):
        add_column(_schema(), ["z"], NestedField(0, "z", IntegerType(), True), LAST_ID, TABLE)


def test_add_existing_name_is_refused_case_insensitively():
    with _refused("'ID'"):
        add_column(_schema(), ["ID"], NestedField(0, "ID", IntegerType()), LAST_ID, TABLE)
    with _refused("'st.B'"):
        add_column(_schema(), ["st", "B"], NestedField(0, "B", IntegerType()), LAST_ID, TABLE)


def test_add_under_missing_or_primitive_parent_is_refused():
    with _refused("'nope.c'"):
        add_column(_schema(), ["nope", "c"], NestedField(0, "c", IntegerType()), LAST_ID, TABLE)
    with _refused("'s.c'"):
        add_column(_schema(), ["s", "c"], NestedField(0, "c", IntegerType()), LAST_ID, TABLE)


def test_add_after_missing_sibling_is_refused():
    with _refused("'ghost'"):
        add_column(
            _schema(), ["z"], NestedField(0, "z", IntegerType()), LAST_ID, TABLE, after="ghost"
        )


# --- delete ---------------------------------------------------------------------------------


def test_delete_top_level_and_nested_columns():
    schema = delete_column(_schema(), ["s"], None, TABLE)
    assert "s" not in _names(schema.fields) and len(schema.fields) == len(_schema().fields) - 1
    schema = delete_column(schema, ["st", "b"], None, TABLE)
    assert _names(schema.find_field_by_name("st").type.fields) == ["a"]
    schema = delete_column(schema, ["pts", "x"], None, TABLE)
    assert schema.find_field_by_name("pts").type.element_type.fields == ()


def test_delete_a_struct_removes_its_children():
    schema = delete_column(_schema(), ["ST"], None, TABLE)
    assert not schema.has_field_id(3) and not schema.has_field_id(4) and not schema.has_field_id(5)


def test_delete_missing_column_is_refused():
    with _refused("'st.zz'"):
        delete_column(_schema(), ["st", "zz"], None, TABLE)


def test_delete_identifier_field_is_refused():
    with _refused("'id'"):
        delete_column(_schema(), ["id"], None, TABLE)


def test_delete_struct_holding_an_identifier_field_is_refused():
    schema = Schema(_schema().fields, 0, (4,))  # st.a
    with _refused("'st'"):
        delete_column(schema, ["st"], None, TABLE)


def test_delete_partition_source_is_refused_unless_the_field_is_void():
    spec = PartitionSpec(0, (PartitionField(14, 1000, Bucket(4), "n_bucket"),))
    with pytest.raises(ProgrammingError, match=r"'n'.*'n_bucket'"):
        delete_column(_schema(), ["n"], spec, TABLE)
    voided = PartitionSpec(1, (PartitionField(14, 1000, Void(), "n_bucket"),))
    assert not delete_column(_schema(), ["n"], voided, TABLE).has_field_id(14)


def test_delete_map_key_or_list_element_is_refused():
    with _refused("'m.key'"):
        delete_column(_schema(), ["m", "key"], None, TABLE)
    with _refused("'pts.element'"):
        delete_column(_schema(), ["pts", "element"], None, TABLE)


def test_delete_last_column_is_refused():
    schema = Schema((NestedField(1, "only", IntegerType()),))
    with _refused("'only'"):
        delete_column(schema, ["only"], None, TABLE)


# --- rename / doc / optional ----------------------------------------------------------------


def test_rename_keeps_id_type_and_position():
    schema = rename_column(_schema(), ["st", "b"], "bee", TABLE)
    st = schema.find_field_by_name("st").type
    assert _names(st.fields) == ["a", "bee"]
    assert (st.fields[1].field_id, st.fields[1].type) == (5, StringType())
    schema = rename_column(schema, ["pts", "x"], "xx", TABLE)
    assert schema.find_field_by_name("pts.xx").field_id == 8


def test_rename_to_a_sibling_name_is_refused_but_case_change_of_itself_is_allowed():
    with _refused("'s'.*'ID'"):
        rename_column(_schema(), ["s"], "ID", TABLE)
    schema = rename_column(_schema(), ["s"], "S", TABLE)
    assert schema.fields[1].name == "S" and schema.fields[1].field_id == 2


def test_rename_missing_column_is_refused():
    with _refused("'ghost'"):
        rename_column(_schema(), ["ghost"], "g", TABLE)


def test_update_doc_sets_and_clears():
    schema = update_doc(_schema(), ["st", "a"], "the a", TABLE)
    assert schema.find_field_by_name("st.a").doc == "the a"
    assert update_doc(schema, ["st", "a"], None, TABLE).find_field_by_name("st.a").doc is None


def test_make_optional():
    schema = make_optional(_schema(), ["st", "a"], TABLE)
    assert schema.find_field_by_name("st.a").required is False


def test_make_identifier_field_optional_is_refused():
    with _refused("'id'"):
        make_optional(_schema(), ["id"], TABLE)


# --- promote --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "new_type"),
    [
        (["n"], LongType()),
        (["st", "a"], LongType()),
        (["f"], DoubleType()),
        (["dec"], DecimalType(12, 2)),
        (["pts", "x"], LongType()),
    ],
)
def test_allowed_promotions(path, new_type):
    schema = promote_type(_schema(), path, new_type, 2, [], TABLE)
    promoted = schema.find_field_by_name(".".join(path))
    before = _schema().find_field_by_name(".".join(path))
    assert promoted.type == new_type
    assert (promoted.field_id, promoted.required) == (before.field_id, before.required)


@pytest.mark.parametrize(
    ("path", "new_type"),
    [
        (["id"], IntegerType()),  # narrowing
        (["n"], DoubleType()),  # int -> double is not a spec promotion
        (["f"], LongType()),
        (["dec"], DecimalType(12, 3)),  # scale change
        (["dec"], DecimalType(8, 2)),  # precision shrink
        (["s"], IntegerType()),
        (["d"], TimestampType()),  # v3 only
    ],
)
def test_refused_promotions(path, new_type):
    with _refused(f"{'.'.join(path)}.*{re.escape(str(new_type))}"):
        promote_type(_schema(), path, new_type, 2, [], TABLE)


def test_same_type_is_a_no_op():
    assert promote_type(_schema(), ["n"], IntegerType(), 2, [], TABLE) == _schema()


def test_nested_type_cannot_be_promoted():
    with _refused("'st'"):
        promote_type(_schema(), ["st"], StringType(), 2, [], TABLE)


def test_v3_promotions_date_to_timestamp_and_unknown_to_any():
    for ts in (TimestampType(), TimestampNanoType()):
        assert promote_type(_schema(), ["d"], ts, 3, [], TABLE).find_field_by_name("d").type == ts
    schema = Schema((NestedField(1, "u", UnknownType()),))
    assert promote_type(schema, ["u"], StringType(), 3, [], TABLE).fields[0].type == StringType()
    with _refused("u: unknown -> string"):
        promote_type(schema, ["u"], StringType(), 2, [], TABLE)


@pytest.mark.parametrize("transform", [Identity(), Bucket(8)])
def test_date_promotion_refused_when_any_spec_takes_it_through_a_value_changing_transform(
    transform,
):
    old_spec = PartitionSpec(0, (PartitionField(16, 1000, transform, "d_part"),))
    new_spec = PartitionSpec(1, ())
    with pytest.raises(ProgrammingError, match=r"'d'.*'d_part'"):
        promote_type(_schema(), ["d"], TimestampType(), 3, [new_spec, old_spec], TABLE)


def test_date_promotion_allowed_under_a_day_partition():
    spec = PartitionSpec(0, (PartitionField(16, 1000, Day(), "d_day"),))
    schema = promote_type(_schema(), ["d"], TimestampType(), 3, [spec], TABLE)
    assert schema.find_field_by_name("d").type == TimestampType()


# --- move -----------------------------------------------------------------------------------


def test_move_first_and_after():
    schema = move_column(_schema(), ["d"], True, None, TABLE)
    assert _names(schema.fields)[0] == "d" and schema.fields[0].field_id == 16
    schema = move_column(schema, ["id"], False, "n", TABLE)
    names = _names(schema.fields)
    assert names[names.index("n") + 1] == "id"
    assert sorted(names) == sorted(_names(_schema().fields))


def test_move_inside_struct():
    schema = move_column(_schema(), ["st", "b"], True, None, TABLE)
    assert _names(schema.find_field_by_name("st").type.fields) == ["b", "a"]


def test_move_after_itself_or_after_a_column_of_another_struct_is_refused():
    with _refused("'n'"):
        move_column(_schema(), ["n"], False, "n", TABLE)
    with _refused("'b'.*'id'"):
        move_column(_schema(), ["st", "b"], False, "id", TABLE)


# --- identifier fields ----------------------------------------------------------------------


def test_set_identifier_fields_accepts_required_primitives_including_nested_struct_fields():
    schema = set_identifier_fields(_schema(), [["id"], ["st", "a"], ["ID"]], TABLE)
    assert schema.identifier_field_ids == (1, 4)
    assert set_identifier_fields(_schema(), [], TABLE).identifier_field_ids == ()


def _required(schema: Schema, name: str, new_type=None) -> Schema:
    """``schema`` with top-level column ``name`` made required (and retyped)."""
    fields = tuple(
        NestedField(f.field_id, f.name, new_type or f.type, True) if f.name == name else f
        for f in schema.fields
    )
    return Schema(fields, 0, schema.identifier_field_ids)


@pytest.mark.parametrize(
    ("schema", "path", "reason"),
    [
        (_schema(), ["s"], "NOT NULL"),
        (_required(_schema(), "f"), ["f"], "float"),
        (_required(_schema(), "st"), ["st"], "primitive"),
        (_schema(), ["ghost"], "does not exist"),
    ],
)
def test_set_identifier_fields_refusals(schema, path, reason):
    with pytest.raises(
        ProgrammingError, match=rf"{re.escape(TABLE)}.*'{'.'.join(path)}'.*{reason}"
    ):
        set_identifier_fields(schema, [path], TABLE)


def test_identifier_field_inside_a_list_is_refused():
    element = StructType((NestedField(3, "x", IntegerType(), True),))
    schema = Schema(
        (NestedField(1, "id", LongType(), True), NestedField(2, "l", ListType(4, element, True)))
    )
    with _refused("'l.element.x'.*list or map"):
        set_identifier_fields(schema, [["l", "x"]], TABLE)
