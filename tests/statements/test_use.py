"""icesql.statements.use: ``USE`` sets the current catalog and namespace, as Spark's
``SetCatalogAndNamespace``; a failed USE changes nothing.

Two hadoop catalogs, ``local`` (the default) and ``prod``. Name resolution after USE for
every statement kind is tested end to end in tests/test_dbapi.py
(``test_ddl_on_qualified_names_and_use``); here the state USE leaves and its errors.
"""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import NoSuchNamespaceError


@pytest.fixture
def con(tmp_path):
    catalogs = {
        "local": {"type": "hadoop", "warehouse": str(tmp_path / "local")},
        "prod": {"type": "hadoop", "warehouse": str(tmp_path / "prod")},
    }
    with icesql.connect(catalogs=catalogs, default="local", create=True) as connection:
        for ns in ("db", "prod", "a", "a.b", "prod.db", "prod.sales"):
            connection.execute(f"CREATE NAMESPACE {ns}")
        yield connection


def _state(con):
    return con.engine.catalog.name, con.engine.default_namespace


def test_a_new_connection_uses_the_default_catalog_and_namespace(con):
    assert _state(con) == ("local", ("default",))


@pytest.mark.parametrize(
    ("sql", "state"),
    [
        ("USE prod", ("prod", ("default",))),  # a catalog: its namespace `default`
        ("USE `prod`", ("prod", ("default",))),
        ("USE PROD", ("prod", ("default",))),  # catalog names ignore case, as Spark's
        ("USE prod.sales", ("prod", ("sales",))),
        ("USE CATALOG prod", ("prod", ("default",))),
        ("USE local", ("local", ("default",))),
        ("USE db", ("local", ("db",))),  # no catalog of that name: a namespace
        ("USE a.b", ("local", ("a", "b"))),  # nested namespaces of the hadoop catalog
        ("USE NAMESPACE db", ("local", ("db",))),
        ("USE DATABASE db", ("local", ("db",))),
        ("USE SCHEMA db", ("local", ("db",))),
        # NAMESPACE always names a namespace, even one called like a catalog
        ("USE NAMESPACE prod", ("local", ("prod",))),
        ("USE SCHEMA prod", ("local", ("prod",))),
    ],
)
def test_use_sets_the_current_catalog_and_namespace(con, sql, state):
    assert con.execute(sql).rowcount == -1  # no rows, no count
    assert _state(con) == state


def test_unqualified_namespaces_are_of_the_current_catalog(con):
    con.execute("USE prod")
    con.execute("USE db")  # prod's db, not local's
    assert _state(con) == ("prod", ("db",))
    with pytest.raises(NoSuchNamespaceError, match="not found in catalog 'prod': a"):
        con.execute("USE a")  # exists in local only


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        (
            "USE nope",
            NoSuchNamespaceError,
            r"^\[SCHEMA_NOT_FOUND\] namespace not found in catalog 'prod': nope$",
        ),
        (
            "USE local.nope",
            NoSuchNamespaceError,
            r"^\[SCHEMA_NOT_FOUND\] namespace not found in catalog 'local': nope$",
        ),
        ("USE a.nope", NoSuchNamespaceError, "namespace not found in catalog 'prod': a.nope"),
        ("USE NAMESPACE a", NoSuchNamespaceError, "catalog 'prod': a$"),  # local's a
        (
            "USE CATALOG nope",
            icesql.ProgrammingError,
            r"^\[CATALOG_NOT_FOUND\] catalog 'nope' not found \(known: local, prod\)$",
        ),
        ("USE CATALOG db", icesql.ProgrammingError, "catalog 'db' not found"),  # a namespace
    ],
)
def test_a_failed_use_names_what_is_missing_and_changes_nothing(con, sql, error, message):
    con.execute("USE prod.sales")  # the state a failed USE must keep
    with pytest.raises(error, match=message):
        con.execute(sql)
    assert _state(con) == ("prod", ("sales",))


def test_use_namespace_takes_a_multi_part_name(con):
    con.execute("USE NAMESPACE a.b")
    assert _state(con) == ("local", ("a", "b"))
