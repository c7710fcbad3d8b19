"""DuckDB locked to the catalogs' own directories.

A statement is Spark SQL and reaches no DuckDB table function (``icesql.sql.table_functions``
refuses them); this is the second wall behind that one. DuckDB's external access is turned
off once the connection is set up, with the local warehouses of the session's catalogs as
its only ``allowed_directories``: ``read_csv('/etc/passwd')``, ``COPY``, ``ATTACH``,
``INSTALL``/``LOAD`` and every other file or network access fail inside DuckDB even if a
statement got through. DuckDB cannot widen the list later (nor turn access back on), so
data files elsewhere (a table ``LOCATION`` outside the warehouse, S3) are not read by
DuckDB's ``read_parquet`` but streamed to it as Arrow by icesql's own reader, which only
opens the files the table's metadata lists. Spilling to DuckDB's temporary directory is
DuckDB's own and still works.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import duckdb

from icesql.io import local_path

__all__ = ["local_roots", "lock", "under_roots"]


def local_roots(catalogs: Iterable[Any]) -> tuple[str, ...]:
    """The local warehouse directories of ``catalogs`` (absolute, ending in a separator);
    catalogs without one, or on an object store, add nothing."""
    roots = []
    for catalog in catalogs:
        warehouse = getattr(catalog, "warehouse", None)
        local = local_path(str(warehouse)) if warehouse else None
        if local is not None:
            roots.append(os.path.join(os.path.abspath(local), ""))
    return tuple(dict.fromkeys(roots))


def under_roots(path: str, roots: tuple[str, ...]) -> bool:
    """Whether DuckDB may open local ``path``: it lies in one of ``roots`` once ``..`` and
    ``.`` are resolved, as DuckDB resolves them."""
    full = path if _normalized(path) else os.path.abspath(path)  # asked once per data file
    return any(full.startswith(root) for root in roots)


def _normalized(path: str) -> bool:
    """Whether ``os.path.abspath`` returns ``path`` as it is: absolute, without ``.``,
    ``..``, ``//`` or a trailing separator (what table metadata lists)."""
    return (
        os.sep == "/"
        and path[:1] == "/"
        and "//" not in path
        and "/." not in path
        and path[-1:] != "/"
    )


def lock(con: duckdb.DuckDBPyConnection, roots: tuple[str, ...]) -> None:
    """Turn DuckDB's file and network access off beyond ``roots``, and its automatic
    extension downloads (a table function of an extension would fetch it from the network)."""
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    if roots:
        con.execute("SET allowed_directories = $1", [list(roots)])
    con.execute("SET enable_external_access = false")
