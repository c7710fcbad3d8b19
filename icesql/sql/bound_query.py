"""One binding pass per query: the statement qualified and typed once, and what the engine
needs read from that one tree.

sqlglot's qualifier resolves every column of the query to its source with the scanned
tables' schemas, and ``annotate_types`` types its nodes. One qualified copy then serves
every reader that used to qualify a copy of its own:

* column pruning (``icesql.sql.columns``): the top-level columns each scan reads;
* predicate pushdown (``icesql.sql.predicates``): the conditions that may prune each scan's
  files, converted with the parameter values afterwards (``pushed_filters``);
* Spark semantics (``icesql.sql.semantics``): the argument types the rewrites read, recorded
  on the statement's own nodes.

DuckDB runs the statement, not the qualified copy: qualifying lower-cases names and expands
stars, which would change the result's column names. For the same reason the statement is
named (``icesql.sql.output_names``) before it is bound, from the text as written. Types are
inferred only when some rewrite reads them: annotating costs about as much as qualifying.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.spec.types import LongType, NestedField, StringType
>>> s = Schema((NestedField(1, "id", LongType()), NestedField(2, "name", StringType()),
...             NestedField(3, "note", StringType())))
>>> bound = bind_query(parse_one("SELECT upper(name) FROM v WHERE id > 5"), {"v": TableSource(s)})
>>> sorted(bound.tables["v"].columns)
['id', 'name']
>>> [p.condition.sql() for p in bound.tables["v"].pushable]
['v.id > 5']
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar, cast

from sqlglot import exp
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope
from sqlglot.schema import ensure_schema

from icesql._lazy import lazy_module
from icesql.spec.schema import Schema
from icesql.spec.types import IcebergType, TimestampNanoType, TimestamptzNanoType
from icesql.sql.columns import used_columns
from icesql.sql.dialect import DIALECT
from icesql.sql.hidden_columns import SPARK_TYPES, referenced_metadata_columns
from icesql.sql.output_names import AUTO_NAME_KEY, DATE_ARITHMETIC_KEY, rename_typed_items
from icesql.sql.semantics import record_operand_types, typed_nodes
from icesql.sql.shadowed_functions import columns_before_functions
from icesql.sql.spark.base import INTEGRAL, TYPES_KEY
from icesql.sql.spark.decimal_types import EXPRESSION_METADATA
from icesql.sql.spark_type_names import spark_type

if TYPE_CHECKING:
    from icesql.sql import predicates
    from icesql.sql.predicates import Pushable
else:  # Iceberg predicates load with the first query that scans a table or Python object
    predicates = lazy_module("icesql.sql.predicates")

__all__ = ["BoundQuery", "BoundTable", "TableSource", "bind_query", "query_type_name"]

log = logging.getLogger(__name__)

UNKNOWN_TYPE = "UNKNOWN"
# nanosecond timestamps: DuckDB's own type names (TIMESTAMPTZ_NS is a user-defined type of
# the dialect), so the rules see their precision; Spark has no such types
_NANO_NAMES: dict[type[IcebergType], str] = {
    TimestampNanoType: "TIMESTAMP_NS",
    TimestamptzNanoType: "TIMESTAMPTZ_NS",
}
A = TypeVar("A")
R = TypeVar("R")


@dataclass(frozen=True)
class TableSource:
    """A scanned table as the binder sees it: the schema of the snapshot it reads and, for the
    rewrites that read types, its columns' Spark type names (``BIGINT``); a column without
    one is of unknown type."""

    schema: Schema
    types: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BoundTable:
    """What the query asks of one scanned table."""

    schema: Schema
    columns: frozenset[str] | None  # lower-cased top-level columns it reads; None: all
    pushable: tuple[Pushable, ...]  # conditions that may prune its files, in order


@dataclass(frozen=True)
class BoundQuery:
    """The query's one qualified tree and what was read from it."""

    tree: exp.Expr | None  # qualified (typed where a rewrite reads types); None: not qualified
    tables: Mapping[str, BoundTable]  # per scanned view name, lower-case
    metadata_columns: tuple[str, ...]  # ``_file``, ``_pos``...: the hidden columns it names
    resolved: bool  # every column resolved to its source, so pruning and pushdown apply


