"""Metrics, manifest and residual evaluators, with cases ported from Java Iceberg's
TestInclusiveMetricsEvaluator, TestStrictMetricsEvaluator, TestInclusiveManifestEvaluator and
TestResidualEvaluator. Where icesql's SQL semantics differ from Java's (a null never matches
``!=`` / ``NOT IN`` / ``NOT STARTS WITH`` / ``IS NOT NAN``; NaN sorts above every number), the
case says so.
"""

from __future__ import annotations

import struct

import pytest

from icesql.expressions.inclusive_metrics import inclusive_metrics_evaluator
from icesql.expressions.manifest_evaluator import manifest_evaluator
from icesql.expressions.residuals import residual_evaluator
from icesql.expressions.strict_metrics import strict_metrics_evaluator
from icesql.expressions.tree import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    and_,
    equal,
    greater_than,
    greater_than_or_equal,
    in_,
    is_nan,
    is_null,
    less_than,
    less_than_or_equal,
    not_,
    not_equal,
    not_in,
    not_nan,
    not_null,
    not_starts_with,
    or_,
    starts_with,
)
from icesql.spec.content_file import DataFile
from icesql.spec.manifest_file import FieldSummary, ManifestFile
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import Day, Identity
from icesql.spec.types import (
    DoubleType,
    FloatType,
    IntegerType,
    NestedField,
    StringType,
    TimestampType,
)
from icesql.spec.values import to_bytes

SCHEMA = Schema(
    (
        NestedField(1, "id", IntegerType(), required=True),
        NestedField(2, "no_stats", IntegerType()),
        NestedField(3, "required", StringType(), required=True),
        NestedField(4, "all_nulls", StringType()),
        NestedField(5, "some_nulls", StringType()),
        NestedField(6, "no_nulls", StringType()),
        NestedField(7, "all_nans", DoubleType()),
        NestedField(8, "some_nans", FloatType()),
        NestedField(9, "no_nans", FloatType()),
        NestedField(10, "all_nulls_double", DoubleType()),
        NestedField(11, "all_nans_v1_stats", FloatType()),
        NestedField(12, "nan_and_null_only", DoubleType()),
        NestedField(13, "no_nan_stats", DoubleType()),
    )
)
NAN_F = struct.pack("<f", float("nan"))


def _f(v: float) -> bytes:
    return to_bytes(FloatType(), v)


def _d(v: float) -> bytes:
    return to_bytes(DoubleType(), v)


def _file(record_count: int = 50, **kw) -> DataFile:
    return DataFile(file_path="f.parquet", file_format="PARQUET", partition=(),
                    record_count=record_count, file_size_in_bytes=10, **kw)


FILE = _file(
    value_counts={i: 50 for i in range(4, 14)},
    null_value_counts={1: 0, 3: 0, 4: 50, 5: 10, 6: 0, 7: 0, 8: 0, 9: 0, 10: 50, 11: 0, 12: 1},
    nan_value_counts={7: 50, 8: 10, 9: 0, 11: 50, 12: 49},
    lower_bounds={1: to_bytes(IntegerType(), 30), 3: b"aa", 5: b"b", 6: b"b", 8: _f(-1.0),
                  9: _f(0.0), 11: NAN_F, 13: _d(0.0)},
    upper_bounds={1: to_bytes(IntegerType(), 79), 3: b"dC", 5: b"y", 6: b"y", 8: _f(10.0),
                  9: _f(5.0), 11: NAN_F, 13: _d(5.0)},
)
FILE_ABC = _file(value_counts={3: 50}, null_value_counts={3: 0},
                 lower_bounds={3: b"abc"}, upper_bounds={3: b"abd"})
FILE_42 = _file(value_counts={1: 50}, null_value_counts={1: 0},
                lower_bounds={1: to_bytes(IntegerType(), 42)},
                upper_bounds={1: to_bytes(IntegerType(), 42)})


def inclusive(expr, file=FILE) -> bool:
    return inclusive_metrics_evaluator(SCHEMA, expr)(file)


def strict(expr, file=FILE) -> bool:
    return strict_metrics_evaluator(SCHEMA, expr)(file)


