"""Names that resolve to nothing, said as Spark says them.

DuckDB judges whether a column or function exists; its binder text (``Values list "e" does
not have a column named ...``, ``Did you mean "century"?``) names our rewritten query, not the
user's. ``unresolved_name`` turns such a message into Spark's error class with Spark's
suggestions, and the position of the name in the statement as written (from the parsed
tree's token offsets), so a front can put a caret under it.

Spark's rules (``CheckAnalysis`` and ``StringUtils.orderSuggestedIdentifiersBySimilarity``):
the candidates are the columns of the relations the failing name could have come from, each
qualified by its relation (an alias, else ``catalog.namespace.table``), less the qualifier
they all share (``suggestions``); the first five by Levenshtein distance to the name are
proposed.

>>> from icesql.sql.dialect import parse_one
>>> tree = parse_one("SELECT contry FROM v AS events")
>>> e = unresolved_name('Referenced column "contry" not found in FROM clause!', tree,
...                     {"v": Relation(("local", "db", "events"), ("user_id", "country", "n"))})
>>> print(e)
[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `contry` \
cannot be resolved. Did you mean one of the following? [`country`, `n`, `user_id`]. \
SQLSTATE: 42703; line 1 pos 7
>>> e.position, e.length
((1, 8), 6)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from sqlglot import exp

from icesql.errors import NoSuchTableError, ProgrammingError
from icesql.sql.spark.function_names import SPARK_FUNCTIONS

if TYPE_CHECKING:
    from sqlglot.optimizer.scope import Scope

__all__ = [
    "Relation",
    "levenshtein",
    "positioned",
    "quote_id",
    "suggestions",
    "table_not_found",
    "unresolved_name",
]

SUGGESTIONS = 5  # Spark proposes at most five columns
# DuckDB's texts; some releases double the quotes around the name (2.0: ""x"")
_COLUMN = (
    re.compile(r'Referenced column "+(?P<name>[^"]+)"+ not found'),
    re.compile(r'Column "+(?P<name>[^"]+)"+ referenced that exists in the SELECT clause'),
    re.compile(r'Alias with name "+(?P<name>[^"]+)"+ exists, but aliases cannot be used'),
    re.compile(
        r'(?:Values list|Table) "+(?P<table>[^"]+)"+ does not have a column named "+(?P<name>[^"]+)"+'
    ),
    re.compile(r'Referenced table "+(?P<table>[^"]+)"+ not found'),
)
_FUNCTION = re.compile(
    r'(?:Scalar|Aggregate|Table)? ?Function with name "*(?P<name>\w+)"* does not exist'
)


@dataclass(frozen=True)
class Relation:
    """A scanned table as Spark names its columns: the qualifier (its alias, else catalog,
    namespace and table) and its top-level columns in order."""

    qualifier: tuple[str, ...]
    columns: tuple[str, ...]


def quote_id(parts: Iterable[str]) -> str:
    """Spark's ``toSQLId``: every part in backticks (a backtick inside doubled).

    >>> quote_id(["db", "t`x"])
    '`db`.`t``x`'
    """
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


def quote_string(text: str) -> str:
    """Spark's ``escapeSingleQuotedString`` in quotes, as SHOW CREATE TABLE writes values.

    >>> print(quote_string("it's"))
    'it\\'s'
    """
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def levenshtein(a: str, b: str) -> int:
    """The edit distance of commons-text's ``LevenshteinDistance`` (case-sensitive).

    >>> levenshtein("contry", "country"), levenshtein("", "ab")
    (1, 2)
    """
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def table_not_found(node: exp.Table) -> NoSuchTableError:
    """Spark's ``TABLE_OR_VIEW_NOT_FOUND`` for a table name of the statement."""
    parts = [p.name for p in node.parts]
    message = (
        f"[TABLE_OR_VIEW_NOT_FOUND] The table or view {quote_id(parts)} cannot be found."
        " Verify the spelling and correctness of the schema and catalog. SQLSTATE: 42P01"
    )
    return cast(NoSuchTableError, positioned(message, node, NoSuchTableError))


