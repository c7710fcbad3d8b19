"""Partition specs and sort orders from transform terms (``icesql.sql.transform_terms``).

Names are Java's: ``PartitionSpec.Builder`` for a new table, ``BaseUpdatePartitionSpec`` for a
field added later (it carries the bucket count / truncate width)."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.spec.partitioning import PARTITION_DATA_ID_START
from icesql.spec.schema import Schema
from icesql.spec.sorting import ASC, DESC, NULLS_FIRST, NULLS_LAST
from icesql.spec.types import (
    DateType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
)
from icesql.sql.nodes import SortTerm, Term
from icesql.sql.transform_terms import (
    default_partition_name,
    new_partition_spec,
    new_sort_order,
    source_field,
)

SCHEMA = Schema(
    (
        NestedField(1, "id", LongType()),
        NestedField(2, "s", StringType()),
        NestedField(3, "ts", TimestampType()),
        NestedField(4, "st", StructType((NestedField(5, "x", IntegerType()),))),
        NestedField(6, "d", DateType()),
    )
)


@pytest.mark.parametrize(
    ("transform", "source", "new_table", "evolving"),
    [
        ("identity", "id", "id", "id"),
        ("bucket[16]", "id", "id_bucket", "id_bucket_16"),
        ("truncate[4]", "s", "s_trunc", "s_trunc_4"),
        ("year", "ts", "ts_year", "ts_year"),
        ("month", "ts", "ts_month", "ts_month"),
        ("day", "ts", "ts_day", "ts_day"),
        ("hour", "ts", "ts_hour", "ts_hour"),
        ("void", "id", "id_null", "id_null"),
        ("bucket[8]", "st.x", "st.x_bucket", "st.x_bucket_8"),
    ],
)
def test_default_partition_names_are_javas(transform, source, new_table, evolving):
    term = Term(transform, tuple(source.split(".")))
    assert default_partition_name(term, source, evolving=False) == new_table
    assert default_partition_name(term, source, evolving=True) == evolving


@pytest.mark.parametrize(
    ("column", "field_id"), [(("id",), 1), (("ID",), 1), (("st", "x"), 5), (("d",), 6)]
)
def test_source_field_finds_dotted_and_case_insensitive_names(column, field_id):
    assert source_field(SCHEMA, column) == field_id


def test_source_field_names_the_missing_column_and_the_columns_there_are():
    with pytest.raises(ProgrammingError) as e:
        source_field(SCHEMA, ("nope",), "sort")
    assert str(e.value) == ("cannot sort by 'nope': no such column (columns: id, s, ts, st, d)")


def test_a_new_spec_numbers_fields_from_1000_in_term_order():
    spec = new_partition_spec(
        SCHEMA,
        [Term("day", ("ts",)), Term("bucket[4]", ("st", "x")), Term("identity", ("s",))],
        spec_id=3,
    )
    assert spec.spec_id == 3
    assert [(f.source_id, f.field_id, str(f.transform), f.name) for f in spec.fields] == [
        (3, PARTITION_DATA_ID_START, "day", "ts_day"),
        (5, PARTITION_DATA_ID_START + 1, "bucket[4]", "st.x_bucket"),
        (2, PARTITION_DATA_ID_START + 2, "identity", "s"),
    ]
    assert PARTITION_DATA_ID_START == 1000  # the spec: partition field ids start at 1000


def test_no_terms_is_the_unpartitioned_spec():
    assert new_partition_spec(SCHEMA, []).fields == ()


@pytest.mark.parametrize(
    ("terms", "message"),
    [
        ([Term("day", ("nope",))], "cannot partition by 'nope': no such column"),
        (
            [Term("bucket[4]", ("id",)), Term("bucket[4]", ("id",))],
            r"cannot partition by bucket\[4\]\(id\) twice",
        ),
        ([Term("identity", ("s",)), Term("identity", ("s",))], r"identity\(s\) twice"),
        # two bucket counts are allowed by the builder, but both are named id_bucket
        (
            [Term("bucket[4]", ("id",)), Term("bucket[8]", ("id",))],
            "cannot use partition name 'id_bucket' twice",
        ),
        ([Term("year", ("s",))], "year"),  # a transform that does not apply to a string
    ],
)
def test_specs_java_refuses_are_refused(terms, message):
    with pytest.raises(ProgrammingError, match=message):
        new_partition_spec(SCHEMA, terms)


@pytest.mark.parametrize(
    "terms",
    [
        [Term("day", ("ts",)), Term("hour", ("ts",))],
        [Term("year", ("d",)), Term("month", ("d",))],
    ],
)
def test_time_transforms_of_one_column_are_redundant_as_in_java(terms):
    with pytest.raises(ProgrammingError, match="redundant"):
        new_partition_spec(SCHEMA, terms)


def test_time_transforms_of_different_columns_are_not_redundant():
    spec = new_partition_spec(SCHEMA, [Term("day", ("ts",)), Term("month", ("d",))])
    assert [f.name for f in spec.fields] == ["ts_day", "d_month"]


def test_a_sort_order_keeps_directions_and_defaults_null_order_by_direction():
    order = new_sort_order(
        SCHEMA,
        [
            SortTerm(Term("identity", ("id",)), DESC),
            SortTerm(Term("bucket[4]", ("s",))),
            SortTerm(Term("day", ("ts",)), ASC, NULLS_LAST),
        ],
        order_id=2,
    )
    assert order.order_id == 2
    got = [(f.source_id, str(f.transform), f.direction, f.null_order) for f in order.fields]
    # Spark and Java: NULLS FIRST for ascending, NULLS LAST for descending unless stated
    assert got == [
        (1, "identity", DESC, NULLS_LAST),
        (2, "bucket[4]", ASC, NULLS_FIRST),
        (3, "day", ASC, NULLS_LAST),
    ]


def test_no_sort_terms_is_the_unsorted_order():
    order = new_sort_order(SCHEMA, [])
    assert (order.order_id, order.fields) == (0, ())  # the spec: order id 0 is unsorted


@pytest.mark.parametrize(
    ("term", "message"),
    [
        (Term("day", ("s",)), r"cannot sort by day\(s\): it does not apply to string"),
        (Term("identity", ("nope",)), "cannot sort by 'nope': no such column"),
    ],
)
def test_bad_sort_terms_are_refused(term, message):
    with pytest.raises(ProgrammingError, match=message):
        new_sort_order(SCHEMA, [SortTerm(term)])