def query_type_name(t: IcebergType) -> str:
    """The type name a column of type ``t`` has for the binder: Spark's (``spark_type``),
    except for nanosecond timestamps, which keep DuckDB's names (``TIMESTAMP_NS``) so the rules
    compare them at their precision."""
    return _NANO_NAMES.get(type(t)) or spark_type(t)


def bind_query(statement: exp.Expr, sources: Mapping[str, TableSource]) -> BoundQuery:
    """Qualify ``statement`` once over the scanned views ``sources`` (view name -> table),
    type it where a rewrite reads types, and record those types on the statement's nodes.

    Never raises: what cannot be bound only leaves scans reading every column, pruning
    nothing, and the type-reading rewrites inactive.
    """
    metadata = tuple(referenced_metadata_columns(statement))
    views = {name.lower(): source for name, source in sources.items()}
    columns = {view: _column_types(source, metadata) for view, source in views.items()}
    # sqlglot asks for a dict[str, object] where any mapping of tables to columns will do
    schema = ensure_schema(cast(dict[str, object], columns), dialect=DIALECT)
    columns_before_functions(statement, columns, schema)
    # a sum or avg of a timestamp reads its operand's type as one of a DECIMAL does
    decimals = _decimals_possible(statement, columns) or _timestamp_sums_possible(
        statement, columns
    )
    nanos = _nanos_possible(statement, columns)
    nodes = typed_nodes(statement, decimals, nanos)
    sums = [] if decimals else _number_sums(statement)
    arithmetic = _named_arithmetic(statement)
    if not views and not nodes and not sums and not arithmetic:
        return BoundQuery(None, {}, metadata, False)  # nothing to read from a qualified tree
    tree: exp.Expr | None = None
    scopes: list[Scope] | None = None
    try:
        tree = qualify(
            statement.copy(),
            dialect=DIALECT,
            schema=schema,
            validate_qualify_columns=False,  # checked below, over the scopes the readers use
            quote_identifiers=False,
        )
        scopes = traverse_scope(tree)
    except Exception as e:
        log.debug("binding skipped: %s", e)
    resolved_scopes = scopes if scopes is not None and _all_resolved(scopes) else None
    resolved = resolved_scopes is not None
    if sums and resolved_scopes is not None:
        _record_integral_sums(resolved_scopes, columns, sums)
    if arithmetic and resolved_scopes is not None:
        _name_date_arithmetic(resolved_scopes, columns, arithmetic)
    used = _read(used_columns, resolved_scopes, columns) if resolved_scopes is not None else None
    pushable = (
        _read(predicates.pushable_conditions, resolved_scopes, views)
        if resolved_scopes is not None and views
        else None
    )
    if tree is not None and nodes:
        try:
            annotate_types(
                tree, schema=schema, expression_metadata=EXPRESSION_METADATA, dialect=DIALECT
            )
            record_operand_types(tree, nodes)
        except Exception as e:
            log.debug("type annotation skipped: %s", e)
    tables = {
        view: BoundTable(
            source.schema,
            frozenset(used[view]) if used is not None else None,
            tuple((pushable or {}).get(view, ())),
        )
        for view, source in views.items()
    }
    return BoundQuery(tree, tables, metadata, resolved)


_SUM_KEY = "icesql_sum"
_INTEGRAL_NAMES = {"tinyint", "smallint", "int", "integer", "bigint", "byte", "short", "long"}
_INTEGRAL_OPS = (exp.Add, exp.Sub, exp.Mul, exp.Mod, exp.Neg, exp.Paren)


