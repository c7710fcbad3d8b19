"""Which table or namespace a DDL/DML name means (``icesql.sql.identifiers``)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.dialect import parse_one
from icesql.sql.identifiers import (
    catalog_and_namespace,
    catalog_and_table,
    catalog_named,
    name_parts,
)

ONE = {"local": "local"}  # a single-catalog connection: catalogs by name (here, their names)
TWO = {"local": "local", "Prod": "prod"}


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
    assert catalog_and_table(parts, ONE, "local", ("default",)) == ("local", identifier)


def test_table_identifier_uses_a_nested_default_namespace():
    assert catalog_and_table(["t"], ONE, "local", ["a", "b"]) == ("local", ("a", "b", "t"))


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
    assert catalog_and_namespace(parts, ONE, "local") == ("local", namespace)


@pytest.mark.parametrize(
    ("parts", "resolved"),
    [
        (("prod", "db", "t"), ("prod", ("db", "t"))),  # a catalog's name selects it
        (("PROD", "db", "t"), ("prod", ("db", "t"))),  # case-insensitively
        (("local", "db", "t"), ("local", ("db", "t"))),
        (("db", "t"), ("local", ("db", "t"))),  # no catalog prefix: the current catalog
        (("t",), ("local", ("default", "t"))),
        (("other", "db", "t"), ("local", ("other", "db", "t"))),  # not a catalog: a namespace
        (("prod", "t"), ("local", ("prod", "t"))),  # a catalog prefix needs a namespace after it
    ],
)
def test_table_names_across_catalogs(parts, resolved):
    assert catalog_and_table(parts, TWO, "local", ("default",)) == resolved


def test_namespace_names_across_catalogs():
    assert catalog_and_namespace(("prod", "db"), TWO, "local") == ("prod", ("db",))
    assert catalog_and_namespace(("prod",), TWO, "local") == ("local", ("prod",))
    assert catalog_and_namespace(("db",), TWO, "prod") == ("prod", ("db",))  # after USE prod


def test_catalog_named_is_case_insensitive():
    assert catalog_named("prod", TWO) == "prod" and catalog_named("LOCAL", TWO) == "local"
    assert catalog_named("nope", TWO) is None
