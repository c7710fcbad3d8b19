"""The file-system catalog, laid out exactly as Spark's ``type=hadoop`` catalog.

``<warehouse>/<ns>/<table>/metadata/v<N>.metadata.json`` plus ``version-hint.text`` holding
N, so Spark pointed at the same folder sees the same tables. The hint is only a hint: Java
Iceberg reads it and then looks for newer versions, and so do we, so a stale or missing hint
never hides a commit.

A commit creates ``v<N+1>.metadata.json`` only if it does not exist yet (a hard link of a
fully written temp file, see ``exclusive_files``): of two writers based on version N exactly one
wins, the other gets ``CommitFailedError`` and retries on the new version. Renaming over
the file, as the spec's scheme does on HDFS, would silently replace the winner on POSIX.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

from icesql import faults
from icesql.catalog import exclusive_files, metadata_files
from icesql.catalog.base import Catalog, CommitFailedError, CommitStateUnknownError, Identifier
from icesql.catalog.table import Table
from icesql.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
)
from icesql.io import FileIO, local_path, unreachable
from icesql.metadata.table_metadata import TableMetadata, parse_table_metadata

_VERSION_FILE = re.compile(r"^v(\d+)(\.gz)?\.metadata\.json$")
# a name part that would leave its folder: a separator, NUL, or a percent-encoded byte (a URL
# store decodes %2F to a separator and %2E%2E to ..); "." and ".." are refused by value
_PATH_LIKE = re.compile(r"[/\\\0]|%[0-9A-Fa-f]{2}")
VERSION_HINT = "version-hint.text"


def metadata_file_name(version: int, codec: str | None = None) -> str:
    return f"v{version}.gz.metadata.json" if codec == "gzip" else f"v{version}.metadata.json"


class FileSystemCatalog(Catalog):
    """Namespaces are folders; a folder with a ``metadata/`` of version files is a table."""

    custom_locations = False  # a table is its folder: its name is where it lives

    def no_views(self) -> NotSupportedError:
        return NotSupportedError(
            f"catalog {self.name!r} is a file-system (hadoop) catalog, and Iceberg's hadoop"
            " catalog keeps no views; create views in a SQL/JDBC or REST catalog"
        )

    def __init__(self, warehouse: str, io: FileIO | None = None, name: str = "local"):
        self.warehouse = warehouse.rstrip("/") or "/"
        self.io = io or FileIO()
        self.name = name

    # -- paths -------------------------------------------------------------------------
    def _path(self, identifier: Identifier) -> str:
        """The folder of a namespace or table. Its name cannot leave the warehouse: no part
        is empty, ``.``, ``..`` or path-like (``_PATH_LIKE``), and on a local disk no part is
        a symbolic link that leads out of it."""
        for part in identifier:
            if not part or part in (".", "..") or _PATH_LIKE.search(part):
                raise ProgrammingError(f"invalid name part {part!r} in {'.'.join(identifier)}")
        path = "/".join((self.warehouse, *identifier))
        local, root = local_path(path), local_path(self.warehouse)
        if local is not None and root is not None:
            _check_inside(local, root, identifier)
        return path

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

    def namespace_properties(self, namespace: Identifier) -> dict[str, str]:
        """Only its folder, as Java's ``HadoopCatalog.loadNamespaceMetadata`` says it."""
        if not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {'.'.join(namespace)}")
        return {"location": self._path(namespace)}

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
        with _naming_table(identifier):
            return len(identifier) >= 2 and self.current_version(identifier) is not None

    def load_table(self, identifier: Identifier) -> Table:
        if len(identifier) < 2:
            raise NoSuchTableError(
                f"table not found: {'.'.join(identifier)} (tables are named namespace.table)"
            )
        with _naming_table(identifier):
            current = self.current_version(identifier)
            if current is None:
                raise NoSuchTableError(f"table not found: {'.'.join(identifier)}")
            _, path = current
            metadata = parse_table_metadata(self.io.read_bytes(path), path=path)
        return Table(identifier, metadata, path, self.io)

    # -- writing -----------------------------------------------------------------------
    def default_table_location(self, identifier: Identifier) -> str:
        return self._path(identifier)

    def create_namespace(
        self, namespace: Identifier, properties: dict[str, str] | None = None
    ) -> None:
        """A namespace is a folder (parents are created too, as Hadoop's mkdirs does)."""
        name = ".".join(namespace)
        if not namespace:
            raise ProgrammingError("cannot create the root namespace")
        if properties:
            raise NotSupportedError(
                f"cannot create namespace {name} with properties: the file-system (hadoop)"
                " catalog does not store namespace metadata"
            )
        path = self._path(namespace)
        if self.io.isdir(path):
            if self._is_table_dir(path):
                raise AlreadyExistsError(
                    f"cannot create namespace {name}: a table of that name exists"
                )
            raise AlreadyExistsError(f"namespace already exists: {name}")
        self.io.makedirs(path)

    def drop_namespace(self, namespace: Identifier) -> None:
        name = ".".join(namespace)
        if not namespace or not self.namespace_exists(namespace):
            raise NoSuchNamespaceError(f"namespace not found: {name}")
        tables, children = self.list_tables(namespace), self.list_namespaces(namespace)
        if tables or children:
            inside = ", ".join(".".join(i) for i in (*tables, *children))
            raise ProgrammingError(f"cannot drop namespace {name}: it is not empty ({inside})")
        self.io.delete(self._path(namespace), recursive=True)

    def create_table(self, identifier: Identifier, metadata: TableMetadata) -> Table:
        """Write ``v1.metadata.json`` exclusively: of two concurrent creators one wins."""
        name = ".".join(identifier)
        if len(identifier) < 2:
            raise ProgrammingError(f"invalid table name {name}: tables are named namespace.table")
        if self.table_exists(identifier):
            raise AlreadyExistsError(f"table already exists: {name}")
        parent = self._path(identifier[:-1])
        if self.io.isdir(parent) and self._is_table_dir(parent):
            raise ProgrammingError(
                f"cannot create table {name}: {'.'.join(identifier[:-1])} is a table"
            )
        mdir = self.metadata_dir(identifier)
        gzip = metadata_files.compressed(metadata)
        path = f"{mdir}/{metadata_file_name(1, 'gzip' if gzip else None)}"
        if self._existing_version_path(mdir, 1) is not None:
            raise AlreadyExistsError(f"table already exists: {name}")
        try:
            exclusive_files.publish_exclusive(
                self.io, path, metadata_files.serialize(metadata, gzip)
            )
        except AlreadyExistsError:
            raise AlreadyExistsError(f"table already exists: {name}") from None
        exclusive_files.write_version_hint(self.io, mdir, 1)
        return Table(identifier, TableMetadata(metadata.raw, path), path, self.io)

    def commit_table(self, base: Table, metadata: TableMetadata) -> Table:
        """Create ``v<N+1>.metadata.json`` only if it does not exist (hard link of a fully
        written temp file: atomic, never replaces), then update ``version-hint.text``."""
        identifier, name = base.identifier, base.name
        current = self.current_version(identifier)
        if current is None:
            raise NoSuchTableError(f"table not found: {name} (dropped while committing)")
        version, current_path = current
        if current_path != base.metadata_location:
            raise CommitFailedError(
                f"cannot commit to {name}: based on {base.metadata_location}, but version"
                f" {version} is current; another commit won"
            )
        mdir = self.metadata_dir(identifier)
        gzip = metadata_files.compressed(metadata)
        path = f"{mdir}/{metadata_file_name(version + 1, 'gzip' if gzip else None)}"
        other = "gzip" if not gzip else None
        if self.io.exists(f"{mdir}/{metadata_file_name(version + 1, other)}"):
            raise CommitFailedError(
                f"cannot commit to {name}: version {version + 1} exists already"
            )
        try:
            exclusive_files.publish_exclusive(
                self.io, path, metadata_files.serialize(metadata, gzip)
            )
        except AlreadyExistsError:
            raise CommitFailedError(
                f"cannot commit to {name}: version {version + 1} was created by another commit"
            ) from None
        except OperationalError as e:
            if self.io.exists(path):
                raise CommitStateUnknownError(f"commit to {name} may have succeeded: {e}") from e
            raise
        # committed: from here on nothing may raise a retryable failure
        faults.reached("after-swap")
        exclusive_files.write_version_hint(self.io, mdir, version + 1)
        committed = Table(identifier, TableMetadata(metadata.raw, path), path, self.io)
        metadata_files.delete_dropped_metadata(
            self.io, base.metadata, committed.metadata, current_path
        )
        return committed

    def drop_table(self, identifier: Identifier, purge: bool = False) -> None:
        """Spark's hadoop catalog deletes the table folder; ``purge`` first deletes every
        file the table references (which may live elsewhere)."""
        table = self.load_table(identifier)
        if purge:
            metadata_files.delete_table_files(table)
        self.io.delete(self._path(identifier), recursive=True)

    def rename_table(self, source: Identifier, target: Identifier) -> None:
        raise NotSupportedError(
            f"cannot rename {'.'.join(source)} to {'.'.join(target)}: tables of the file-system"
            " (hadoop) catalog are named by their folder and their metadata holds absolute paths"
            " (Spark: 'Cannot rename Hadoop tables')"
        )


def _check_inside(local: str, warehouse: str, identifier: Identifier) -> None:
    # a symbolic link in the warehouse may point anywhere: follow it and refuse the outside
    root = os.path.join(os.path.realpath(warehouse), "")
    if not os.path.join(os.path.realpath(local), "").startswith(root):
        raise ProgrammingError(
            f"invalid name {'.'.join(identifier)}: its folder is a link out of the warehouse"
        )


@contextmanager
def _naming_table(identifier: Identifier) -> Iterator[None]:
    """An unreachable store, reported with the table whose metadata it holds."""
    try:
        yield
    except OperationalError as e:
        if e.__cause__ is None or not unreachable(e.__cause__):
            raise
        raise OperationalError(f"table {'.'.join(identifier)}: {e}") from e.__cause__