def unresolved_name(
    message: str,
    statement: exp.Expr,
    relations: Mapping[str, Relation],
    search_path: Sequence[str] = (),
) -> ProgrammingError | None:
    """Spark's error for DuckDB's ``message`` about a column or function of ``statement``
    that does not exist, or None when the message is about something else. ``relations``
    are the scanned views of ``statement`` by view name; ``search_path`` the current
    catalog and namespace, where Spark looks for a function after its own."""
    for pattern in _COLUMN:
        match = pattern.search(message)
        if match is not None:
            groups = match.groupdict()
            return _unresolved_column(groups.get("name"), groups.get("table"), statement, relations)
    match = _FUNCTION.search(message)
    if match is not None:
        return _unresolved_function(match.group("name"), statement, search_path)
    return None


def _unresolved_column(
    name: str | None, table: str | None, statement: exp.Expr, relations: Mapping[str, Relation]
) -> ProgrammingError | None:
    known = {c.lower() for r in relations.values() for c in r.columns}
    if name is not None and table is None and name.lower() in known:
        return None  # a column there is: DuckDB refused something else of it
    node = _first_column(statement, name, table)
    if node is None:
        return None
    parts = [p.name for p in node.parts]
    ranked = suggestions(parts, _candidates(statement, node, relations))
    text = f"A column or function parameter with name {quote_id(parts)} cannot be resolved."
    if ranked:
        proposal = ", ".join(quote_id(c) for c in ranked[:SUGGESTIONS])
        head = f"[UNRESOLVED_COLUMN.WITH_SUGGESTION] {text} Did you mean one of the following? [{proposal}]."
    else:
        head = f"[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] {text}"
    return positioned(f"{head} SQLSTATE: 42703", node)


def suggestions(
    name: Sequence[str], candidates: Sequence[tuple[str, ...]]
) -> list[tuple[str, ...]]:
    """Spark's ``orderSuggestedIdentifiersBySimilarity``: a qualifier all candidates share is
    dropped (all of it for a one-part name, all but the table for a name of up to two
    parts), then the candidates are ordered by the distance of their text to the name's
    (ties by text).

    >>> suggestions(["ab"], [("db", "t", "b"), ("db", "t", "a"), ("db", "t", "ab1")])
    [('a',), ('b',), ('ab1',)]
    >>> suggestions(["x", "n"], [("local", "db", "t", "id"), ("local", "db", "t", "n")])
    [('t', 'n'), ('t', 'id')]
    """
    if len(name) == 1 and len({c[:-1] for c in candidates}) == 1:
        stripped = [c[-1:] for c in candidates]
    elif len(name) <= 2 and len({c[:-2] for c in candidates}) == 1:
        stripped = [c[-2:] for c in candidates]
    else:
        stripped = list(candidates)
    base = ".".join(_quote_if_needed(p) for p in name)
    return sorted(stripped, key=lambda c: (levenshtein(quote_id(c), base), quote_id(c)))


def _quote_if_needed(part: str) -> str:
    return part if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part) else quote_id([part])


def _unresolved_function(
    name: str, statement: exp.Expr, search_path: Sequence[str]
) -> ProgrammingError | None:
    node = next(
        (
            n
            for n in statement.find_all(exp.Anonymous)
            if isinstance(n.this, str) and n.this.lower() == name.lower()
        ),
        None,
    )
    # Spark proposes none; the closest of Spark's names points at the fix (never DuckDB's)
    close = difflib.get_close_matches(name.lower(), sorted(SPARK_FUNCTIONS), n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(quote_id([f]) for f in close)}?" if close else ""
    head = (
        f"[UNRESOLVED_ROUTINE] Cannot resolve function {quote_id([name])} on search path"
        f" [`system`.`builtin`, `system`.`session`, {quote_id(search_path)}].{hint}"
        " SQLSTATE: 42883"
    )
    return positioned(head, node)


def positioned(
    message: str, node: exp.Expr | None, kind: type[ProgrammingError] = ProgrammingError
) -> ProgrammingError:
    """The error with Spark's ``line L pos P`` (P from 0) and ``position`` (line, column from
    1) / ``length`` for a caret, when the node came from the statement's text."""
    span = _span(node) if node is not None else None
    if span is None:
        return kind(message)
    line, column, width = span
    error = kind(f"{message}; line {line} pos {column - 1}")
    error.position = (line, column)  # type: ignore[attr-defined]
    error.length = width  # type: ignore[attr-defined]
    return error


