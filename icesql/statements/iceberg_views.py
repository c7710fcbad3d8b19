"""CREATE / ALTER / DROP of Iceberg views and their SHOW and DESCRIBE forms, as Spark 3.5
with Iceberg 1.10's extensions has them.

A view is created as Spark creates one: its query must bind now (tables, columns, a column
list of the query's arity, distinct names), it may not name a temporary view or reach
itself, and what is stored is the query's text as written (the ``spark`` representation),
the schema the query has now, the names its columns had (``spark.query-column-names``), the
current catalog and namespace it was written in, and the engine in the version summary. A
catalog without views (Iceberg's hadoop layout) refuses with its reason; nothing changes
when a check fails.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import pyarrow as pa
from sqlglot import exp

from icesql._version import __version__
from icesql.catalog.base import Catalog
from icesql.catalog.table import View
from icesql.errors import (
    AlreadyExistsError,
    NoSuchViewError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.metadata.view_updates import create_updates, replace_updates
from icesql.session import Result, Session
from icesql.session.result import done, rows
from icesql.spec.arrow import arrow_field_type
from icesql.spec.schema import Schema
from icesql.spec.types import NestedField
from icesql.sql import nodes
from icesql.sql.catalog_views import expand_catalog_views, view_finder
from icesql.sql.dialect import DIALECT, VIEW_TEXT
from icesql.sql.identifiers import name_parts
from icesql.sql.spark_errors import quote_id, quote_string
from icesql.sql.spark_type_names import spark_type
from icesql.sql.temp_views import named_views
from icesql.statements.names import table_name

__all__ = [
    "alter_view",
    "catalog_view_named",
    "check_arity",
    "check_distinct",
    "column_comment",
    "create_iceberg_view",
    "describe_iceberg_view",
    "drop_iceberg_view",
    "query_schema",
    "show_create_view",
    "view_properties",
]

ENGINE = f"icesql {__version__}"
QUERY_COLUMN_NAMES = "spark.query-column-names"
# what Spark's ViewCatalog keeps out of the properties it shows (ViewCatalog.RESERVED_PROPERTIES)
_RESERVED = frozenset(
    {"comment", "create_engine_version", "engine_version", "owner", QUERY_COLUMN_NAMES}
)
_S = pa.string()


def catalog_view_named(
    session: Session, parts: Sequence[str]
) -> tuple[Catalog, tuple[str, ...], View] | None:
    """The Iceberg view a statement's name means, if it means one (no table has the name)."""
    catalog, identifier = table_name(session, parts)
    if not catalog.supports_views or len(identifier) < 2:
        return None
    if session.tables.find(catalog, identifier) is not None:
        return None
    if not catalog.view_exists(identifier):
        return None
    return catalog, identifier, catalog.load_view(identifier)


