"""Sort orders: JSON form, defaults, and which orders satisfy which."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.sorting import UNSORTED_ORDER, SortField, SortOrder
from icesql.spec.transforms import Bucket, Day, Hour, Identity, Month, Truncate
from icesql.spec.types import FloatType, LongType, NestedField, StringType, StructType

SPEC_EXAMPLE = {
    "order-id": 1,
    "fields": [
        {"transform": "identity", "source-id": 2, "direction": "asc", "null-order": "nulls-first"},
        {"transform": "bucket[4]", "source-id": 3, "direction": "desc", "null-order": "nulls-last"},
    ],
}


def test_spec_example_round_trip():
    order = SortOrder.from_json(SPEC_EXAMPLE)
    assert order == SortOrder(
        1,
        (
            SortField(2, Identity(), "asc", "nulls-first"),
            SortField(3, Bucket(4), "desc", "nulls-last"),
        ),
    )
    assert order.to_json() == SPEC_EXAMPLE
    assert str(order) == "[identity(2) ASC NULLS FIRST, bucket[4](3) DESC NULLS LAST]"


def test_unsorted_order():
    assert UNSORTED_ORDER.order_id == 0 and UNSORTED_ORDER.is_unsorted()
    assert UNSORTED_ORDER.to_json() == {"order-id": 0, "fields": []}
    assert SortOrder.from_json({"order-id": 0, "fields": []}) == UNSORTED_ORDER
    with pytest.raises(ValueError, match="reserved"):
        SortOrder(0, (SortField(1),))


def test_null_order_defaults_follow_direction():
    assert SortField(1).null_order == "nulls-first"
    assert SortField(1, direction="desc").null_order == "nulls-last"


def test_invalid_direction_and_null_order():
    with pytest.raises(ValueError):
        SortField(1, Identity(), "up")
    with pytest.raises(ValueError):
        SortField(1, Identity(), "asc", "nulls-middle")


def test_multi_source_field_json():
    f = SortField.from_json(
        {
            "transform": "zorder",
            "source-ids": [1, 2],
            "direction": "asc",
            "null-order": "nulls-last",
        }
    )
    assert f.all_source_ids == (1, 2)
    assert f.to_json()["source-ids"] == [1, 2] and "source-id" not in f.to_json()


def test_satisfies():
    by_hour = SortOrder(1, (SortField(1, Hour()), SortField(2, Identity())))
    assert by_hour.satisfies(SortOrder(2, (SortField(1, Day()),)))
    assert by_hour.satisfies(SortOrder(2, (SortField(1, Month()), SortField(2, Truncate(3)))))
    assert by_hour.satisfies(UNSORTED_ORDER)
    assert not SortOrder(2, (SortField(1, Day()),)).satisfies(by_hour)
    assert not by_hour.satisfies(SortOrder(2, (SortField(1, Day(), "desc"),)))
    assert not by_hour.satisfies(SortOrder(2, (SortField(2, Identity()),)))


_SCHEMA = Schema(
    (
        NestedField(1, "id", LongType()),
        NestedField(2, "s", StringType()),
        NestedField(3, "st", StructType((NestedField(4, "x", LongType()),))),
        NestedField(5, "f", FloatType()),
    )
)


@pytest.mark.parametrize(
    ("field", "message"),
    [
        (SortField(3), r"cannot sort by identity\(st\): struct.* is not a primitive type"),
        (SortField(2, Day()), r"cannot sort by day\(s\): it does not apply to string"),
        (SortField(5, Bucket(4)), r"cannot sort by bucket\[4\]\(f\): it does not apply to float"),
        (SortField(9), "missing column id 9"),
    ],
)
def test_validate_refuses_what_java_refuses(field, message):
    with pytest.raises(ProgrammingError, match=message):
        SortOrder(1, (field,)).validate(_SCHEMA)


def test_validate_accepts_nested_and_transformed_sources():
    SortOrder(1, (SortField(4), SortField(2, Truncate(3)), SortField(1, Bucket(4)))).validate(
        _SCHEMA
    )
