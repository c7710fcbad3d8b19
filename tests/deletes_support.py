"""Test helpers that write delete files by hand (deletion vectors in Puffin files)."""

from __future__ import annotations

from collections.abc import Sequence

from icesql.metadata.puffin import write_deletion_vector_puffin
from icesql.spec.content_file import POSITION_DELETES, DataFile


def deletion_vector(table, data_file: DataFile, positions: Sequence[int], name: str) -> DataFile:
    """A DV deleting ``positions`` of ``data_file``, written to ``<table>/data/<name>``;
    the returned entry is ready for ``Change.added_files``."""
    path = f"{table.metadata.location}/data/{name}"
    [(offset, length, card)] = write_deletion_vector_puffin(
        table.io, path, [(data_file.file_path, list(positions))]
    )
    return DataFile(
        file_path=path,
        file_format="PUFFIN",
        partition=data_file.partition,
        record_count=card,
        file_size_in_bytes=table.io.size(path),
        content=POSITION_DELETES,
        referenced_data_file=data_file.file_path,
        content_offset=offset,
        content_size_in_bytes=length,
        spec_id=data_file.spec_id,
    )
