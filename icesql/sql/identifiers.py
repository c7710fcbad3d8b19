"""Names in DDL and DML statements: which table or namespace a statement means.

Spark users write ``db.t``, ``t`` (in the current namespace) or ``local.db.t`` (with the
catalog name); a leading catalog name is dropped when it names the connection's catalog.
Unlike a query's table references, these names carry no branch, metadata-table or time
travel suffix::

    >>> table_identifier(("local", "db", "t"), "local", ("default",))
    ('db', 't')
    >>> table_identifier(("t",), "local", ("default",))
    ('default', 't')
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from icesql.errors import ProgrammingError

__all__ = ["name_parts", "namespace_identifier", "table_identifier"]


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


def table_identifier(
    parts: Sequence[str], catalog_name: str, default_namespace: Sequence[str]
) -> tuple[str, ...]:
    """``namespace..., table`` for a written table name."""
    parts = tuple(parts)
    if len(parts) >= 3 and parts[0].lower() == catalog_name.lower():
        parts = parts[1:]
    if len(parts) == 1:
        return (*default_namespace, parts[0])
    return parts


def namespace_identifier(parts: Sequence[str], catalog_name: str) -> tuple[str, ...]:
    """The namespace a written name means (``local.db`` is namespace ``db``)."""
    parts = tuple(parts)
    if len(parts) >= 2 and parts[0].lower() == catalog_name.lower():
        parts = parts[1:]
    return parts
