"""Content files: the data files, delete files and deletion vectors a manifest lists.

The model only (Java keeps ``ContentFile``/``DataFile`` in ``api``, beside the expressions
that prune with its metrics); reading and writing manifests is ``icesql.metadata.manifest``.
``content`` takes the spec's ``FileContent`` codes below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["DATA", "EQUALITY_DELETES", "POSITION_DELETES", "DataFile"]

DATA = 0
POSITION_DELETES = 1
EQUALITY_DELETES = 2


@dataclass(frozen=True, kw_only=True, slots=True)
class DataFile:
    """A data file, position or equality delete file, or deletion vector (``content``).

    Bounds stay serialized (Appendix D bytes); decode them with the column's type when
    needed. ``spec_id`` is the id of the partition spec the ``partition`` tuple follows.
    """

    file_path: str
    file_format: str
    partition: tuple[Any, ...]
    record_count: int
    file_size_in_bytes: int
    content: int = DATA
    column_sizes: dict[int, int] | None = None
    value_counts: dict[int, int] | None = None
    null_value_counts: dict[int, int] | None = None
    nan_value_counts: dict[int, int] | None = None
    lower_bounds: dict[int, bytes] | None = None
    upper_bounds: dict[int, bytes] | None = None
    key_metadata: bytes | None = None
    split_offsets: tuple[int, ...] | None = None
    equality_ids: tuple[int, ...] | None = None
    sort_order_id: int | None = None
    first_row_id: int | None = None
    referenced_data_file: str | None = None
    content_offset: int | None = None
    content_size_in_bytes: int | None = None
    spec_id: int = 0

    def __hash__(self) -> int:
        return hash((self.file_path, self.content_offset))
