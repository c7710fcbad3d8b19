"""Spark's year-month and day-time interval text: each answer is Spark 3.5.8's (the literal
``INTERVAL '<text>' <fields>`` or ``CAST('<text>' AS INTERVAL <fields>)``)."""

from __future__ import annotations

import pytest

from icesql.sql.spark.ansi_interval_text import day_time_micros, year_month_months


@pytest.mark.parametrize(
    "text, start, end, spark_answer",
    [
        ("20 15:40", 0, 2, 20 * 86_400_000_000 + 56_400_000_000),
        ("-1 02:03:04.123", 0, 3, -93_784_123_000),
        ("40:32.99899999", 2, 3, 2_432_998_999),  # nanoseconds truncated
        ("2562047788", 1, 1, 9_223_372_036_800_000_000),
        ("INTERVAL '1 02:03:04' DAY TO SECOND", 0, 3, 93_784_000_000),
    ],
)
def test_day_time(text: str, start: int, end: int, spark_answer: int) -> None:
    assert day_time_micros(text, start, end) == spark_answer


@pytest.mark.parametrize(
    "text, start, end, spark_answer",
    [("3-1", 0, 1, 37), ("-10-2", 0, 1, -122), ("|3-1", 0, 1, 37), ("1", 0, 0, 12)],
)
def test_year_month(text: str, start: int, end: int, spark_answer: int) -> None:
    assert year_month_months(text, start, end) == spark_answer


@pytest.mark.parametrize(
    "text, start, end", [("1 day 24", 0, 1), ("1 24", 0, 1), ("25", 0, 1), ("1-12", 0, 1)]
)
def test_spark_refuses(text: str, start: int, end: int) -> None:
    read = year_month_months if (start, end) == (0, 1) and "-" in text else day_time_micros
    with pytest.raises(ValueError):
        read(text, start, end)
