"""Spark 4's variant functions in DuckDB: parse_json, variant_get paths and casts, and the
refusals where DuckDB's VARIANT would answer otherwise.

Spark's answers are those of the Spark 4 SQL function reference (its examples) and its
documented semantics: paths ``$.a``, ``$['a']``, ``$[0]`` (arrays from 0), a missing path is
NULL, ``variant_get`` fails on a failed cast where ``try_variant_get`` gives NULL.
"""

from __future__ import annotations

import pytest

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.sql.spark.base import RUNTIME_REFUSAL
from icesql.sql.spark.variants import parse_variant_path

DOC = '{"a":[1,{"b":"x","c":null}],"k.dot":7,"o":{"p":true}}'


@pytest.mark.parametrize(
    "path, steps",
    [
        ("$", []),
        ("$.a", ["a"]),
        ("$.a[1].b", ["a", 1, "b"]),
        ("$['k.dot']", ["k.dot"]),
        ('$["a"][0]', ["a", 0]),
        ("$['it\\'s']", ["it's"]),
    ],
)
def test_parse_variant_path(path, steps):
    assert parse_variant_path(path) == steps


@pytest.mark.parametrize("path", ["a", "$.", "$[-1]", "$[a]", "$a", "$['a'"])
def test_parse_variant_path_refuses_bad_paths(path):
    with pytest.raises(ProgrammingError, match="INVALID_VARIANT_GET_PATH"):
        parse_variant_path(path)


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        (f"variant_get(parse_json('{DOC}'), '$.a[1].b', 'string')", "x"),
        (f"variant_get(parse_json('{DOC}'), '$.a[0]', 'int')", 1),
        (f"variant_get(parse_json('{DOC}'), '$[\"k.dot\"]', 'bigint')", 7),
        (f"variant_get(parse_json('{DOC}'), '$.o.p', 'boolean')", True),
        (f"variant_get(parse_json('{DOC}'), '$.o', 'string')", '{"p":true}'),
        (f"variant_get(parse_json('{DOC}'), '$.missing', 'int')", None),
        (f"variant_get(parse_json('{DOC}'), '$.a[9]', 'int')", None),
        (f"variant_get(parse_json('{DOC}'), '$.a[1].c', 'string')", None),
        (f"to_json(variant_get(parse_json('{DOC}'), '$.a', 'variant'))", '[1,{"b":"x","c":null}]'),
        (f"try_variant_get(parse_json('{DOC}'), '$.a[1].b', 'int')", None),
        (
            'to_json(parse_json(\'{"b":1,"a":[true,false,null,"s"]}\'))',
            '{"a":[true,false,null,"s"],"b":1}',
        ),  # object keys sorted, as the encoding stores them
        ("cast(parse_json('\"text\"') as string)", "text"),
        ("cast(parse_json('[1,2]') as string)", "[1,2]"),
        ("cast(parse_json('-12') as int)", -12),
        ("cast(parse_json('\"12\"') as int)", 12),
        ("cast(parse_json('\"x\"') as int)", None),  # Spark 3.5's default (ANSI off) CAST
        ("cast(cast(date'2020-01-02' as variant) as string)", "2020-01-02"),
        ("cast(cast('{\"a\":1}' as variant) as string)", '{"a":1}'),  # a string, not parsed
        ("typeof(parse_json('1'))", "variant"),
        ("try_parse_json('{bad')", None),
        ("parse_json(NULL)", None),
        (f"is_variant_null(variant_get(parse_json('{DOC}'), '$.a[1].c', 'variant'))", True),
        (f"is_variant_null(variant_get(parse_json('{DOC}'), '$.a[1].b', 'variant'))", False),
        (f"is_variant_null(variant_get(parse_json('{DOC}'), '$.a[1].zz', 'variant'))", False),
        (f"is_variant_null(variant_get(parse_json('{DOC}'), '$.a[7]', 'variant'))", False),
        ("is_variant_null(variant_get(parse_json('[null]'), '$[0]', 'variant'))", True),
    ],
)
def test_variant_functions(duck_answer, expr, spark_answer):
    assert duck_answer(f"SELECT {expr}") == [(spark_answer,)]


def test_variant_get_fails_where_try_variant_get_gives_null(duck_answer):
    import duckdb

    with pytest.raises(duckdb.ConversionException):
        duck_answer("SELECT variant_get(parse_json('\"x\"'), '$', 'int')")


@pytest.mark.parametrize(
    "expr, refused",
    [
        # DuckDB parses fractions as DOUBLE where Spark keeps a DECIMAL
        ("parse_json('{\"a\":1.5}')", "parse_json()"),
        ("parse_json('[1e3]')", "parse_json()"),
        ("parse_json('12345678901234567890')", "parse_json()"),
        ("try_parse_json('[0.1]')", "try_parse_json()"),
        # DuckDB stores a top-level variant null as SQL NULL
        ("parse_json(' null ')", "parse_json()"),
        ("parse_json('\\tnull\\n')", "parse_json()"),
        # DuckDB rounds, Spark truncates
        ("variant_get(cast(1.7 as variant), '$', 'int')", "variant_get()"),
        # DuckDB prints a decimal without its trailing zeros, Spark with them
        ("cast(cast(1.70 as variant) as string)", "CAST(variant AS ...)"),
    ],
)
def test_inputs_refused_at_run_time(duck_answer, expr, refused):
    import duckdb

    with pytest.raises(
        duckdb.Error, match=f"{RUNTIME_REFUSAL}{refused.replace('(', '[(]').replace(')', '[)]')}"
    ):
        duck_answer(f"SELECT {expr}")


@pytest.mark.parametrize(
    "expr, error, named",
    [
        ("schema_of_variant(parse_json('1'))", NotSupportedError, "schema_of_variant()"),
        ("schema_of_variant_agg(parse_json('1'))", NotSupportedError, "schema_of_variant_agg()"),
        ("is_variant_null(parse_json('1'))", NotSupportedError, "is_variant_null()"),
        ("cast(2.5D as variant)", NotSupportedError, "AS VARIANT"),
        ("variant_get(parse_json('1'), 'a', 'int')", ProgrammingError, "INVALID_VARIANT_GET_PATH"),
        (
            "variant_get(parse_json('1'), concat('$', '.a'), 'int')",
            ProgrammingError,
            "string literal",
        ),
        ("variant_get(parse_json('1'), '$', 'array<int>')", NotSupportedError, "only atomic types"),
    ],
)
def test_refused_statements(spark_rules, expr, error, named):
    with pytest.raises(error, match=named.replace("(", "[(]").replace(")", "[)]")):
        spark_rules(f"SELECT {expr}")


def test_variant_explode_refused():
    from icesql.sql.dialect import parse_one

    with pytest.raises(NotSupportedError, match="variant_explode"):
        parse_one("SELECT * FROM variant_explode(parse_json('[1]'))")


def test_to_json_of_a_map_with_struct_keys_is_refused(spark_rules):
    # Spark 3.5.8 writes the key as its text form: {"[1,2]":{"a":1,"b":2}}
    with pytest.raises(NotSupportedError, match="struct, array or map keys"):
        spark_rules(
            "SELECT to_json(map(named_struct('a', 1, 'b', 2), named_struct('a', 1, 'b', 2)))"
        )
