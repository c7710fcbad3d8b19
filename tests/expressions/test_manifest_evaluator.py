"""Skipping manifests by their partition summaries: the table of cases is ported from Java
Iceberg's TestInclusiveManifestEvaluator (SQL semantics where they differ, as the case says);
summaries built from partition values by the spec's rules check the guarantee against DuckDB.
"""

from __future__ import annotations

import math

import pytest
from expressions_support import (
    PARQUET_SCHEMA,
    PARQUET_TABLES,
    double_bytes,
    float_bytes,
    int_bytes,
    matching_rows,
    parquet_predicates,
    parquet_table,
)

from icesql.expressions.manifest_evaluator import (
    IN_PREDICATE_LIMIT,
    ROWS_CANNOT_MATCH,
    ROWS_MIGHT_MATCH,
    manifest_evaluator,
)
from icesql.expressions.tree import (
    and_,
    equal,
    greater_than,
    greater_than_or_equal,
    in_,
    is_nan,
    is_null,
    less_than,
    not_equal,
    not_in,
    not_nan,
    not_null,
    not_starts_with,
    or_,
    starts_with,
)
from icesql.spec.manifest_file import FieldSummary, ManifestFile
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import Day, Identity
from icesql.spec.types import (
    FloatType,
    IntegerType,
    NestedField,
    StringType,
    TimestampType,
)

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
PSPEC = PartitionSpec(
    0,
    tuple(
        PartitionField(i, 1000 + i, Identity(), f.name)
        for i, f in ((f.field_id, f) for f in PSCHEMA.fields[:7])
    )
    + (PartitionField(8, 1008, Day(), "ts_day"),),
)
SUMMARIES = (
    FieldSummary(False, False, int_bytes(30), int_bytes(79)),
    FieldSummary(True, None, None, None),
    FieldSummary(True, None, b"a", b"z"),
    FieldSummary(False, None, b"a", b"z"),
    FieldSummary(False, True, float_bytes(0.0), float_bytes(5.0)),
    FieldSummary(False, False, float_bytes(0.0), float_bytes(5.0)),
    FieldSummary(False, True, None, None),
    FieldSummary(False, False, int_bytes(100), int_bytes(200)),
)
MANIFEST = ManifestFile("m.avro", 1, 0, partitions=SUMMARIES)

MANIFEST_CASES = [
    (less_than("id", 5), False),
    (less_than("id", 31), True),
    (greater_than("id", 79), False),
    (greater_than_or_equal("id", 79), True),
    (equal("id", 30), True),
    (equal("id", 80), False),
    (in_("id", [5, 6]), False),
    (in_("id", [78, 100]), True),
    (not_equal("id", 5), True),
    (is_null("all_nulls"), True),
    (is_null("no_nulls"), False),
    (not_null("all_nulls"), False),
    (not_null("some_nulls"), True),
    (equal("all_nulls", "a"), False),
    (not_equal("all_nulls", "a"), False),
    (not_in("all_nulls", ["a", "b"]), False),
    (is_nan("float_no_nan"), False),
    (is_nan("float_nan"), True),
    (not_nan("all_nans"), False),
    (greater_than("float_nan", 100.0), True),
    (greater_than("float_no_nan", 100.0), False),
    (starts_with("some_nulls", "b"), True),
    (starts_with("no_nulls", "{"), False),
    (not_starts_with("no_nulls", "a"), True),
    (starts_with("all_nulls", "a"), False),
    # day(ts) in [100, 200]: a timestamp filter projects onto the day field
    (greater_than_or_equal("ts", 201 * 86_400_000_000), False),
    (greater_than_or_equal("ts", 200 * 86_400_000_000 + 1), True),
    (less_than("ts", 100 * 86_400_000_000), False),
    (equal("unpartitioned", 5), True),
    (or_(equal("id", 5), equal("all_nulls", "x")), False),
    (and_(equal("id", 30), is_null("some_nulls")), True),
]


