"""Rewriting manifests (``rewrite_manifests``) as Spark's ``RewriteManifestsSparkAction`` does.

A group of manifests of one content (data or deletes) and one partition spec is replaced by
``count`` new manifests holding every live entry of the group as EXISTING, with its snapshot
id, data and file sequence numbers and (v3) first row id kept. Entries are clustered by
partition (Spark range-partitions them by ``data_file.partition`` and sorts within each
manifest), so each new manifest covers a narrow range of partitions and planning can skip
it; DELETED entries are dropped. Java's ``BaseRewriteManifests`` commit rule: a replaced
manifest that the snapshot the commit lands on no longer has fails the commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from icesql.io import FileIO
from icesql.metadata.manifest import STATUS_EXISTING, ManifestEntry, read_manifest
from icesql.spec.manifest_file import ManifestFile

__all__ = ["ManifestRewrite", "rewrite_group"]

WriteManifest = Callable[[int, Sequence[ManifestEntry], int], ManifestFile]


@dataclass(frozen=True)
class ManifestRewrite:
    """Replace ``manifests`` (one content, one spec) by ``count`` new ones."""

    manifests: tuple[ManifestFile, ...]
    count: int


def _order_key(partition: tuple[Any, ...]) -> tuple[Any, ...]:
    # nulls first, as Spark's ascending sort; values of one field share a type
    return tuple((v is not None, v if v is not None else 0) for v in partition)


def rewrite_group(io: FileIO, rewrite: ManifestRewrite, write: WriteManifest) -> list[ManifestFile]:
    """The new manifests of one group (module docstring)."""
    first = rewrite.manifests[0]
    entries = [
        ManifestEntry(
            STATUS_EXISTING, e.snapshot_id, e.sequence_number, e.file_sequence_number, e.data_file
        )
        for m in rewrite.manifests
        for e in read_manifest(io, m)
        if e.is_live
    ]
    entries.sort(key=lambda e: _order_key(e.data_file.partition))
    count = max(1, min(rewrite.count, len(entries)))
    out = []
    for i in range(count):
        chunk = entries[len(entries) * i // count : len(entries) * (i + 1) // count]
        if chunk:
            out.append(write(first.partition_spec_id, chunk, first.content))
    return out