def create_iceberg_view(session: Session, statement: exp.Create) -> Result:
    """``CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(col [COMMENT c], ...)] [COMMENT c]
    [TBLPROPERTIES (...)] AS query``."""
    props = statement.args.get("properties")
    written = list(props.expressions) if props is not None else []
    replace, if_not_exists = bool(statement.args.get("replace")), bool(statement.args.get("exists"))
    if replace and if_not_exists:
        raise ProgrammingError(
            "[_LEGACY_ERROR_TEMP_0052] CREATE VIEW with both IF NOT EXISTS and REPLACE is not"
            " allowed."
        )
    query = statement.expression
    if query.find(exp.Placeholder) is not None:
        raise ProgrammingError("a view's query cannot hold parameters (?)")
    target = statement.this
    declared = target.expressions if isinstance(target, exp.Schema) else None
    catalog, identifier = table_name(session, name_parts(target))
    if not catalog.supports_views:
        raise catalog.no_views()
    full = f"{catalog.name}.{'.'.join(identifier)}"
    temporary = sorted(name for _, name in named_views(query, session.temp_views))
    if temporary:
        raise ProgrammingError(
            f"Cannot create view {full} that references temporary view: [{', '.join(temporary)}]"
        )
    exists = catalog.view_exists(identifier)
    if catalog.table_exists(identifier) or (exists and not replace):
        if if_not_exists:
            return done()
        raise AlreadyExistsError(
            f"[VIEW_ALREADY_EXISTS] Cannot create view {'.'.join(identifier)} because it already"
            " exists. Choose a different name, drop or replace the existing object, or add the"
            " IF NOT EXISTS clause to tolerate pre-existing objects. SQLSTATE: 42P07"
        )
    if replace and exists:
        _check_not_recursive(session, query, catalog, identifier)
    query_columns = tuple(session.query_columns(query, ()))
    schema_types = query_schema(session, query)
    columns = list(query_columns)
    comments: list[str | None] = [None] * len(query_columns)
    if declared is not None:
        check_arity(full, [c.name for c in declared], query_columns, quote=False)
        columns = [c.name for c in declared]
        comments = [column_comment(c) for c in declared]
    check_distinct(columns)
    schema = _view_schema(columns, comments, schema_types)
    properties = {
        str(p.name): str(p.text("value"))
        for p in written
        if isinstance(p, exp.Property) and not isinstance(p, exp.SchemaCommentProperty)
    }
    comment = next((p.this.name for p in written if isinstance(p, exp.SchemaCommentProperty)), None)
    if comment is not None:
        properties["comment"] = comment
    properties.update(
        {
            "engine_version": ENGINE,
            "create_engine_version": ENGINE,
            QUERY_COLUMN_NAMES: ",".join(query_columns),
        }
    )
    text = statement.meta.get(VIEW_TEXT) or query.sql(dialect=DIALECT)
    current = session.catalog.name
    default_catalog = current if current != catalog.name else None
    namespace = tuple(session.default_namespace)
    summary = {"engine-name": "icesql", "engine-version": __version__}
    if replace and exists:
        base = catalog.load_view(identifier)
        updates = replace_updates(schema, text, namespace, default_catalog, properties, summary)
        catalog.commit_view(identifier, [_same_view(base)], updates)
    else:
        location = catalog.default_table_location(identifier)
        updates = create_updates(
            str(uuid.uuid4()),
            location,
            schema,
            text,
            namespace,
            default_catalog,
            properties,
            summary,
        )
        catalog.create_view(identifier, updates)
    return done()


def drop_iceberg_view(session: Session, parts: Sequence[str]) -> bool:
    """``DROP VIEW`` of an Iceberg view; False when the name means none."""
    catalog, identifier = table_name(session, parts)
    if not catalog.supports_views or len(identifier) < 2 or not catalog.view_exists(identifier):
        return False
    catalog.drop_view(identifier)
    return True


