"""The catalog and identifier a statement's written name means, in the session's catalogs.

Every handler resolves names here, so a catalog-qualified name (``prod.db.t``) reaches the
right catalog for every statement kind; the rule itself is ``icesql.sql.identifiers``.
"""

from __future__ import annotations

from collections.abc import Sequence

from icesql.catalog.base import Catalog
from icesql.session import Session
from icesql.sql.identifiers import catalog_and_namespace, catalog_and_table

__all__ = ["namespace_name", "table_name"]


def table_name(session: Session, parts: Sequence[str]) -> tuple[Catalog, tuple[str, ...]]:
    """The catalog and ``namespace..., table`` of a table name (unqualified: the current
    catalog and namespace)."""
    return catalog_and_table(parts, session.catalogs, session.catalog, session.default_namespace)


def namespace_name(session: Session, parts: Sequence[str]) -> tuple[Catalog, tuple[str, ...]]:
    """The catalog and namespace of a namespace name."""
    return catalog_and_namespace(parts, session.catalogs, session.catalog)