@pytest.mark.parametrize(
    ("expr", "expected"), MANIFEST_CASES, ids=[str(c[0]) for c in MANIFEST_CASES]
)
def test_manifest_evaluator(expr, expected) -> None:
    assert manifest_evaluator(PSCHEMA, PSPEC, expr)(MANIFEST) is expected


def test_manifest_without_summaries_might_match() -> None:
    assert manifest_evaluator(PSCHEMA, PSPEC, equal("id", 5))(ManifestFile("m", 1, 0)) is True


def test_named_results_are_the_booleans_returned() -> None:
    assert (ROWS_MIGHT_MATCH, ROWS_CANNOT_MATCH) == (True, False)


@pytest.mark.parametrize(
    ("size", "expected"), [(IN_PREDICATE_LIMIT, False), (IN_PREDICATE_LIMIT + 1, True)]
)
def test_in_is_compared_up_to_the_limit(size: int, expected: bool) -> None:
    # every value is above the upper bound 79: only the limit keeps the manifest
    evaluate = manifest_evaluator(PSCHEMA, PSPEC, in_("id", range(1000, 1000 + size)))
    assert evaluate(MANIFEST) is expected


def test_missing_summary_of_a_field_proves_nothing() -> None:
    # a manifest list written with fewer summaries than the spec has fields
    short = ManifestFile("m.avro", 1, 0, partitions=SUMMARIES[:1])
    for expr in (is_null("no_nulls"), equal("all_nulls", "a"), is_nan("float_no_nan")):
        assert manifest_evaluator(PSCHEMA, PSPEC, expr)(short) is True, expr
    assert manifest_evaluator(PSCHEMA, PSPEC, equal("id", 80))(short) is False


def test_unknown_nan_presence_keeps_greater_than() -> None:
    # contains_nan is optional (v1): a NaN may sort above the upper bound
    unknown = list(SUMMARIES)
    unknown[5] = FieldSummary(False, None, float_bytes(0.0), float_bytes(5.0))
    manifest = ManifestFile("m.avro", 1, 0, partitions=tuple(unknown))
    assert manifest_evaluator(PSCHEMA, PSPEC, greater_than("float_no_nan", 100.0))(manifest) is True
    assert manifest_evaluator(PSCHEMA, PSPEC, less_than("float_no_nan", -1.0))(manifest) is False


# ---------------------------------------------------------------------------------------------
# The guarantee: summaries built as the spec says from the partition values of a manifest's
# files; a manifest is never skipped when DuckDB finds a matching value among them.

IDENTITY_SPEC = PartitionSpec(
    0,
    tuple(
        PartitionField(f.field_id, 1000 + f.field_id, Identity(), f.name)
        for f in PARQUET_SCHEMA.fields
    ),
)


def _summary(values: list, encode) -> FieldSummary:
    numbers = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    floats = any(isinstance(v, float) for v in values)
    return FieldSummary(
        contains_null=any(v is None for v in values),
        contains_nan=any(isinstance(v, float) and math.isnan(v) for v in values)
        if floats
        else None,
        lower_bound=encode(min(numbers)) if numbers else None,
        upper_bound=encode(max(numbers)) if numbers else None,
    )


_ENCODERS = {"i": int_bytes, "x": double_bytes, "s": str.encode}


@pytest.mark.parametrize("name", list(PARQUET_TABLES))
def test_never_skips_a_manifest_with_a_matching_partition(name: str) -> None:
    columns = PARQUET_TABLES[name]
    manifest = ManifestFile(
        "m.avro",
        1,
        0,
        partitions=tuple(_summary(columns[c], _ENCODERS[c]) for c in ("i", "x", "s")),
    )
    wrong, skipped = [], 0
    exprs = parquet_predicates()
    for expr, rows in zip(exprs, matching_rows(parquet_table(name), exprs)):
        keep = manifest_evaluator(PARQUET_SCHEMA, IDENTITY_SPEC, expr)(manifest)
        skipped += not keep
        if not keep and rows:
            wrong.append(f"{expr}: skipped, but DuckDB matches partitions {sorted(rows)}")
    assert wrong == []
    assert skipped > 0