INCLUSIVE_CASES = [
    (not_null("all_nulls"), False), (not_null("some_nulls"), True), (not_null("no_nulls"), True),
    (is_null("all_nulls"), True), (is_null("some_nulls"), True), (is_null("no_nulls"), False),
    (is_nan("all_nans"), True), (is_nan("some_nans"), True), (is_nan("no_nans"), False),
    (is_nan("all_nulls_double"), False), (is_nan("no_nan_stats"), True),
    (is_nan("all_nans_v1_stats"), True), (is_nan("nan_and_null_only"), True),
    (not_nan("all_nans"), False), (not_nan("some_nans"), True), (not_nan("no_nans"), True),
    # SQL: a null is not "not NaN" (Java: might match)
    (not_nan("all_nulls_double"), False), (not_nan("nan_and_null_only"), False),
    (not_nan("all_nans_v1_stats"), False),
    (less_than("no_stats", 5), True),
    (less_than("id", 5), False), (less_than("id", 30), False), (less_than("id", 31), True),
    (less_than("id", 79), True), (less_than_or_equal("id", 29), False),
    (less_than_or_equal("id", 30), True), (greater_than("id", 79), False),
    (greater_than("id", 78), True), (greater_than_or_equal("id", 80), False),
    (greater_than_or_equal("id", 79), True),
    (equal("id", 5), False), (equal("id", 29), False), (equal("id", 30), True),
    (equal("id", 75), True), (equal("id", 79), True), (equal("id", 80), False),
    (not_equal("id", 5), True), (not_equal("id", 30), True),
    (in_("id", [5, 6]), False), (in_("id", [29, 30]), True), (in_("id", [80, 81]), False),
    (in_("id", range(1000, 1300)), True),  # beyond the IN limit: not compared
    (not_in("id", [30, 31]), True),
    (not_(less_than("id", 5)), True), (not_(greater_than("id", 5)), False),
    (and_(less_than("id", 5), greater_than_or_equal("id", 0)), False),
    (or_(less_than("id", 5), greater_than_or_equal("id", 80)), False),
    (or_(less_than("id", 5), greater_than_or_equal("id", 60)), True),
    # NaN sorts above every number: an upper bound cannot exclude NaNs from ">"
    (greater_than("some_nans", 100.0), True), (greater_than("no_nans", 100.0), False),
    (greater_than("no_nan_stats", 100.0), True), (less_than("some_nans", -5.0), False),
    (greater_than_or_equal("all_nans", 1e300), True), (less_than("all_nans", 1e300), False),
    (equal("all_nans", 1.0), False), (equal("some_nans", 20.0), False),
    # NaN bounds (old writers) say nothing; all NaN here anyway
    (greater_than("all_nans_v1_stats", 1.0), True), (equal("all_nans_v1_stats", 1.0), False),
    # all nulls
    (less_than("all_nulls", "a"), False), (equal("all_nulls", "a"), False),
    (starts_with("all_nulls", "a"), False), (not_starts_with("all_nulls", "a"), False),
    (not_equal("all_nulls", "a"), False), (not_in("all_nulls", ["a", "b"]), False),
    # strings in [aa, dC]
    (starts_with("required", "a"), True), (starts_with("required", "aa"), True),
    (starts_with("required", "aaa"), True), (starts_with("required", "d"), True),
    (starts_with("required", "dC"), True), (starts_with("required", "dD"), False),
    (starts_with("required", "dCC"), False),  # every value is <= 'dC' < 'dCC...'
    (starts_with("required", "e"), False), (starts_with("required", "1"), False),
    (not_starts_with("required", "a"), True),
    (not_starts_with("required", "ab", ), True),
]


@pytest.mark.parametrize(("expr", "expected"), INCLUSIVE_CASES, ids=[str(c[0]) for c in INCLUSIVE_CASES])
def test_inclusive_metrics(expr, expected) -> None:
    assert inclusive(expr) is expected


