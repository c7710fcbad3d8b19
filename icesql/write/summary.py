"""Snapshot summaries with the keys Spark's Iceberg writer produces (spec Appendix F).

Added/removed counts describe the files this snapshot adds and removes; each ``total-*``
is the parent's total plus what was added minus what was removed. As in Java's
``SnapshotProducer``, a snapshot without a parent starts from zero, and a total the parent
does not record is left out rather than guessed::

    >>> from icesql.spec.content_file import DataFile
    >>> f = DataFile(file_path="a.parquet", file_format="PARQUET", partition=(),
    ...              record_count=3, file_size_in_bytes=100)
    >>> s = snapshot_summary("append", added=[f], previous=None)
    >>> s["added-records"], s["total-records"], s["total-data-files"]
    ('3', '3', '1')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from icesql._version import __version__
from icesql.spec.content_file import DATA, EQUALITY_DELETES, POSITION_DELETES, DataFile

__all__ = ["ENGINE_NAME", "snapshot_summary"]

ENGINE_NAME = "icesql"

_TOTALS = (
    # total key, added key, removed key
    ("total-records", "added-records", "deleted-records"),
    ("total-files-size", "added-files-size", "removed-files-size"),
    ("total-data-files", "added-data-files", "deleted-data-files"),
    ("total-delete-files", "added-delete-files", "removed-delete-files"),
    ("total-position-deletes", "added-position-deletes", "removed-position-deletes"),
    ("total-equality-deletes", "added-equality-deletes", "removed-equality-deletes"),
)


def _file_counts(files: Iterable[DataFile], prefix: str, removed: bool) -> dict[str, int]:
    """Java's ``UpdateMetrics``: file, record and size counts of added or removed files."""
    data = deletes = records = size = pos = eq = pos_files = eq_files = dvs = 0
    for f in files:
        size += f.file_size_in_bytes
        if f.content == DATA:
            data += 1
            records += f.record_count
        elif f.content == POSITION_DELETES:
            deletes += 1
            pos += f.record_count
            if f.content_offset is not None:
                dvs += 1
            else:
                pos_files += 1
        elif f.content == EQUALITY_DELETES:
            deletes += 1
            eq += f.record_count
            eq_files += 1
    verb = "deleted" if removed else "added"
    gone = "removed" if removed else "added"
    return {
        f"{gone}-files-size": size,
        f"{verb}-data-files": data,
        f"{gone}-delete-files": deletes,
        f"{gone}-equality-delete-files": eq_files,
        f"{gone}-position-delete-files": pos_files,
        f"{gone}-dvs": dvs,
        f"{verb}-records": records,
        f"{gone}-position-deletes": pos,
        f"{gone}-equality-deletes": eq,
    }


def snapshot_summary(
    operation: str,
    added: Sequence[DataFile] = (),
    removed: Sequence[DataFile] = (),
    previous: Mapping[str, str] | None = None,
    extra: Mapping[str, str] | None = None,
    partition_metrics: bool = True,
) -> dict[str, str]:
    """The summary of a new snapshot; ``previous`` is the parent's summary (None: no parent).
    Without ``partition_metrics`` there is no ``changed-partition-count``: Java's summary of
    files added as whole manifests (``appendManifest``, what ``add_files`` commits)."""
    counts = {**_file_counts(added, "added", False), **_file_counts(removed, "removed", True)}
    out: dict[str, str] = {"operation": operation}
    order = [
        "added-data-files",
        "deleted-data-files",
        "added-delete-files",
        "removed-delete-files",
        "added-equality-delete-files",
        "removed-equality-delete-files",
        "added-position-delete-files",
        "removed-position-delete-files",
        "added-dvs",
        "removed-dvs",
        "added-records",
        "deleted-records",
        "added-files-size",
        "removed-files-size",
        "added-position-deletes",
        "removed-position-deletes",
        "added-equality-deletes",
        "removed-equality-deletes",
    ]
    for key in order:
        value = counts.get(key, 0)
        if value > 0:  # Java sets each count only above 0 (SnapshotSummary.Builder)
            out[key] = str(value)
    if partition_metrics:
        partitions = {(f.spec_id, f.partition) for f in (*added, *removed)}
        out["changed-partition-count"] = str(len(partitions))
    base = previous if previous is not None else {total: "0" for total, _, _ in _TOTALS}
    for total, add_key, remove_key in _TOTALS:
        text = base.get(total)
        if text is None:
            continue
        try:
            value = int(text) + counts.get(add_key, 0) - counts.get(remove_key, 0)
        except ValueError:
            continue
        if value >= 0:
            out[total] = str(value)
    out["engine-name"] = ENGINE_NAME
    out["engine-version"] = __version__
    if extra:
        out.update(extra)
    return out
