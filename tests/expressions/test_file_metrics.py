"""FileMetrics: one file's counts and bounds as the evaluators read them; anything missing
or undecodable reads as unknown."""

from __future__ import annotations

import struct
import uuid

import pytest
from expressions_support import data_file, double_bytes, float_bytes, int_bytes

from icesql.expressions.file_metrics import FileMetrics
from icesql.expressions.tree import BoundReference
from icesql.spec.types import (
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    UUIDType,
)


def ref(field_id: int, t) -> BoundReference:
    return BoundReference(NestedField(field_id, f"c{field_id}", t))


# field 1: 10 values, 3 nulls, 2 NaN; 2: all null; 3: all NaN; 4: 4 null + 6 NaN;
# 5: only a value count; 6: only a NaN count (no null count)
METRICS = FileMetrics(
    data_file(
        record_count=10,
        value_counts={1: 10, 2: 10, 3: 10, 4: 10, 5: 10, 6: 10},
        null_value_counts={1: 3, 2: 10, 3: 0, 4: 4},
        nan_value_counts={1: 2, 3: 10, 4: 6, 6: 10},
    )
)


@pytest.mark.parametrize(
    ("field_id", "counts", "may_null", "no_nulls", "nulls_only", "nans_only", "nulls_or_nans"),
    [
        (1, (10, 3, 2), True, False, False, False, False),
        (2, (10, 10, None), True, False, True, False, True),
        (3, (10, 0, 10), False, True, False, True, True),
        (4, (10, 4, 6), True, False, False, False, True),
        (5, (10, None, None), True, False, False, False, False),  # nothing known but the count
        (6, (10, None, 10), True, False, False, True, True),
        (99, (None, None, None), True, False, False, False, False),  # a column without metrics
    ],
)
def test_counts(field_id, counts, may_null, no_nulls, nulls_only, nans_only, nulls_or_nans) -> None:
    m = METRICS
    assert (m.value_count(field_id), m.null_count(field_id), m.nan_count(field_id)) == counts
    assert m.may_contain_null(field_id) is may_null
    assert m.has_no_nulls(field_id) is no_nulls
    assert m.nulls_only(field_id) is nulls_only
    assert m.nans_only(field_id) is nans_only
    assert m.nulls_or_nans_only(field_id) is nulls_or_nans


@pytest.mark.parametrize(
    ("t", "nan_count", "expected"),
    [
        (DoubleType(), 0, False),
        (DoubleType(), 2, True),
        (DoubleType(), None, True),  # no NaN count: a NaN may be there
        (FloatType(), None, True),
        (IntegerType(), None, False),  # only floating point holds NaN
        (StringType(), 5, False),
    ],
)
def test_may_contain_nan(t, nan_count, expected) -> None:
    nans = {} if nan_count is None else {1: nan_count}
    assert FileMetrics(data_file(nan_value_counts=nans)).may_contain_nan(ref(1, t)) is expected


@pytest.mark.parametrize(
    ("t", "lower", "upper", "expected"),
    [
        (IntegerType(), int_bytes(-7), int_bytes(2**31 - 1), (-7, 2**31 - 1)),
        (LongType(), int_bytes(-7), struct.pack("<q", 2**40), (-7, 2**40)),  # int before promotion
        (DoubleType(), float_bytes(0.5), double_bytes(1e300), (0.5, 1e300)),  # float before
        (DoubleType(), double_bytes(float("nan")), double_bytes(1.0), (None, 1.0)),  # old writers
        (StringType(), "é".encode(), b"zz", ("é", "zz")),
        (StringType(), b"\xff", None, (None, None)),  # not UTF-8: unknown, not an error
        (
            UUIDType(),
            uuid.UUID(int=1).bytes,
            uuid.UUID(int=2).bytes,
            (None, None),
        ),  # order disputed
        (IntegerType(), None, None, (None, None)),
    ],
)
def test_bounds(t, lower, upper, expected) -> None:
    m = FileMetrics(
        data_file(
            lower_bounds={} if lower is None else {1: lower},
            upper_bounds={} if upper is None else {1: upper},
        )
    )
    assert (m.lower(ref(1, t)), m.upper(ref(1, t))) == expected


def test_a_file_without_metrics_knows_nothing() -> None:
    m = FileMetrics(data_file(record_count=7))
    assert m.record_count == 7
    assert (m.value_count(1), m.null_count(1), m.nan_count(1)) == (None, None, None)
    assert m.lower(ref(1, IntegerType())) is None and m.upper(ref(1, IntegerType())) is None
    assert not (m.nulls_only(1) or m.nans_only(1) or m.nulls_or_nans_only(1) or m.has_no_nulls(1))