def _span(node: exp.Expr) -> tuple[int, int, int] | None:
    """(line, first column, width) of the node's text, from its own token offsets (a
    function's name) or its identifiers' (a column's parts)."""
    if "start" in node.meta:
        metas = [node.meta]
    else:  # a table's or column's name parts, not a table's alias
        parts = node.parts if isinstance(node, (exp.Table, exp.Column)) else []
        metas = [i.meta for i in parts if "start" in i.meta]
    if not metas:
        return None
    first = min(metas, key=lambda m: m["start"])
    start, end = first["start"], max(m["end"] for m in metas)
    return first["line"], first["col"] - (first["end"] - start), end - start + 1


def _first_column(statement: exp.Expr, name: str | None, table: str | None) -> exp.Column | None:
    """The first column of the text with that name (and qualifier)."""
    found = []
    for node in statement.find_all(exp.Column):
        if name is not None and node.name.lower() != name.lower():
            continue
        if table is not None and node.table.lower() != table.lower():
            continue
        span = _span(node)
        found.append((span[:2] if span else (1 << 30, 0), node))
    return min(found, key=lambda f: f[0])[1] if found else None


def _candidates(
    statement: exp.Expr, node: exp.Column, relations: Mapping[str, Relation]
) -> list[tuple[str, ...]]:
    """The qualified columns the node's SELECT reads from, in FROM order."""
    scope = _scope_of(statement, node)
    if scope is None:
        return [(*r.qualifier, c) for r in relations.values() for c in r.columns]
    order = node.find_ancestor(exp.Order, exp.Select)
    select = scope.expression
    if isinstance(order, exp.Order) and isinstance(select, exp.Select) and not select.is_star:
        return _select_outputs(select, scope, relations)  # ORDER BY reads the select list
    out: list[tuple[str, ...]] = []
    for name, (_, source) in scope.selected_sources.items():
        if isinstance(source, exp.Table):
            relation = relations.get(source.name)
            if relation is not None:
                out.extend((*relation.qualifier, c) for c in relation.columns)
        elif isinstance(getattr(source, "expression", None), exp.Query):
            out.extend((name, c) for c in _output_names(source, relations))
    return out


def _select_outputs(
    select: exp.Select, scope: Scope, relations: Mapping[str, Relation]
) -> list[tuple[str, ...]]:
    """The select list as Spark's ``Project`` outputs it: a plain column keeps its relation's
    qualifier, anything named by an alias has none."""
    qualifiers = {}
    for alias, (_, source) in scope.selected_sources.items():
        relation = relations.get(source.name) if isinstance(source, exp.Table) else None
        qualifiers[alias.lower()] = (relation.qualifier, relation.columns) if relation else None
    out: list[tuple[str, ...]] = []
    for item in select.expressions:
        if isinstance(item, exp.Column):
            owner = item.table.lower() or next(
                (a for a, q in qualifiers.items() if q and item.name in q[1]), ""
            )
            found = qualifiers.get(owner)
            out.append((*found[0], item.name) if found else (item.name,))
        elif item.alias_or_name:
            out.append((item.alias_or_name,))
    return out


def _output_names(scope: Scope, relations: Mapping[str, Relation]) -> list[str]:
    """The columns a derived table gives, a star's as the tables it reads (a rewrite's own
    columns, ``__icesql_...``, are none of the user's)."""
    query = scope.expression
    try:
        selects = query.named_selects if isinstance(query, exp.Query) else []
    except Exception:  # a set operation sqlglot cannot name
        return []
    out: list[str] = []
    for name in selects:
        if name == "*":
            for _, inner in scope.selected_sources.values():
                relation = relations.get(inner.name) if isinstance(inner, exp.Table) else None
                out.extend(relation.columns if relation is not None else ())
        elif name and not name.startswith("__icesql"):
            out.append(name)
    return out


def _scope_of(statement: exp.Expr, node: exp.Column) -> Scope | None:
    from sqlglot.optimizer.scope import traverse_scope  # the optimizer loads on a failure only

    try:
        scopes = traverse_scope(statement)
    except Exception:  # sqlglot cannot scope it: every relation is a candidate
        return None
    for scope in scopes:
        if any(column is node for column in scope.columns):
            return scope
    return None
