"""Names in DDL and DML statements: which catalog, and which table or namespace in it.

Spark users write ``db.t``, ``t`` (in the current namespace) or ``prod.db.t`` (with the
catalog's name). As Spark's ``CatalogAndIdentifier`` does, a leading part that names one of
the connection's catalogs selects that catalog; any other name is resolved in the current
catalog. A catalog prefix needs a namespace after it (``prod.t`` is table ``t`` of namespace
``prod``), so single-catalog connections read every name as before. Unlike a query's table
references, these names carry no branch, metadata-table or time travel suffix::

    >>> catalogs = {"local": "L", "prod": "P"}
    >>> catalog_and_table(("prod", "db", "t"), catalogs, "L", ("default",))
    ('P', ('db', 't'))
    >>> catalog_and_table(("t",), catalogs, "L", ("default",))
    ('L', ('default', 't'))
    >>> catalog_and_namespace(("prod", "db"), catalogs, "L")
    ('P', ('db',))

The functions are generic in what a catalog is: this layer knows names, not catalogs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from sqlglot import exp

from icesql.errors import ProgrammingError

__all__ = ["catalog_and_namespace", "catalog_and_table", "catalog_named", "name_parts"]

C = TypeVar("C")


def name_parts(node: exp.Expr) -> tuple[str, ...]:
    """The dotted parts of a table or namespace name node."""
    if isinstance(node, exp.Schema):
        node = node.this
    if isinstance(node, exp.Table):
        parts = tuple(p.name for p in node.parts)
    elif isinstance(node, exp.Dot | exp.Column):
        parts = tuple(p.name for p in node.parts)
    elif isinstance(node, exp.Identifier | exp.Var | exp.Literal):
        parts = (node.name,)
    else:
        raise ProgrammingError(f"expected a name, got {node.sql(dialect='spark')}")
    if not parts or any(not p for p in parts):
        raise ProgrammingError(f"invalid name: {node.sql(dialect='spark')}")
    return parts


def catalog_named(name: str, catalogs: Mapping[str, C]) -> C | None:
    """The catalog called ``name`` (case-insensitive, as Spark's catalog names), or None."""
    found = catalogs.get(name)
    if found is not None:
        return found
    lowered = name.lower()
    return next((c for n, c in catalogs.items() if n.lower() == lowered), None)


def catalog_and_table(
    parts: Sequence[str],
    catalogs: Mapping[str, C],
    current: C,
    default_namespace: Sequence[str],
) -> tuple[C, tuple[str, ...]]:
    """The catalog and ``namespace..., table`` a written table name means."""
    catalog, rest = _split(tuple(parts), catalogs, current, min_parts=3)
    if len(rest) == 1:
        return catalog, (*default_namespace, rest[0])
    return catalog, rest


def catalog_and_namespace(
    parts: Sequence[str], catalogs: Mapping[str, C], current: C
) -> tuple[C, tuple[str, ...]]:
    """The catalog and namespace a written namespace name means (``prod.db``: ``db`` of
    catalog ``prod``)."""
    return _split(tuple(parts), catalogs, current, min_parts=2)


def _split(
    parts: tuple[str, ...], catalogs: Mapping[str, C], current: C, min_parts: int
) -> tuple[C, tuple[str, ...]]:
    if len(parts) >= min_parts:
        named = catalog_named(parts[0], catalogs)
        if named is not None:
            return named, parts[1:]
    return current, parts