def alter_view(session: Session, statement: exp.Alter) -> Result:
    """``ALTER VIEW v SET / UNSET TBLPROPERTIES``, ``RENAME TO``; ``AS`` is refused as
    Iceberg's Spark extensions refuse it."""
    action = (statement.args.get("actions") or [None])[0]
    parts = name_parts(statement.this)
    if len(parts) == 1 and session.temp_views.get(parts[0]) is not None:
        raise NotSupportedError(
            "ALTER VIEW of a temporary view is not supported yet (CREATE OR REPLACE TEMPORARY"
            " VIEW replaces one)"
        )
    found = catalog_view_named(session, parts)
    if found is None:
        raise NoSuchViewError(
            f"[TABLE_OR_VIEW_NOT_FOUND] The table or view {'.'.join(parts)} cannot be found."
            " Verify the spelling and correctness of the schema and catalog. SQLSTATE: 42P01"
        )
    catalog, identifier, view = found
    if isinstance(action, nodes.AlterViewQuery):
        raise ProgrammingError(
            "ALTER VIEW <viewName> AS is not supported. Use CREATE OR REPLACE VIEW instead"
        )
    if isinstance(action, nodes.SetTableProperties):
        updates = {k: v for k, v in action.properties}
        catalog.commit_view(
            identifier, [_same_view(view)], [{"action": "set-properties", "updates": updates}]
        )
        return done()
    if isinstance(action, nodes.UnsetTableProperties):
        missing = [k for k in action.keys if k not in view.metadata.properties]
        if missing and not action.if_exists:
            raise ProgrammingError(
                f"[UNSET_NONEXISTENT_PROPERTIES] Attempted to unset non-existent properties"
                f" [{', '.join(missing)}] in view {'.'.join(identifier)}. SQLSTATE: 42K0J"
            )
        removals = [k for k in action.keys if k in view.metadata.properties]
        if removals:
            catalog.commit_view(
                identifier,
                [_same_view(view)],
                [{"action": "remove-properties", "removals": removals}],
            )
        return done()
    if isinstance(action, nodes.RenameTable):
        target_catalog, target = table_name(session, name_parts(action.this))
        if target_catalog is not catalog:
            raise ProgrammingError("a view cannot be renamed into another catalog")
        catalog.rename_view(identifier, target)
        return done()
    raise ProgrammingError("ALTER VIEW takes SET TBLPROPERTIES, UNSET TBLPROPERTIES or RENAME TO")


def view_properties(catalog: Catalog, view: View) -> dict[str, str]:
    """The properties Spark shows of an Iceberg view (``SparkView.properties`` less
    ``ViewCatalog``'s reserved ones)."""
    shown = {"location": view.metadata.location, "provider": "iceberg", "format-version": "1"}
    shown.update({k: v for k, v in view.metadata.properties.items() if k not in _RESERVED})
    return shown


def describe_iceberg_view(
    catalog: Catalog, identifier: tuple[str, ...], view: View, extended: bool
) -> Result:
    """``DESCRIBE [EXTENDED] v``, as ``DescribeV2ViewExec``."""
    md = view.metadata
    data: list[tuple[str, str, str]] = [
        (f.name, spark_type(f.type), f.doc or "") for f in md.schema.fields
    ]
    if extended:
        props = view_properties(catalog, view)
        shown = ", ".join(
            f"{quote_string(k)} = {quote_string(v)}" for k, v in sorted(props.items())
        )
        query_columns = md.properties.get(QUERY_COLUMN_NAMES, "")
        data += [
            ("", "", ""),
            ("# Detailed View Information", "", ""),
            ("Comment", md.properties.get("comment", ""), ""),
            ("View Catalog and Namespace", ".".join([catalog.name, *identifier[:-1]]), ""),
            ("View Query Output Columns", f"[{', '.join(query_columns.split(','))}]", ""),
            ("View Properties", f"[{shown}]", ""),
            ("Created By", md.properties.get("create_engine_version", ""), ""),
        ]
    return rows([("col_name", _S), ("data_type", _S), ("comment", _S)], data)


def show_create_view(catalog: Catalog, identifier: tuple[str, ...], view: View) -> str:
    """``SHOW CREATE TABLE v``, as ``ShowCreateV2ViewExec`` writes it."""
    md = view.metadata
    columns = [
        f.name + (f" COMMENT '{f.doc}'" if f.doc is not None else "") for f in md.schema.fields
    ]
    out = f"CREATE VIEW {'.'.join([catalog.name, *identifier])} "
    out += "(\n  " + ",\n  ".join(columns) + ")\n"
    if "comment" in md.properties:
        out += f"COMMENT {quote_string(md.properties['comment'])}\n"
    props = view_properties(catalog, view)
    if props:
        shown = [f"{quote_string(k)} = {quote_string(v)}" for k, v in sorted(props.items())]
        out += "TBLPROPERTIES (\n  " + ",\n  ".join(shown) + ")\n"
    return out + f"AS\n{md.sql_for('spark') or ''}\n"


