"""Iceberg's metadata columns, as Spark exposes them: ``_file``, ``_pos``, ``_spec_id``,
``_partition`` and ``_deleted``.

They are hidden: ``SELECT *`` does not return them, a query names them. A data column of the
same name hides the metadata column (Spark's rule). ``_pos`` is the row's position in its
data file before deletes, which is what a position delete or DV records; ``_partition`` is
a struct over every partition field of every spec of the table (sorted by field id, as
Java's ``Partitioning.partitionType``), NULL for fields the row's own spec does not have.
``_deleted`` marks deleted rows: as in Spark, a scan that returns it keeps the deleted rows.
``_row_id`` and ``_last_updated_sequence_number`` (v3 row lineage, spec "Row Lineage") are
the data file's own values where it stores non-null ones, else inherited: ``first_row_id +
_pos`` and the file's data sequence number; both NULL when the file has no
``first_row_id`` (written before the table had row lineage).

>>> sorted(METADATA_COLUMN_NAMES)[:3]
['_deleted', '_file', '_last_updated_sequence_number']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from icesql._lazy import lazy_module
from icesql.errors import NotSupportedError
from icesql.metadata.table_metadata import TableMetadata
from icesql.scan.file_blocks import file_block
from icesql.spec.arrays import bool_array, int_array, repeat_int, repeat_string
from icesql.spec.arrow import to_arrow_scalar, type_to_arrow
from icesql.spec.content_file import DataFile
from icesql.spec.reserved import (
    BLOCK_LENGTH,
    BLOCK_START,
    LAST_UPDATED_FIELD,
    METADATA_COLUMN_NAMES,
    ROW_ID_FIELD,
)
from icesql.spec.schema import Schema
from icesql.spec.types import NestedField, StructType

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # the names are read when SQL is bound, the columns only when a scan fills them
    pc = lazy_module("pyarrow.compute")

__all__ = ["METADATA_COLUMN_NAMES", "MetadataColumns"]

FILE, POS, SPEC_ID, PARTITION, DELETED = "_file", "_pos", "_spec_id", "_partition", "_deleted"
ROW_ID, LAST_UPDATED = "_row_id", "_last_updated_sequence_number"
SUPPORTED = (FILE, POS, SPEC_ID, PARTITION, DELETED, ROW_ID, LAST_UPDATED)
_BLOCKS = (BLOCK_START, BLOCK_LENGTH)  # private: input_file_block_start()/_length()
_FIXED_TYPES = {
    BLOCK_START: pa.int64(),
    BLOCK_LENGTH: pa.int64(),
    FILE: pa.string(),
    POS: pa.int64(),
    SPEC_ID: pa.int32(),
    DELETED: pa.bool_(),
    ROW_ID: pa.int64(),
    LAST_UPDATED: pa.int64(),
}
_NULLABLE = {ROW_ID, LAST_UPDATED}
# stored in v3 data files that rewrote rows; read like data columns, under private names
_LINEAGE_FIELDS = {
    ROW_ID: replace(ROW_ID_FIELD, name="__icesql_row_id"),
    LAST_UPDATED: replace(LAST_UPDATED_FIELD, name="__icesql_last_updated_seq"),
}


def partition_union_type(metadata: TableMetadata, schema: Schema) -> StructType:
    """Every partition field of every spec, by field id (void-only fields left out)."""
    fields: dict[int, NestedField] = {}
    live: set[int] = set()
    for spec in metadata.specs:
        for pf, nf in zip(spec.fields, spec.partition_type(schema).fields):
            fields.setdefault(pf.field_id, nf)
            if not pf.transform.is_void:
                live.add(pf.field_id)
    return StructType(tuple(fields[i] for i in sorted(fields) if i in live))


@dataclass(frozen=True)
class MetadataColumns:
    """The metadata columns one scan returns, after its data columns, in ``names`` order."""

    names: tuple[str, ...]
    metadata: TableMetadata
    partition_type: StructType | None = None

    @staticmethod
    def for_scan(metadata: TableMetadata, schema: Schema, names: Sequence[str]) -> MetadataColumns:
        """Raises ``NotSupportedError`` for the ones icesql cannot produce yet."""
        names = tuple(dict.fromkeys(n.lower() for n in names))
        for name in names:
            if name not in SUPPORTED and name not in _BLOCKS:
                raise NotSupportedError(
                    f"metadata column {name} is not supported yet (supported: "
                    f"{', '.join(SUPPORTED)})"
                )
        partition_type = None
        if PARTITION in names:
            partition_type = partition_union_type(metadata, schema)
            if not partition_type.fields:
                raise NotSupportedError(
                    "metadata column _partition of an unpartitioned table (an empty struct)"
                    " is not supported"
                )
        return MetadataColumns(names, metadata, partition_type)

    def arrow_fields(self) -> list[pa.Field]:
        out = []
        for name in self.names:
            if name == PARTITION:
                assert self.partition_type is not None
                out.append(pa.field(name, type_to_arrow(self.partition_type)))
            else:
                out.append(pa.field(name, _FIXED_TYPES[name], nullable=name in _NULLABLE))
        return out

    def file_fields(self) -> list[NestedField]:
        """Fields to read from the data file as well, after the data columns; their values
        go back to ``arrays`` as ``stored``."""
        return [_LINEAGE_FIELDS[n] for n in self.names if n in _LINEAGE_FIELDS]

    @property
    def marks_deleted(self) -> bool:
        return DELETED in self.names

    def arrays(
        self,
        data_file: DataFile,
        spec_id: int,
        positions: np.ndarray,
        deleted: np.ndarray | None = None,
        data_sequence_number: int | None = None,
        stored: Sequence[pa.Array] = (),
    ) -> list[pa.Array]:
        """The columns for rows of ``data_file`` at file ``positions`` (``deleted`` flags
        the deleted ones when the scan keeps them; ``stored`` holds the ``file_fields``)."""
        n = len(positions)
        out: list[pa.Array] = []
        lineage = [c for c in self.names if c in _LINEAGE_FIELDS]
        stored_by_name = dict(zip(lineage, stored))
        for name in self.names:
            if name in _LINEAGE_FIELDS:
                first = data_file.first_row_id
                if first is None:
                    inherited = pa.nulls(n, pa.int64())
                elif name == ROW_ID:
                    inherited = int_array(positions + first)
                else:
                    seq = data_sequence_number
                    inherited = (
                        repeat_int(seq, pa.int64(), n)
                        if seq is not None
                        else pa.nulls(n, pa.int64())
                    )
                out.append(pc.coalesce(stored_by_name[name], inherited))
                continue
            if name == FILE:
                out.append(repeat_string(data_file.file_path, n))
            elif name == POS:
                out.append(int_array(positions))
            elif name == SPEC_ID:
                out.append(repeat_int(spec_id, pa.int32(), n))
            elif name in _BLOCKS:
                block = file_block(data_file, self.metadata.properties)
                out.append(repeat_int(block[name == BLOCK_LENGTH], pa.int64(), n))
            elif name == DELETED:
                flags = np.zeros(n, dtype=bool) if deleted is None else deleted
                out.append(bool_array(flags))
            else:
                out.append(pa.repeat(self._partition_value(data_file, spec_id), n))
        return out

    def _partition_value(self, data_file: DataFile, spec_id: int) -> pa.Scalar:
        assert self.partition_type is not None
        spec = self.metadata.spec_by_id(spec_id)
        values = {}
        if spec is not None:
            values = {pf.field_id: v for pf, v in zip(spec.fields, data_file.partition)}
        return to_arrow_scalar(self.partition_type, values)
