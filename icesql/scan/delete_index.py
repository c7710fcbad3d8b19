"""Which delete files apply to which data file: the spec's scope rules ("Scan Planning").

* A deletion vector (a position delete in a Puffin file) applies to the data file named by
  its ``referenced_data_file`` when the data sequence number is at most the DV's. When a DV
  applies, position delete files for that data file are ignored: the writer of the DV had to
  merge them into it.
* A position delete file applies to data files of the same spec and partition whose data
  sequence number is at most its own (equal: rows deleted in the commit that added them),
  and only to ``referenced_data_file`` when that is set. Like Java's ``ContentFileUtil``,
  a file whose ``file_path`` column bounds are equal is treated as naming that one file.
* An equality delete file applies to strictly older data files (smaller sequence number) of
  the same spec and partition, or of every partition when its own spec is unpartitioned
  (a "global" delete).

Built once per scan from the delete entries planning kept (Java's ``DeleteFileIndex``):
lookups are dictionary hits by path or partition, then a sequence-number bisect; equality
deletes whose key ranges cannot meet the data file's are then dropped
(``icesql.scan.equality_metrics``).

>>> index = DeleteFileIndex.build([], {})
>>> index.for_data_file(1, "s3://b/t/data/a.parquet", 0, ())
()
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from icesql._lazy import lazy_module
from icesql.errors import DataError
from icesql.metadata.manifest import ManifestEntry
from icesql.spec.content_file import EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.spec.reserved import FILE_PATH_FIELD_ID
from icesql.spec.types import IcebergType

if TYPE_CHECKING:
    from icesql.metadata.table_metadata import TableMetadata
    from icesql.scan import equality_metrics
    from icesql.scan.planner import FileScanTask
else:  # loaded with the first equality delete file a plan meets
    equality_metrics = lazy_module("icesql.scan.equality_metrics")

__all__ = ["DeleteFileIndex", "attach_deletes", "is_deletion_vector", "referenced_data_file"]


def is_deletion_vector(delete: DataFile) -> bool:
    """A DV is a position delete stored as a blob of a Puffin file."""
    return delete.content == POSITION_DELETES and delete.file_format.upper() == "PUFFIN"


def referenced_data_file(delete: DataFile) -> str | None:
    """The one data file a position delete file or DV can apply to, if it names just one:
    ``referenced_data_file``, else the ``file_path`` column when its bounds are equal."""
    if delete.content != POSITION_DELETES:
        return None
    if delete.referenced_data_file is not None:
        return delete.referenced_data_file
    lower = (delete.lower_bounds or {}).get(FILE_PATH_FIELD_ID)
    upper = (delete.upper_bounds or {}).get(FILE_PATH_FIELD_ID)
    if lower is not None and lower == upper:
        try:
            return lower.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def _partition_key(partition: Sequence[Any]) -> tuple[Any, ...]:
    """Hashable partition identity; NaNs are equal to each other (spec note [3])."""
    return tuple("NaN" if isinstance(v, float) and v != v else v for v in partition)


@dataclass
class _BySequence:
    """Delete files ordered by data sequence number, for "at least / more than" lookups."""

    seqs: list[int] = field(default_factory=list)
    files: list[DataFile] = field(default_factory=list)

    def add(self, seq: int, delete: DataFile) -> None:
        i = bisect.bisect_right(self.seqs, seq)
        self.seqs.insert(i, seq)
        self.files.insert(i, delete)

    def at_least(self, seq: int) -> list[DataFile]:
        return self.files[bisect.bisect_left(self.seqs, seq) :]

    def greater_than(self, seq: int) -> list[DataFile]:
        return self.files[bisect.bisect_right(self.seqs, seq) :]


@dataclass
class DeleteFileIndex:
    """Delete files by the data files they may apply to (module docstring for the rules)."""

    dvs: dict[str, tuple[int, DataFile]] = field(default_factory=dict)
    pos_by_path: dict[str, _BySequence] = field(default_factory=lambda: defaultdict(_BySequence))
    pos_by_partition: dict[tuple[int, tuple[Any, ...]], _BySequence] = field(
        default_factory=lambda: defaultdict(_BySequence)
    )
    eq_by_partition: dict[tuple[int, tuple[Any, ...]], _BySequence] = field(
        default_factory=lambda: defaultdict(_BySequence)
    )
    eq_global: _BySequence = field(default_factory=_BySequence)

    @staticmethod
    def build(
        deletes: Iterable[tuple[ManifestEntry, int]], unpartitioned: Mapping[int, bool]
    ) -> DeleteFileIndex:
        """Index (entry, spec id) pairs of live delete files. ``unpartitioned`` says per
        spec id whether the spec partitions nothing (missing ids count as partitioned)."""
        index = DeleteFileIndex()
        for entry, spec_id in deletes:
            index._add(entry, spec_id, unpartitioned.get(spec_id, False))
        return index

    def _add(self, entry: ManifestEntry, spec_id: int, spec_unpartitioned: bool) -> None:
        delete = entry.data_file
        seq = entry.sequence_number or 0
        if delete.content == EQUALITY_DELETES:
            if spec_unpartitioned:
                self.eq_global.add(seq, delete)
            else:
                self.eq_by_partition[(spec_id, _partition_key(delete.partition))].add(seq, delete)
            return
        if delete.content != POSITION_DELETES:
            return  # a data file in a delete manifest is the manifest writer's bug; ignore
        target = referenced_data_file(delete)
        if is_deletion_vector(delete):
            if target is None:
                raise DataError(f"deletion vector {delete.file_path} has no referenced_data_file")
            if target in self.dvs:
                raise DataError(
                    f"more than one deletion vector for data file {target}:"
                    f" {self.dvs[target][1].file_path} and {delete.file_path}"
                )
            self.dvs[target] = (seq, delete)
        elif target is not None:
            self.pos_by_path[target].add(seq, delete)
        else:
            self.pos_by_partition[(spec_id, _partition_key(delete.partition))].add(seq, delete)

    def is_empty(self) -> bool:
        return not (
            self.dvs
            or self.pos_by_path
            or self.pos_by_partition
            or self.eq_by_partition
            or self.eq_global.files
        )

    def for_data_file(
        self,
        data_sequence_number: int | None,
        data_file_path: str,
        spec_id: int,
        partition: Sequence[Any],
    ) -> tuple[DataFile, ...]:
        """The delete files to apply to one data file, equality deletes last."""
        seq = data_sequence_number or 0
        key = (spec_id, _partition_key(partition))
        out: list[DataFile] = []
        dv = self.dvs.get(data_file_path)
        if dv is not None and seq <= dv[0]:
            out.append(dv[1])
        else:
            if data_file_path in self.pos_by_path:
                out += self.pos_by_path[data_file_path].at_least(seq)
            if key in self.pos_by_partition:
                out += self.pos_by_partition[key].at_least(seq)
        if key in self.eq_by_partition:
            out += self.eq_by_partition[key].greater_than(seq)
        out += self.eq_global.greater_than(seq)
        return tuple(out)


def _field_types(metadata: TableMetadata) -> dict[int, IcebergType]:
    """Top-level field id -> type, the newest schema's type for ids in several."""
    types: dict[int, IcebergType] = {}
    for schema in reversed(metadata.schemas):
        for f in schema.fields:
            types.setdefault(f.field_id, f.type)
    return types


