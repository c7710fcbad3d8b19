"""CREATE / DROP TEMPORARY VIEW, SHOW VIEWS and DESCRIBE of a view, as Spark 3.5 has them.

A view is checked when it is created, as Spark analyzes its query then: its query must bind
(tables, columns), its column names be distinct, a column list match the query's arity and
it must not reach itself (``icesql.sql.temp_views``); then the text and what Spark records
beside it are kept (``icesql.session.temp_views``). Nothing changes when a check fails.
``USING <format>`` views are refused by name: they would read files no Iceberg table lists
(``icesql.session.sandbox``). Iceberg views are ``icesql.statements.iceberg_views``'; the
statements that take both kinds (DROP VIEW, SHOW VIEWS, DESCRIBE) look for a temporary
view first, as Spark does.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from sqlglot import exp

from icesql.errors import (
    NoSuchNamespaceError,
    NoSuchTableError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.session import Result, Session
from icesql.session.result import done, rows
from icesql.session.temp_views import TempView
from icesql.sql import nodes
from icesql.sql.dialect import DIALECT
from icesql.sql.identifiers import name_parts
from icesql.sql.spark_errors import quote_id
from icesql.sql.temp_views import GLOBAL_TEMP, expand_views, named_views, view_key
from icesql.statements.iceberg_views import (
    catalog_view_named,
    check_arity,
    check_distinct,
    column_comment,
    create_iceberg_view,
    describe_iceberg_view,
    drop_iceberg_view,
    query_schema,
)
from icesql.statements.names import namespace_name
from icesql.statements.show import (
    NAMESPACE_KINDS,
    arrow_spark_type,
    describe,
    describe_namespace,
    like_pattern,
)

__all__ = [
    "create_view",
    "describe_or_view",
    "drop_view",
    "refuse_view_target",
    "show_views",
    "view_named",
]

_S = pa.string()


def create_view(session: Session, statement: exp.Create, params: Sequence[object]) -> Result:
    """``CREATE [OR REPLACE] [GLOBAL] TEMPORARY VIEW name [(col [COMMENT c], ...)] AS query``."""
    props = statement.args.get("properties")
    written = list(props.expressions) if props is not None else []
    kinds = {type(p) for p in written}
    if exp.TemporaryProperty not in kinds:
        return create_iceberg_view(session, statement)
    query = statement.expression
    if exp.FileFormatProperty in kinds or query is None:
        raise NotSupportedError(
            "CREATE TEMPORARY VIEW ... USING <format> is not supported: icesql reads only the"
            " files an Iceberg table lists (a view over a query is: CREATE TEMPORARY VIEW v AS"
            " SELECT ...)"
        )
    replace, exists = bool(statement.args.get("replace")), bool(statement.args.get("exists"))
    if exists:
        raise ProgrammingError(
            "[_LEGACY_ERROR_TEMP_0052] CREATE VIEW with both IF NOT EXISTS and REPLACE is not"
            " allowed."
            if replace
            else "[_LEGACY_ERROR_TEMP_0053] It is not allowed to define a TEMPORARY view with"
            " IF NOT EXISTS."
        )
    if query.find(exp.Placeholder) is not None:
        raise ProgrammingError("a view's query cannot hold parameters (?)")
    target = statement.this
    declared = target.expressions if isinstance(target, exp.Schema) else None
    parts = name_parts(target)
    if len(parts) != 1:
        raise ProgrammingError(
            "[TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS] CREATE TEMPORARY VIEW or the corresponding"
            " Dataset APIs only accept single-part view names, but got:"
            f" {quote_id(parts)}. SQLSTATE: 428EK"
        )
    name, is_global = parts[0].lower(), exp.GlobalProperty in kinds
    views = session.temp_views
    if views.exists(name, is_global) and not replace:
        views.create(_placeholder(name, is_global), replace=False)  # raises Spark's error
    expand_views(
        query.copy(), views, session.catalog.name, session.default_namespace, (is_global, name)
    )
    query_columns = tuple(session.query_columns(query, ()))
    check_distinct(query_columns)
    columns = query_columns
    comments: tuple[str | None, ...] = tuple(None for _ in query_columns)
    if declared is not None:
        check_arity(name, [c.name for c in declared], query_columns)
        columns = tuple(c.name for c in declared)
        comments = tuple(column_comment(c) for c in declared)
    referred = named_views(query, views)
    comment = next((p.this.name for p in written if isinstance(p, exp.SchemaCommentProperty)), None)
    view = TempView(
        name=name,
        text=query.sql(dialect=DIALECT),
        columns=columns,
        query_columns=query_columns,
        comments=comments,
        catalog=session.catalog.name,
        namespace=tuple(session.default_namespace),
        referred=frozenset(n for g, n in referred if not g),
        referred_global=frozenset(n for g, n in referred if g),
        is_global=is_global,
        comment=comment,
    )
    views.create(view, replace=replace)
    return done()


def drop_view(session: Session, parts: Sequence[str], if_exists: bool) -> None:
    """``DROP VIEW [IF EXISTS] name``: a local view (or registered object), or a global one
    as ``global_temp.name``; there are no persistent views to drop."""
    views = session.temp_views
    if len(parts) == 1 and views.drop(parts[0]):
        return
    is_global = len(parts) == 2 and parts[0].lower() == GLOBAL_TEMP
    if is_global and views.drop(parts[1], is_global=True):
        return
    if not is_global and drop_iceberg_view(session, parts):
        return
    if if_exists:
        return
    if is_global:
        raise NoSuchTableError(
            f"[TABLE_OR_VIEW_NOT_FOUND] The table or view {quote_id(parts)} cannot be found."
            " Verify the spelling and correctness of the schema and catalog. To tolerate the"
            " error on drop use DROP VIEW IF EXISTS or DROP TABLE IF EXISTS. SQLSTATE: 42P01"
        )
    raise NoSuchTableError(
        f"[VIEW_NOT_FOUND] The view {'.'.join(parts)} cannot be found. Verify the spelling and"
        " correctness of the schema and catalog. If you did not qualify the name with a"
        " schema, verify the current_schema() output, or qualify the name with the correct"
        " schema and catalog. To tolerate the error on drop use DROP VIEW IF EXISTS."
        " SQLSTATE: 42P01"
    )


def view_named(session: Session, node: exp.Expr) -> TempView | None:
    """The temporary view a statement's table name means, if it means one."""
    if isinstance(node, exp.Schema):
        node = node.this
    if not isinstance(node, exp.Table):
        return None
    key = view_key(node, session.temp_views)
    return session.temp_views.get(key[1], key[0]) if key is not None else None


