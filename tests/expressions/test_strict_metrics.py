"""Strict metrics evaluation: must every row of a file match?

The table of cases is ported from Java Iceberg's TestStrictMetricsEvaluator; where icesql's
SQL semantics differ from Java's (a null never matches ``!=``; NaN sorts above every number),
the case says so. Real Parquet files, their metrics read from the footer pyarrow wrote, check
the guarantee against DuckDB.
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
    parquet_predicates,
    write_parquet_files,
)

from icesql.expressions.strict_metrics import (
    ROWS_MIGHT_NOT_MATCH,
    ROWS_MUST_MATCH,
    strict_metrics_evaluator,
)
from icesql.expressions.tree import (
    ALWAYS_FALSE,
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


def strict(expr, file=METRICS_FILE) -> bool:
    return strict_metrics_evaluator(METRICS_SCHEMA, expr)(file)


STRICT_CASES = [
    (less_than("id", 80), True),
    (less_than("id", 79), False),
    (less_than_or_equal("id", 79), True),
    (less_than_or_equal("id", 78), False),
    (greater_than("id", 29), True),
    (greater_than("id", 30), False),
    (greater_than_or_equal("id", 30), True),
    (greater_than_or_equal("id", 31), False),
    (equal("id", 30), False),
    (not_equal("id", 5), True),
    (not_equal("id", 29), True),
    (not_equal("id", 30), False),
    (not_equal("id", 75), False),
    (not_equal("id", 80), True),
    (in_("id", [30, 31]), False),
    (not_in("id", [5, 6]), True),
    (not_in("id", [29, 30]), False),
    (not_in("id", [80, 81]), True),
    (not_(equal("id", 80)), True),
    (not_(less_than("id", 80)), False),
    (and_(greater_than("id", 29), less_than("id", 80)), True),
    (or_(less_than("id", 5), greater_than("id", 29)), True),
    (is_null("all_nulls"), True),
    (is_null("some_nulls"), False),
    (is_null("no_nulls"), False),
    (not_null("no_nulls"), True),
    (not_null("some_nulls"), False),
    (not_null("all_nulls"), False),
    (is_nan("all_nans"), True),
    (is_nan("some_nans"), False),
    (is_nan("no_nans"), False),
    (not_nan("no_nans"), True),
    (not_nan("some_nans"), False),
    (not_nan("all_nans"), False),
    # SQL: a null never matches != (Java: must match)
    (not_equal("some_nulls", "zzz"), False),
    (not_equal("all_nulls", "a"), False),
    (not_equal("no_nulls", "zzz"), True),
    (not_equal("no_nulls", "c"), False),
    # NaN > anything in SQL: the lower bound decides ">" even with NaNs present
    (greater_than("some_nans", -5.0), True),
    (less_than("some_nans", 100.0), False),
    (less_than("no_nans", 100.0), True),
    (less_than("no_stats", 5), False),
    (starts_with("required", "a"), False),
]


@pytest.mark.parametrize(("expr", "expected"), STRICT_CASES, ids=[str(c[0]) for c in STRICT_CASES])
def test_strict_metrics(expr, expected) -> None:
    assert strict(expr) is expected


def test_strict_metrics_special_files() -> None:
    assert strict(equal("id", 1), data_file(record_count=0)) is True  # vacuously
    assert strict(equal("id", 42), FILE_42) is True
    assert strict(in_("id", [42, 43]), FILE_42) is True
    assert strict(starts_with("required", "ab"), FILE_ABC) is True
    assert strict(starts_with("required", "abc"), FILE_ABC) is False
    assert strict(not_starts_with("required", "abe"), FILE_ABC) is True
    assert strict(not_starts_with("required", "aa"), FILE_ABC) is True
    assert strict(not_starts_with("required", "ab"), FILE_ABC) is False


def test_unknown_count_and_constants() -> None:
    assert (ROWS_MUST_MATCH, ROWS_MIGHT_NOT_MATCH) == (True, False)
    assert strict(greater_than("id", 0), data_file(record_count=-1)) is False  # imported file
    assert strict(ALWAYS_FALSE, data_file(record_count=0)) is True  # no row to disagree


def test_missing_null_count_proves_nothing() -> None:
    # bounds alone: a null may hide in the file, and a null matches no comparison
    file = data_file(value_counts={6: 50}, lower_bounds={6: b"b"}, upper_bounds={6: b"y"})
    assert strict(greater_than("no_nulls", "a"), file) is False
    assert strict(not_null("no_nulls"), file) is False


@pytest.fixture(scope="module")
def parquet_files(tmp_path_factory: pytest.TempPathFactory):
    return write_parquet_files(tmp_path_factory.mktemp("strict"))


@pytest.mark.parametrize("name", list(PARQUET_TABLES))
def test_never_claims_all_rows_of_a_parquet_file_with_a_non_match(parquet_files, name) -> None:
    file = parquet_files[name]
    wrong, decided, all_match = [], 0, 0
    exprs = parquet_predicates()
    for expr, matches in zip(exprs, count_matches_in_parquet(file.file_path, exprs)):
        all_match += matches == file.record_count
        must = strict_metrics_evaluator(PARQUET_SCHEMA, expr)(file)
        if must and matches != file.record_count:
            wrong.append(f"{expr}: all rows match, but DuckDB finds {matches} of 5")
        decided += must
        exact = matches == file.record_count
        if (
            name == "one_value"
            and getattr(expr, "op", None) in EXACT_ON_ONE_VALUE
            and must != exact
        ):
            wrong.append(f"{expr}: {must}, but DuckDB finds {matches} of 5")
    assert wrong == []
    # every column of "mixed" holds a null: no predicate matches all of its rows
    assert (decided > 0) == (all_match > 0) == (name != "mixed")
