"""Equality delete vs data file metrics: prune only what cannot match."""

from __future__ import annotations

import itertools
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from icesql.scan.equality_metrics import few_values, may_delete_from, may_meet
from icesql.spec.content_file import EQUALITY_DELETES, DataFile
from icesql.spec.types import (
    BooleanType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
)
from icesql.spec.values import to_bytes

TYPES = {1: LongType(), 2: IntegerType(), 3: DoubleType(), 4: StringType(), 5: DecimalType(9, 2)}


def _file(bounds: dict, nulls: dict | None = None, ids=(1,), content=EQUALITY_DELETES) -> DataFile:
    lower = {fid: to_bytes(TYPES[fid], lo) for fid, (lo, _) in bounds.items()}
    upper = {fid: to_bytes(TYPES[fid], hi) for fid, (_, hi) in bounds.items()}
    return DataFile(
        file_path="f",
        file_format="PARQUET",
        partition=(),
        record_count=3,
        file_size_in_bytes=1,
        content=content,
        lower_bounds=lower,
        upper_bounds=upper,
        null_value_counts=nulls if nulls is not None else dict.fromkeys(bounds, 0),
        equality_ids=ids,
    )


def test_disjoint_ranges_prune_and_touching_ranges_do_not():
    data = _file({1: (10, 20)}, content=0)
    assert not may_delete_from(_file({1: (1, 9)}), data, TYPES)
    assert not may_delete_from(_file({1: (21, 30)}), data, TYPES)
    assert may_delete_from(_file({1: (1, 10)}), data, TYPES)
    assert may_delete_from(_file({1: (20, 20)}), data, TYPES)


def test_nulls_on_both_sides_may_match():
    data = _file({1: (10, 20)}, {1: 1}, content=0)
    assert may_delete_from(_file({1: (1, 5)}, {1: 2}), data, TYPES)
    assert may_delete_from(_file({1: (1, 5)}, {}), data, TYPES)  # unknown null count
    assert not may_delete_from(_file({1: (1, 5)}, {1: 0}), data, TYPES)
    data_no_nulls = _file({1: (10, 20)}, {1: 0}, content=0)
    assert not may_delete_from(_file({1: (1, 5)}, {1: 4}), data_no_nulls, TYPES)


def test_one_disjoint_field_of_several_prunes():
    data = _file({1: (10, 20), 2: (1, 2)}, content=0)
    assert not may_delete_from(_file({1: (10, 20), 2: (3, 4)}, ids=(1, 2)), data, TYPES)
    assert may_delete_from(_file({1: (10, 20), 2: (2, 4)}, ids=(1, 2)), data, TYPES)


def test_unordered_or_unknown_statistics_never_prune():
    assert may_delete_from(
        _file({3: (1.0, 2.0)}, ids=(3,)), _file({3: (5.0, 6.0)}, content=0), TYPES
    )
    assert may_delete_from(
        _file({4: ("a", "b")}, ids=(4,)), _file({4: ("x", "y")}, content=0), TYPES
    )
    assert may_delete_from(_file({}, ids=(1,)), _file({1: (5, 6)}, content=0), TYPES)
    # a long column whose older file still has 4-byte int bounds
    old = DataFile(
        file_path="f",
        file_format="PARQUET",
        partition=(),
        record_count=1,
        file_size_in_bytes=1,
        lower_bounds={1: to_bytes(IntegerType(), 50)},
        upper_bounds={1: to_bytes(IntegerType(), 60)},
        null_value_counts={1: 0},
    )
    assert may_delete_from(_file({1: (1, 2)}), old, TYPES)


def test_decimal_ranges():
    data = _file({5: (Decimal("1.00"), Decimal("2.00"))}, content=0)
    assert not may_delete_from(
        _file({5: (Decimal("2.01"), Decimal("9.99"))}, ids=(5,)), data, TYPES
    )
    assert may_delete_from(_file({5: (Decimal("0.50"), Decimal("1.00"))}, ids=(5,)), data, TYPES)


