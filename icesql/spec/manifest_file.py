"""Manifest files: one row of a snapshot's manifest list, with its partition summaries.

The model only (Java keeps ``ManifestFile`` in ``api``, where the manifest evaluator reads
its summaries); reading and writing manifest lists is ``icesql.metadata.manifest_list``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CONTENT_DATA",
    "CONTENT_DELETES",
    "UNASSIGNED_SEQUENCE_NUMBER",
    "FieldSummary",
    "ManifestFile",
]

CONTENT_DATA = 0
CONTENT_DELETES = 1
UNASSIGNED_SEQUENCE_NUMBER = -1  # Java's placeholder; None means the same here


@dataclass(frozen=True, slots=True)
class FieldSummary:
    """Summary of one partition field over a manifest; bounds use Appendix D bytes."""

    contains_null: bool
    contains_nan: bool | None = None
    lower_bound: bytes | None = None
    upper_bound: bytes | None = None


@dataclass(frozen=True)
class ManifestFile:
    """One row of a manifest list.

    ``sequence_number`` / ``min_sequence_number`` are None (or -1) for a manifest written by
    the commit in progress: the manifest list writer assigns them. Counts may be None only
    in v1 lists ("unknown", so the manifest must be read).
    """

    manifest_path: str
    manifest_length: int
    partition_spec_id: int
    content: int = CONTENT_DATA
    sequence_number: int | None = 0
    min_sequence_number: int | None = 0
    added_snapshot_id: int | None = None
    added_files_count: int | None = None
    existing_files_count: int | None = None
    deleted_files_count: int | None = None
    added_rows_count: int | None = None
    existing_rows_count: int | None = None
    deleted_rows_count: int | None = None
    partitions: tuple[FieldSummary, ...] | None = None
    key_metadata: bytes | None = None
    first_row_id: int | None = None

    @property
    def has_added_files(self) -> bool:
        return self.added_files_count is None or self.added_files_count > 0

    @property
    def has_existing_files(self) -> bool:
        return self.existing_files_count is None or self.existing_files_count > 0

    @property
    def has_deleted_files(self) -> bool:
        return self.deleted_files_count is None or self.deleted_files_count > 0
