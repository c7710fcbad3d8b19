"""Spark's string functions in DuckDB: substring from 0, Java's Formatter, Java regex
replacements, substring_index, split limits, Java's toUpperCase and Double.toString.

Spark's answers are those of the Spark 3.5 SQL function reference (its examples), Java's
documented behaviour, and the queries checked against Spark in
``tests/interop/test_sql_compat.py``.
"""

from __future__ import annotations

import duckdb
import pytest

import icesql
from icesql.sql.spark.base import RUNTIME_REFUSAL


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("substring('Spark SQL', 5)", "k SQL"),
        ("substring('Spark SQL', -3)", "SQL"),
        ("substring('Spark SQL', 5, 1)", "k"),
        ("substring('hello', 0, 2)", "he"),
        ("substring('hello', 1, 2)", "he"),
        ("substr('hello', -3, 2)", "ll"),
        # found by tests/reliability/test_fuzz_sql.py, checked against Spark 3.5: a length
        # below 1 is '' (DuckDB counted it from the end), a start below 1 or NULL is 0
        ("left('abc', -1)", ""),
        ("right('abc', -1)", ""),
        ("left('abc', 0)", ""),
        ("right('abc', 5)", "abc"),
        ("left(NULL, -1)", None),
        ("locate('b', 'abc', 0)", 0),
        ("locate('b', 'abc', -1)", 0),
        ("locate('b', 'abc', NULL)", 0),
        ("locate('b', 'abcb', 3)", 4),
        ("locate('b', 'abc')", 2),
        ("isnull(1)", False),
        ("isnull(NULL)", True),
        ("isnotnull(1)", True),
        ("upper('SparkSql')", "SPARKSQL"),
        ("upper('straße')", "STRASSE"),
        ("upper('ﬁx')", "FIX"),
        ("initcap('sPark sql')", "Spark Sql"),
        ("initcap('ß x')", "ß X"),
        ("format_string('Hello World %d %s', 100, 'days')", "Hello World 100 days"),
        ("format_string('%s-%d|%5s|%.2f', 'a', 7, NULL, 1.005D)", "a-7| null|1.01"),
        ("format_string('%-4s|%05d|%,d|%+d', 'ab', 42, 1234567, 5)", "ab  |00042|1,234,567|+5"),
        ("format_string('100%% %n')", "100% \n"),
        ("format_string('no conversions')", "no conversions"),
        ("format_string('')", ""),
        ("printf('%2$s %1$s %<s', 'x', 'y')", "y x x"),
        ("printf('%.3f', 2.0005D)", "2.001"),
        ("regexp_replace('100-200', '(\\\\d+)', 'num')", "num-num"),
        ("regexp_replace('a1b2', '([a-z])([0-9])', '$2$1')", "1a2b"),
        ("regexp_replace('a.b', '\\\\.', '\\\\$')", "a$b"),
        ("regexp_replace('ab', 'b', '$0$0')", "abb"),
        ("substring_index('www.apache.org', '.', 2)", "www.apache"),
        ("substring_index('a,b,,c', ',', 2)", "a,b"),
        ("substring_index('a,b,,c', ',', -2)", ",c"),
        ("substring_index('A.B.C', '.', 10)", "A.B.C"),
        ("substring_index('A.B.C', '.', 0)", ""),
        ("substring_index('A.B.C', '', 1)", ""),
        ("substring_index(NULL, '.', 1)", None),
        ("split('oneAtwoBthreeC', '[ABC]')", ["one", "two", "three", ""]),
        ("split('oneAtwoBthreeC', '[ABC]', -1)", ["one", "two", "three", ""]),
        ("split('a,b', ',', 1)", ["a,b"]),
        ("split(NULL, ',', 1)", None),
        # Spark 3.5.8's answers
        ("split('', '')", [""]),
        ("split('abc', '')", ["a", "b", "c"]),
        ("split('abc', NULL)", None),
        ("split_part('11.12.13', '', 1)", "11.12.13"),
        ("split_part('11.12.13', '', -1)", "11.12.13"),
        ("split_part('11.12.13', '', 2)", ""),
        ("split_part('11.12.13', '.', 2)", "12"),
        ("replace('ABCabc', 'abc', 'DEF')", "ABCDEF"),
        ("replace('hello', 'l')", "heo"),
        ("octet_length('Spark SQL')", 9),
        ("octet_length('ß')", 2),
        ("base64('Spark SQL')", "U3BhcmsgU1FM"),
        ("base64('ab')", "YWI="),
        ("btrim('    SparkSQL   ')", "SparkSQL"),
        ("btrim('SSparkSQLS', 'SL')", "parkSQ"),
        ("btrim('  x ')", "x"),
        ("lpad('hi', 5, '??')", "???hi"),
        ("lpad('hi', 1, '??')", "h"),
        ("lpad('abc', 2, '')", "ab"),
        ("lpad('abc', 5, '')", "abc"),
        ("rpad('abc', 5, '')", "abc"),
        ("rpad('hi', 5, '??')", "hi???"),
        ("levenshtein('kitten', 'sitting')", 3),
        ("levenshtein('kitten', 'sitting', 2)", -1),
        ("levenshtein('kitten', 'sitting', 3)", 3),
        # CAST(... AS STRING) and concat write doubles as Java's Double.toString
        ("CAST(12345678.9D AS STRING)", "1.23456789E7"),
        ("CAST(0.0001D AS STRING)", "1.0E-4"),
        ("CAST(0.001D AS STRING)", "0.001"),
        ("CAST(1234567.0D AS STRING)", "1234567.0"),
        ("CAST(-1.5E10D AS STRING)", "-1.5E10"),
        ("CAST(0D AS STRING)", "0.0"),
        ("CAST(CAST('NaN' AS DOUBLE) AS STRING)", "NaN"),
        ("CAST(CAST('-Infinity' AS DOUBLE) AS STRING)", "-Infinity"),
        ("CAST(CAST(NULL AS DOUBLE) AS STRING)", None),
        ("concat('x', 1e20D)", "x1.0E20"),
        ("'x' || 1e-5D", "x1.0E-5"),
        ("CAST(TIMESTAMP '2024-01-01 10:00:00.5' AS STRING)", "2024-01-01 10:00:00.5"),
        # Java's URLEncoder: a space is +, * stays, ~ is encoded
        ("url_encode('a b*~._-é!()')", "a+b*%7E._-%C3%A9%21%28%29"),
        # a group that took no part in a match is '', not NULL
        ("regexp_extract_all('a1 b c3', '([a-z])(\\\\d)?', 2)", ["1", "", "3"]),
        # JSON that is not an array / an object (or not JSON) has no length / keys
        ("json_array_length('{\"a\":1}')", None),
        ("json_array_length('[1,[2,3]]')", 2),
        ("json_array_length('x')", None),
        ("json_object_keys('[1]')", None),
        ('json_object_keys(\'{"a":1,"b":{"c":1}}\')', ["a", "b"]),
    ],
)
def test_spark_answer(duck_answer, expr, spark_answer):
    assert duck_answer(f"SELECT {expr}") == [(spark_answer,)]


