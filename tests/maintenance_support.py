"""Checks shared by the table-maintenance tests (expire_snapshots, remove_orphan_files)."""

from __future__ import annotations

import os

from icesql.metadata import reachable


def local(path: str) -> str:
    return path.removeprefix("file:")


def reached_files(con, identifier: tuple[str, ...]) -> set[str]:
    """Every manifest list, manifest, live content file and statistics file of every snapshot
    the table keeps."""
    table = con.catalog.load_table(identifier)
    md, io = table.metadata, table.io
    ids = [s.snapshot_id for s in md.snapshots]
    manifests = reachable.manifests(io, md, ids)
    paths = set(manifests) | reachable.manifest_lists(md, ids) | reachable.statistics_files(md)
    paths |= {p for p, _ in reachable.content_files(io, manifests.values())}
    return paths


def assert_every_reached_file_exists(con, name: str = "t", namespace: str = "db") -> int:
    """Every file a kept snapshot reaches is on disk; returns how many files that is."""
    paths = reached_files(con, (namespace, name))
    missing = sorted(p for p in paths if not os.path.exists(local(p)))
    assert not missing, f"files a kept snapshot reaches were deleted: {missing}"
    return len(paths)