def test_inclusive_metrics_special_files() -> None:
    assert inclusive(ALWAYS_TRUE, _file(record_count=0)) is False
    assert inclusive(equal("id", 5), _file(record_count=-1)) is True
    assert inclusive(not_starts_with("required", "ab"), FILE_ABC) is False
    assert inclusive(not_starts_with("required", "abc"), FILE_ABC) is True
    assert inclusive(not_equal("id", 42), FILE_42) is False  # every value is 42
    assert inclusive(not_equal("id", 41), FILE_42) is True
    assert inclusive(equal("no_stats", 1), _file()) is True


STRICT_CASES = [
    (less_than("id", 80), True), (less_than("id", 79), False),
    (less_than_or_equal("id", 79), True), (less_than_or_equal("id", 78), False),
    (greater_than("id", 29), True), (greater_than("id", 30), False),
    (greater_than_or_equal("id", 30), True), (greater_than_or_equal("id", 31), False),
    (equal("id", 30), False),
    (not_equal("id", 5), True), (not_equal("id", 29), True), (not_equal("id", 30), False),
    (not_equal("id", 75), False), (not_equal("id", 80), True),
    (in_("id", [30, 31]), False),
    (not_in("id", [5, 6]), True), (not_in("id", [29, 30]), False), (not_in("id", [80, 81]), True),
    (not_(equal("id", 80)), True), (not_(less_than("id", 80)), False),
    (and_(greater_than("id", 29), less_than("id", 80)), True),
    (or_(less_than("id", 5), greater_than("id", 29)), True),
    (is_null("all_nulls"), True), (is_null("some_nulls"), False), (is_null("no_nulls"), False),
    (not_null("no_nulls"), True), (not_null("some_nulls"), False), (not_null("all_nulls"), False),
    (is_nan("all_nans"), True), (is_nan("some_nans"), False), (is_nan("no_nans"), False),
    (not_nan("no_nans"), True), (not_nan("some_nans"), False), (not_nan("all_nans"), False),
    # SQL: a null never matches != (Java: must match)
    (not_equal("some_nulls", "zzz"), False), (not_equal("all_nulls", "a"), False),
    (not_equal("no_nulls", "zzz"), True), (not_equal("no_nulls", "c"), False),
    # NaN > anything in SQL: the lower bound decides ">" even with NaNs present
    (greater_than("some_nans", -5.0), True), (less_than("some_nans", 100.0), False),
    (less_than("no_nans", 100.0), True),
    (less_than("no_stats", 5), False),
    (starts_with("required", "a"), False),
]


@pytest.mark.parametrize(("expr", "expected"), STRICT_CASES, ids=[str(c[0]) for c in STRICT_CASES])
def test_strict_metrics(expr, expected) -> None:
    assert strict(expr) is expected


def test_strict_metrics_special_files() -> None:
    assert strict(equal("id", 1), _file(record_count=0)) is True  # vacuously
    assert strict(equal("id", 42), FILE_42) is True
    assert strict(in_("id", [42, 43]), FILE_42) is True
    assert strict(starts_with("required", "ab"), FILE_ABC) is True
    assert strict(starts_with("required", "abc"), FILE_ABC) is False
    assert strict(not_starts_with("required", "abe"), FILE_ABC) is True
    assert strict(not_starts_with("required", "aa"), FILE_ABC) is True
    assert strict(not_starts_with("required", "ab"), FILE_ABC) is False


# ---------------------------------------------------------------------------------------------
# Manifest evaluator (partition summaries)

PSCHEMA = Schema(
    (
        NestedField(1, "id", IntegerType()),
        NestedField(2, "all_nulls", StringType()),
        NestedField(3, "some_nulls", StringType()),
        NestedField(4, "no_nulls", StringType()),
        NestedField(5, "float_nan", FloatType()),
        NestedField(6, "float_no_nan", FloatType()),
        NestedField(7, "all_nans", FloatType()),
        NestedField(8, "ts", TimestampType()),
        NestedField(9, "unpartitioned", IntegerType()),
    )
)
PSPEC = PartitionSpec(0, tuple(
    PartitionField(i, 1000 + i, Identity(), f.name) for i, f in
    ((f.field_id, f) for f in PSCHEMA.fields[:7])
) + (PartitionField(8, 1008, Day(), "ts_day"),))
SUMMARIES = (
    FieldSummary(False, False, to_bytes(IntegerType(), 30), to_bytes(IntegerType(), 79)),
    FieldSummary(True, None, None, None),
    FieldSummary(True, None, b"a", b"z"),
    FieldSummary(False, None, b"a", b"z"),
    FieldSummary(False, True, _f(0.0), _f(5.0)),
    FieldSummary(False, False, _f(0.0), _f(5.0)),
    FieldSummary(False, True, None, None),
    FieldSummary(False, False, to_bytes(IntegerType(), 100), to_bytes(IntegerType(), 200)),
)
MANIFEST = ManifestFile("m.avro", 1, 0, partitions=SUMMARIES)

