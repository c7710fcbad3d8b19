"""File access through fsspec, so local paths, ``file://``, ``memory://`` and object stores
(``s3://``, ``gs://``, ``abfs://``, configured by Iceberg's property names, see
``icesql.storage_properties``) behave alike for every reader and writer in icesql.

Local files are read, listed, written and deleted through ``os`` directly: fsspec's import
(asyncio, ssl) would be a large part of a local table's first query and of a process's
first write, which need none of it."""

from __future__ import annotations

import functools
import inspect
import os
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, TypeVar

from icesql.errors import AlreadyExistsError, NotSupportedError, OperationalError
from icesql.storage_properties import (
    OBJECT_STORE_PROTOCOLS,
    S3_PROTOCOLS,
    fsspec_options,
    protocol_of,
)

if TYPE_CHECKING:
    import fsspec

_M = TypeVar("_M", bound=Any)


def _strip_file_scheme(path: str) -> str:
    if path.startswith("file://"):
        return path[len("file://") :] or "/"
    if path.startswith("file:"):
        return path[len("file:") :]
    if path.startswith("s3n://"):  # Hadoop's old scheme: the same objects as s3://
        return "s3://" + path[len("s3n://") :]
    return path


_UNREACHABLE_NAMES = (
    "EndpointConnectionError",
    "ConnectTimeoutError",
    "ConnectionClosedError",
    "ReadTimeoutError",
    "ClientConnectorError",
    "ServerTimeoutError",
)


def unreachable(error: BaseException) -> bool:
    """Whether ``error`` says the store could not be reached (a refused or timed-out
    connection), as botocore / aiohttp / the OS raise it: a clear OperationalError then."""
    if isinstance(error, (ConnectionError, TimeoutError)):
        return True
    return any(cls.__name__ in _UNREACHABLE_NAMES for cls in type(error).__mro__)


_VERBS = {
    "open": "read",
    "read_bytes": "read",
    "write_bytes": "write",
    "create_exclusive": "write",
    "listdir": "list",
    "delete": "delete",
    "makedirs": "create",
    "create": "write",
}