def _number_sums(statement: exp.Expr) -> list[exp.Sum]:
    """The ``sum`` calls of a query where no DECIMAL occurs, numbered for the qualified copy:
    their operand's type is found without sqlglot's type inference (``_integral``)."""
    sums = list(statement.find_all(exp.Sum))
    for i, node in enumerate(sums):
        node.meta[_SUM_KEY] = i
    return sums


def _record_integral_sums(
    scopes: Sequence[Scope], columns: dict[str, dict[str, str]], sums: list[exp.Sum]
) -> None:
    """Mark the sums of integers (Spark's ``sum`` of an integral type is a BIGINT, DuckDB's a
    HUGEINT): an operand built of integral columns of scanned tables, integer literals and
    ``+ - * %`` is integral; anything else (a subquery's column, a function) stays unknown."""
    for scope in scopes:
        for node in scope.expression.find_all(exp.Sum):
            index = node.meta.get(_SUM_KEY)
            if (
                index is None
                or index >= len(sums)
                or node.find_ancestor(exp.Select) is not scope.expression
            ):
                continue  # a nested query's sum: its own scope reads it
            if _integral(node.this, scope, columns):
                sums[index].meta[TYPES_KEY] = {"this": exp.DataType.build("BIGINT")}


_ARITHMETIC_KEY = "icesql_arithmetic"


def _named_arithmetic(statement: exp.Expr) -> list[exp.Add | exp.Sub]:
    """The ``+``/``-`` inside select items Spark names by printing, numbered for the qualified
    copy: one of them may be date arithmetic, which Spark names differently."""
    found: list[exp.Add | exp.Sub] = []
    for node in statement.find_all(exp.Add, exp.Sub):
        assert isinstance(node, exp.Add | exp.Sub)  # sqlglot types the two as their base
        alias = node.find_ancestor(exp.Alias)
        if alias is not None and AUTO_NAME_KEY in alias.meta:
            node.meta[_ARITHMETIC_KEY] = len(found)
            found.append(node)
    return found


def _name_date_arithmetic(
    scopes: Sequence[Scope], columns: dict[str, dict[str, str]], nodes: list[exp.Add | exp.Sub]
) -> None:
    """Mark ``date + n``, ``n + date`` and ``date - n`` (n integral) and rename their items."""
    marked = []
    for scope in scopes:
        for node in scope.expression.find_all(exp.Add, exp.Sub):
            index = node.meta.get(_ARITHMETIC_KEY)
            if (
                index is None
                or index >= len(nodes)
                or node.find_ancestor(exp.Select) is not scope.expression
            ):
                continue
            left, right = node.this, node.expression
            if _is_date(left, scope, columns) and _integral(right, scope, columns):
                side = "this"
            elif (
                isinstance(node, exp.Add)
                and _integral(left, scope, columns)
                and _is_date(right, scope, columns)
            ):
                side = "expression"
            else:
                continue
            nodes[index].meta[DATE_ARITHMETIC_KEY] = side
            marked.append(nodes[index])
    rename_typed_items(marked)


def _column_type(node: exp.Column, scope: Scope, columns: dict[str, dict[str, str]]) -> str | None:
    """The Spark type name of a column of a scanned table (None: another source, or unsure)."""
    source = scope.sources.get(node.table)
    if not isinstance(source, exp.Table):
        return None
    types = columns.get(source.name.lower(), {})
    found = {t for c, t in types.items() if c.lower() == node.name.lower()}
    return found.pop().lower() if len(found) == 1 else None


def _is_date(node: exp.Expr, scope: Scope, columns: dict[str, dict[str, str]]) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column):
        return _column_type(node, scope, columns) == "date"
    if isinstance(node, exp.Add | exp.Sub):  # date + n + m
        if _is_date(node.this, scope, columns) and _integral(node.expression, scope, columns):
            return True
        return (
            isinstance(node, exp.Add)
            and _integral(node.this, scope, columns)
            and _is_date(node.expression, scope, columns)
        )
    return isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.DATE


