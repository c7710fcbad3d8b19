"""Spark's reading of interval text: each answer is Spark 3.5.8's (``CAST(s AS INTERVAL)``)."""

from __future__ import annotations

import pytest

from icesql.sql.spark.interval_text import string_to_interval, trim_all


@pytest.mark.parametrize(
    "text, spark_answer",
    [
        ("+1 second", (0, 0, 1_000_000)),
        ("+     1 second", (0, 0, 1_000_000)),
        ("-     1 second", (0, 0, -1_000_000)),
        ("interval 3 month 1 hour", (3, 0, 3_600_000_000)),
        (".5 seconds", (0, 0, 500_000)),
        ("1 DAYS 2 Hours", (0, 1, 7_200_000_000)),
        ("1 microseconds 3 milliseconds", (0, 0, 3001)),
        ("interval -2 weeks", (0, -14, 0)),
        ("13.123456789 seconds", (0, 0, 13_123_456)),  # truncated to microseconds
        ("1 day 1", None),
        ("1.5 day", None),  # only seconds take a fraction
        ("interval", None),
        ("1 second 1.0000000001 seconds", None),  # more than nine fraction digits
        ("1 day -", None),
        ("1day", None),
    ],
)
def test_string_to_interval(text: str, spark_answer: tuple[int, int, int] | None) -> None:
    assert string_to_interval(text) == spark_answer


def test_trim_all_strips_control_characters() -> None:
    assert trim_all("\t\x01 true \n\r\x7f") == "true"
