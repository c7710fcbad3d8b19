"""Deleting the files a maintenance procedure found unreachable, after its commit.

Deletes run ``max_workers`` at a time (the procedures' ``max_concurrent_deletes``). A file
already gone counts as deleted (Hadoop's ``FileSystem.delete`` returns false and Java counts
it); a file that cannot be deleted is skipped and not counted, as Spark's actions log the
failure and carry on: the commit has happened, what is left is garbage for
``remove_orphan_files``.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from icesql.io import FileIO

__all__ = ["delete_files"]


def delete_files(io: FileIO, files: Sequence[tuple[str, str]], max_workers: int = 1) -> list[str]:
    """Delete each ``(path, kind)``; returns the kinds of the files deleted."""

    def delete(item: tuple[str, str]) -> str | None:
        try:
            io.delete(item[0])
        except Exception:
            return None
        return item[1]

    if max_workers <= 1 or len(files) <= 1:
        done = [delete(item) for item in files]
    else:
        with ThreadPoolExecutor(max_workers=min(max_workers, len(files))) as pool:
            done = list(pool.map(delete, files))
    return [kind for kind in done if kind is not None]
