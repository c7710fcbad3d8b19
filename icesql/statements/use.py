"""``USE``: set the current catalog and namespace, as Spark's ``SetCatalogAndNamespace``.

``USE prod`` makes catalog ``prod`` current (its namespace ``default``), ``USE prod.db`` also
namespace ``db``; a name whose first part is no catalog is a namespace of the current
catalog (``USE db``). ``USE NAMESPACE|DATABASE|SCHEMA x`` always names a namespace, ``USE
CATALOG x`` always a catalog. A namespace must exist, as in Spark; nothing else changes until
the statement succeeds.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from icesql.errors import NoSuchNamespaceError, ProgrammingError
from icesql.session import Result, Session
from icesql.session.result import done
from icesql.sql.identifiers import catalog_named, name_parts

__all__ = ["DEFAULT_NAMESPACE", "use"]

DEFAULT_NAMESPACE = ("default",)  # the namespace of a catalog just made current
_NAMESPACE_KINDS = ("NAMESPACE", "DATABASE", "SCHEMA")


def use(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    assert isinstance(statement, exp.Use)
    kind = statement.text("kind").upper()
    node = statement.this
    if node is None:
        raise ProgrammingError("USE needs a catalog or namespace name")
    parts = name_parts(node)
    catalog, namespace = session.catalog, parts
    if kind == "CATALOG" or kind not in _NAMESPACE_KINDS:
        named = catalog_named(parts[0], session.catalogs)
        if named is not None:
            catalog, namespace = named, parts[1:]
        elif kind == "CATALOG":
            known = ", ".join(sorted(session.catalogs))
            raise ProgrammingError(
                f"[CATALOG_NOT_FOUND] catalog {parts[0]!r} not found (known: {known})"
            )
    if namespace and not catalog.namespace_exists(namespace):
        raise NoSuchNamespaceError(
            f"[SCHEMA_NOT_FOUND] namespace not found in catalog {catalog.name!r}: {'.'.join(namespace)}"
        )
    session.catalog = catalog
    session.default_namespace = tuple(namespace) or DEFAULT_NAMESPACE
    return done()
