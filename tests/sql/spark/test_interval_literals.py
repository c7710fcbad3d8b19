"""Spark's interval literals in icesql: each answer is Spark 3.5.8's (as months, or as
microseconds for a day-time interval)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import icesql
from icesql.errors import ProgrammingError

_DAY = 86_400_000_000


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[icesql.Connection]:
    with icesql.connect(str(tmp_path_factory.mktemp("intervals"))) as connection:
        yield connection


def _value(con: icesql.Connection, expr: str) -> tuple[int, int]:
    value = con.execute(f"SELECT {expr}").fetchone()[0]
    return value.months, value.days * _DAY + value.nanoseconds // 1000


@pytest.mark.parametrize(
    "expr, months, micros",
    [
        ("INTERVAL 13.123456789 SECONDS", 0, 13_123_456),  # truncated, not rounded
        ("INTERVAL -13.123456789 SECOND", 0, -13_123_456),
        ("INTERVAL '2562047788' HOUR", 0, 9_223_372_036_800_000_000),  # past Arrow's nanos
        ("-INTERVAL -1 YEAR 1 MONTH", 11, 0),
        ("INTERVAL '3-1' YEAR TO MONTH", 37, 0),
        ("INTERVAL -'1 02:03:04.123' DAY TO SECOND", 0, -93_784_123_000),
        ("INTERVAL '20 15:40' DAY TO MINUTE", 0, 20 * _DAY + 56_400_000_000),
        ("INTERVAL '1 year 2 months'", 14, 0),
    ],
)
def test_literal(con: icesql.Connection, expr: str, months: int, micros: int) -> None:
    assert _value(con, expr) == (months, micros)


@pytest.mark.parametrize(
    "expr",
    [
        "INTERVAL '1'",
        "INTERVAL '1.5' DAY",
        "INTERVAL 3 MONTH 1 HOUR",
        "INTERVAL '-1 month 1 day -1 second'",
        "INTERVAL '1 day 24' DAY TO HOUR",
    ],
)
def test_spark_refuses(con: icesql.Connection, expr: str) -> None:
    with pytest.raises(ProgrammingError):
        con.execute(f"SELECT {expr}")


@pytest.mark.parametrize(
    "expr, days",
    [
        ("DATE '2001-10-01' - DATE '2001-09-28'", 3),  # Spark 3.5.8: INTERVAL '3' DAY
        ("'2001-10-01' - DATE '2001-09-28'", 3),
    ],
)
def test_date_difference_is_a_day_interval(con: icesql.Connection, expr: str, days: int) -> None:
    assert _value(con, expr) == (0, days * _DAY)
    assert con.execute(f"SELECT CAST({expr} AS BIGINT)").fetchone()[0] == days


@pytest.mark.parametrize(
    "expr, months, micros",
    [
        ("-INTERVAL -1 DAY 1 HOUR -1 MINUTE 1 SECOND", 0, 82_859_000_000),  # one literal
        ("INTERVAL 2 WEEKS 3 MICROSECONDS * 1.5", 0, 21 * _DAY + 5),  # rounded half up
        ("INTERVAL '-178956970-8' YEAR TO MONTH / 5", -429_496_730, 0),
        ("INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND / 5", 0, -1_844_674_407_370_955_162),
        ("2 * INTERVAL '3' MONTH", 6, 0),
        ("INTERVAL '1' DAY * 1.5D", 0, 36 * 3_600_000_000),
    ],
)
def test_interval_arithmetic(con: icesql.Connection, expr: str, months: int, micros: int) -> None:
    assert _value(con, expr) == (months, micros)


@pytest.mark.parametrize(
    "expr",
    [
        "INTERVAL '2' YEAR / 0",  # Spark: INTERVAL_DIVIDED_BY_ZERO
        "INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND / -1",  # overflow
    ],
)
def test_interval_arithmetic_raises_as_spark(con: icesql.Connection, expr: str) -> None:
    with pytest.raises(icesql.DataError):
        con.execute(f"SELECT {expr}")


@pytest.mark.parametrize(
    "expr",
    [
        "INTERVAL '1 day 2' DAY",
        "INTERVAL '1 day 1'",
        "INTERVAL '10-9' YEAR TO MONTH '2-1' YEAR TO MONTH",
    ],
)
def test_spark_s_parser_refuses(con: icesql.Connection, expr: str) -> None:
    with pytest.raises(ProgrammingError):
        con.execute(f"SELECT {expr}")
