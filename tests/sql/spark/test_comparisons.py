"""Text compared with numbers and booleans as Spark 3.5.8 compares it (ANSI off): each
answer below is what Spark 3.5.8 returned for the same SELECT."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        # a DECIMAL and text compare as DOUBLEs (SPARK-22469)
        ("1.5 = '1.51'", False),
        ("1.5 < '1.51'", True),
        ("1.0 = ' 1 '", True),
        # text cast to the integer: truncated, NULL where it is no number
        ("1 = '1.5'", True),
        ("2 > '10'", False),
        ("'abc' = 1", None),
        ("1 = '1.5x'", None),
        ("1L <=> '1'", True),
        ("1.5d = '1.51'", False),
        # text cast to BOOLEAN with Spark's words
        ("true = 'yes'", True),
        ("true = 'T'", True),
        # IN finds the wider type: text, so the number compares as text
        ("CAST(1.5 AS DECIMAL(2,1)) IN ('1.51')", False),
        ("1 IN ('1.5')", False),
        ("1 IN ('1', 2)", True),
        ("'1.5' = 1.5f", True),
    ],
)
def test_spark_answer(duck_answer, expr, spark_answer):
    assert duck_answer(f"SELECT {expr}") == [(spark_answer,)]


def test_a_decimal_column_against_text_compares_as_double(duck_answer):
    tables = {"t": ({"d": "DECIMAL(2,1)"}, [(1.5,), (2.5,)])}
    assert duck_answer("SELECT d FROM t WHERE d = '1.51'", tables) == []
    assert duck_answer("SELECT count(*) FROM t WHERE d < '2.0'", tables) == [(1,)]


def test_text_against_a_timestamp_is_left_to_duckdb(spark_rules):
    tables = {"t": ({"ts": "TIMESTAMP"}, [])}
    sql = spark_rules("SELECT * FROM t WHERE ts >= '2024-05-01'", tables)
    assert "'2024-05-01'" in sql and "DOUBLE" not in sql
