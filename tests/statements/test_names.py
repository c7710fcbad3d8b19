"""icesql.statements.names: the catalog and identifier a written name means in a session —
the current catalog and namespace (which USE changes) for unqualified names, the named
catalog for qualified ones. The splitting rule itself is tested in
tests/sql/test_identifiers.py; here that the session's state is what it resolves against,
and that the catalog returned is the session's own catalog object."""

from __future__ import annotations

import pytest

import icesql
from icesql.statements.names import namespace_name, table_name


@pytest.fixture
def con(tmp_path):
    catalogs = {
        "local": {"type": "hadoop", "warehouse": str(tmp_path / "local")},
        "prod": {"type": "hadoop", "warehouse": str(tmp_path / "prod")},
    }
    with icesql.connect(catalogs=catalogs, default="local", create=True) as connection:
        connection.execute("CREATE NAMESPACE db")
        connection.execute("CREATE NAMESPACE prod.sales")
        yield connection


def _table(con, name):
    catalog, identifier = table_name(con.engine, name.split("."))
    assert catalog is con.catalogs[catalog.name]  # the session's catalog object itself
    return catalog.name, identifier


def _namespace(con, name):
    catalog, namespace = namespace_name(con.engine, name.split("."))
    assert catalog is con.catalogs[catalog.name]
    return catalog.name, namespace


@pytest.mark.parametrize(
    ("use", "name", "expected"),
    [
        (None, "t", ("local", ("default", "t"))),
        (None, "db.t", ("local", ("db", "t"))),
        (None, "prod.sales.t", ("prod", ("sales", "t"))),
        (None, "PROD.sales.t", ("prod", ("sales", "t"))),
        (None, "local.db.t", ("local", ("db", "t"))),
        (None, "prod.t", ("local", ("prod", "t"))),  # two parts: namespace prod, not a catalog
        ("USE db", "t", ("local", ("db", "t"))),
        ("USE prod", "t", ("prod", ("default", "t"))),
        ("USE prod.sales", "t", ("prod", ("sales", "t"))),
        ("USE prod.sales", "db.t", ("prod", ("db", "t"))),  # the current catalog's db
        ("USE prod.sales", "local.db.t", ("local", ("db", "t"))),
    ],
)
def test_table_names_resolve_against_the_sessions_current_catalog(con, use, name, expected):
    if use:
        con.execute(use)
    assert _table(con, name) == expected


@pytest.mark.parametrize(
    ("use", "name", "expected"),
    [
        (None, "db", ("local", ("db",))),
        (None, "prod", ("local", ("prod",))),  # one part is always a namespace
        (None, "prod.sales", ("prod", ("sales",))),
        (None, "a.b", ("local", ("a", "b"))),
        ("USE prod", "sales", ("prod", ("sales",))),
        ("USE prod.sales", "x", ("prod", ("x",))),  # the default namespace plays no part
        ("USE prod", "local.db", ("local", ("db",))),
    ],
)
def test_namespace_names_resolve_against_the_sessions_current_catalog(con, use, name, expected):
    if use:
        con.execute(use)
    assert _namespace(con, name) == expected