def _same_view(view: View) -> dict[str, str]:
    return {"type": "assert-view-uuid", "uuid": view.metadata.uuid}


def _check_not_recursive(
    session: Session, query: exp.Expr, catalog: Catalog, identifier: tuple[str, ...]
) -> None:
    """A replacement may not reach the view it replaces (``CheckViews``'s cycle check)."""
    exists = {name: c.table_exists for name, c in session.catalogs.items()}
    find = view_finder(session.catalogs, exists, session.catalog.name, session.default_namespace)
    key = (catalog.name.lower(), *(p.lower() for p in identifier))
    try:
        expand_catalog_views(query.copy(), find, creating=key, catalogs=list(session.catalogs))
    except ProgrammingError as e:
        if "[RECURSIVE_VIEW]" not in str(e):
            raise
        cycle = str(e).split("(cycle: ", 1)[1].split(")", 1)[0]
        raise ProgrammingError(
            f"Recursive cycle in view detected: {'.'.join([catalog.name, *identifier])}"
            f" (cycle: {cycle})"
        ) from None


def query_schema(session: Session, query: exp.Expr) -> pa.Schema:
    """The Arrow schema of a query's rows, from a run that reads none (``LIMIT 0``)."""
    select = exp.select(exp.Star()).from_(exp.Subquery(this=query.copy(), alias="__q")).limit(0)
    result = session.query(select, ())
    assert result.reader is not None
    schema = result.reader.schema
    result.close()
    return schema


def _view_schema(
    columns: Sequence[str], comments: Sequence[str | None], arrow: pa.Schema
) -> Schema:
    """The view's schema with ids from 0, nested ones after their parents, as Spark's
    ``SparkSchemaUtil.convert`` assigns them; every column optional (DuckDB reports no
    nullability of a query's columns)."""
    next_id = [len(columns)]
    fields = tuple(
        NestedField(i, name, arrow_field_type(f, next_id), False, comment)
        for i, (name, comment, f) in enumerate(zip(columns, comments, arrow, strict=True))
    )
    return Schema(fields, 0)


def check_distinct(columns: Sequence[str]) -> None:
    """Spark's ``COLUMN_ALREADY_EXISTS`` for a view's column names."""
    seen: set[str] = set()
    for c in columns:
        if c.lower() in seen:
            raise ProgrammingError(
                f"[COLUMN_ALREADY_EXISTS] The column `{c.lower()}` already exists. Consider to"
                " choose another name or rename the existing column. SQLSTATE: 42711"
            )
        seen.add(c.lower())


def check_arity(
    name: str, declared: Sequence[str], query: Sequence[str], quote: bool = True
) -> None:
    """Spark's ``CREATE_VIEW_COLUMN_ARITY_MISMATCH``: a column list of another length than
    the query's (a temporary view's names back-quoted, an Iceberg view's plain)."""
    if len(declared) == len(query):
        return
    if quote:
        name, declared, query = (
            quote_id([name]),
            [quote_id([c]) for c in declared],
            [quote_id([c]) for c in query],
        )
    reason = "not enough" if len(declared) > len(query) else "too many"
    kind = "NOT_ENOUGH_DATA_COLUMNS" if len(declared) > len(query) else "TOO_MANY_DATA_COLUMNS"
    raise ProgrammingError(
        f"[CREATE_VIEW_COLUMN_ARITY_MISMATCH.{kind}] Cannot create view {name}, the reason"
        f" is {reason} data columns: View columns: {', '.join(declared)}."
        f" Data columns: {', '.join(query)}. SQLSTATE: 21S01"
    )


def column_comment(node: exp.Expr) -> str | None:
    """The ``COMMENT`` of a column of a view's column list."""
    for constraint in node.args.get("constraints") or []:
        if isinstance(constraint.kind, exp.CommentColumnConstraint):
            return str(constraint.kind.this.name)
    return None