def _reaching_store(method: _M) -> _M:
    """``method(self, path, ...)`` with an unreachable store reported by ``FileIO.reaching``."""
    verb = _VERBS.get(method.__name__, "inspect")

    @functools.wraps(method)
    def wrapper(self: FileIO, path: str, *args: object, **kwargs: object) -> object:
        with self.reaching(path, verb):
            return method(self, path, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


class FileIO:
    """A tiny facade over fsspec file systems, cached per protocol.

    ``properties`` are Iceberg storage properties (``s3.endpoint``, ...); ``storage_options``
    are fsspec arguments given as they are, and win over what the properties say.
    """

    def __init__(
        self, storage_options: dict | None = None, properties: Mapping[str, str] | None = None
    ):
        self._options = storage_options or {}
        self.properties = dict(properties or {})
        self._fs: dict[str, fsspec.AbstractFileSystem] = {}

    @contextmanager
    def reaching(self, path: str, verb: str = "use") -> Iterator[None]:
        """Raise an unreachable store as an OperationalError naming the endpoint, the bucket
        and the path (botocore's EndpointConnectionError names only a request URL)."""
        try:
            yield
        except Exception as e:
            if not unreachable(e):
                raise
            protocol = protocol_of(_strip_file_scheme(path))
            where = f"{protocol}://"
            if protocol in S3_PROTOCOLS:
                endpoint = self.properties.get("s3.endpoint") or "the default AWS endpoint"
                bucket = _strip_file_scheme(path).split("://", 1)[-1].split("/", 1)[0]
                where = f"S3 endpoint {endpoint} (bucket {bucket!r})"
            raise OperationalError(f"cannot {verb} {path}: cannot reach {where}: {e}") from e

    def fs(self, path: str) -> tuple[fsspec.AbstractFileSystem, str]:
        """The file system for ``path`` and the path as that file system names it."""
        path = _strip_file_scheme(path)
        protocol = protocol_of(path)
        fs = self._fs.get(protocol)
        if fs is None:
            from fsspec.core import url_to_fs  # fsspec and asyncio load on the first file used

            options = {**fsspec_options(protocol, self.properties), **self._options}
            try:
                fs, _ = url_to_fs(path, **options)
            except ImportError as e:
                raise NotSupportedError(
                    f"cannot open {path}: {protocol}:// needs an fsspec implementation ({e})"
                ) from e
            self._fs[protocol] = fs
        return fs, fs._strip_protocol(path) if protocol != "file" else path

    def local(self, path: str) -> str | None:
        """``path`` as a local file name when it is on the local disk, else None (fsspec
        is asked only about a protocol other than ``file``)."""
        local = local_path(path)
        if local is not None or protocol_of(path) in OBJECT_STORE_PROTOCOLS:
            return local
        fs, p = self.fs(path)
        return p if is_local_fs(fs) else None

    @_reaching_store
    def create(self, path: str) -> IO[bytes]:
        """A new file at ``path`` open for writing (replacing one there), its folder made."""
        local = local_path(path)
        if local is not None:
            _local_parent(local)
            drop_checksum_sidecar(local)
            return open(local, "wb")
        fs, p = self.fs(path)
        parent = p.rsplit("/", 1)[0]
        if parent:
            fs.makedirs(parent, exist_ok=True)
        return fs.open(p, "wb")

    @_reaching_store
    def open(self, path: str, mode: str = "rb") -> IO[bytes]:
        local = local_path(path) if mode == "rb" else None
        fs, p = (None, local) if local is not None else self.fs(path)
        try:
            if fs is None:
                return open(p, "rb")
            return fs.open(p, mode)
        except FileNotFoundError as e:
            raise OperationalError(f"file not found: {path}") from e

    @_reaching_store
    def read_bytes(self, path: str) -> bytes:
        local = local_path(path)
        fs, p = (None, local) if local is not None else self.fs(path)
        try:
            if fs is None:
                with open(p, "rb") as f:
                    return f.read()
            return fs.cat_file(p)
        except FileNotFoundError as e:
            raise OperationalError(f"file not found: {path}") from e
        except Exception as e:
            if unreachable(e):
                raise  # reported with the endpoint by ``reaching``
            raise OperationalError(f"cannot read {path}: {e}") from e

    def write_bytes(self, path: str, data: bytes) -> None:
        with self.create(path) as f:
            f.write(data)

    @_reaching_store
    def create_exclusive(self, path: str, data: bytes) -> None:
        """Write ``path`` only if it does not exist yet: the atomic step of a commit.

        Local files use O_CREAT|O_EXCL, which never replaces an existing file; S3 a
        conditional PUT (``If-None-Match: *``, s3fs's ``mode="create"``); ``memory://``,
        which lives in one process, a check-then-write. Other stores have no such write
        through fsspec and refuse.
        """
        local = self.local(path)
        if local is not None:
            _local_parent(local)
            try:
                write_new_local_file(local, data)
            except FileExistsError as e:
                raise AlreadyExistsError(f"file exists already: {path}") from e
            return
        fs, p = self.fs(path)
        if protocol_of(path) in S3_PROTOCOLS:
            _put_if_absent(fs, p, path, data)
            return
        if fs.protocol not in ("memory", ("memory",)):
            raise NotSupportedError(
                f"cannot create {path} atomically: {protocol_of(path)}:// offers no"
                " create-if-absent through fsspec; commit through a SQL or REST catalog instead"
            )
        if fs.exists(p):  # one process owns a memory:// file system
            raise AlreadyExistsError(f"file exists already: {path}")
        with fs.open(p, "wb") as f:
            f.write(data)

    @_reaching_store
    def exists(self, path: str) -> bool:
        local = local_path(path)
        if local is not None:
            return os.path.exists(local)
        fs, p = self.fs(path)
        return fs.exists(p)

    @_reaching_store
    def isdir(self, path: str) -> bool:
        """A folder; in an object store also an empty one that only its ``<path>/`` marker
        object makes (s3fs before 2025 lists the marker as nothing)."""
        local = local_path(path)
        if local is not None:
            return os.path.isdir(local)
        fs, p = self.fs(path)
        if fs.isdir(p):
            return True
        if protocol_of(path) not in OBJECT_STORE_PROTOCOLS:
            return False
        try:
            return bool(fs.exists(p.rstrip("/") + "/"))
        except OSError:
            return False

    @_reaching_store
    def listdir(self, path: str) -> list[str]:
        """Names (not paths) of the entries directly below ``path``; empty if it is missing."""
        local = local_path(path)
        if local is not None:
            return _local_names(local)
        fs, p = self.fs(path)
        try:
            entries = fs.ls(p, detail=False)
        except FileNotFoundError:
            return []
        here = p.rstrip("/")
        # an object store lists a folder's own marker object (``<path>/``) as an entry
        return sorted(e.rstrip("/").rsplit("/", 1)[-1] for e in entries if e.rstrip("/") != here)

    @_reaching_store
    def size(self, path: str) -> int:
        local = local_path(path)
        if local is not None:
            return os.path.getsize(local)
        fs, p = self.fs(path)
        return fs.size(p)

    @_reaching_store
    def delete(self, path: str, recursive: bool = False) -> None:
        local = local_path(path)
        if local is not None:
            try:
                if recursive and os.path.isdir(local):
                    shutil.rmtree(local)
                else:
                    os.remove(local)
                    drop_checksum_sidecar(local)
            except FileNotFoundError:
                pass
            return
        fs, p = self.fs(path)
        try:
            fs.rm(p, recursive=recursive)
        except FileNotFoundError:
            pass

    @_reaching_store
    def makedirs(self, path: str) -> None:
        """Make a folder; in an object store, the empty ``<path>/`` marker object that Hadoop's
        S3A writes, so an empty namespace still exists."""
        local = local_path(path)
        if local is not None:
            os.makedirs(local, exist_ok=True)
            return
        fs, p = self.fs(path)
        if protocol_of(path) in OBJECT_STORE_PROTOCOLS:
            if not fs.isdir(p):
                fs.pipe_file(p.rstrip("/") + "/", b"")
                fs.invalidate_cache(p)
            return
        fs.makedirs(p, exist_ok=True)


def _put_if_absent(fs: fsspec.AbstractFileSystem, p: str, path: str, data: bytes) -> None:
    """S3's conditional PUT: ``If-None-Match: *`` fails with 412 when the key exists."""
    if "mode" not in inspect.signature(fs.pipe_file).parameters:
        raise NotSupportedError(
            f"cannot create {path} atomically: this s3fs has no conditional writes"
            " (pip install 's3fs>=2024.12.0')"
        )
    try:
        fs.pipe_file(p, data, mode="create")
    except FileExistsError as e:
        raise AlreadyExistsError(f"file exists already: {path}") from e


def write_new_local_file(path: str, data: bytes) -> None:
    """Create the local file ``path`` (FileExistsError if it exists), write all of ``data``
    and fsync it: the durable write of a commit's files."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _local_parent(path: str) -> None:
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)


def _local_names(folder: str) -> list[str]:
    """``listdir`` on a local disk as fsspec's local file system answers it: a file lists
    itself, a missing path nothing."""
    try:
        return sorted(os.listdir(folder))
    except NotADirectoryError:
        return [os.path.basename(folder.rstrip("/"))]
    except FileNotFoundError:
        return []


def local_path(path: str) -> str | None:
    """``path`` as a local file name, or None on another file system (without loading
    fsspec: a connection need not open a file to know its local warehouses)."""
    path = _strip_file_scheme(path)
    return path if protocol_of(path) == "file" else None


def checksum_sidecar(local: str) -> str:
    """The ``.<name>.crc`` file Hadoop's local file system (Spark's, for a local warehouse)
    keeps beside every file it writes, and checks on every read of that file.

    >>> checksum_sidecar("/wh/db/t/metadata/version-hint.text")
    '/wh/db/t/metadata/.version-hint.text.crc'
    """
    folder, name = os.path.split(local)
    return os.path.join(folder, f".{name}.crc")


def drop_checksum_sidecar(local: str) -> None:
    """Remove the sidecar of a file being replaced or deleted, as Hadoop's delete does: a
    stale one makes every later Spark read of the file log a ``ChecksumException``, and
    Hadoop reads a file without a sidecar unchecked."""
    try:
        os.remove(checksum_sidecar(local))
    except FileNotFoundError:
        pass


def is_local_fs(fs: object) -> bool:
    """Whether ``fs`` is fsspec's local file system (imported here, not at module load:
    whoever holds a file system has loaded fsspec already)."""
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def is_missing_file(error: BaseException) -> bool:
    """Whether ``error`` is :meth:`FileIO.open` / :meth:`FileIO.read_bytes` finding no file
    (a store's other failures, unreachable or denied, are not): the one failure a cleaner
    may take as "another cleaner got there first"."""
    return isinstance(error, OperationalError) and isinstance(error.__cause__, FileNotFoundError)
