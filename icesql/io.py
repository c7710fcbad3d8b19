"""File access through fsspec, so local paths, ``file://`` and ``memory://`` (and later
object stores) behave alike for every reader and writer in icesql."""

from __future__ import annotations

import os
from typing import IO

import fsspec
from fsspec.core import url_to_fs
from fsspec.implementations.local import LocalFileSystem

from icesql.errors import AlreadyExistsError, OperationalError


def _strip_file_scheme(path: str) -> str:
    if path.startswith("file://"):
        return path[len("file://"):] or "/"
    if path.startswith("file:"):
        return path[len("file:"):]
    return path


class FileIO:
    """A tiny facade over fsspec file systems, cached per protocol."""

    def __init__(self, storage_options: dict | None = None):
        self._options = storage_options or {}
        self._fs: dict[str, fsspec.AbstractFileSystem] = {}

    def fs(self, path: str) -> tuple[fsspec.AbstractFileSystem, str]:
        """The file system for ``path`` and the path as that file system names it."""
        path = _strip_file_scheme(path)
        protocol = path.split("://", 1)[0] if "://" in path else "file"
        fs = self._fs.get(protocol)
        if fs is None:
            fs, _ = url_to_fs(path, **self._options)
            self._fs[protocol] = fs
        return fs, fs._strip_protocol(path) if protocol != "file" else path

    def open(self, path: str, mode: str = "rb") -> IO[bytes]:
        fs, p = self.fs(path)
        try:
            if mode == "rb" and isinstance(fs, LocalFileSystem):
                return open(p, "rb")  # noqa: SIM115 - the caller closes it; fsspec's costs 20 us
            return fs.open(p, mode)
        except FileNotFoundError as e:
            raise OperationalError(f"file not found: {path}") from e

    def read_bytes(self, path: str) -> bytes:
        fs, p = self.fs(path)
        try:
            return fs.cat_file(p)
        except FileNotFoundError as e:
            raise OperationalError(f"file not found: {path}") from e

    def write_bytes(self, path: str, data: bytes) -> None:
        fs, p = self.fs(path)
        parent = p.rsplit("/", 1)[0]
        if parent:
            fs.makedirs(parent, exist_ok=True)
        with fs.open(p, "wb") as f:
            f.write(data)

    def create_exclusive(self, path: str, data: bytes) -> None:
        """Write ``path`` only if it does not exist yet: the atomic step of a commit.

        Local files use O_CREAT|O_EXCL, which never replaces an existing file. Other file
        systems get a check-then-write, which is only as safe as the store allows.
        """
        fs, p = self.fs(path)
        parent = p.rsplit("/", 1)[0]
        if parent:
            fs.makedirs(parent, exist_ok=True)
        if isinstance(fs, LocalFileSystem):
            try:
                fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError as e:
                raise AlreadyExistsError(f"file exists already: {path}") from e
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            return
        if fs.exists(p):
            raise AlreadyExistsError(f"file exists already: {path}")
        with fs.open(p, "wb") as f:
            f.write(data)

    def exists(self, path: str) -> bool:
        fs, p = self.fs(path)
        return fs.exists(p)

    def isdir(self, path: str) -> bool:
        fs, p = self.fs(path)
        return fs.isdir(p)

    def listdir(self, path: str) -> list[str]:
        """Names (not paths) of the entries directly below ``path``; empty if it is missing."""
        fs, p = self.fs(path)
        try:
            entries = fs.ls(p, detail=False)
        except FileNotFoundError:
            return []
        return sorted(e.rstrip("/").rsplit("/", 1)[-1] for e in entries)

    def size(self, path: str) -> int:
        fs, p = self.fs(path)
        return fs.size(p)

    def delete(self, path: str, recursive: bool = False) -> None:
        fs, p = self.fs(path)
        try:
            fs.rm(p, recursive=recursive)
        except FileNotFoundError:
            pass

    def makedirs(self, path: str) -> None:
        fs, p = self.fs(path)
        fs.makedirs(p, exist_ok=True)
