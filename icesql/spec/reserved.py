"""Reserved field ids of the spec's metadata columns that files store ("Reserved Field IDs").

Position delete files hold ``file_path`` and ``pos`` (ids 2147483546 / 2147483545, in that
order, both required); v3 data files that moved existing rows hold the row lineage columns
``_row_id`` and ``_last_updated_sequence_number`` (2147483540 / 2147483539, optional: a
null value is inherited on read, spec "Row Lineage")::

    >>> [f.field_id for f in POSITION_DELETE_SCHEMA.fields]
    [2147483546, 2147483545]
    >>> [f.name for f in ROW_LINEAGE_FIELDS]
    ['_row_id', '_last_updated_sequence_number']
"""

from __future__ import annotations

from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField, StringType

__all__ = [
    "BLOCK_LENGTH",
    "BLOCK_START",
    "FILE_PATH_FIELD_ID",
    "LAST_UPDATED_FIELD",
    "METADATA_COLUMN_NAMES",
    "POSITION_DELETE_SCHEMA",
    "POS_FIELD_ID",
    "POSITION_DELETE_ROW_FIELD_ID",
    "ROW_ID_FIELD",
    "ROW_LINEAGE_FIELDS",
    "SCAN_COLUMN_NAMES",
]

FILE_PATH_FIELD_ID = 2147483546
POS_FIELD_ID = 2147483545
POSITION_DELETE_ROW_FIELD_ID = 2147483544  # the optional deleted row of a position delete file

POSITION_DELETE_SCHEMA = Schema(
    (
        NestedField(FILE_PATH_FIELD_ID, "file_path", StringType(), required=True),
        NestedField(POS_FIELD_ID, "pos", LongType(), required=True),
    )
)

ROW_ID_FIELD = NestedField(2147483540, "_row_id", LongType())
LAST_UPDATED_FIELD = NestedField(2147483539, "_last_updated_sequence_number", LongType())
ROW_LINEAGE_FIELDS = (ROW_ID_FIELD, LAST_UPDATED_FIELD)

# private columns giving input_file_block_start()/_length(): the split Spark's reader reports
BLOCK_START, BLOCK_LENGTH = "__icesql_block_start", "__icesql_block_length"

# the metadata columns a query may name, as Spark exposes them (icesql.scan.metadata_columns
# builds them); kept here so that binding SQL checks a name without loading the scan path
METADATA_COLUMN_NAMES = frozenset(
    (
        "_file",
        "_pos",
        "_spec_id",
        "_partition",
        "_deleted",
        ROW_ID_FIELD.name,
        LAST_UPDATED_FIELD.name,
    )
)
# what a scan can stream after its data columns: those, and the private ones
SCAN_COLUMN_NAMES = METADATA_COLUMN_NAMES | {BLOCK_START, BLOCK_LENGTH}
