"""From SQL conditions to the Iceberg filters that prune each table scan's files.

For every SELECT scope of the query's qualified tree (``icesql.sql.bound_query``), the WHERE
clause and the ON conditions of its joins are turned into an Iceberg expression per scanned
table, bound to that table's schema. Pruning is only an optimisation: the engine still
evaluates the whole SQL predicate, so a pushed filter only has to keep every row the SQL
could keep (a *superset*), and what cannot be converted is simply not pushed:

* AND pushes the conjuncts that convert; OR pushes only when both sides convert;
* NOT is pushed down here, with SQL's three-valued logic (``NOT (a = 1 AND f(b))`` is
  ``a != 1 OR NOT f(b)``, which does not convert, so nothing is pushed);
* a conjunct naming another table (``a.x = b.y``) or anything but a column compared with a
  literal does not convert; literals must fit the column type exactly or be widened safely
  (``icesql.expressions.literals``).

Where a condition may be pushed (``JoinScope``), decided once per query by the binding pass
(``pushable_conditions``): WHERE to tables that no outer join pads with nulls, and to padded
tables only when a top-level conjunct rejects nulls of that table (``b.x = 1``, not
``b.x IS NULL``); the ON of an inner join to both sides; the ON of an outer join only to its
non-preserved side; the ON of a full join nowhere. Each scope pushes only to its own tables,
so subqueries keep their conditions to themselves. The conversion (``pushed_filters``) then
reads the parameter values::

    >>> from icesql.sql.bound_query import TableSource, bind_query
    >>> from icesql.sql.dialect import parse_one
    >>> from icesql.spec.types import IntegerType, NestedField, StringType
    >>> s = Schema((NestedField(1, "id", IntegerType()), NestedField(2, "name", StringType())))
    >>> q = parse_one("SELECT * FROM v WHERE id > 5 AND name LIKE 'ab%' AND length(name) = 3")
    >>> bound = bind_query(q, {"v": TableSource(s)})
    >>> {k: str(v) for k, v in pushed_filters(bound, ()).items()}
    {'v': "(id > 5 AND name STARTS WITH 'ab')"}
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope

from icesql.errors import ProgrammingError
from icesql.expressions.binding import bind_predicate
from icesql.expressions.literals import (
    NEAREST,
    TimestampNanos,
    convert_literal,
    parse_timestamp_micros,
    parse_timestamp_nanos,
)
from icesql.expressions.tree import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    BooleanExpression,
    Operation,
    UnboundPredicate,
    and_,
    or_,
    predicate,
)
from icesql.spec.schema import Schema
from icesql.sql.spark_type_names import spark_ddl_type

if TYPE_CHECKING:
    from icesql.spec.types import IcebergType
    from icesql.sql.bound_query import BoundQuery

__all__ = ["Pushable", "exact_filter", "pushable_conditions", "pushed_filters"]

log = logging.getLogger(__name__)

_COMPARISONS: dict[type[exp.Expr], Operation] = {
    exp.EQ: Operation.EQ,
    exp.NEQ: Operation.NOT_EQ,
    exp.GT: Operation.GT,
    exp.GTE: Operation.GT_EQ,
    exp.LT: Operation.LT,
    exp.LTE: Operation.LT_EQ,
}
_TIMESTAMP_TYPES = {
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPTZ,
    exp.DataType.Type.TIMESTAMPLTZ,
    exp.DataType.Type.TIMESTAMPNTZ,
    exp.DataType.Type.DATETIME,
}
_ZONED = {exp.DataType.Type.TIMESTAMPTZ, exp.DataType.Type.TIMESTAMPLTZ}
_ZONED_NANOS = "TIMESTAMPTZ_NS"  # a user-defined type of the dialect (icesql.sql.dialect)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_INT_TYPES = {
    exp.DataType.Type.TINYINT,
    exp.DataType.Type.SMALLINT,
    exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT,
}
_STRING_TYPES = {exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT, exp.DataType.Type.CHAR}


class NotLiteral(Exception):
    """The node is not a constant the planner can evaluate."""


@dataclass(frozen=True)
class Pushable:
    """A condition of the qualified tree (``icesql.sql.bound_query``) that may prune the files of
    the table the query calls ``alias``. ``scope`` numbers the SELECT it belongs to: the
    conditions of one SELECT are combined before those of the next."""

    alias: str
    condition: exp.Expr
    scope: int


def pushable_conditions(
    scopes: Sequence[Scope], views: Collection[str]
) -> dict[str, list[Pushable]]:
    """Per scanned view name (lower-case, one of ``views``), the conditions of the qualified
    query that may be pushed to it, in order; views with none are left out."""
    out: dict[str, list[Pushable]] = {}
    derived: dict[int, list[exp.Expr]] = {id(scope.expression): [] for scope in scopes}
    for scope in reversed(scopes):  # outer scopes first: a view over a view passes it on
        _push_into_derived(scope, derived)
    for index, scope in enumerate(scopes):
        found = _scope_conditions(scope, views, derived.get(id(scope.expression), []))
        for view, alias, condition in found:
            out.setdefault(view, []).append(Pushable(alias, condition, index))
    return out


def pushed_filters(bound: BoundQuery, params: Sequence[object]) -> dict[str, BooleanExpression]:
    """Per scanned view name (lower-case), the bound Iceberg filter that may prune its files:
    the pushable conditions the binding pass found, converted with the parameter values;
    views with nothing to push are left out. Never raises: anything that cannot be converted
    pushes nothing."""
    try:
        out: dict[str, BooleanExpression] = {}
        for view, table in bound.tables.items():
            total: BooleanExpression
            found: BooleanExpression
            total, scope, found = ALWAYS_TRUE, -1, ALWAYS_TRUE
            for pushable in table.pushable:
                if pushable.scope != scope:
                    total, scope, found = and_(total, found), pushable.scope, ALWAYS_TRUE
                converter = _Converter(pushable.alias, table.schema, params)
                converted = converter.convert(pushable.condition, negate=False)
                if converted is not None and converted != ALWAYS_TRUE:
                    found = and_(found, converted)
            total = and_(total, found)
            if total != ALWAYS_TRUE:
                out[view] = total
        return out
    except Exception as e:
        log.debug("predicate pushdown skipped: %s", e)
        return {}


# ---------------------------------------------------------------------------------------------
# Where a condition may go


# what makes a SELECT's rows more than a filter of its FROM's rows, one output row per input row
_NOT_A_FILTER = ("group", "having", "qualify", "limit", "offset", "distinct", "windows", "fetch")


def _push_into_derived(scope: Scope, derived: dict[int, list[exp.Expr]]) -> None:
    """Carry the WHERE of ``scope`` (and what was carried into it) into each derived table it
    reads (a subquery in FROM, a temporary view) whose SELECT only filters and renames
    columns: the condition, its columns replaced by the inner columns they name, is a
    condition on the inner rows that produce the outer ones. It only prunes: the outer WHERE
    still runs as written."""
    select = scope.expression
    if not isinstance(select, exp.Select):
        return
    where = select.args.get("where")
    conditions = ([where.this] if where is not None else []) + derived.get(id(select), [])
    if not conditions:
        return
    joined = bool(select.args.get("joins"))
    for alias, source in scope.selected_sources.items():
        inner = source[1]
        if not isinstance(inner, Scope) or not isinstance(inner.expression, exp.Select):
            continue
        body = inner.expression
        if any(body.args.get(k) for k in _NOT_A_FILTER) or id(body) not in derived:
            continue
        if joined and not all(_rejects_nulls(c, alias) for c in conditions):
            continue  # an outer join may pad it with nulls
        outputs = _plain_outputs(body)
        if outputs is None:
            continue
        for condition in conditions:
            moved = _renamed(condition, alias, outputs)
            if moved is not None:
                derived[id(body)].append(moved)


def _plain_outputs(body: exp.Select) -> dict[str, exp.Expr] | None:
    """The inner column (or cast of one: an Iceberg view's columns are casts to its schema's
    types) each output of ``body`` is, by lower-case name; None when an output is computed
    otherwise (a condition on it could not be carried into ``body``)."""
    outputs: dict[str, exp.Expr] = {}
    for item in body.expressions:
        target = item.this if isinstance(item, exp.Alias) else item
        column = target.this if type(target) is exp.Cast else target
        if not isinstance(column, exp.Column):
            return None
        outputs[item.alias_or_name.lower()] = target
    return outputs


def _renamed(condition: exp.Expr, alias: str, outputs: dict[str, exp.Expr]) -> exp.Expr | None:
    """``condition`` over the inner columns ``alias.c`` names, or None when it names anything
    else (another table, a subquery)."""
    if condition.find(exp.Subquery, exp.Exists, exp.Select) is not None:
        return None
    moved = condition.copy()
    for column in list(moved.find_all(exp.Column)):
        inner = outputs.get(column.name.lower()) if column.table == alias else None
        if inner is None:
            return None
        column.replace(inner.copy())
    for node in moved.walk():  # a copy: no mark of the statement's own nodes but a ? marker's
        param = node.meta.get("icesql_param")
        node.meta.clear()
        if param is not None:
            node.meta["icesql_param"] = param
    return moved


def _scope_conditions(
    scope: Scope, views: Collection[str], carried: Sequence[exp.Expr] = ()
) -> list[tuple[str, str, exp.Expr]]:
    """(view, alias, condition) for each condition of the scope that may go to a view;
    ``carried`` holds conditions an outer scope's WHERE puts on this one's rows."""
    select = scope.expression
    if not isinstance(select, exp.Select):
        return []
    aliases = {
        alias: source.name.lower()
        for alias, source in scope.sources.items()
        if isinstance(source, exp.Table)
        and source.name.lower() in views
        and not source.args.get("pivots")  # WHERE sees the pivoted rows, not the table's
    }
    if not aliases:
        return []
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is None or not isinstance(from_.this, exp.Table | exp.Subquery):
        return []
    order = [from_.this.alias_or_name]
    padded: set[str] = set()
    on_targets: list[tuple[exp.Expr, list[str]]] = []
    for join in select.args.get("joins") or []:
        if not isinstance(join.this, exp.Table | exp.Subquery):
            return []  # nested join trees: keep it simple, push nothing in this scope
        right = join.this.alias_or_name
        side, kind = (join.side or "").upper(), (join.kind or "").upper()
        on = join.args.get("on")
        if kind in ("SEMI", "ANTI"):
            if on is not None:
                on_targets.append((on, [right]))
            continue  # the right side is not visible to WHERE
        if on is not None:
            if side == "LEFT":
                on_targets.append((on, [right]))
            elif side == "RIGHT":
                on_targets.append((on, [a for a in order if a not in padded]))
            elif side != "FULL":
                on_targets.append((on, [right, *(a for a in order if a not in padded)]))
        if side == "LEFT":
            padded.add(right)
        elif side == "RIGHT":
            padded.update(order)
        elif side == "FULL":
            padded.update(order)
            padded.add(right)
        order.append(right)

    found: list[tuple[str, str, exp.Expr]] = []

    def push(alias: str, condition: exp.Expr) -> None:
        view = aliases.get(alias)
        if view is not None:
            found.append((view, alias, condition))

    where = select.args.get("where")
    for condition in ([where.this] if where is not None else []) + list(carried):
        for alias in order:
            if alias not in padded or _rejects_nulls(condition, alias):
                push(alias, condition)
    for condition, targets in on_targets:
        for alias in targets:
            push(alias, condition)
    return found


def _conjuncts(node: exp.Expr) -> list[exp.Expr]:
    node = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


def _rejects_nulls(condition: exp.Expr, alias: str) -> bool:
    """Some top-level conjunct is a comparison, IN, LIKE, BETWEEN or IS NOT NULL on a column
    of ``alias``, so a row padded with nulls for that table never passes."""
    for node in _conjuncts(condition):
        if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
            target = node.this.this
        elif isinstance(node, exp.Is):
            if not node.args.get("negate"):
                continue  # IS NULL keeps padded rows
            target = node.this
        elif isinstance(node, tuple(_COMPARISONS) + (exp.In, exp.Like, exp.Between)):
            target = node.this
            if isinstance(node, tuple(_COMPARISONS)) and not _column_of(target, alias):
                target = node.expression
        else:
            continue
        if _column_of(target, alias):
            return True
    return False


@functools.lru_cache(maxsize=256)
def _ddl_type(ddl: str) -> exp.DataType:
    return exp.DataType.build(ddl, dialect="spark")


def _spark_type(t: IcebergType) -> exp.DataType:
    return _ddl_type(spark_ddl_type(t))


def _column_of(node: exp.Expr, alias: str) -> bool:
    return isinstance(node, exp.Column) and node.table == alias and len(node.parts) == 2


# ---------------------------------------------------------------------------------------------
# Conversion


def exact_filter(
    condition: exp.Expr, alias: str, schema: Schema, params: Sequence[object], dialect: Dialect
) -> BooleanExpression | None:
    """The bound Iceberg filter TRUE for exactly the rows where ``condition`` (over one
    table, columns qualified by ``alias`` or not) is TRUE, or None when any part of it does
    not convert exactly (a function, a subquery, another table, a double literal the column
    cannot hold). What a DELETE may use to drop whole files without reading them::

        >>> from icesql.sql.dialect import DIALECT, parse_one
        >>> from icesql.spec.types import IntegerType, NestedField
        >>> s = Schema((NestedField(1, "id", IntegerType()),))
        >>> str(exact_filter(parse_one("SELECT 1 WHERE NOT (id < 3)").args["where"].this, "t", s, (), DIALECT))
        'id >= 3'
        >>> exact_filter(parse_one("SELECT 1 WHERE id + 1 < 3").args["where"].this, "t", s, (), DIALECT) is None
        True
    """
    view = "__icesql_exact"
    try:
        source = exp.Table(
            this=exp.to_identifier(view), alias=exp.TableAlias(this=exp.to_identifier(alias))
        )
        select = exp.Select(expressions=[exp.Star()], from_=exp.From(this=source))
        select.set("where", exp.Where(this=condition.copy()))
        qualified = qualify(
            select,
            dialect=dialect,
            schema={view: {f.name: "INT" for f in schema.fields}},
            validate_qualify_columns=True,
            expand_stars=False,
            quote_identifiers=False,
        )
        where = qualified.args["where"].this
        table = qualified.args["from_"].this.alias_or_name
        converter = _Converter(table, schema, params, exact=True)
        converted = converter.convert(where, negate=False)
    except Exception as e:
        log.debug("no exact filter: %s", e)
        return None
    return None if converter.lossy or converted is None else converted


class _Converter:
    """Converts one condition for one table alias; None means "not pushed". With ``exact``,
    ``lossy`` records whether anything was dropped or widened on the way."""

    def __init__(self, alias: str, schema: Schema, params: Sequence[object], exact: bool = False):
        self.alias = alias
        self.schema = schema
        self.params = params
        self.exact = exact
        self.lossy = False

    def convert(self, node: exp.Expr, negate: bool) -> BooleanExpression | None:
        """A superset of the rows where ``node`` (``NOT node`` if ``negate``) is TRUE."""
        if isinstance(node, exp.Paren):
            return self.convert(node.this, negate)
        if isinstance(node, exp.Not):
            return self.convert(node.this, not negate)
        if node.args.get("negate"):  # sqlglot keeps NOT LIKE / IS NOT as a flag
            negate = not negate
        if isinstance(node, exp.And | exp.Or):
            left = self.convert(node.this, negate)
            right = self.convert(node.expression, negate)
            conjunction = isinstance(node, exp.And) != negate  # De Morgan
            if conjunction:
                parts = [p for p in (left, right) if p is not None]
                return and_(*parts) if parts else None
            if left is None or right is None:
                return None  # one side unknown: the OR may match anything
            return or_(left, right)
        if isinstance(node, exp.Boolean):
            return ALWAYS_TRUE if node.this != negate else ALWAYS_FALSE
        try:
            converted = self._leaf(node, negate)
        except (NotLiteral, ProgrammingError, ValueError, TypeError, ArithmeticError) as e:
            log.debug("not pushed: %s (%s)", node.sql(), e)
            converted = None
        if converted is None:
            self.lossy = True
        return converted

    def _widened(self, name: str, values: Sequence[Any]) -> bool:
        """In exact mode: would binding widen a comparison of ``name`` with these literals
        (a decimal the double column cannot hold exactly)?"""
        if not self.exact:
            return False
        t = self.schema.find_field_by_name(name).type
        for v in values:
            if v is not None and convert_literal(v, t)[1] == NEAREST:
                self.lossy = True
                return True
        return False

    def _column(self, node: exp.Expr) -> str | None:
        cast = node if type(node) is exp.Cast else None
        if cast is not None:
            node = cast.this
        if not _column_of(node, self.alias):
            return None
        name = node.name
        field = self.schema.find_field_by_name(name)
        if not any(f.field_id == field.field_id for f in self.schema.fields):
            return None
        if cast is not None and cast.to != _spark_type(field.type):
            return None  # only a cast to the column's own type is the column
        return field.name

    def _bind(self, pred: UnboundPredicate) -> BooleanExpression:
        return bind_predicate(self.schema, pred)

    def _leaf(self, node: exp.Expr, negate: bool) -> BooleanExpression | None:
        op = _COMPARISONS.get(type(node))
        if op is not None:
            return self._comparison(node, op, negate)
        if isinstance(node, exp.Between):
            return self._between(node, negate)
        if isinstance(node, exp.In):
            return self._in(node, negate)
        if isinstance(node, exp.Is):
            name = self._column(node.this)
            if name is None or not isinstance(node.expression, exp.Null):
                return None
            return self._bind(predicate(Operation.NOT_NULL if negate else Operation.IS_NULL, name))
        if isinstance(node, exp.Like):
            return self._like(node, negate)
        if isinstance(node, exp.IsNan):
            name = self._column(node.this)
            if name is None:
                return None
            if not negate:
                return self._bind(predicate(Operation.IS_NAN, name))
            # Spark's isnan(NULL) is false, so NOT isnan(x) keeps the nulls
            return or_(
                self._bind(predicate(Operation.NOT_NAN, name)),
                self._bind(predicate(Operation.IS_NULL, name)),
            )
        if isinstance(node, exp.Column):
            name = self._column(node)  # a boolean column used as a condition
            if name is None:
                return None
            return self._bind(predicate(Operation.EQ, name, not negate))
        return None

    def _comparison(self, node: exp.Expr, op: Operation, negate: bool) -> BooleanExpression | None:
        name = self._column(node.this)
        other = node.expression
        if name is None:
            name, other, op = self._column(node.expression), node.this, op.flip()
        if name is None:
            return None
        value = literal_value(other, self.params)
        if value is None:
            return None  # a comparison with NULL is never TRUE; left to the engine
        if self._widened(name, [value]):
            return None
        return self._bind(predicate(op.negate() if negate else op, name, value))

    def _between(self, node: exp.Between, negate: bool) -> BooleanExpression | None:
        name = self._column(node.this)
        if name is None or node.args.get("symmetric"):
            return None
        low = literal_value(node.args["low"], self.params)
        high = literal_value(node.args["high"], self.params)
        if low is None or high is None or self._widened(name, [low, high]):
            return None
        if negate:  # NOT BETWEEN: below low or above high
            return or_(
                self._bind(predicate(Operation.LT, name, low)),
                self._bind(predicate(Operation.GT, name, high)),
            )
        return and_(
            self._bind(predicate(Operation.GT_EQ, name, low)),
            self._bind(predicate(Operation.LT_EQ, name, high)),
        )

    def _in(self, node: exp.In, negate: bool) -> BooleanExpression | None:
        name = self._column(node.this)
        if name is None or node.args.get("query") is not None or node.args.get("unnest"):
            return None
        values = [literal_value(v, self.params) for v in node.expressions]
        return self._bind(predicate(Operation.NOT_IN if negate else Operation.IN, name, values))

    def _like(self, node: exp.Like, negate: bool) -> BooleanExpression | None:
        name = self._column(node.this)
        if name is None or node.args.get("escape") is not None:
            return None
        pattern = literal_value(node.expression, self.params)
        if not isinstance(pattern, str) or "\\" in pattern or "_" in pattern:
            return None
        if "%" not in pattern:
            op = Operation.NOT_EQ if negate else Operation.EQ
            return self._bind(predicate(op, name, pattern))
        prefix = pattern.rstrip("%")
        if "%" in prefix:
            return None  # a wildcard inside the pattern
        if not prefix:
            return None if negate else self._bind(predicate(Operation.NOT_NULL, name))
        op = Operation.NOT_STARTS_WITH if negate else Operation.STARTS_WITH
        return self._bind(predicate(op, name, prefix))


# ---------------------------------------------------------------------------------------------
# Literals


def literal_value(node: exp.Expr, params: Sequence[object]) -> Any:
    """The Python value of a constant the way the engine reads it: strings, numbers (int,
    Decimal for a decimal point, float for an exponent), booleans, NULL (None), ``?``
    parameters, and casts of those to dates, timestamps (session time zone UTC), decimals
    and numbers. Raises ``NotLiteral`` for anything else."""
    if isinstance(node, exp.Paren):
        return literal_value(node.this, params)
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else _number(node.this)
    if isinstance(node, exp.Neg):
        value = literal_value(node.this, params)
        if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
            raise NotLiteral(node.sql())
        return -value
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Placeholder):
        index = node.meta.get("icesql_param")
        if index is None or index >= len(params):
            raise NotLiteral("parameter without a value")
        return params[index]
    if isinstance(node, exp.Cast):
        return _cast(literal_value(node.this, params), node.to)
    raise NotLiteral(node.sql())


def _number(text: str) -> int | Decimal | float:
    if "e" in text.lower():
        return float(text)
    if "." in text:
        return Decimal(text)
    return int(text)


def _cast(value: Any, to: exp.DataType) -> Any:
    """A literal cast, only where the result is certain (else NotLiteral)."""
    if value is None:
        return None
    kind = to.this
    zoned_nanos = kind == exp.DataType.Type.USERDEFINED and (
        str(to.args.get("kind", "")).upper() == _ZONED_NANOS
    )
    if kind == exp.DataType.Type.TIMESTAMP_NS or zoned_nanos:
        return _nanos_cast(value, zoned_nanos)
    if kind == exp.DataType.Type.DATE:
        if isinstance(value, str) and len(value.strip()) == 10:
            return dt.date.fromisoformat(value.strip())
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            return value
    elif kind in _TIMESTAMP_TYPES:
        if isinstance(value, TimestampNanos) and value.nanos % 1000 == 0:
            return _EPOCH + dt.timedelta(microseconds=value.nanos // 1000)
        if isinstance(value, str):
            micros, zoned = parse_timestamp_micros(value)
            if zoned and kind not in _ZONED:
                raise NotLiteral("a zone offset cast to a timestamp without time zone")
            return _EPOCH + dt.timedelta(microseconds=micros)
        if isinstance(value, dt.datetime):
            return value
        if isinstance(value, dt.date):
            return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    elif kind == exp.DataType.Type.DECIMAL:
        return _decimal_cast(value, to)
    elif kind in _INT_TYPES:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, Decimal | str):
            d = _exact_decimal(value)
            if d is not None and d == d.to_integral_value():
                return int(d)
    elif kind == exp.DataType.Type.DOUBLE:
        if isinstance(value, int | Decimal | float) and not isinstance(value, bool):
            return float(value)
    elif kind in _STRING_TYPES:
        if isinstance(value, str):
            return value
    raise NotLiteral(f"cast of {value!r} to {to.sql()}")


def _nanos_cast(value: Any, zoned: bool) -> Any:
    """A cast to ``TIMESTAMP_NS`` / ``TIMESTAMPTZ_NS`` (``zoned``), as a ``TimestampNanos``."""
    if isinstance(value, TimestampNanos):
        return value
    if isinstance(value, str):
        nanos, has_zone = parse_timestamp_nanos(value)
        if has_zone and not zoned:
            raise NotLiteral("a zone offset cast to a timestamp without time zone")
        return TimestampNanos(nanos)
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        delta = value - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 10**6 + delta.microseconds
        return TimestampNanos(micros * 1000)
    if isinstance(value, dt.date):
        return TimestampNanos((value - _EPOCH.date()).days * 86_400 * 10**9)
    raise NotLiteral(f"cast of {value!r} to a nanosecond timestamp")


def _exact_decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(value.strip() if isinstance(value, str) else value)
    except (InvalidOperation, ValueError, TypeError):
        return None


def _decimal_cast(value: Any, to: exp.DataType) -> Decimal:
    d = None if isinstance(value, bool | float) else _exact_decimal(value)
    if d is None or not d.is_finite():
        raise NotLiteral(f"cast of {value!r} to a decimal")
    params = [p.this for p in to.expressions]
    if len(params) == 2:
        scale = int(params[1].this if isinstance(params[1], exp.Literal) else params[1])
        quantized = d.quantize(Decimal(1).scaleb(-scale))
        if quantized != d:
            raise NotLiteral(f"{value!r} would be rounded to scale {scale}")
        return quantized
    raise NotLiteral("a decimal cast without an explicit scale")
