"""Spark's percentiles in DuckDB: DOUBLE answers for numbers, intervals kept, and the
descending ``WITHIN GROUP`` order, which DuckDB ignores over a window.

Every expected row is Spark 3.5.8's answer to the same query.
"""

from __future__ import annotations

import datetime

import pytest

_ONE_TO_FOUR = "FROM VALUES (1), (2), (3), (4) AS t(v)"
_DAYS = "FROM VALUES (INTERVAL '1' DAY), (INTERVAL '2' DAY), (INTERVAL '4' DAY) AS t(v)"


@pytest.mark.parametrize(
    "query, rows",
    [
        (
            "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY v DESC),"
            " percentile_disc(0.25) WITHIN GROUP (ORDER BY v DESC),"
            " percentile_disc(0.5) WITHIN GROUP (ORDER BY v DESC),"
            f" percentile_disc(0.5) WITHIN GROUP (ORDER BY v) {_ONE_TO_FOUR}",
            [(3.25, 4.0, 3.0, 2.0)],
        ),
        # DuckDB's quantile_cont of a DECIMAL(2,1) would round 1.75 to 1.8
        (
            "SELECT median(v), percentile(v, 0.25), percentile(v, array(0.25, 0.5))"
            " FROM VALUES (1.5BD), (2.5BD) AS t(v)",
            [(2.0, 1.75, [1.75, 2.0])],
        ),
        (
            "SELECT percentile_cont(0.3) WITHIN GROUP (ORDER BY v DESC),"
            " percentile_disc(0.3) WITHIN GROUP (ORDER BY v) FROM VALUES (1.5BD), (2.5BD) AS t(v)",
            [(pytest.approx(2.2), 1.5)],
        ),
        (
            "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v DESC),"
            f" percentile_disc(0.3) WITHIN GROUP (ORDER BY v DESC) {_DAYS}",
            [(datetime.timedelta(days=2), datetime.timedelta(days=4))],
        ),
    ],
)
def test_spark_answer(duck_answer, query, rows):
    assert duck_answer(query) == rows


def test_descending_percentiles_over_a_window(duck_answer):
    rows = duck_answer(
        "SELECT v, percentile_cont(0.25) WITHIN GROUP (ORDER BY v DESC) OVER (PARTITION BY v % 2),"
        " percentile_disc(0.25) WITHIN GROUP (ORDER BY v DESC) OVER ()"
        " FROM VALUES (1), (2), (3), (4), (5) AS t(v) ORDER BY v"
    )
    assert rows == [(1, 4.0, 4.0), (2, 3.5, 4.0), (3, 4.0, 4.0), (4, 3.5, 4.0), (5, 4.0, 4.0)]