def test_substring_with_computed_start_zero(duck_answer):
    rows = duck_answer("SELECT substring('hello', p, 2) FROM range(0, 2) t(p) ORDER BY p")
    assert rows == [("he",), ("he",)]


def test_left_right_and_locate_with_computed_arguments(duck_answer):
    rows = duck_answer(
        "SELECT left(s, n), right(s, n), locate('b', s, n), locate('b', NULL, n) FROM VALUES"
        " ('abc', -1, 1), ('abcb', 3, 2), ('abc', NULL, 3), (NULL, 0, 4) AS t(s, n, k) ORDER BY k"
    )
    assert rows == [
        ("", "", 0, None),
        ("abc", "bcb", 4, None),
        (None, None, 0, 0),
        (None, None, None, None),
    ]


def test_double_column_in_concat_is_written_as_java_writes_it(duck_answer):
    tables = {"t": ({"d": "DOUBLE"}, [(1e7,), (2.5,)])}
    assert sorted(duck_answer("SELECT concat('v=', d) FROM t", tables)) == [
        ("v=1.0E7",),
        ("v=2.5",),
    ]


@pytest.mark.parametrize(
    "expr, construct",
    [
        ("hash(1)", "hash"),
        ("xxhash64(1)", "xxhash64"),
        ("printf('%x', 1)", "%x"),
        ("printf('%s', 1.5D)", "DOUBLE"),
        ("printf('%d', 1.5D)", "not an integer"),
        ("printf('%f', 1)", "not a DOUBLE"),
        ("printf('%s %s', 'a')", "no argument"),
        ("format_string(concat('%', 's'), 'a')", "computed format"),
        ("regexp_replace('a', 'a', 'b', 2)", "position"),
        ("regexp_replace('a', 'a', concat('b', 'c'))", "computed replacement"),
        ("regexp_replace('a', 'a', '$12')", "only \\$0 to \\$9"),
        ("substring_index('aaaa', 'aa', 1)", "overlap"),
        ("substring_index('a', concat('a', 'b'), 1)", "computed delimiter"),
        ("split('a,b,c', ',', 2)", "limit"),
    ],
)
def test_functions_without_a_faithful_translation_are_refused(duck_answer, expr, construct):
    with pytest.raises(icesql.NotSupportedError, match=construct):
        duck_answer(f"SELECT {expr}")


def test_levenshtein_of_non_ascii_text_is_refused_when_it_runs(duck_answer):
    # the refusal is for inputs, not statements: ASCII rows still answer
    tables = {"t": ({"s": "STRING"}, [("e",), ("é",)])}
    assert duck_answer("SELECT levenshtein(s, 'x') FROM t WHERE s = 'e'", tables) == [(1,)]
    for query in ("SELECT levenshtein(s, 'x') FROM t", "SELECT levenshtein('é', 'e')"):
        with pytest.raises(duckdb.Error, match=f"{RUNTIME_REFUSAL}levenshtein.*non-ASCII"):
            duck_answer(query, tables)