def refuse_view_target(session: Session, node: exp.Expr) -> None:
    """A statement that writes or alters its table refuses a temporary view, as Spark does."""
    view = view_named(session, node)
    if view is not None:
        raise ProgrammingError(
            f"`{view.name}` is a temporary view: only a table can be written or altered"
            " (Spark: Inserting into a view is not allowed)"
        )


def describe_or_view(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    """``DESCRIBE``: of a temporary view when the name means one, else of a table."""
    assert isinstance(statement, exp.Describe)
    if str(statement.args.get("kind") or "").upper() in NAMESPACE_KINDS:
        return describe_namespace(session, statement)
    view = view_named(session, statement.this)
    if view is not None:
        return describe_view(session, view)
    registered = _registered_named(session, statement.this)
    if registered is not None:
        return describe_registered(session, registered)
    found = catalog_view_named(session, name_parts(statement.this))
    if found is not None:
        extended = (statement.args.get("style") or "").upper() in ("EXTENDED", "FORMATTED")
        return describe_iceberg_view(*found, extended)
    return describe(session, statement, params)


def show_views(session: Session, parsed: exp.Expr, params: Sequence[object]) -> Result:
    """``SHOW VIEWS [IN ns] [LIKE pattern]``: Spark lists the local temporary views in any
    namespace, and the global ones too in ``global_temp``."""
    assert isinstance(parsed, nodes.ShowViews)
    data: list[tuple[str, str, bool]] = []
    namespace = parsed.namespace
    if namespace is not None and [p.lower() for p in namespace] == [GLOBAL_TEMP]:
        data += [(GLOBAL_TEMP, n, True) for n in session.temp_views.names(is_global=True)]
    else:
        if namespace is not None:
            catalog, ns = namespace_name(session, namespace)
        else:
            catalog, ns = session.catalog, tuple(session.default_namespace)
        if catalog.namespace_exists(ns):
            data += [(".".join(v[:-1]), v[-1], False) for v in catalog.list_views(ns)]
        elif namespace is not None:
            raise NoSuchNamespaceError(f"[SCHEMA_NOT_FOUND] namespace not found: {'.'.join(ns)}")
    data += [("", n, True) for n in session.temp_views.names()]
    pattern = like_pattern(parsed.pattern)
    data = [row for row in data if pattern is None or pattern.match(row[1])]
    return rows([("namespace", _S), ("viewName", _S), ("isTemporary", pa.bool_())], data)


def describe_view(session: Session, view: TempView) -> Result:
    """``DESCRIBE [EXTENDED] view``: its columns, their types and comments (Spark shows no
    more for a temporary view, EXTENDED or not); the types are the query's, bound now."""
    parts = [GLOBAL_TEMP, view.name] if view.is_global else [view.name]
    table = exp.table_(parts[-1], db=parts[0] if len(parts) == 2 else None)
    schema = query_schema(session, exp.select(exp.Star()).from_(table))
    data = [
        (name, arrow_spark_type(f.type), comment)
        for name, f, comment in zip(view.columns, schema, view.comments, strict=True)
    ]
    return rows([("col_name", _S), ("data_type", _S), ("comment", _S)], data)


def _registered_named(session: Session, node: exp.Expr) -> str | None:
    """The registered object (a DataFrame's temporary view, a changelog view) an unqualified
    name means when no Iceberg table of the current namespace has it."""
    if isinstance(node, exp.Schema):
        node = node.this
    if not isinstance(node, exp.Table) or node.args.get("db") or node.args.get("catalog"):
        return None
    name = session.temp_views.registered_name(node.name)
    if name is None:
        return None
    identifier = (*session.default_namespace, node.name)
    if session.tables.find(session.catalog, identifier) is not None:
        return None  # tables win over registered objects (icesql.sql.python_sources)
    return name


def describe_registered(session: Session, name: str) -> Result:
    """``DESCRIBE`` of a registered object: its columns and types, as of a temporary view."""
    schema = query_schema(session, exp.select(exp.Star()).from_(exp.table_(name)))
    data = [(f.name, arrow_spark_type(f.type), None) for f in schema]
    return rows([("col_name", _S), ("data_type", _S), ("comment", _S)], data)


def _placeholder(name: str, is_global: bool) -> TempView:
    return TempView(name, "", (), (), (), "", (), frozenset(), frozenset(), is_global)
