"""Temporary views put in place of their names, as Spark's analyzer resolves them.

A view's text is parsed and put into the statement as a subquery each time a statement
names it (``expand_views``), so it reads the tables' current snapshots and its own time
travel applies. Spark's ``SessionCatalog.getTempViewPlan`` rules are followed:

* an unqualified name is a local view before it is a table; ``global_temp.v`` is a global
  view; any other qualified name never is a view; a CTE of the same name hides the view;
* inside a view, only the temporary views it named when it was created are views; its
  other unqualified names mean the tables of the catalog and namespace it was created in;
* the view picks its query's columns by the names they had at creation and gives them the
  view's names (a view over ``SELECT *`` keeps its columns when the table gains one);
* time travel on a view is Spark's ``UNSUPPORTED_FEATURE.TIME_TRAVEL``; a view reaching
  itself is ``RECURSIVE_VIEW``.

>>> from icesql.session.temp_views import TempView, TempViews
>>> from icesql.sql.dialect import parse_one
>>> views = TempViews({})
>>> views.create(TempView("v", "SELECT id FROM db.t", ("n",), ("id",), (None,), "local",
...                       ("default",), frozenset(), frozenset()), replace=False)
>>> statement = parse_one("SELECT n FROM v")
>>> expand_views(statement, views, "local", ("default",))
>>> statement.sql(dialect="spark")
'SELECT n FROM (SELECT `id` AS `n` FROM (SELECT id AS `id` FROM db.t) AS `__icesql_view`) AS v'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.dialect import parse_one
from icesql.sql.output_names import name_select_items
from icesql.sql.spark_errors import positioned, quote_id
from icesql.sql.tables import replace_table, table_nodes

__all__ = ["GLOBAL_TEMP", "ViewKey", "Views", "expand_views", "named_views", "view_key"]

GLOBAL_TEMP = "global_temp"  # Spark's spark.sql.globalTempDatabase
ViewKey = tuple[bool, str]  # (global?, lower-case name)


class TempView(Protocol):
    """What expansion reads of a view (``icesql.session.temp_views.TempView`` has it)."""

    @property
    def text(self) -> str: ...
    @property
    def columns(self) -> tuple[str, ...]: ...
    @property
    def query_columns(self) -> tuple[str, ...]: ...
    @property
    def catalog(self) -> str: ...
    @property
    def namespace(self) -> tuple[str, ...]: ...
    @property
    def referred(self) -> frozenset[str]: ...
    @property
    def referred_global(self) -> frozenset[str]: ...


class Views(Protocol):
    """The connection's views by name (``icesql.session.temp_views.Views``)."""

    def get(self, name: str, is_global: bool = False) -> TempView | None: ...


_INNER = "__icesql_view"


@dataclass(frozen=True)
class _Visible:
    """Which temporary views a view's text may name (None: any, at the statement's top)."""

    local: frozenset[str] | None = None
    global_: frozenset[str] | None = None


def view_key(node: exp.Table, views: Views, visible: _Visible | None = None) -> ViewKey | None:
    """The temporary view a table node names, if it names one (module docstring)."""
    visible = visible or _Visible()
    parts = [p.name for p in node.parts]
    if len(parts) == 1:
        name = parts[0].lower()
        if views.get(name) is not None and (visible.local is None or name in visible.local):
            return (False, name)
    elif len(parts) == 2 and parts[0].lower() == GLOBAL_TEMP:
        name = parts[1].lower()
        allowed = visible.global_ is None or name in visible.global_
        if views.get(name, is_global=True) is not None and allowed:
            return (True, name)
    return None


def named_views(statement: exp.Expr, views: Views) -> set[ViewKey]:
    """The temporary views ``statement`` names itself (not those its views name)."""
    found = (view_key(node, views) for node in table_nodes(statement))
    return {key for key in found if key is not None}


def expand_views(
    statement: exp.Expr,
    views: Views,
    catalog: str,
    namespace: Sequence[str],
    creating: ViewKey | None = None,
) -> None:
    """Put each temporary view ``statement`` names in its place (in place); ``creating`` is the
    view a ``CREATE VIEW`` is making, which its own query may not reach."""
    stack = (creating,) if creating is not None else ()
    _expand(statement, views, _Visible(), stack, (catalog, tuple(namespace)), None)


def _expand(
    statement: exp.Expr,
    views: Views,
    visible: _Visible,
    stack: tuple[ViewKey, ...],
    current: tuple[str, tuple[str, ...]],
    created_in: tuple[str, tuple[str, ...]] | None,
) -> None:
    for node in table_nodes(statement):
        key = view_key(node, views, visible)
        if key is None:
            if created_in is not None and created_in != current:
                _qualify(node, *created_in)
            continue
        if node.args.get("version") is not None:
            raise positioned(
                "[UNSUPPORTED_FEATURE.TIME_TRAVEL] The feature is not supported: Time travel on"
                f" the relation: {quote_id(p.name for p in node.parts)}. SQLSTATE: 0A000",
                node,
            )
        if key in stack:
            cycle = " -> ".join(_shown(k) for k in (*stack, key))
            raise ProgrammingError(
                f"[RECURSIVE_VIEW] Recursive view {_shown(stack[0])} detected (cycle: {cycle})."
                " SQLSTATE: 42K0H"
            )
        view = views.get(key[1], key[0])
        assert view is not None
        replace_table(node, _view_subquery(node, view, views, (*stack, key), current))


def _view_subquery(
    node: exp.Table,
    view: TempView,
    views: Views,
    stack: tuple[ViewKey, ...],
    current: tuple[str, tuple[str, ...]],
) -> exp.Subquery:
    """``(SELECT q AS c, ... FROM (<text>) AS __icesql_view) AS <alias or name>``."""
    body = parse_one(view.text)
    name_select_items(body)  # the query's columns by Spark's names, as at its creation
    visible = _Visible(view.referred, view.referred_global)
    _expand(body, views, visible, stack, current, (view.catalog, view.namespace))
    items = [
        exp.alias_(exp.column(exp.to_identifier(q, quoted=True)), exp.to_identifier(c, quoted=True))
        for q, c in zip(view.query_columns, view.columns, strict=True)
    ]
    inner = exp.Subquery(this=body, alias=exp.TableAlias(this=exp.to_identifier(_INNER, True)))
    projection = exp.Select(expressions=items, from_=exp.From(this=inner))
    alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(node.name))
    return exp.Subquery(this=projection, alias=alias)


def _qualify(node: exp.Table, catalog: str, namespace: tuple[str, ...]) -> None:
    """Give a table name of a view's text the catalog and namespace the view was created in,
    where the statement runs in others (single-level namespaces only)."""
    parts = node.parts
    if len(parts) == 1 and len(namespace) == 1:
        node.set("db", exp.to_identifier(namespace[0]))
        node.set("catalog", exp.to_identifier(catalog))
    elif len(parts) == 2 and parts[0].name.lower() != GLOBAL_TEMP:
        node.set("catalog", exp.to_identifier(catalog))


def _shown(key: ViewKey) -> str:
    return quote_id([GLOBAL_TEMP, key[1]] if key[0] else [key[1]])