MANIFEST_CASES = [
    (less_than("id", 5), False), (less_than("id", 31), True), (greater_than("id", 79), False),
    (greater_than_or_equal("id", 79), True), (equal("id", 30), True), (equal("id", 80), False),
    (in_("id", [5, 6]), False), (in_("id", [78, 100]), True), (not_equal("id", 5), True),
    (is_null("all_nulls"), True), (is_null("no_nulls"), False), (not_null("all_nulls"), False),
    (not_null("some_nulls"), True), (equal("all_nulls", "a"), False),
    (not_equal("all_nulls", "a"), False), (not_in("all_nulls", ["a", "b"]), False),
    (is_nan("float_no_nan"), False), (is_nan("float_nan"), True), (not_nan("all_nans"), False),
    (greater_than("float_nan", 100.0), True), (greater_than("float_no_nan", 100.0), False),
    (starts_with("some_nulls", "b"), True), (starts_with("no_nulls", "{"), False),
    (not_starts_with("no_nulls", "a"), True), (starts_with("all_nulls", "a"), False),
    # day(ts) in [100, 200]: a timestamp filter projects onto the day field
    (greater_than_or_equal("ts", 201 * 86_400_000_000), False),
    (greater_than_or_equal("ts", 200 * 86_400_000_000 + 1), True),
    (less_than("ts", 100 * 86_400_000_000), False),
    (equal("unpartitioned", 5), True),
    (or_(equal("id", 5), equal("all_nulls", "x")), False),
    (and_(equal("id", 30), is_null("some_nulls")), True),
]


@pytest.mark.parametrize(("expr", "expected"), MANIFEST_CASES, ids=[str(c[0]) for c in MANIFEST_CASES])
def test_manifest_evaluator(expr, expected) -> None:
    assert manifest_evaluator(PSCHEMA, PSPEC, expr)(MANIFEST) is expected


def test_manifest_without_summaries_might_match() -> None:
    assert manifest_evaluator(PSCHEMA, PSPEC, equal("id", 5))(ManifestFile("m", 1, 0)) is True


# ---------------------------------------------------------------------------------------------
# Residuals


def test_residuals_by_partition() -> None:
    schema = Schema((NestedField(1, "ts", TimestampType()), NestedField(2, "id", IntegerType())))
    spec = PartitionSpec(0, (PartitionField(1, 1000, Day(), "ts_day"),))
    day = 86_400_000_000
    expr = and_(greater_than_or_equal("ts", 10 * day + 12 * 3_600_000_000), equal("id", 5))
    residual = residual_evaluator(schema, spec, expr)
    assert str(residual((11,))) == "id = 5"  # the whole day is after noon of day 10
    assert residual((9,)) == ALWAYS_FALSE
    assert str(residual((10,))) == "(ts >= '1970-01-11T12:00' AND id = 5)"
    assert residual((None,)) == ALWAYS_FALSE  # a null day: every ts is null
    or_expr = or_(less_than("ts", 10 * day), equal("id", 5))
    assert residual_evaluator(schema, spec, or_expr)((3,)) == ALWAYS_TRUE
    assert str(residual_evaluator(schema, spec, or_expr)((12,))) == "id = 5"


def test_residual_of_unpartitioned_spec_is_the_filter() -> None:
    schema = Schema((NestedField(1, "id", IntegerType()),))
    residual = residual_evaluator(schema, PartitionSpec(0, ()), not_(equal("id", 5)))
    assert str(residual(())) == "id != 5"
