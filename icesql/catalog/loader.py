"""A catalog from the properties a Spark or PyIceberg user already has.

The keys are Iceberg's catalog properties, as ``spark.sql.catalog.<name>.<key>`` and
PyIceberg's ``.pyiceberg.yaml`` spell them: ``type`` (``hadoop``, ``jdbc``/``sql``, ``rest``,
``glue``, ``hive``) or Java's ``catalog-impl`` class, ``uri``, ``warehouse``; the rest are
passed to the catalog. Without a type, a ``uri`` says which catalog is meant (``http(s)://``
a REST catalog, ``thrift://`` Hive, anything else a SQL database) and no ``uri`` means the
file-system catalog on ``warehouse``, as in PyIceberg.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from icesql.catalog.base import Catalog
from icesql.catalog.filesystem import FileSystemCatalog
from icesql.errors import NotSupportedError, OperationalError, ProgrammingError
from icesql.io import FileIO, local_path

__all__ = ["CATALOG_TYPES", "catalog_type", "load_catalog", "load_catalogs"]

CATALOG_TYPES = {
    "hadoop": "hadoop",
    "filesystem": "hadoop",
    "file": "hadoop",
    "jdbc": "sql",
    "sql": "sql",
    "rest": "rest",
    "glue": "glue",
    "hive": "hive",
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
            raise ProgrammingError(
                f"catalog {name!r}: unknown catalog type {given!r} (known: {known})"
            )
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
    name: str,
    properties: Mapping[str, str],
    storage_options: dict | None = None,
    create: bool = False,
) -> Catalog:
    """The catalog ``name`` that ``properties`` describe (``create``: see ``load_catalogs``)."""
    return load_catalogs({name: properties}, storage_options, create)[0]


def load_catalogs(
    configs: Mapping[str, Mapping[str, str]],
    storage_options: dict | None = None,
    create: bool = False,
) -> list[Catalog]:
    """Every catalog of ``configs`` (name -> properties), in order. All configurations are
    checked before the first catalog is built, so a bad one (unknown type, missing uri, a
    file-system catalog's warehouse folder missing without ``create``) leaves nothing
    written (a SQL catalog creates its tables when it is built)."""
    checked = [_checked(name, props) for name, props in configs.items()]
    ios = [FileIO(storage_options, props) for _, _, props in checked]
    to_make = [
        kind == "hadoop" and _missing_warehouse(name, props["warehouse"], io, create)
        for (name, kind, props), io in zip(checked, ios)
    ]
    built: list[Catalog] = []
    try:
        for (name, kind, props), io, make in zip(checked, ios, to_make):
            if make:
                io.makedirs(props["warehouse"])
            built.append(_build(name, kind, props, io, storage_options))
    except BaseException:
        for catalog in built:
            catalog.close()
        raise
    return built


def _checked(name: str, properties: Mapping[str, str]) -> tuple[str, str, dict[str, str]]:
    """The catalog's kind and properties, refused with the catalog's name when they cannot
    make a catalog."""
    props = {k: str(v) for k, v in properties.items() if v is not None}
    kind = catalog_type(name, props)
    if kind == "hadoop" and not props.get("warehouse"):
        raise ProgrammingError(f"catalog {name!r}: the file-system catalog needs a warehouse path")
    if kind == "sql" and not props.get("uri"):
        raise ProgrammingError(
            f"catalog {name!r}: the SQL catalog needs a uri (e.g. sqlite:///catalog.db)"
        )
    if kind == "rest" and not props.get("uri"):
        raise ProgrammingError(f"catalog {name!r}: the REST catalog needs a uri (http://...)")
    if kind not in ("hadoop", "sql", "glue", "rest"):
        raise NotSupportedError(f"catalog {name!r}: catalog type {kind!r} is not supported yet")
    if kind in ("hadoop", "sql") and props.get("warehouse"):
        props["warehouse"] = absolute_local_path(props["warehouse"])
    return name, kind, props


def absolute_local_path(location: str) -> str:
    """A local folder given relative to the working folder, made absolute (URLs and absolute
    paths unchanged): table locations are written into metadata that other processes read,
    Spark and icesql started elsewhere."""
    if "://" in location or location.startswith("file:") or os.path.isabs(location):
        return location
    return os.path.abspath(location)


def _missing_warehouse(name: str, warehouse: str, io: FileIO, create: bool) -> bool:
    """A file-system catalog is its warehouse folder, so a mistyped path would open an empty
    catalog and every table would be "not found": a missing folder is refused by name unless
    ``create`` asks for a new warehouse. In an object store a folder is an object below the
    prefix or its marker (what ``FileIO.makedirs`` writes); one that cannot be looked up (no
    permission, no connection) is taken as there. True when the folder is to be made."""
    local = local_path(warehouse)
    if local is not None:
        if os.path.isdir(local):
            return False
        if create and not os.path.exists(local):
            return True
        if os.path.exists(local):
            raise OperationalError(f"catalog {name!r}: the warehouse {local} is not a folder")
        raise OperationalError(
            f"catalog {name!r}: the warehouse folder {local} does not exist (a new warehouse"
            " is made only when asked: connect(..., create=True), icesql --create, .open"
            " --create)"
        )
    try:
        fs, path = io.fs(warehouse)
        fs.info(path)  # an object store's folder: an object below it, or its marker
        return False
    except FileNotFoundError:
        if create:
            return True
    except Exception:  # unknown is not missing: the first read says why
        return False
    raise OperationalError(
        f"catalog {name!r}: the warehouse {warehouse} holds nothing: no such bucket or folder"
        " (a new warehouse is made only when asked: connect(..., create=True))"
    )


def _build(
    name: str, kind: str, props: dict[str, str], io: FileIO, storage_options: dict | None
) -> Catalog:
    if kind == "hadoop":
        return FileSystemCatalog(props["warehouse"], io, name=name)
    if kind == "glue":
        from icesql.catalog.glue import GlueCatalog

        return GlueCatalog(name, props.get("warehouse"), io, props)
    if kind == "rest":
        from icesql.catalog.rest import RestCatalog

        return RestCatalog(name, props["uri"], props.get("warehouse"), props, storage_options)
    from icesql.catalog.sql import SqlCatalog

    return SqlCatalog(name, props["uri"], props.get("warehouse"), io, props)