def attach_deletes(
    tasks: Sequence[FileScanTask],
    deletes: Sequence[tuple[ManifestEntry, int]],
    metadata: TableMetadata,
) -> tuple[list[FileScanTask], int]:
    """``tasks`` with their ``delete_files`` set, and how many distinct delete files apply
    to at least one task. ``deletes`` are the (entry, spec id) pairs planning kept."""
    if not deletes:
        return list(tasks), 0
    unpartitioned = {}
    for _, spec_id in deletes:
        if spec_id not in unpartitioned:
            spec = metadata.spec_by_id(spec_id)
            unpartitioned[spec_id] = spec is not None and spec.is_unpartitioned()
    index = DeleteFileIndex.build(deletes, unpartitioned)
    types = _field_types(metadata)
    used: set[tuple[str, int | None]] = set()
    out = []
    for task in tasks:
        files = index.for_data_file(
            task.data_sequence_number,
            task.data_file.file_path,
            task.spec_id,
            task.data_file.partition,
        )
        files = tuple(
            f
            for f in files
            if f.content != EQUALITY_DELETES
            or equality_metrics.may_delete_from(f, task.data_file, types)
        )
        used.update((f.file_path, f.content_offset) for f in files)
        out.append(replace(task, delete_files=files) if files else task)
    return out, len(used)
