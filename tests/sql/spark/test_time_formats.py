"""Spark's (java.time) datetime patterns as DuckDB strftime formats.

The expected texts are what java.time's ``DateTimeFormatter.ofPattern`` prints for the instant
(its documented letters: ``yyyy`` the year, ``D`` the day of the year, ``SSS`` the fraction,
``''`` a quote), compared with what DuckDB's strftime prints with the translated format.
"""

from __future__ import annotations

import datetime

import duckdb
import pytest

import icesql
from icesql.sql.spark.time_formats import spark_to_strftime

# a Monday, the 36th day of 2024; one-digit fields show padding
MORNING = datetime.datetime(2024, 2, 5, 9, 7, 3, 12345)
AFTERNOON = datetime.datetime(2024, 11, 30, 13, 45, 30, 123456)


def _duckdb_format(pattern: str, value: datetime.datetime) -> str:
    with duckdb.connect() as con:
        (text,) = con.execute(
            "SELECT strftime(?, ?)", [value, spark_to_strftime(pattern)]
        ).fetchone()
    return text


@pytest.mark.parametrize(
    "pattern, value, java_text",
    [
        ("yyyy-MM-dd HH:mm:ss", MORNING, "2024-02-05 09:07:03"),
        ("y yy yyy", MORNING, "2024 24 2024"),
        ("M MM MMM MMMM", MORNING, "2 02 Feb February"),
        ("L LL LLL LLLL", AFTERNOON, "11 11 Nov November"),
        ("d dd", MORNING, "5 05"),
        ("D DDD", MORNING, "36 036"),
        ("H HH h hh a", MORNING, "9 09 9 09 AM"),
        ("H h a", AFTERNOON, "13 1 PM"),
        ("m mm s ss", MORNING, "7 07 3 03"),
        ("SSS", MORNING, "012"),
        ("SSSSSS", MORNING, "012345"),
        ("SSSSSSSSS", AFTERNOON, "123456000"),
        ("E EE EEE EEEE", MORNING, "Mon Mon Mon Monday"),
        ("yyyy-MM-dd'T'HH:mm", MORNING, "2024-02-05T09:07"),
        ("h 'o''clock' a", AFTERNOON, "1 o'clock PM"),  # '' inside quotes is a quote
        ("''h''", AFTERNOON, "'1'"),  # '' alone is a quote
        ("''''", AFTERNOON, "'"),
        ("'100%' d", MORNING, "100% 5"),
        ("d%", MORNING, "5%"),
        ("dd.MM, é", MORNING, "05.02, é"),  # non-ASCII letters are not pattern letters
    ],
)
def test_pattern_prints_what_java_prints(pattern, value, java_text):
    assert _duckdb_format(pattern, value) == java_text


@pytest.mark.parametrize(
    "pattern, named",
    [
        ("QQ", "'QQ'"),  # quarter
        ("yyyyy", "'yyyyy'"),
        ("MMMMM", "'MMMMM'"),  # narrow month
        ("SS", "'SS'"),
        ("DD", "'DD'"),
        ("EEEEE", "'EEEEE'"),
        ("w", "'w'"),  # week of year
        ("G", "'G'"),  # era
        ("VV", "'VV'"),  # zone id
        ("XXX", "'XXX'"),  # zone offset
        ("'abc", "unterminated quote"),
        ("'''", "unterminated quote"),
        ("[yyyy]", "'\\['"),
        ("yyyy{", "'{'"),
        ("#", "'#'"),
    ],
)
def test_patterns_without_a_strftime_equivalent_are_refused(pattern, named):
    with pytest.raises(icesql.NotSupportedError, match=named) as refused:
        spark_to_strftime(pattern)
    assert repr(pattern) in str(refused.value)


def test_date_format_uses_the_translation(duck_answer):
    # moved from tests/sql/test_semantics.py: date_format's pattern goes through this module
    sql = "SELECT date_format(TIMESTAMP '2024-02-29 13:45:30.123', \"yyyy-MM-dd'T'HH:mm:ss.SSS D\")"
    assert duck_answer(sql) == [("2024-02-29T13:45:30.123 60",)]


def test_date_format_refuses_a_pattern_letter_it_cannot_print(duck_answer):
    with pytest.raises(icesql.NotSupportedError, match="QQ"):
        duck_answer("SELECT date_format(current_date(), 'QQ')")


@pytest.mark.xfail(
    strict=True,
    reason="Spark's date_format(ts, '') is '', but DuckDB's strftime "
    "refuses the empty format this module translates it to",
)
def test_an_empty_pattern_prints_nothing(duck_answer):
    assert spark_to_strftime("") == ""
    assert duck_answer("SELECT date_format(TIMESTAMP '2024-02-29 13:45:30', '')") == [("",)]
