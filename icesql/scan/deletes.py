"""Matching the delete files left after pruning to the data files they apply to.

The spec's scope rules ("Scan Planning"): a position delete file or deletion vector applies
to data files of the same spec and partition whose data sequence number is at most its own
(and only to ``referenced_data_file`` when set); an equality delete file applies to older
data files (strictly smaller sequence number) of the same partition, or of every partition
when its spec is unpartitioned. Reading deletes is not built yet: this is where the reader
will find them (``FileScanTask.delete_files``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from icesql.metadata.manifest import EQUALITY_DELETES, DataFile, ManifestEntry
from icesql.metadata.table_metadata import TableMetadata

if TYPE_CHECKING:
    from icesql.scan.planner import FileScanTask

__all__ = ["attach_deletes"]


def attach_deletes(
    tasks: Sequence[FileScanTask],
    deletes: Sequence[tuple[ManifestEntry, int]],
    metadata: TableMetadata,
) -> tuple[list[FileScanTask], int]:
    """``tasks`` with the delete files that apply to each, and how many delete files apply
    to at least one task. ``deletes`` are (entry, spec id) pairs that survived pruning."""
    if not deletes:
        return list(tasks), 0
    by_partition: dict[tuple[int, Any], list[tuple[ManifestEntry, int]]] = defaultdict(list)
    global_deletes: list[ManifestEntry] = []
    for entry, spec_id in deletes:
        spec = metadata.spec_by_id(spec_id)
        is_global = entry.data_file.content == EQUALITY_DELETES and (
            spec is None or spec.is_unpartitioned()
        )
        if is_global:
            global_deletes.append(entry)
        else:
            by_partition[(spec_id, _key(entry.data_file.partition))].append((entry, spec_id))
    used: set[int] = set()
    out = []
    for task in tasks:
        applied: list[DataFile] = []
        candidates = [e for e, _ in by_partition.get((task.spec_id, _key(task.data_file.partition)), [])]
        for entry in candidates + global_deletes:
            if _applies(entry, task):
                applied.append(entry.data_file)
                used.add(id(entry))
        out.append(replace(task, delete_files=tuple(applied)) if applied else task)
    return out, len(used)


def _key(partition: tuple[Any, ...]) -> tuple[Any, ...]:
    """Hashable partition identity; NaN values compare equal (spec: by their bits)."""
    return tuple("NaN" if isinstance(v, float) and v != v else v for v in partition)


def _applies(entry: ManifestEntry, task: FileScanTask) -> bool:
    delete, data_seq = entry.data_file, task.data_sequence_number
    delete_seq = entry.sequence_number
    if delete.content == EQUALITY_DELETES:
        return data_seq is None or delete_seq is None or data_seq < delete_seq
    if delete.referenced_data_file is not None and delete.referenced_data_file != task.data_file.file_path:
        return False
    return data_seq is None or delete_seq is None or data_seq <= delete_seq
