"""The name helpers of ``sql.nodes``: the ``Table`` and ``Column`` trees they build for dotted
names are the ones sqlglot's own Spark parser builds for the same text (the reference), and
``name_of`` reads the parts back. The typed nodes' properties are exercised by parsing, in
``tests/sql/test_extensions.py``."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from icesql.sql import nodes


def _identifiers(dotted: str) -> list[exp.Identifier]:
    return [exp.to_identifier(p) for p in dotted.split(".")]


@pytest.mark.parametrize("dotted", ["t", "db.t", "cat.db.t", "a.b.c.d", "a.b.c.d.e"])
def test_table_name_is_the_tree_sqlglot_parses(dotted) -> None:
    parsed = sqlglot.parse_one(f"SELECT * FROM {dotted}", read="spark").args["from_"].this
    built = nodes.table_name(_identifiers(dotted))
    assert built == parsed
    assert nodes.name_of(built) == tuple(dotted.split("."))


@pytest.mark.parametrize("dotted", ["a", "st.a", "t.st.a", "db.t.st.a", "c.db.t.st.a.b"])
def test_column_path_is_the_tree_sqlglot_parses(dotted) -> None:
    parsed = sqlglot.parse_one(f"SELECT {dotted}", read="spark").expressions[0]
    built = nodes.column_path(_identifiers(dotted))
    assert built == parsed
    assert nodes.name_of(built) == tuple(dotted.split("."))


def test_quoted_parts_keep_their_text() -> None:
    parts = [exp.to_identifier("my db", quoted=True), exp.to_identifier("a.b", quoted=True)]
    table = nodes.table_name(parts)
    assert nodes.name_of(table) == ("my db", "a.b")
    assert table.sql(dialect="spark") == "`my db`.`a.b`"
    assert nodes.name_of(exp.to_identifier("x")) == ("x",)
