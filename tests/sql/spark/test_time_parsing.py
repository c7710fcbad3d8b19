"""Spark's parsing defaults in icesql: each answer is Spark 3.5.8's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest

import icesql
from icesql.errors import NotSupportedError


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[icesql.Connection]:
    with icesql.connect(str(tmp_path_factory.mktemp("parsing"))) as connection:
        yield connection


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("to_date('16', 'dd')", dt.date(1970, 1, 16)),  # the year defaults to 1970
        ("to_date('1', 'M')", dt.date(1970, 1, 1)),
        ("to_date('2 29', 'M d')", None),  # 1970 has no February 29
        ("to_timestamp('10:30', 'HH:mm')", dt.datetime(1970, 1, 1, 10, 30)),
        ("to_timestamp('99', 'yy')", dt.datetime(2099, 1, 1)),  # yy reads 2000 to 2099
        ("to_timestamp('69', 'yy')", dt.datetime(2069, 1, 1)),
        ("to_timestamp('365', 'DDD')", dt.datetime(1970, 12, 31)),
        ("unix_timestamp('99', 'yy')", 4070908800),
    ],
)
def test_parsing_defaults(con: icesql.Connection, expr: str, spark_answer: object) -> None:
    value = con.execute(f"SELECT {expr}").fetchone()[0]
    if isinstance(value, dt.datetime):
        value = value.replace(tzinfo=None)
    assert value == spark_answer


def test_day_of_year_with_a_month_is_refused(con: icesql.Connection) -> None:
    with pytest.raises(NotSupportedError, match="day of the year"):
        con.execute("SELECT to_timestamp('12-365', 'MM-DDD')")


def test_date_minus_a_year_month_interval_is_a_date(con: icesql.Connection) -> None:
    row = con.execute(
        "SELECT DATE '2012-01-01' - INTERVAL '2-2' YEAR TO MONTH, DATE '2011-11-11' + INTERVAL '-2' DAY"
    ).fetchone()
    assert row == (dt.date(2009, 11, 1), dt.date(2011, 11, 9))