def _integral(node: exp.Expr, scope: Scope, columns: dict[str, dict[str, str]]) -> bool:
    if isinstance(node, exp.Literal):
        return node.is_int
    if isinstance(node, exp.Distinct):
        return len(node.expressions) == 1 and _integral(node.expressions[0], scope, columns)
    if isinstance(node, exp.Column):
        return _column_type(node, scope, columns) in _INTEGRAL_NAMES
    if isinstance(node, exp.Cast):
        return node.to.this in INTEGRAL
    if isinstance(node, exp.Length):  # an INT in Spark
        return True
    if isinstance(node, _INTEGRAL_OPS):
        return all(_integral(child, scope, columns) for child in node.iter_expressions())
    return False


def _decimals_possible(statement: exp.Expr, columns: dict[str, dict[str, str]]) -> bool:
    """Whether a DECIMAL can reach the query: a column of that type (or of a type unknown), a
    cast to it, or a literal Spark reads as one (``1.5``)."""
    for types in columns.values():
        if any("decimal" in t.lower() or t == UNKNOWN_TYPE for t in types.values()):
            return True
    if any(t.this == exp.DataType.Type.DECIMAL for t in statement.find_all(exp.DataType)):
        return True
    return any(
        lit.is_number and "." in lit.this and "e" not in lit.this.lower()
        for lit in statement.find_all(exp.Literal)
    )


def _timestamp_sums_possible(statement: exp.Expr, columns: dict[str, dict[str, str]]) -> bool:
    """Whether a ``sum`` or ``avg`` may add up timestamps: the query has one and a timestamp
    can reach it (a column of that type, a cast or literal)."""
    if statement.find(exp.Sum, exp.Avg) is None:
        return False
    if any("timestamp" in t.lower() for types in columns.values() for t in types.values()):
        return True
    return any(t.this in _TIMESTAMP_TYPES for t in statement.find_all(exp.DataType))


_TIMESTAMP_TYPES = {
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPTZ,
    exp.DataType.Type.TIMESTAMPLTZ,
    exp.DataType.Type.TIMESTAMPNTZ,
}


def _nanos_possible(statement: exp.Expr, columns: dict[str, dict[str, str]]) -> bool:
    """Whether a nanosecond timestamp can reach the query: a column of that type or a cast to
    one. Only then do comparisons need their operands' types."""
    names = set(_NANO_NAMES.values())
    if any(t.upper() in names for types in columns.values() for t in types.values()):
        return True
    return any(
        t.this == exp.DataType.Type.TIMESTAMP_NS or str(t.args.get("kind", "")).upper() in names
        for t in statement.find_all(exp.DataType)
    )


def _column_types(source: TableSource, metadata: Sequence[str]) -> dict[str, str]:
    """The view's columns and their Spark type names: the schema's, then the metadata
    columns the query names (a data column of the same name hides its twin)."""
    types = {f.name: source.types.get(f.name, UNKNOWN_TYPE) for f in source.schema.fields}
    for name in metadata:
        types.setdefault(name, SPARK_TYPES.get(name, UNKNOWN_TYPE))
    return types


def _all_resolved(scopes: Sequence[Scope]) -> bool:
    """sqlglot's ``validate_qualify_columns``, over scopes already traversed: no column is
    left without a source, and none names a source its SELECT cannot see."""
    for scope in scopes:
        if not isinstance(scope.expression, exp.Select):
            continue
        if scope.unqualified_columns:
            return False
        if scope.external_columns and not scope.is_correlated_subquery and not scope.pivots:
            return False
    return True


def _read(reader: Callable[[Sequence[Scope], A], R], scopes: Sequence[Scope], arg: A) -> R | None:
    """One reader of the scopes; a reader that fails only means "read all, prune nothing"."""
    try:
        return reader(scopes, arg)
    except Exception as e:
        log.debug("%s skipped: %s", getattr(reader, "__name__", reader), e)
        return None
