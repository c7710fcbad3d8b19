"""The atomic file operations behind the file-system catalog's commit.

``publish_exclusive`` is the atomic step. On a local file system it writes the whole
document to a private temp file and then hard-links it to the version's name: ``link(2)``
fails when the name exists, so a commit never replaces another one (unlike ``rename``,
which silently overwrites on POSIX), and readers never see a half-written version (unlike
creating the final name with ``O_EXCL`` and writing into it). Other file systems fall back
to ``FileIO.create_exclusive``.
"""

from __future__ import annotations

import os
import uuid

from icesql import faults
from icesql.errors import AlreadyExistsError, OperationalError
from icesql.io import FileIO, drop_checksum_sidecar, write_new_local_file

VERSION_HINT = "version-hint.text"


def publish_exclusive(io: FileIO, path: str, data: bytes) -> None:
    """Make ``path`` exist with ``data`` if, and only if, it did not exist; else raise
    ``AlreadyExistsError``. Nothing is left behind on failure."""
    local = io.local(path)
    if local is None:
        faults.reached("after-metadata-json")  # the write is the swap on object stores
        faults.reached("before-swap")
        io.create_exclusive(path, data)
        return
    folder = os.path.dirname(local)
    os.makedirs(folder, exist_ok=True)
    # not hidden: a temp left by a killed writer is an orphan remove_orphan_files finds
    temp = os.path.join(folder, f"{uuid.uuid4()}.metadata.json.tmp")
    try:
        write_new_local_file(temp, data)
        faults.reached("after-metadata-json")
        faults.reached("before-swap")
        try:
            os.link(temp, local)
        except FileExistsError:
            raise AlreadyExistsError(f"file exists already: {path}") from None
        except OSError as e:
            if e.errno in (1, 38, 95):  # EPERM / ENOSYS / EOPNOTSUPP: no hard links here
                io.create_exclusive(path, data)
                return
            raise
    except OSError as e:
        raise OperationalError(f"cannot write {path}: {e}") from e
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass


def write_version_hint(io: FileIO, metadata_dir: str, version: int) -> None:
    """Best effort, as in Java: the hint only speeds up finding the newest version, and
    readers also look past it. Written via a temp file so it is never seen half-written."""
    path = f"{metadata_dir}/{VERSION_HINT}"
    data = str(version).encode()
    try:
        local = io.local(path)
        if local is not None:
            temp = f"{local}.{uuid.uuid4()}.tmp"
            with open(temp, "wb") as f:
                f.write(data)
            drop_checksum_sidecar(local)  # first: a reader between the two sees no stale one
            os.replace(temp, local)
        else:
            io.write_bytes(path, data)
    except Exception:
        pass
