"""Spark's casts that DuckDB answers with NULL: integers to BINARY, text to BOOLEAN, the
default DECIMAL, and casts to and from intervals. Each answer is Spark 3.5.8's (ANSI off)."""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Iterator

import pytest

import icesql
from icesql.errors import DataError, NotSupportedError

D = decimal.Decimal


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[icesql.Connection]:
    with icesql.connect(str(tmp_path_factory.mktemp("casts"))) as connection:
        yield connection


def _one(con: icesql.Connection, expr: str) -> object:
    return con.execute(f"SELECT {expr}").fetchone()[0]


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("HEX(CAST(123 AS BINARY))", "0000007B"),
        ("HEX(CAST(-123 AS BINARY))", "FFFFFF85"),
        ("HEX(CAST(-123S AS BINARY))", "FF85"),
        ("HEX(CAST(CAST(-123 AS BYTE) AS BINARY))", "85"),
        ("HEX(CAST(123L AS BINARY))", "000000000000007B"),
        ("CAST('\t\t true \n\r ' AS BOOLEAN)", True),
        ("CAST(' YES' AS BOOLEAN)", True),
        ("CAST(concat(chr(1), 'n', chr(127)) AS BOOLEAN)", False),
        ("CAST('2' AS BOOLEAN)", None),
        ("CAST('1.5' AS DECIMAL)", D("2")),
        ("CAST(2.5 AS DEC)", D("3")),
        ("CAST('+     1 second' AS INTERVAL)", dt.timedelta(seconds=1)),
        ("CAST('1 day 1' AS INTERVAL)", None),
    ],
)
def test_casts(con: icesql.Connection, expr: str, spark_answer: object) -> None:
    value = _one(con, expr)
    if isinstance(spark_answer, dt.timedelta):
        assert value.nanoseconds == spark_answer // dt.timedelta(microseconds=1) * 1000
    else:
        assert value == spark_answer


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("CAST(INTERVAL '1' YEAR AS TINYINT)", 1),
        ("CAST(INTERVAL '-7' MONTH AS TINYINT)", -7),
        ("CAST(INTERVAL '10' DAY AS BIGINT)", 10),
        ("CAST(INTERVAL '-7' MINUTE AS INT)", -7),
        ("CAST(INTERVAL '-1' YEAR AS DECIMAL(10, 0))", D("-1")),
        ("CAST(INTERVAL '-1' DAY AS DECIMAL(5, 1))", D("-1.0")),
        ("CAST(INTERVAL '10.005' SECOND AS DECIMAL(4, 2))", D("10.01")),
        ("CAST(INTERVAL '-10.5' SECOND AS DECIMAL(3, 0))", D("-11")),
    ],
)
def test_interval_to_number(con: icesql.Connection, expr: str, spark_answer: object) -> None:
    assert _one(con, expr) == spark_answer


@pytest.mark.parametrize(
    "expr, months, micros",
    [
        ("CAST(1Y AS INTERVAL YEAR)", 12, 0),
        ("CAST(-122S AS INTERVAL YEAR TO MONTH)", -122, 0),
        ("CAST(-10.123456BD AS INTERVAL YEAR TO MONTH)", -10, 0),
        ("CAST(10.654321BD AS INTERVAL MONTH)", 11, 0),  # half up
        ("CAST(-7L AS INTERVAL MINUTE)", 0, -420_000_000),
        ("CAST(100Y AS INTERVAL HOUR TO SECOND)", 0, 100_000_000),
        ("CAST(80.654321BD AS INTERVAL HOUR TO MINUTE)", 0, 4_839_259_260),
        ("CAST(INTERVAL '-13' MONTH AS INTERVAL YEAR)", -12, 0),
        ("CAST(INTERVAL '-90' MINUTE AS INTERVAL HOUR)", 0, -3_600_000_000),
    ],
)
def test_to_interval(con: icesql.Connection, expr: str, months: int, micros: int) -> None:
    value = _one(con, expr)
    assert (value.months, value.days * 86_400_000_000 + value.nanoseconds // 1000) == (
        months,
        micros,
    )


@pytest.mark.parametrize(
    "expr",
    [
        "CAST(INTERVAL '-1000' MONTH AS TINYINT)",
        "CAST(2147483647 AS INTERVAL YEAR)",
        "CAST(INTERVAL '10.123' SECOND AS DECIMAL(1, 0))",
    ],
)
def test_overflow_raises_as_in_spark(con: icesql.Connection, expr: str) -> None:
    with pytest.raises(DataError):
        _one(con, expr)


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("CAST(INTERVAL 3 YEAR 1 MONTH AS STRING)", "INTERVAL '3-1' YEAR TO MONTH"),
        ("CAST(INTERVAL '-13' MONTH AS STRING)", "INTERVAL '-13' MONTH"),
        ("CAST(CAST(INTERVAL '-13' MONTH AS INTERVAL YEAR) AS STRING)", "INTERVAL '-1' YEAR"),
        ("CAST(INTERVAL 3 DAY 1 SECOND AS STRING)", "INTERVAL '3 00:00:01' DAY TO SECOND"),
        (
            "CAST(CAST(80.654321BD AS INTERVAL HOUR TO MINUTE) AS STRING)",
            "INTERVAL '01:20' HOUR TO MINUTE",
        ),
        ("CAST(INTERVAL '-10.123456' SECOND AS STRING)", "INTERVAL '-10.123456' SECOND"),
        (
            "CAST(INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND AS STRING)",
            "INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND",
        ),
    ],
)
def test_interval_to_text(con: icesql.Connection, expr: str, spark_answer: str) -> None:
    assert _one(con, expr) == spark_answer


def test_text_to_year_month_and_day_time(con: icesql.Connection) -> None:
    ym = _one(con, "CAST('INTERVAL \\'3-1\\' YEAR TO MONTH' AS INTERVAL YEAR TO MONTH)")
    dt = _one(con, "CAST('3 00:00:01' AS INTERVAL DAY TO SECOND)")
    assert (ym.months, dt.days, dt.nanoseconds) == (37, 3, 1_000_000_000)
    with pytest.raises(DataError):  # Spark raises on text of another form, ANSI or not
        _one(con, "CAST('abc' AS INTERVAL YEAR)")


def test_calendar_interval_text_is_refused(con: icesql.Connection) -> None:
    with pytest.raises(NotSupportedError, match="CAST of a calendar interval to STRING"):
        _one(con, "CAST(CAST('1 month 1 day' AS INTERVAL) AS STRING)")


@pytest.mark.parametrize(
    "expr",
    [
        # Spark 3.5.8: 1 years 2 months 25 days 34293552 hours 30 minutes 12.123456 seconds
        "make_interval(1, 2, 3, 4, 0, 0, 123456789012.123456)",
        "CAST('1000000000 hours' AS INTERVAL)",
    ],
)
def test_calendar_intervals_past_arrow_s_nanoseconds_are_refused(
    con: icesql.Connection, expr: str
) -> None:
    with pytest.raises(NotSupportedError, match="106751 days"):
        _one(con, expr)
