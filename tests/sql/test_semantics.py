"""Spark semantics as a whole: the rules of every area applied bottom-up, and what no rule
translates refused. The answers of each area's rules are tested in ``tests/sql/spark/``."""

from __future__ import annotations

import pytest

import icesql


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    with icesql.connect(str(tmp_path_factory.mktemp("wh"))) as connection:
        yield connection


@pytest.mark.parametrize(
    "query, construct",
    [
        ("SELECT to_char(1.5D, '999.99')", "ToChar"),  # sqlglot cannot translate it
        ("SELECT date_format(current_date(), concat('yy', 'yy'))", "computed at run time"),
        ("SELECT levenshtein('é', 'e')", "non-ASCII"),  # refused when it runs
        ("SELECT conv('ff', 16, 10)", "conv"),  # a Spark function DuckDB does not have
    ],
)
def test_functions_without_a_faithful_translation_are_refused(con, query, construct):
    with pytest.raises(icesql.NotSupportedError, match=construct):
        con.execute(query)


def test_an_unknown_function_is_a_programming_error(con):
    with pytest.raises(icesql.ProgrammingError, match="nosuchfn"):
        con.execute("SELECT nosuchfn(1)")


def test_rules_reach_arguments_of_rewritten_nodes(con):
    # size() is rewritten into a wrapper; the substring inside still gets Spark's start 0
    assert con.execute("SELECT size(split(substring('a,b,c', 0, 3), ','))").fetchone() == (2,)
    assert con.execute("SELECT weekday(date_add(DATE '2024-01-06', 1))").fetchone() == (6,)
