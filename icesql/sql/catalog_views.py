"""Iceberg views put in place of their names, as Iceberg's Spark extensions resolve them.

A view is its stored Spark SQL text, parsed and put into the statement as a subquery each
time a statement names it, so it reads the tables' current snapshots. The rules of
Iceberg 1.10's ``ResolveViews`` for Spark 3.5 are followed:

* a name is a view only when no table has it (a catalog keeps one name for one of them);
* each table name of the text is qualified with the view's default catalog and namespace
  (a one-part name gets both, a name not starting with a catalog gets the catalog), so
  the text means what it meant where it was created and never a temporary view;
* the view's columns are its query's columns by position, cast to the types and given
  the names of the view's schema (not by name, as a temporary view's are);
* time travel on a view is ``TABLE_OR_VIEW_NOT_FOUND`` (Spark looks for a table to travel
  in); a view reaching itself is ``RECURSIVE_VIEW``.

>>> from icesql.sql.dialect import parse_one
>>> view = CatalogView("local", ("db", "v"), "SELECT id FROM t", "local", ("db",),
...                    ("n",), ("BIGINT",))
>>> statement = parse_one("SELECT n FROM db.v")
>>> expand_catalog_views(statement, lambda node: view if node.name == "v" else None)
True
>>> statement.sql(dialect="spark")
'SELECT n FROM (SELECT CAST(`__c0` AS BIGINT) AS `n` FROM (SELECT id FROM local.db.t) AS `__icesql_view`(`__c0`)) AS v'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot import exp

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.sql.dialect import parse_one
from icesql.sql.spark_errors import quote_id, table_not_found
from icesql.sql.spark_type_names import spark_ddl_type
from icesql.sql.tables import name_candidates, replace_table, table_nodes
from icesql.sql.up_cast import can_up_cast

if TYPE_CHECKING:
    from icesql.catalog.base import Catalog
    from icesql.catalog.table import View

__all__ = [
    "CatalogView",
    "ViewFinder",
    "catalog_view",
    "expand_catalog_views",
    "qualify_view_text",
    "check_view_columns",
    "view_finder",
]

_INNER = "__icesql_view"
_VIEW_KEY = "icesql_catalog_view"  # on a view's inner subquery: the CatalogView


@dataclass(frozen=True)
class CatalogView:
    """What expansion needs of an Iceberg view's current version."""

    catalog: str
    identifier: tuple[str, ...]
    text: str  # the ``spark`` representation
    default_catalog: str
    default_namespace: tuple[str, ...]
    columns: tuple[str, ...]  # the view schema's names
    types: tuple[str, ...]  # and their Spark SQL types

    @property
    def key(self) -> tuple[str, ...]:
        return (self.catalog.lower(), *(p.lower() for p in self.identifier))


ViewFinder = Callable[[exp.Table], "CatalogView | None"]


def catalog_view(catalog: str, view: View) -> CatalogView:
    """What expansion needs of a loaded view; a view without Spark SQL is refused by name."""
    version = view.metadata.current_version
    text = version.sql_for("spark")
    if text is None:
        raise NotSupportedError(
            f"view {catalog}.{view.name} has no Spark SQL representation (its dialects:"
            f" {', '.join(version.dialects) or 'none'}); icesql reads the 'spark' one"
        )
    fields = view.metadata.schema.fields
    return CatalogView(
        catalog,
        tuple(view.identifier),
        text,
        version.default_catalog or catalog,
        version.default_namespace,
        tuple(f.name for f in fields),
        tuple(spark_ddl_type(f.type) for f in fields),
    )


def view_finder(
    catalogs: Mapping[str, Catalog],
    table_exists: Mapping[str, Callable[[tuple[str, ...]], bool]],
    current: str,
    default_namespace: Sequence[str],
) -> ViewFinder:
    """The finder of ``expand_catalog_views`` over a connection's catalogs: a name is a view
    when no reading of it names a table (or its branch, tag or metadata table) and a catalog
    that keeps views has one of that identifier."""
    viewable = [name for name, c in catalogs.items() if c.supports_views]

    def find(node: exp.Table) -> CatalogView | None:
        if not viewable:
            return None
        parts = tuple(p.name for p in node.parts)
        readings = name_candidates(parts, list(catalogs), current, tuple(default_namespace))
        if any(table_exists[c](identifier) for c, identifier, _ in readings):
            return None
        for name, identifier, suffix in readings:
            if suffix is None and name in viewable and len(identifier) >= 2:
                catalog = catalogs[name]
                if catalog.view_exists(identifier):
                    return catalog_view(name, catalog.load_view(identifier))
        return None

    return find


def expand_catalog_views(
    statement: exp.Expr,
    find: ViewFinder,
    creating: tuple[str, ...] | None = None,
    catalogs: Sequence[str] = (),
) -> bool:
    """Put each Iceberg view ``statement`` names in its place (in place); ``find`` says which
    table node is a view. ``creating`` is the key (lower-case catalog and identifier) of the
    view a ``CREATE OR REPLACE VIEW`` makes, which its query may not reach. ``catalogs``
    are the catalog names a view's text may start with. Whether any view was expanded."""
    stack = (creating,) if creating is not None else ()
    return _expand(statement, find, stack, tuple(catalogs))


