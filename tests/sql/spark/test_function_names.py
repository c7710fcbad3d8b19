"""The tables of Spark 3.5's function names: printed names, default arguments, built-ins.

The tables are data; what can be wrong is a name that is not Spark's. Each name the tables
print or key on must be one of Spark's built-in functions (``SPARK_FUNCTIONS``, Spark 3.5's
``SHOW SYSTEM FUNCTIONS``), and the built-ins must hold Spark's names and no DuckDB-only ones.
"""

from __future__ import annotations

import pytest

from icesql.sql.spark import aggregates, arrays, datetimes, numbers, relations, text
from icesql.sql.spark.function_names import (
    CAST_FUNCTIONS,
    DEFAULT_ARGUMENTS,
    FUNCTION_NAMES,
    OPAQUE_FUNCTIONS,
    SPARK_FUNCTIONS,
)

AREAS = (aggregates, arrays, datetimes, numbers, relations, text)


@pytest.mark.parametrize(
    "table, names",
    [
        ("FUNCTION_NAMES keys", set(FUNCTION_NAMES)),
        ("FUNCTION_NAMES values", {name.lower() for name in FUNCTION_NAMES.values()}),
        ("CAST_FUNCTIONS", set(CAST_FUNCTIONS)),
        ("OPAQUE_FUNCTIONS", set(OPAQUE_FUNCTIONS)),
        ("DEFAULT_ARGUMENTS", set(DEFAULT_ARGUMENTS)),
        ("rewrite rules by name", {name for area in AREAS for name in area.FUNCTIONS}),
    ],
)
def test_every_name_is_a_spark_function(table, names):
    assert names - SPARK_FUNCTIONS == set(), table


def test_names_are_keyed_in_lower_case():
    for names in (
        FUNCTION_NAMES,
        CAST_FUNCTIONS,
        OPAQUE_FUNCTIONS,
        DEFAULT_ARGUMENTS,
        SPARK_FUNCTIONS,
    ):
        assert all(name == name.lower() for name in names)


def test_printed_names_differ_from_the_name_written():
    # an entry that printed the name as written would be dead weight
    assert all(printed != written for written, printed in FUNCTION_NAMES.items())


@pytest.mark.parametrize(
    "written, printed",
    [
        ("sqrt", "SQRT"),
        ("ln", None),
        ("array_agg", "collect_list"),
        ("random", "rand"),
        ("dateadd", "date_add"),
        ("user", "current_user"),
        ("signum", "SIGNUM"),
        ("abs", None),
    ],
)
def test_spark_prints_these_names(written, printed):
    # Spark 3.5: SELECT sqrt(4) is named SQRT(4), array_agg(x) is collect_list(x), ln(x) is ln(x)
    assert FUNCTION_NAMES.get(written) == printed


def test_default_arguments_are_keyed_by_fewer_arguments_than_written_in_full():
    # e.g. locate(substr, str) prints locate(substr, str, 1): 2 written, 1 default added
    assert DEFAULT_ARGUMENTS["locate"] == {2: ("1",)}
    assert DEFAULT_ARGUMENTS["unix_timestamp"][0] == ("current_timestamp()", "yyyy-MM-dd HH:mm:ss")
    for name, by_count in DEFAULT_ARGUMENTS.items():
        for written, defaults in by_count.items():
            assert written >= 0 and defaults and all(isinstance(d, str) for d in defaults), name


@pytest.mark.parametrize(
    "name",
    [
        "pmod",
        "percentile_approx",
        "array_distinct",
        "date_format",
        "substring_index",
        "format_number",
        "collect_list",
        "explode",
    ],
)
def test_spark_builtins_are_listed(name):
    assert name in SPARK_FUNCTIONS


@pytest.mark.parametrize(
    "name",
    [
        "list_filter",
        "strftime",
        "read_parquet",
        "quantile_disc",
        "epoch_us",
        "round_even",
        "nosuchfn",
    ],
)
def test_duckdb_only_functions_are_not(name):
    # an unknown function that is a Spark built-in is "not supported", else a misspelt name
    assert name not in SPARK_FUNCTIONS
