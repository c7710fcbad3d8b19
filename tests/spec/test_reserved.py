"""The reserved metadata fields icesql writes, checked against the spec's own table
("Reserved Field IDs" in /work/shared/spec/iceberg-table-spec.md, copied below)."""

from __future__ import annotations

import re

import pytest

from icesql.spec.reserved import (
    FILE_PATH_FIELD_ID,
    LAST_UPDATED_FIELD,
    POS_FIELD_ID,
    POSITION_DELETE_SCHEMA,
    ROW_ID_FIELD,
    ROW_LINEAGE_FIELDS,
)
from icesql.spec.types import LongType, StringType

# the rows of the spec's tables for the fields icesql writes, verbatim
SPEC_ROWS = """
2147483546 <code>file_path</code>	string	Path of a file, used in position-based delete files
2147483545 <code>pos</code>	long	Ordinal position of a row, used in position-based delete files
<code>2147483540</code> <code>_row_id</code>	<code>long</code>	A unique long assigned for row lineage
<code>2147483539</code> <code>_last_updated_sequence_number</code>	<code>long</code>	The sequence number
"""
_TYPES = {"string": StringType(), "long": LongType()}


def _spec_fields() -> dict[str, tuple[int, object]]:
    fields = {}
    for line in SPEC_ROWS.strip().splitlines():
        text = re.sub(r"</?code>", "", line)
        field_id, name, type_name = re.match(r"(\d+) (\S+)\t(\w+)", text).groups()
        fields[name] = (int(field_id), _TYPES[type_name])
    return fields


SPEC = _spec_fields()


@pytest.mark.parametrize(
    "field", [*POSITION_DELETE_SCHEMA.fields, *ROW_LINEAGE_FIELDS], ids=lambda f: f.name
)
def test_ids_names_and_types_are_the_spec_s(field) -> None:
    assert (field.field_id, field.type) == SPEC[field.name]


def test_position_delete_schema() -> None:
    # spec, "Position Delete Files": file_path then pos (and Java writes both required)
    assert [(f.name, f.required) for f in POSITION_DELETE_SCHEMA.fields] == [
        ("file_path", True),
        ("pos", True),
    ]
    assert (FILE_PATH_FIELD_ID, POS_FIELD_ID) == (SPEC["file_path"][0], SPEC["pos"][0])


def test_row_lineage_fields_are_optional() -> None:
    # spec, "Row Lineage": a null value is inherited on read
    assert ROW_LINEAGE_FIELDS == (ROW_ID_FIELD, LAST_UPDATED_FIELD)
    assert not any(f.required for f in ROW_LINEAGE_FIELDS)


def test_reserved_ids_lie_above_the_user_range() -> None:
    # spec: tables must not use field ids greater than Integer.MAX_VALUE - 200
    for field in (*POSITION_DELETE_SCHEMA.fields, *ROW_LINEAGE_FIELDS):
        assert 2**31 - 1 - 200 < field.field_id <= 2**31 - 1


def test_the_metadata_column_names_are_those_the_scan_builds() -> None:
    """Binding checks names against ``METADATA_COLUMN_NAMES`` without loading the scan path;
    the scan builds exactly these columns."""
    from icesql.scan.metadata_columns import SUPPORTED
    from icesql.spec.reserved import METADATA_COLUMN_NAMES

    assert frozenset(SUPPORTED) == METADATA_COLUMN_NAMES and len(SUPPORTED) == 7