def _expand(
    statement: exp.Expr,
    find: ViewFinder,
    stack: tuple[tuple[str, ...], ...],
    catalogs: tuple[str, ...],
) -> bool:
    expanded = False
    for node in table_nodes(statement):
        view = find(node)
        if view is None:
            continue
        if node.args.get("version") is not None:
            raise table_not_found(node)  # Spark finds no table to travel in
        if view.key in stack:
            cycle = " -> ".join(".".join(k) for k in (*stack, view.key))
            raise ProgrammingError(
                f"[RECURSIVE_VIEW] Recursive view {quote_id(stack[0])} detected"
                f" (cycle: {cycle}). SQLSTATE: 42K0H"
            )
        body = parse_one(view.text)
        qualify_view_text(body, view.default_catalog, view.default_namespace, catalogs)
        _expand(body, find, (*stack, view.key), catalogs)
        replace_table(node, _view_subquery(node, view, body))
        expanded = True
    return expanded


def qualify_view_text(
    body: exp.Expr, catalog: str, namespace: Sequence[str], catalogs: Sequence[str]
) -> None:
    """Give each table name of a view's text its view's catalog and namespace
    (``ResolveViews.qualifyTableIdentifiers``)."""
    known = {c.lower() for c in (*catalogs, catalog)}
    for node in table_nodes(body):
        parts = [p.name for p in node.parts]
        if len(parts) == 1:
            full = [catalog, *namespace, parts[0]]
        elif parts[0].lower() not in known:
            full = [catalog, *parts]
        else:
            continue
        _rename(node, full)


def _rename(node: exp.Table, parts: Sequence[str]) -> None:
    names = [exp.to_identifier(p) for p in parts]
    node.set("this", names[-1])
    node.set("db", names[-2] if len(names) >= 2 else None)
    if len(names) == 3:
        node.set("catalog", names[0])
    elif len(names) > 3:
        node.set("catalog", exp.Dot.build(names[:-2]))


def _view_subquery(node: exp.Table, view: CatalogView, body: exp.Expr) -> exp.Subquery:
    """``(SELECT CAST(__c0 AS type) AS name, ... FROM (<text>) AS __icesql_view(__c0, ...))``."""
    positional = [exp.to_identifier(f"__c{i}", quoted=True) for i in range(len(view.columns))]
    items = [
        exp.alias_(
            exp.cast(exp.column(p.copy()), exp.DataType.build(t, dialect="spark")),
            exp.to_identifier(name, quoted=True),
        )
        for p, name, t in zip(positional, view.columns, view.types, strict=True)
    ]
    alias = exp.TableAlias(this=exp.to_identifier(_INNER, quoted=True), columns=positional)
    inner = exp.Subquery(this=body, alias=alias)
    inner.meta[_VIEW_KEY] = view
    projection = exp.Select(expressions=items, from_=exp.From(this=inner))
    outer = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(node.name))
    return exp.Subquery(this=projection, alias=outer)


def check_view_columns(tree: exp.Expr | None, types: Mapping[str, Mapping[str, str]]) -> None:
    """Spark's checks of an Iceberg view's query against the view's schema, on the bound
    statement ``tree`` (its stars expanded; None: not bound, nothing known): the query
    still has a column at each position of the schema (``INCOMPATIBLE_VIEW_SCHEMA_CHANGE``),
    and a column read straight from a table up-casts to the schema's type
    (``CANNOT_UP_CAST_DATATYPE``; ``ResolveViews`` wraps each column in ``UpCast``).
    ``types`` maps each scanned view (lower-case) to its columns' Spark type names."""
    if tree is None:
        return
    for inner in tree.find_all(exp.Subquery):
        view = inner.meta.get(_VIEW_KEY)
        if not isinstance(view, CatalogView) or not isinstance(inner.this, exp.Query):
            continue
        selects = inner.this.selects
        if any(isinstance(s, exp.Star) or isinstance(s.this, exp.Star) for s in selects):
            continue  # not expanded: the binder did not know a table's columns
        if len(selects) < len(view.columns):
            _schema_changed(view, [s.alias_or_name for s in selects])
        if not isinstance(inner.this, exp.Select):
            continue
        tables = _tables_by_alias(inner.this)
        for item, name, target in zip(selects, view.columns, view.types, strict=False):
            column = item.this if isinstance(item, exp.Alias) else item
            if not isinstance(column, exp.Column) or column.table.lower() not in tables:
                continue
            columns = types.get(tables[column.table.lower()], {})
            source = next((t for c, t in columns.items() if c.lower() == column.name.lower()), None)
            if source is not None and can_up_cast(source, target) is False:
                raise ProgrammingError(
                    f"[CANNOT_UP_CAST_DATATYPE] Cannot up cast {column.name} from"
                    f' "{source.upper()}" to "{target.upper()}".\nThe type path of the target'
                    " object is:\n\nYou can either add an explicit cast to the input data or"
                    " choose a higher precision type of the field in the target object"
                    f" (view {quote_id(view.key)}, column {name}). SQLSTATE: 42846"
                )


def _tables_by_alias(select: exp.Select) -> dict[str, str]:
    """The scanned tables a SELECT reads directly, by alias (lower-case) -> table name."""
    sources = [
        select.args.get("from_") or select.args.get("from"),
        *(select.args.get("joins") or []),
    ]
    found = {}
    for source in sources:
        table = source.this if source is not None else None
        if isinstance(table, exp.Table):
            found[table.alias_or_name.lower()] = table.name.lower()
    return found


def _schema_changed(view: CatalogView, got: Sequence[str]) -> None:
    missing = view.columns[len(got)]
    raise ProgrammingError(
        f"[INCOMPATIBLE_VIEW_SCHEMA_CHANGE] The SQL query of view {quote_id(view.key)} has an"
        f" incompatible schema change and column {quote_id((missing,))} cannot be resolved."
        f" Expected {len(view.columns)} columns named {', '.join(quote_id((c,)) for c in view.columns)}"
        f" but got {len(got)}. Please try to re-create the view by running:"
        f" CREATE OR REPLACE VIEW {'.'.join(view.identifier)} AS {view.text}. SQLSTATE: 51024"
    )
