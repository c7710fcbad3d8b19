"""Merging small manifests on commit, as Java's ``ManifestMergeManager`` does for every
``MergingSnapshotProducer`` (append, overwrite, row delta, replace partitions, rewrite).

Without it every INSERT adds a manifest and planning reads one more file per commit. The
rules, per the table properties ``commit.manifest-merge.enabled`` (true),
``commit.manifest.min-count-to-merge`` (100) and ``commit.manifest.target-size-bytes``
(8 MiB); data and delete manifests are merged separately, each with the same rules:

* the manifests of the new snapshot, in order (this commit's new manifests first, then the
  parent's, filtered), are grouped by partition spec, highest spec id first;
* each group is packed into bins of at most the target size, from its end (the oldest
  manifests fill whole bins; the newest share the partial one), one bin open at a time;
* a bin of one manifest is kept; a bin holding the commit's first manifest is kept as is
  while it has fewer than min-count manifests; any other bin becomes one new manifest.

A merged manifest holds every entry of its bin in order: entries this snapshot added stay
ADDED, entries this snapshot deleted stay DELETED, older deletes are dropped, and every
other entry becomes EXISTING with its snapshot id, data and file sequence numbers and (v3)
first row id written out. With 100 as min-count, appends reach 100 manifests and then
merge into one: after 1,000 single-file INSERTs a table has 10 manifests, as with Java.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from icesql.io import FileIO
from icesql.metadata.manifest import (
    STATUS_ADDED,
    STATUS_DELETED,
    STATUS_EXISTING,
    ManifestEntry,
    read_manifest,
)
from icesql.spec.manifest_file import ManifestFile
from icesql.write.properties import TableProperties

__all__ = ["ManifestMerger", "pack", "pack_end"]

T = TypeVar("T")

# writes a manifest of (spec id, entries, content) for the snapshot being produced
WriteManifest = Callable[[int, Sequence[ManifestEntry], int], ManifestFile]


def pack(items: Sequence[T], weight: Callable[[T], int], target: int) -> list[list[T]]:
    """Java's ``ListPacker(target, 1, false).pack``: bins filled in order, one open bin at a
    time, of at most ``target`` total weight; an item heavier than ``target`` gets its own."""
    bins: list[list[T]] = []
    current: list[T] = []
    total = 0
    for item in items:
        w = weight(item)
        if current and total + w > target:
            bins.append(current)
            current, total = [], 0
        current.append(item)
        total += w
    if current:
        bins.append(current)
    return bins


def pack_end(items: Sequence[ManifestFile], target: int) -> list[list[ManifestFile]]:
    """Java's ``ListPacker(target, 1, false).packEnd``: ``pack`` from the end of ``items``,
    each bin and the bins kept in the items' order."""
    bins = pack(list(reversed(items)), lambda m: m.manifest_length, target)
    return [bin_[::-1] for bin_ in reversed(bins)]


class ManifestMerger:
    """Merges the manifests of one snapshot (module docstring); merged bins are remembered
    so a retried commit attempt reuses them."""

    def __init__(self, io: FileIO, properties: TableProperties):
        self.io = io
        self.enabled = properties.manifest_merge_enabled
        self.min_count = properties.manifest_min_merge_count
        self.target = properties.manifest_target_size_bytes
        self._cache: dict[tuple[str, ...], ManifestFile] = {}

    def reset(self) -> None:
        """Forget merged manifests: they carry a snapshot id that is no longer this one's."""
        self._cache.clear()

    def merge(
        self, manifests: Sequence[ManifestFile], snapshot_id: int, write: WriteManifest
    ) -> list[ManifestFile]:
        """The manifests of one content (data or deletes) after merging, first ones first."""
        if not self.enabled or not manifests:
            return list(manifests)
        first = manifests[0]
        groups: dict[int, list[ManifestFile]] = {}
        for m in manifests:
            groups.setdefault(m.partition_spec_id, []).append(m)
        out: list[ManifestFile] = []
        for spec_id in sorted(groups, reverse=True):
            for bin_ in pack_end(groups[spec_id], self.target):
                if len(bin_) == 1:
                    out.extend(bin_)
                elif any(m is first for m in bin_) and len(bin_) < self.min_count:
                    out.extend(bin_)
                else:
                    out.append(self._merged(spec_id, bin_, snapshot_id, write))
        return out

    def _merged(
        self, spec_id: int, bin_: list[ManifestFile], snapshot_id: int, write: WriteManifest
    ) -> ManifestFile:
        key = tuple(m.manifest_path for m in bin_)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        entries: list[ManifestEntry] = []
        for m in bin_:
            for e in read_manifest(self.io, m):
                ours = e.snapshot_id == snapshot_id
                if e.status == STATUS_DELETED:
                    if ours:
                        entries.append(e)
                elif e.status == STATUS_ADDED and ours:
                    entries.append(e)
                else:
                    entries.append(
                        ManifestEntry(
                            STATUS_EXISTING,
                            e.snapshot_id,
                            e.sequence_number,
                            e.file_sequence_number,
                            e.data_file,
                        )
                    )
        merged = self._cache[key] = write(spec_id, entries, bin_[0].content)
        return merged
