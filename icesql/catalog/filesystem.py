"""The file-system catalog, laid out exactly as Spark's ``type=hadoop`` catalog.

``<warehouse>/<ns>/<table>/metadata/v<N>.metadata.json`` plus ``version-hint.text`` holding
N, so Spark pointed at the same folder sees the same tables. The hint is only a hint: Java
Iceberg reads it and then looks for newer versions, and so do we, so a stale or missing hint
never hides a commit.
"""

from __future__ import annotations

import re

from icesql.catalog.base import Catalog, Identifier
from icesql.catalog.table import Table
from icesql.errors import NoSuchNamespaceError, NoSuchTableError, ProgrammingError
from icesql.io import FileIO
from icesql.metadata.table_metadata import parse_table_metadata

_VERSION_FILE = re.compile(r"^v(\d+)(\.gz)?\.metadata\.json$")
VERSION_HINT = "version-hint.text"


def metadata_file_name(version: int, codec: str | None = None) -> str:
    return f"v{version}.gz.metadata.json" if codec == "gzip" else f"v{version}.metadata.json"


class FileSystemCatalog(Catalog):
    """Namespaces are folders; a folder with a ``metadata/`` of version files is a table."""

    def __init__(self, warehouse: str, io: FileIO | None = None, name: str = "local"):
        self.warehouse = warehouse.rstrip("/") or "/"
        self.io = io or FileIO()
        self.name = name

    # -- paths -------------------------------------------------------------------------
    def _path(self, identifier: Identifier) -> str:
        for part in identifier:
            if not part or "/" in part or part in (".", ".."):
                raise ProgrammingError(f"invalid name part {part!r} in {'.'.join(identifier)}")
        return "/".join((self.warehouse, *identifier))

    def table_location(self, identifier: Identifier) -> str:
        return self._path(identifier)

    def metadata_dir(self, identifier: Identifier) -> str:
        return self._path(identifier) + "/metadata"

    # -- versions ----------------------------------------------------------------------
    def _versions(self, identifier: Identifier) -> dict[int, str]:
        versions: dict[int, str] = {}
        for name in self.io.listdir(self.metadata_dir(identifier)):
            m = _VERSION_FILE.match(name)
            if m:
                versions[int(m.group(1))] = name
        return versions

    def current_version(self, identifier: Identifier) -> tuple[int, str] | None:
        """The newest metadata version and its file path, or None if there is no table."""
        mdir = self.metadata_dir(identifier)
        hint: int | None = None
        try:
            hint = int(self.io.read_bytes(f"{mdir}/{VERSION_HINT}").decode().strip())
        except Exception:  # missing or garbled hint: fall back to listing
            hint = None
        if hint is not None:
            version = hint
            path = self._existing_version_path(mdir, version)
            if path is not None:
                # a newer commit may have landed after the hint was written
                while (nxt := self._existing_version_path(mdir, version + 1)) is not None:
                    version, path = version + 1, nxt
                return version, path
        versions = self._versions(identifier)
        if not versions:
            return None
        version = max(versions)
        return version, f"{mdir}/{versions[version]}"

    def _existing_version_path(self, mdir: str, version: int) -> str | None:
        for codec in (None, "gzip"):
            path = f"{mdir}/{metadata_file_name(version, codec)}"
            if self.io.exists(path):
                return path
        return None

    # -- namespaces and tables ---------------------------------------------------------
    def _is_table_dir(self, path: str) -> bool:
        return any(_VERSION_FILE.match(n) for n in self.io.listdir(path + "/metadata"))

    def list_namespaces(self, parent: Identifier = ()) -> list[Identifier]:
        base = self._path(parent) if parent else self.warehouse
        if parent and not self.namespace_exists(parent):
            raise NoSuchNamespaceError(f"namespace not found: {'.'.join(parent)}")
        out = []
        for name in self.io.listdir(base):
            path = f"{base}/{name}"
            if name.startswith(".") or not self.io.isdir(path) or self._is_table_dir(path):
                continue
            out.append((*parent, name))
        return out

    def namespace_exists(self, namespace: Identifier) -> bool:
        if not namespace:
            return True
        path = self._path(namespace)
        return self.io.isdir(path) and not self._is_table_dir(path)

    def list_tables(self, namespace: Identifier) -> list[Identifier]:
        if not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {'.'.join(namespace)}")
        base = self._path(namespace)
        return [
            (*namespace, name)
            for name in self.io.listdir(base)
            if self.io.isdir(f"{base}/{name}") and self._is_table_dir(f"{base}/{name}")
        ]

    def table_exists(self, identifier: Identifier) -> bool:
        return len(identifier) >= 2 and self.current_version(identifier) is not None

    def load_table(self, identifier: Identifier) -> Table:
        if len(identifier) < 2:
            raise NoSuchTableError(
                f"table not found: {'.'.join(identifier)} (tables are named namespace.table)"
            )
        current = self.current_version(identifier)
        if current is None:
            raise NoSuchTableError(f"table not found: {'.'.join(identifier)}")
        _, path = current
        metadata = parse_table_metadata(self.io.read_bytes(path), path=path)
        return Table(identifier, metadata, path, self.io)
