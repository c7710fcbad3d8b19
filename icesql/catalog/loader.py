"""A catalog from the properties a Spark or PyIceberg user already has.

The keys are Iceberg's catalog properties, as ``spark.sql.catalog.<name>.<key>`` and
PyIceberg's ``.pyiceberg.yaml`` spell them: ``type`` (``hadoop``, ``jdbc``/``sql``, ``rest``,
``glue``, ``hive``) or Java's ``catalog-impl`` class, ``uri``, ``warehouse``; the rest are
passed to the catalog. Without a type, a ``uri`` says which catalog is meant (``http(s)://``
a REST catalog, ``thrift://`` Hive, anything else a SQL database) and no ``uri`` means the
file-system catalog on ``warehouse``, as in PyIceberg.
"""

from __future__ import annotations

from collections.abc import Mapping

from icesql.catalog.base import Catalog
from icesql.catalog.filesystem import FileSystemCatalog
from icesql.errors import NotSupportedError, ProgrammingError
from icesql.io import FileIO

__all__ = ["CATALOG_TYPES", "catalog_type", "load_catalog"]

CATALOG_TYPES = {
    "hadoop": "hadoop", "filesystem": "hadoop", "file": "hadoop",
    "jdbc": "sql", "sql": "sql",
    "rest": "rest", "glue": "glue", "hive": "hive",
}
_IMPLEMENTATIONS = {  # Java's catalog-impl classes
    "org.apache.iceberg.hadoop.HadoopCatalog": "hadoop",
    "org.apache.iceberg.jdbc.JdbcCatalog": "sql",
    "org.apache.iceberg.rest.RESTCatalog": "rest",
    "org.apache.iceberg.aws.glue.GlueCatalog": "glue",
    "org.apache.iceberg.hive.HiveCatalog": "hive",
}


def catalog_type(name: str, properties: Mapping[str, str]) -> str:
    """The catalog kind (``hadoop``, ``sql``, ``rest``, ``glue``, ``hive``) the properties mean."""
    given = properties.get("type")
    if given:
        kind = CATALOG_TYPES.get(str(given).lower())
        if kind is None:
            known = ", ".join(sorted(set(CATALOG_TYPES)))
            raise ProgrammingError(f"catalog {name!r}: unknown catalog type {given!r} (known: {known})")
        return kind
    impl = properties.get("catalog-impl") or properties.get("py-catalog-impl")
    if impl:
        kind = _IMPLEMENTATIONS.get(str(impl))
        if kind is None:
            raise NotSupportedError(f"catalog {name!r}: catalog-impl {impl!r} is not supported")
        return kind
    uri = str(properties.get("uri") or "")
    if not uri:
        return "hadoop"
    if uri.startswith(("http://", "https://")):
        return "rest"
    if uri.startswith("thrift://"):
        return "hive"
    return "sql"


def load_catalog(
    name: str, properties: Mapping[str, str], storage_options: dict | None = None
) -> Catalog:
    """The catalog ``name`` that ``properties`` describe."""
    props = {k: str(v) for k, v in properties.items() if v is not None}
    kind = catalog_type(name, props)
    io = FileIO(storage_options, props)
    warehouse = props.get("warehouse")
    if kind == "hadoop":
        if not warehouse:
            raise ProgrammingError(f"catalog {name!r}: the file-system catalog needs a warehouse path")
        return FileSystemCatalog(warehouse, io, name=name)
    if kind == "sql":
        uri = props.get("uri")
        if not uri:
            raise ProgrammingError(
                f"catalog {name!r}: the SQL catalog needs a uri (e.g. sqlite:///catalog.db)"
            )
        from icesql.catalog.sql import SqlCatalog

        return SqlCatalog(name, uri, warehouse, io, props)
    if kind == "glue":
        from icesql.catalog.glue import GlueCatalog

        return GlueCatalog(name, warehouse, io, props)
    raise NotSupportedError(f"catalog {name!r}: catalog type {kind!r} is not supported yet")
