"""Which table or namespace a DDL/DML name means (``icesql.sql.identifiers``)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.dialect import parse_one
from icesql.sql.identifiers import name_parts, namespace_identifier, table_identifier


@pytest.mark.parametrize(
    ("sql", "parts"),
    [
        ("DESCRIBE t", ("t",)),
        ("DESCRIBE db.t", ("db", "t")),
        ("DESCRIBE local.db.t", ("local", "db", "t")),
        ("DESCRIBE a.b.c.d", ("a", "b", "c", "d")),  # a nested namespace: the tail is a Dot
        ("DESCRIBE `my db`.`T.x`", ("my db", "T.x")),  # quoted parts keep dots and case
    ],
)
def test_name_parts_of_a_table_node(sql, parts):
    assert name_parts(parse_one(sql).this) == parts


@pytest.mark.parametrize(
    ("node", "parts"),
    [
        (exp.to_identifier("ns"), ("ns",)),
        (exp.var("ns"), ("ns",)),
        (exp.Literal.string("ns"), ("ns",)),
        (exp.column("c", table="b", db="a"), ("a", "b", "c")),
        (exp.Schema(this=exp.to_table("db.t"), expressions=[]), ("db", "t")),  # CREATE t (cols)
    ],
)
def test_name_parts_of_other_name_nodes(node, parts):
    assert name_parts(node) == parts


def test_a_non_name_or_an_empty_part_is_refused_naming_it():
    with pytest.raises(ProgrammingError, match=r"expected a name, got 1 \+ 2"):
        name_parts(exp.Add(this=exp.Literal.number(1), expression=exp.Literal.number(2)))
    with pytest.raises(ProgrammingError, match="invalid name: `a`.``"):
        name_parts(parse_one("DROP TABLE `a`.``").args["tables"][0])


@pytest.mark.parametrize(
    ("parts", "identifier"),
    [
        (("t",), ("default", "t")),  # the current namespace
        (("db", "t"), ("db", "t")),
        (("local", "db", "t"), ("db", "t")),  # the connection's catalog name is dropped
        (("LOCAL", "db", "t"), ("db", "t")),  # case-insensitively, as Spark
        (("other", "db", "t"), ("other", "db", "t")),  # another name is a namespace level
        (("local", "t"), ("local", "t")),  # two parts: namespace `local`, not the catalog
        (("local", "a", "b", "t"), ("a", "b", "t")),
    ],
)
def test_table_identifier(parts, identifier):
    assert table_identifier(parts, "local", ("default",)) == identifier


def test_table_identifier_uses_a_nested_default_namespace():
    assert table_identifier(["t"], "local", ["a", "b"]) == ("a", "b", "t")


@pytest.mark.parametrize(
    ("parts", "namespace"),
    [
        (("db",), ("db",)),
        (("local", "db"), ("db",)),
        (("Local", "a", "b"), ("a", "b")),
        (("local",), ("local",)),  # one part is always a namespace
        (("other", "db"), ("other", "db")),
    ],
)
def test_namespace_identifier(parts, namespace):
    assert namespace_identifier(parts, "local") == namespace