_bound = st.one_of(st.none(), st.tuples(st.integers(-5, 5), st.integers(0, 4)))
_side = st.tuples(_bound, _bound, st.sampled_from([None, 0, 2]), st.sampled_from([None, 0, 1]))


def _random_file(side: tuple, content: int) -> DataFile:
    """Bounds on fields 1 (long) and 5 (decimal); None: no bounds for that field."""
    bounds = {}
    if side[0] is not None:
        bounds[1] = (side[0][0], side[0][0] + side[0][1])
    if side[1] is not None:
        lo = Decimal(side[1][0]) / 4
        bounds[5] = (lo, lo + Decimal(side[1][1]) / 4)
    nulls = {fid: n for fid, n in ((1, side[2]), (5, side[3])) if n is not None}
    return _file(bounds, nulls, ids=(1, 5), content=content)


@settings(max_examples=200, deadline=None)
@given(st.lists(_side, max_size=4), st.lists(_side, max_size=4))
def test_may_meet_is_may_delete_from_for_every_pair(deletes, data):
    d = [_random_file(s, EQUALITY_DELETES) for s in deletes]
    f = [_random_file(s, 0) for s in data]
    got = may_meet(d, f, TYPES)
    assert got.dtype == bool and got.shape == (len(d), len(f))
    for i, j in itertools.product(range(len(d)), range(len(f))):
        assert got[i, j] == may_delete_from(d[i], f[j], TYPES), (i, j)


def test_may_meet_keeps_every_digit_of_wide_decimals():
    """Bounds one unit apart in the last of 38 digits are apart (a 28-digit context would
    round both to the same number)."""
    t = {6: DecimalType(38, 2)}
    big = Decimal("123456789012345678901234567890123456.78")

    def f(lo: Decimal, hi: Decimal, content: int) -> DataFile:
        return DataFile(
            file_path="f",
            file_format="PARQUET",
            partition=(),
            record_count=1,
            file_size_in_bytes=1,
            content=content,
            equality_ids=(6,),
            lower_bounds={6: to_bytes(t[6], lo)},
            upper_bounds={6: to_bytes(t[6], hi)},
            null_value_counts={6: 0},
        )

    data = f(big + Decimal("0.01"), big + Decimal("1.00"), 0)
    assert may_meet([f(big, big, EQUALITY_DELETES)], [data], t).tolist() == [[False]]
    assert may_meet([f(big, big + Decimal("0.01"), EQUALITY_DELETES)], [data], t).tolist() == [
        [True]
    ]


def test_few_values_spans_the_bounds_of_every_file_and_counts_null():
    files = [_file({2: (1, 4)}, ids=(2,)), _file({2: (3, 7)}, ids=(2,))]
    assert few_values(files, 2, IntegerType(), 7)
    assert not few_values(files, 2, IntegerType(), 6)
    with_null = [*files, _file({2: (5, 5)}, {2: 1}, ids=(2,))]
    assert not few_values(with_null, 2, IntegerType(), 7)
    assert few_values(with_null, 2, IntegerType(), 8)
    assert few_values([_file({5: (Decimal("1.00"), Decimal("1.07"))}, ids=(5,))], 5, TYPES[5], 8)


def test_few_values_needs_every_bound_and_an_ordered_type():
    known, unknown = _file({2: (1, 2)}, ids=(2,)), _file({}, ids=(2,))
    assert not few_values([known, unknown], 2, IntegerType(), 100)
    assert not few_values([_file({4: ("a", "b")}, ids=(4,))], 4, StringType(), 100)
    assert not few_values([_file({3: (1.0, 1.0)}, ids=(3,))], 3, DoubleType(), 100)
    assert not few_values([], 2, IntegerType(), 100)
    assert few_values([unknown], 6, BooleanType(), 3)
