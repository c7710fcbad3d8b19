"""Iceberg's metadata columns as Spark exposes them: which names a scan may ask for, their
Arrow types, and their values for rows of one data file (``_pos`` before deletes,
``_partition`` over every spec, v3 row lineage stored or inherited)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from icesql.errors import NotSupportedError
from icesql.metadata.builder import new_table_metadata
from icesql.scan.metadata_columns import (
    METADATA_COLUMN_NAMES,
    MetadataColumns,
    partition_union_type,
)
from icesql.spec.content_file import DataFile
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import parse_transform
from icesql.spec.types import IntegerType, LongType, NestedField, StringType

SCHEMA = Schema((NestedField(1, "id", LongType()), NestedField(2, "s", StringType())))


def _metadata(*specs: tuple[tuple[int, int, str, str], ...]):
    """Table metadata whose specs are ``specs`` in order (the first one at creation)."""

    def spec(fields, spec_id=0):
        return PartitionSpec(
            spec_id,
            tuple(
                PartitionField(src, fid, parse_transform(t), name) for src, fid, t, name in fields
            ),
        )

    md = new_table_metadata("/tmp/t", SCHEMA, spec(specs[0]) if specs else None, format_version=3)
    for i, fields in enumerate(specs[1:], 1):
        builder = md.builder()
        builder.set_default_spec(builder.add_partition_spec(spec(fields, i)))
        md = builder.build()
    return md


def _file(partition=(), first_row_id=None) -> DataFile:
    return DataFile(
        file_path="/d/f.parquet",
        file_format="PARQUET",
        partition=partition,
        record_count=4,
        file_size_in_bytes=1,
        first_row_id=first_row_id,
    )


def test_the_names_are_sparks() -> None:
    assert METADATA_COLUMN_NAMES == {
        "_file",
        "_pos",
        "_spec_id",
        "_partition",
        "_deleted",
        "_row_id",
        "_last_updated_sequence_number",
    }


def test_names_are_lowered_and_deduplicated_in_order() -> None:
    cols = MetadataColumns.for_scan(_metadata(), SCHEMA, ["_POS", "_file", "_pos"])
    assert cols.names == ("_pos", "_file")
    assert [(f.name, f.type, f.nullable) for f in cols.arrow_fields()] == [
        ("_pos", pa.int64(), False),
        ("_file", pa.string(), False),
    ]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["_change_type"], "metadata column _change_type is not supported yet"),
        (["_partition"], "_partition of an unpartitioned table"),
    ],
)
def test_unsupported_columns_are_refused_by_name(names, message) -> None:
    with pytest.raises(NotSupportedError, match=message):
        MetadataColumns.for_scan(_metadata(), SCHEMA, names)


def test_arrow_types_and_nullability() -> None:
    md = _metadata(((2, 1000, "identity", "s"),))
    cols = MetadataColumns.for_scan(md, SCHEMA, sorted(METADATA_COLUMN_NAMES))
    got = {f.name: (f.type, f.nullable) for f in cols.arrow_fields()}
    assert got == {
        "_deleted": (pa.bool_(), False),
        "_file": (pa.string(), False),
        "_last_updated_sequence_number": (pa.int64(), True),
        "_pos": (pa.int64(), False),
        "_row_id": (pa.int64(), True),
        "_spec_id": (pa.int32(), False),
        "_partition": (pa.struct([pa.field("s", pa.string())]), True),
    }
    assert cols.marks_deleted
    # the spec's reserved ids, in names order (_last_updated_sequence_number, _row_id)
    assert [f.field_id for f in cols.file_fields()] == [2147483539, 2147483540]
    assert not MetadataColumns.for_scan(md, SCHEMA, ["_pos"]).marks_deleted


def test_partition_union_spans_every_spec_by_field_id() -> None:
    """Java's Partitioning.partitionType: all specs' fields, sorted by field id; a field
    that is void in every spec is left out."""
    md = _metadata(
        ((2, 1000, "identity", "s"), (1, 1001, "void", "gone")),
        ((1, 1002, "bucket[4]", "id_bucket"), (2, 1000, "identity", "s")),
    )
    union = partition_union_type(md, SCHEMA)
    assert [(f.field_id, f.name, type(f.type)) for f in union.fields] == [
        (1000, "s", StringType),
        (1002, "id_bucket", IntegerType),
    ]
    cols = MetadataColumns.for_scan(md, SCHEMA, ["_partition"])
    # a row of the first spec: NULL for the field its spec does not have
    [old] = cols.arrays(_file(("x", None)), 0, np.array([0]))
    [new] = cols.arrays(_file((3, "y")), 1, np.array([0]))
    assert old.to_pylist() == [{"s": "x", "id_bucket": None}]
    assert new.to_pylist() == [{"s": "y", "id_bucket": 3}]


def test_arrays_for_rows_of_one_file() -> None:
    md = _metadata()
    cols = MetadataColumns.for_scan(md, SCHEMA, ["_file", "_pos", "_spec_id", "_deleted"])
    positions = np.array([0, 2, 3], dtype=np.int64)
    file, pos, spec, deleted = cols.arrays(_file(), 7, positions, np.array([False, True, False]))
    assert file.to_pylist() == ["/d/f.parquet"] * 3
    assert pos.to_pylist() == [0, 2, 3] and spec.to_pylist() == [7] * 3
    assert deleted.to_pylist() == [False, True, False]
    *_, none_deleted = cols.arrays(_file(), 0, positions)  # not marking: none deleted
    assert none_deleted.to_pylist() == [False] * 3
    assert [len(a) for a in cols.arrays(_file(), 0, np.array([], dtype=np.int64))] == [0] * 4


def test_row_lineage_is_stored_or_inherited() -> None:
    """Spec "Row Lineage": a null stored _row_id inherits first_row_id + _pos, a null
    _last_updated_sequence_number the file's data sequence number."""
    cols = MetadataColumns.for_scan(
        _metadata(), SCHEMA, ["_row_id", "_last_updated_sequence_number"]
    )
    positions = np.array([0, 1, 5], dtype=np.int64)
    stored = [pa.array([None, 99, None], pa.int64()), pa.array([2, None, None], pa.int64())]
    row_id, seq = cols.arrays(_file(first_row_id=100), 0, positions, None, 4, stored)
    assert row_id.to_pylist() == [100, 99, 105]
    assert seq.to_pylist() == [2, 4, 4]
    # a file written before the table had row lineage: NULL unless stored
    row_id, seq = cols.arrays(_file(), 0, positions, None, 4, stored)
    assert row_id.to_pylist() == [None, 99, None] and seq.to_pylist() == [2, None, None]
