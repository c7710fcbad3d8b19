"""Equality delete vs data file metrics: prune only what cannot match."""

from __future__ import annotations

from decimal import Decimal

from icesql.metadata.manifest import EQUALITY_DELETES, DataFile
from icesql.scan.equality_metrics import may_delete_from
from icesql.spec.types import DecimalType, DoubleType, IntegerType, LongType, StringType
from icesql.spec.values import to_bytes

TYPES = {1: LongType(), 2: IntegerType(), 3: DoubleType(), 4: StringType(), 5: DecimalType(9, 2)}


def _file(bounds: dict, nulls: dict | None = None, ids=(1,), content=EQUALITY_DELETES) -> DataFile:
    lower = {fid: to_bytes(TYPES[fid], lo) for fid, (lo, _) in bounds.items()}
    upper = {fid: to_bytes(TYPES[fid], hi) for fid, (_, hi) in bounds.items()}
    return DataFile(
        file_path="f", file_format="PARQUET", partition=(), record_count=3,
        file_size_in_bytes=1, content=content, lower_bounds=lower, upper_bounds=upper,
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
    assert may_delete_from(_file({3: (1.0, 2.0)}, ids=(3,)), _file({3: (5.0, 6.0)}, content=0), TYPES)
    assert may_delete_from(_file({4: ("a", "b")}, ids=(4,)), _file({4: ("x", "y")}, content=0), TYPES)
    assert may_delete_from(_file({}, ids=(1,)), _file({1: (5, 6)}, content=0), TYPES)
    # a long column whose older file still has 4-byte int bounds
    old = DataFile(
        file_path="f", file_format="PARQUET", partition=(), record_count=1, file_size_in_bytes=1,
        lower_bounds={1: to_bytes(IntegerType(), 50)}, upper_bounds={1: to_bytes(IntegerType(), 60)},
        null_value_counts={1: 0},
    )
    assert may_delete_from(_file({1: (1, 2)}), old, TYPES)


def test_decimal_ranges():
    data = _file({5: (Decimal("1.00"), Decimal("2.00"))}, content=0)
    assert not may_delete_from(_file({5: (Decimal("2.01"), Decimal("9.99"))}, ids=(5,)), data, TYPES)
    assert may_delete_from(_file({5: (Decimal("0.50"), Decimal("1.00"))}, ids=(5,)), data, TYPES)
