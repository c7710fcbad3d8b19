"""Temporary views put in place of their names (``icesql.sql.temp_views``)."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.session.temp_views import TempView, TempViews
from icesql.sql.dialect import parse_one
from icesql.sql.temp_views import expand_views, named_views


def make(views: TempViews, name: str, text: str, columns: tuple[str, ...], **kw) -> None:
    fields = dict(comments=tuple(None for _ in columns), catalog="local", namespace=("db",),
                  referred=frozenset(), referred_global=frozenset())  # fmt: skip
    fields.update(kw)
    views.create(TempView(name, text, columns, columns, **fields), replace=True)


def expanded(sql: str, views: TempViews, namespace=("db",)) -> str:
    statement = parse_one(sql)
    expand_views(statement, views, "local", namespace)
    return statement.sql(dialect="spark")


def test_a_cte_and_a_qualified_name_are_never_the_view():
    views = TempViews({})
    make(views, "v", "SELECT 1 AS a", ("a",))
    assert "__icesql_view" not in expanded("WITH v AS (SELECT 2 AS a) SELECT * FROM v", views)
    assert expanded("SELECT * FROM db.v", views) == "SELECT * FROM db.v"
    assert named_views(parse_one("SELECT * FROM v JOIN global_temp.v"), views) == {(False, "v")}


def test_inside_a_view_only_the_views_it_named_are_views():
    views = TempViews({})
    make(views, "t", "SELECT 99 AS id", ("id",))  # created after v, which read table t
    make(views, "v", "SELECT id FROM t", ("id",))
    text = expanded("SELECT * FROM v", views)
    assert "99" not in text and "FROM t)" in text
    make(views, "v", "SELECT id FROM t", ("id",), referred=frozenset({"t"}))
    assert "99" in expanded("SELECT * FROM v", views)


def test_a_view_created_in_another_namespace_keeps_its_tables():
    views = TempViews({})
    make(views, "v", "SELECT id FROM t", ("id",))
    assert "FROM local.db.t" in expanded("SELECT * FROM v", views, namespace=("other",))
    assert "FROM t)" in expanded("SELECT * FROM v", views, namespace=("db",))


def test_a_view_reaching_itself_is_refused():
    views = TempViews({})
    make(views, "a", "SELECT * FROM b", ("x",), referred=frozenset({"b"}))
    make(views, "b", "SELECT * FROM a", ("x",), referred=frozenset({"a"}))
    with pytest.raises(ProgrammingError, match=r"RECURSIVE_VIEW.*`a` -> `b` -> `a`"):
        expanded("SELECT * FROM a", views)
