"""Spark's text-to-binary conversions in DuckDB: hex (odd lengths with a leading zero),
UTF-8 and base64 decoding, NULL for malformed hex where Spark tolerates it.

Every expected value is Spark 3.5.8's answer to the same query.
"""

from __future__ import annotations

import pytest

import icesql


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("hex(to_binary('abc'))", "0ABC"),
        ("hex(to_binary('737472696E67'))", "737472696E67"),
        ("hex(to_binary('FF'))", "FF"),
        ("hex(to_binary('ab', 'HEX'))", "AB"),
        ("hex(to_binary('abc', 'utf-8'))", "616263"),
        ("hex(to_binary('abc', 'UTF8'))", "616263"),
        ("hex(to_binary('YWJj', 'base64'))", "616263"),
        ("hex(to_binary('', 'hex'))", ""),
        ("to_binary(NULL)", None),
        ("to_binary('ab', NULL)", None),
        ("unhex('GG')", None),
        ("hex(unhex('abc'))", "0ABC"),
        ("try_to_binary('GG')", None),
        ("hex(try_to_binary('a1'))", "A1"),
    ],
)
def test_spark_answer(duck_answer, expr, spark_answer):
    assert duck_answer(f"SELECT {expr}") == [(spark_answer,)]


def test_an_unknown_format_is_an_error(spark_rules):
    # Spark: DATATYPE_MISMATCH.INVALID_ARG_VALUE
    with pytest.raises(icesql.ProgrammingError, match="format"):
        spark_rules("SELECT to_binary('abc', 'foo')")
