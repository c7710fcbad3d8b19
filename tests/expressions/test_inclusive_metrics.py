"""Inclusive metrics evaluation: can a file hold a matching row?

The table of cases is ported from Java Iceberg's TestInclusiveMetricsEvaluator; where icesql's
SQL semantics differ from Java's (a null never matches ``!=`` / ``NOT IN`` / ``NOT STARTS
WITH`` / ``IS NOT NAN``; NaN sorts above every number), the case says so. Real Parquet files,
their metrics read from the footer pyarrow wrote, check the guarantee against DuckDB.
"""

from __future__ import annotations

import pytest
from expressions_support import (
    EXACT_ON_ONE_VALUE,
    FILE_42,
    FILE_ABC,
    METRICS_FILE,
    METRICS_SCHEMA,
    PARQUET_SCHEMA,
    PARQUET_TABLES,
    count_matches_in_parquet,
    data_file,
    int_bytes,
    parquet_predicates,
    write_parquet_files,
)

from icesql.errors import ProgrammingError
from icesql.expressions.inclusive_metrics import (
    ROWS_CANNOT_MATCH,
    ROWS_MIGHT_MATCH,
    inclusive_metrics_evaluator,
)
from icesql.expressions.manifest_evaluator import IN_PREDICATE_LIMIT
from icesql.expressions.tree import (
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
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField


def inclusive(expr, file=METRICS_FILE) -> bool:
    return inclusive_metrics_evaluator(METRICS_SCHEMA, expr)(file)


INCLUSIVE_CASES = [
    (not_null("all_nulls"), False),
    (not_null("some_nulls"), True),
    (not_null("no_nulls"), True),
    (is_null("all_nulls"), True),
    (is_null("some_nulls"), True),
    (is_null("no_nulls"), False),
    (is_nan("all_nans"), True),
    (is_nan("some_nans"), True),
    (is_nan("no_nans"), False),
    (is_nan("all_nulls_double"), False),
    (is_nan("no_nan_stats"), True),
    (is_nan("all_nans_v1_stats"), True),
    (is_nan("nan_and_null_only"), True),
    (not_nan("all_nans"), False),
    (not_nan("some_nans"), True),
    (not_nan("no_nans"), True),
    # SQL: a null is not "not NaN" (Java: might match)
    (not_nan("all_nulls_double"), False),
    (not_nan("nan_and_null_only"), False),
    (not_nan("all_nans_v1_stats"), False),
    (less_than("no_stats", 5), True),
    (less_than("id", 5), False),
    (less_than("id", 30), False),
    (less_than("id", 31), True),
    (less_than("id", 79), True),
    (less_than_or_equal("id", 29), False),
    (less_than_or_equal("id", 30), True),
    (greater_than("id", 79), False),
    (greater_than("id", 78), True),
    (greater_than_or_equal("id", 80), False),
    (greater_than_or_equal("id", 79), True),
    (equal("id", 5), False),
    (equal("id", 29), False),
    (equal("id", 30), True),
    (equal("id", 75), True),
    (equal("id", 79), True),
    (equal("id", 80), False),
    (not_equal("id", 5), True),
    (not_equal("id", 30), True),
    (in_("id", [5, 6]), False),
    (in_("id", [29, 30]), True),
    (in_("id", [80, 81]), False),
    (in_("id", range(1000, 1300)), True),  # beyond the IN limit: not compared
    (not_in("id", [30, 31]), True),
    (not_(less_than("id", 5)), True),
    (not_(greater_than("id", 5)), False),
    (and_(less_than("id", 5), greater_than_or_equal("id", 0)), False),
    (or_(less_than("id", 5), greater_than_or_equal("id", 80)), False),
    (or_(less_than("id", 5), greater_than_or_equal("id", 60)), True),
    # NaN sorts above every number: an upper bound cannot exclude NaNs from ">"
    (greater_than("some_nans", 100.0), True),
    (greater_than("no_nans", 100.0), False),
    (greater_than("no_nan_stats", 100.0), True),
    (less_than("some_nans", -5.0), False),
    (greater_than_or_equal("all_nans", 1e300), True),
    (less_than("all_nans", 1e300), False),
    (equal("all_nans", 1.0), False),
    (equal("some_nans", 20.0), False),
    # NaN bounds (old writers) say nothing; all NaN here anyway
    (greater_than("all_nans_v1_stats", 1.0), True),
    (equal("all_nans_v1_stats", 1.0), False),
    # all nulls
    (less_than("all_nulls", "a"), False),
    (equal("all_nulls", "a"), False),
    (starts_with("all_nulls", "a"), False),
    (not_starts_with("all_nulls", "a"), False),
    (not_equal("all_nulls", "a"), False),
    (not_in("all_nulls", ["a", "b"]), False),
    # strings in [aa, dC]
    (starts_with("required", "a"), True),
    (starts_with("required", "aa"), True),
    (starts_with("required", "aaa"), True),
    (starts_with("required", "d"), True),
    (starts_with("required", "dC"), True),
    (starts_with("required", "dD"), False),
    (starts_with("required", "dCC"), False),  # every value is <= 'dC' < 'dCC...'
    (starts_with("required", "e"), False),
    (starts_with("required", "1"), False),
    (not_starts_with("required", "a"), True),
    (
        not_starts_with(
            "required",
            "ab",
        ),
        True,
    ),
]


@pytest.mark.parametrize(
    ("expr", "expected"), INCLUSIVE_CASES, ids=[str(c[0]) for c in INCLUSIVE_CASES]
)
def test_inclusive_metrics(expr, expected) -> None:
    assert inclusive(expr) is expected


def test_inclusive_metrics_special_files() -> None:
    assert inclusive(ALWAYS_TRUE, data_file(record_count=0)) is False
    assert inclusive(equal("id", 5), data_file(record_count=-1)) is True
    assert inclusive(not_starts_with("required", "ab"), FILE_ABC) is False
    assert inclusive(not_starts_with("required", "abc"), FILE_ABC) is True
    assert inclusive(not_equal("id", 42), FILE_42) is False  # every value is 42
    assert inclusive(not_equal("id", 41), FILE_42) is True
    assert inclusive(equal("no_stats", 1), data_file()) is True


def test_named_results_are_the_booleans_returned() -> None:
    assert (ROWS_MIGHT_MATCH, ROWS_CANNOT_MATCH) == (True, False)


@pytest.mark.parametrize(
    ("size", "expected"), [(IN_PREDICATE_LIMIT, False), (IN_PREDICATE_LIMIT + 1, True)]
)
def test_in_is_compared_up_to_the_limit(size: int, expected: bool) -> None:
    # every value is above the upper bound 79: only the limit keeps the file
    assert inclusive(in_("id", range(1000, 1000 + size))) is expected


def test_bounds_written_before_a_promotion_still_prune() -> None:
    # the column was an int when the file was written: 4-byte bounds under a long column
    schema = Schema((NestedField(1, "id", LongType(), required=True),))
    file = data_file(
        value_counts={1: 50},
        null_value_counts={1: 0},
        lower_bounds={1: int_bytes(30)},
        upper_bounds={1: int_bytes(79)},
    )
    evaluate = inclusive_metrics_evaluator
    assert evaluate(schema, greater_than("id", 79))(file) is False
    assert evaluate(schema, greater_than("id", 2**40))(file) is False
    assert evaluate(schema, equal("id", 50))(file) is True


def test_names_bind_case_insensitively_unless_asked() -> None:
    assert inclusive_metrics_evaluator(METRICS_SCHEMA, less_than("ID", 5))(METRICS_FILE) is False
    with pytest.raises(ProgrammingError, match="ID"):
        inclusive_metrics_evaluator(METRICS_SCHEMA, less_than("ID", 5), case_sensitive=True)


@pytest.fixture(scope="module")
def parquet_files(tmp_path_factory: pytest.TempPathFactory):
    return write_parquet_files(tmp_path_factory.mktemp("inclusive"))


@pytest.mark.parametrize("name", list(PARQUET_TABLES))
def test_never_prunes_a_parquet_file_holding_a_match(parquet_files, name: str) -> None:
    file = parquet_files[name]
    wrong, pruned = [], 0
    exprs = parquet_predicates()
    for expr, matches in zip(exprs, count_matches_in_parquet(file.file_path, exprs)):
        might = inclusive_metrics_evaluator(PARQUET_SCHEMA, expr)(file)
        if not might and matches:
            wrong.append(f"{expr}: pruned, but DuckDB finds {matches} rows")
        pruned += not might
        if (
            name == "one_value"
            and getattr(expr, "op", None) in EXACT_ON_ONE_VALUE
            and might != (matches > 0)
        ):
            wrong.append(f"{expr}: {might}, but DuckDB finds {matches} rows")
    assert wrong == []
    assert pruned > 0  # the metrics decide something about every file here
