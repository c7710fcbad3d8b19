"""The connection's record of temporary views and registered objects, one namespace."""

from __future__ import annotations

import pytest

from icesql.errors import AlreadyExistsError
from icesql.session.temp_views import TempView, TempViews


def view(name: str, is_global: bool = False) -> TempView:
    return TempView(name, "SELECT 1", ("a",), ("1",), (None,), "local", ("db",),
                    frozenset(), frozenset(), is_global)  # fmt: skip


def test_local_and_global_views_are_apart_and_case_insensitive():
    views = TempViews({})
    views.create(view("v"), replace=False)
    views.create(view("v", is_global=True), replace=False)
    assert views.get("V") is not None and views.get("v", is_global=True) is not None
    with pytest.raises(AlreadyExistsError, match="TEMP_TABLE_OR_VIEW_ALREADY_EXISTS"):
        views.create(view("v"), replace=False)
    assert views.drop("v") and not views.drop("v")
    assert views.names() == [] and views.names(is_global=True) == ["v"]


def test_registered_objects_clash_and_are_replaced():
    registered = {"Frame": object()}
    views = TempViews(registered)
    assert views.exists("frame") and views.names() == ["frame"]
    with pytest.raises(AlreadyExistsError):
        views.create(view("frame"), replace=False)
    views.create(view("frame"), replace=True)
    assert registered == {} and views.get("frame") is not None
    views.replaced_by_object("frame")
    assert views.get("frame") is None


def test_every_change_moves_the_generation():
    views = TempViews({})
    start = views.generation
    views.create(view("v"), replace=False)
    views.drop("v")
    assert views.generation == start + 2
