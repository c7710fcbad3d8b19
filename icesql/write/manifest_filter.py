"""Which live files a commit drops from the manifests it carries forward.

Java's merging commits (append, overwrite, row delta, replace partitions — every commit
Spark SQL makes) filter the parent's manifests the same way (``ManifestFilterManager`` and
``MergingSnapshotProducer.apply``); this module is that filter, as plain rules:

* files the change names (``Change.removed_files``), matched by path and DV offset;
* files of the partitions the change drops (``Change.dropped_partitions``: Java's
  ``ReplacePartitions``), data and delete files alike;
* files all of whose rows match the change's row filter (``Change.delete_filter``: Java's
  ``overwriteByRowFilter``), judged by the partition tuple (residual of the filter) and the
  file's metrics (``icesql.expressions.file_filter``). A data file that may hold matching
  rows but not only those cannot be removed: the commit fails. A delete file that only
  partly matches is kept;
* delete files older than every live data file (data sequence number below the smallest
  one left in the table): they can no longer apply to any row;
* deletion vectors of data files this commit removes (they would dangle).

The last two rules run only over delete manifests the commit opens anyway (one that may
hold a file to remove, or every one once data files are removed), as Java does. Manifests
left without a live file are dropped. A manifest holding a removed file is rewritten: the
removed entries DELETED, the others EXISTING with their sequence numbers and first row ids
written out. Decisions about a data manifest depend only on the manifest and the change, so
rewrites are reused by later commit attempts; a delete manifest's rewrite also depends on
the data removed and the smallest sequence number, and is reused only when those match.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from icesql.errors import CommitConflictError, ProgrammingError
from icesql.expressions.file_filter import FileFilter, RowsMatch
from icesql.expressions.tree import BooleanExpression
from icesql.io import FileIO
from icesql.metadata.manifest import STATUS_DELETED, STATUS_EXISTING, ManifestEntry, read_manifest
from icesql.metadata.table_metadata import TableMetadata
from icesql.spec.content_file import DATA, DataFile
from icesql.spec.manifest_file import CONTENT_DATA, ManifestFile

__all__ = ["FileKey", "ManifestFilter", "SplitFileError", "file_key", "rows_must_match"]

FileKey = tuple[str, int | None]
# writes a manifest of (spec id, entries, content) for the snapshot being produced
WriteManifest = Callable[[int, Sequence[ManifestEntry], int], ManifestFile]


class SplitFileError(ProgrammingError):
    """The row filter would split a data file: some of its rows match, others may not
    (Java's ``ValidationException`` "Cannot delete file where some, but not all, rows match
    filter"). ``path`` names the file."""

    def __init__(self, message: str, path: str):
        super().__init__(message)
        self.path = path


def file_key(f: DataFile) -> FileKey:
    """What identifies a file in a table: its path, and for a DV its offset in the Puffin."""
    return f.file_path, f.content_offset


def _is_dv(f: DataFile) -> bool:
    return f.file_format.upper() == "PUFFIN"


def _row_filter(md: TableMetadata, row_filter: BooleanExpression) -> FileFilter:
    return FileFilter(md.schema(), md.specs, row_filter)


def rows_must_match(
    md: TableMetadata, row_filter: BooleanExpression
) -> Callable[[int, DataFile], bool]:
    """``must_match(spec_id, file)``: does every row of the file match ``row_filter``? The
    rule ``Change.delete_filter`` removes files by (a DELETE asks it first, to know whether
    it can remove whole files without reading them)."""
    return _row_filter(md, row_filter).must_match


class ManifestFilter:
    """Filters the manifests of one change, attempt after attempt (module docstring)."""

    def __init__(
        self,
        io: FileIO,
        table: str,
        removed_files: Sequence[DataFile] = (),
        delete_filter: BooleanExpression | None = None,
        dropped_partitions: frozenset[tuple[int, tuple[Any, ...]]] = frozenset(),
    ):
        self.io = io
        self.table = table
        self.wanted: Mapping[FileKey, DataFile] = {file_key(f): f for f in removed_files}
        self.wanted_specs = {(f.content == DATA, f.spec_id) for f in removed_files}
        self.delete_filter = delete_filter
        self.dropped = dropped_partitions
        self.dropped_specs = {spec_id for spec_id, _ in dropped_partitions}
        # source manifest (+ context for delete manifests) -> (result, files removed)
        self._cache: dict[Any, tuple[ManifestFile, tuple[DataFile, ...]]] = {}

    def reset(self) -> None:
        """Forget rewrites: they carry a snapshot id that is no longer this change's."""
        self._cache.clear()

    def apply(
        self, md: TableMetadata, manifests: Sequence[ManifestFile], write: WriteManifest
    ) -> tuple[list[ManifestFile], list[DataFile]]:
        """The manifests to carry into the new snapshot and the files they no longer hold.

        Raises ``CommitConflictError`` when a named file is not live in ``md`` (a concurrent
        commit removed it) and ``SplitFileError`` when the row filter would split a data file.
        """
        row_filter = None if self.delete_filter is None else _row_filter(md, self.delete_filter)
        data = [m for m in manifests if m.content == CONTENT_DATA]
        deletes = [m for m in manifests if m.content != CONTENT_DATA]
        kept_data, removed_data = self._filter(data, write, row_filter, None, frozenset())
        min_sequence = md.last_sequence_number
        for m in kept_data:
            seq = m.min_sequence_number
            if seq is not None and seq >= 0:
                min_sequence = min(min_sequence, seq)
        removed_paths = frozenset(f.file_path for f in removed_data)
        kept_deletes, removed_deletes = self._filter(
            deletes, write, row_filter, min_sequence, removed_paths
        )
        removed = [*removed_data, *removed_deletes]
        found = {file_key(f) for f in removed}
        missing = [key for key in self.wanted if key not in found]
        if missing:
            path, _ = missing[0]
            raise CommitConflictError(
                f"cannot commit to {self.table}: file {path} is no longer in the table"
                f" ({len(missing)} file(s) removed by a concurrent commit)"
            )
        return [*kept_data, *kept_deletes], removed

    def _filter(
        self,
        manifests: Sequence[ManifestFile],
        write: WriteManifest,
        row_filter: FileFilter | None,
        min_sequence: int | None,
        removed_paths: frozenset[str],
    ) -> tuple[list[ManifestFile], list[DataFile]]:
        kept: list[ManifestFile] = []
        removed: list[DataFile] = []
        for m in manifests:
            if not (m.has_added_files or m.has_existing_files):
                continue  # nothing live: Java drops it from the new snapshot
            if not self._may_remove(m, row_filter, removed_paths):
                kept.append(m)
                continue
            key = (m.manifest_path, min_sequence, removed_paths)
            cached = self._cache.get(key)
            if cached is None:
                cached = self._cache[key] = self._rewrite(
                    m, write, row_filter, min_sequence, removed_paths
                )
            result, gone = cached
            kept.append(result)
            removed.extend(gone)
        return kept, removed

    def _may_remove(
        self, m: ManifestFile, row_filter: FileFilter | None, removed_paths: frozenset[str]
    ) -> bool:
        """Whether ``m`` may hold a file to remove, or (a delete manifest) is opened to age
        out old deletes because data files are removed."""
        is_data = m.content == CONTENT_DATA
        if (is_data, m.partition_spec_id) in self.wanted_specs:
            return True
        if m.partition_spec_id in self.dropped_specs:
            return True
        if not is_data and removed_paths:
            return True
        return row_filter is not None and row_filter.manifest_may_match(m)

    def _rewrite(
        self,
        m: ManifestFile,
        write: WriteManifest,
        row_filter: FileFilter | None,
        min_sequence: int | None,
        removed_paths: frozenset[str],
    ) -> tuple[ManifestFile, tuple[DataFile, ...]]:
        is_data = m.content == CONTENT_DATA
        spec_id = m.partition_spec_id
        live = [e for e in read_manifest(self.io, m) if e.is_live]
        hits: list[bool] = []
        for e in live:
            f = e.data_file
            marked = (
                file_key(f) in self.wanted
                or (spec_id, f.partition) in self.dropped
                or (
                    not is_data
                    and min_sequence is not None
                    and e.sequence_number is not None
                    and 0 < e.sequence_number < min_sequence
                )
                or (not is_data and _is_dv(f) and f.referenced_data_file in removed_paths)
            )
            if not marked and row_filter is not None:
                match = row_filter.rows_match(spec_id, f)
                marked = match is RowsMatch.ALL
                if match is RowsMatch.SOME and is_data:
                    raise SplitFileError(
                        f"cannot overwrite rows of {self.table} matching {self.delete_filter}:"
                        f" data file {f.file_path} holds rows that match and rows that do not"
                        " (it was written under another partition spec), so it can be neither"
                        " kept nor removed whole",
                        f.file_path,
                    )
            hits.append(marked)
        if not any(hits):
            return m, ()
        entries = [
            ManifestEntry(
                STATUS_DELETED if hit else STATUS_EXISTING,
                e.snapshot_id,
                e.sequence_number,
                e.file_sequence_number,
                e.data_file,
            )
            for e, hit in zip(live, hits)
        ]
        gone = tuple(e.data_file for e, hit in zip(live, hits) if hit)
        return write(spec_id, entries, m.content), gone
