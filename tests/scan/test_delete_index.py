"""The scope rules of delete files (spec "Scan Planning"), checked on the index alone."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import icesql
from icesql.metadata.manifest import STATUS_ADDED, ManifestEntry
from icesql.scan.apply_deletes import EqualityDeletes, position_keep_mask
from icesql.scan.delete_index import (
    FILE_PATH_FIELD_ID,
    DeleteFileIndex,
    referenced_data_file,
)
from icesql.spec.content_file import DATA, EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.spec.types import DoubleType, IntegerType, NestedField, StringType

PARTITIONED, UNPARTITIONED = 0, 1
SPECS = {PARTITIONED: False, UNPARTITIONED: True}


def _file(path, content=DATA, partition=(1,), fmt="PARQUET", **kw) -> DataFile:
    return DataFile(
        file_path=path,
        file_format=fmt,
        partition=partition,
        record_count=10,
        file_size_in_bytes=100,
        content=content,
        **kw,
    )


def _entry(seq: int, f: DataFile) -> ManifestEntry:
    return ManifestEntry(STATUS_ADDED, 1, seq, seq, f)


def _index(*deletes: tuple[int, DataFile, int]) -> DeleteFileIndex:
    return DeleteFileIndex.build([(_entry(seq, f), spec) for seq, f, spec in deletes], SPECS)


def _paths(files) -> list[str]:
    return [f.file_path for f in files]


def test_position_delete_applies_to_older_and_same_sequence_in_same_partition():
    pos = _file("pos.parquet", POSITION_DELETES, (1,))
    index = _index((5, pos, PARTITIONED))
    assert _paths(index.for_data_file(4, "d", PARTITIONED, (1,))) == ["pos.parquet"]
    assert _paths(index.for_data_file(5, "d", PARTITIONED, (1,))) == ["pos.parquet"]
    assert index.for_data_file(6, "d", PARTITIONED, (1,)) == ()
    assert index.for_data_file(4, "d", PARTITIONED, (2,)) == ()  # other partition
    assert index.for_data_file(4, "d", UNPARTITIONED, (1,)) == ()  # other spec


def test_position_delete_with_referenced_file_applies_to_that_file_only():
    pos = _file("pos.parquet", POSITION_DELETES, referenced_data_file="a")
    index = _index((5, pos, PARTITIONED))
    assert _paths(index.for_data_file(3, "a", PARTITIONED, (1,))) == ["pos.parquet"]
    assert index.for_data_file(3, "b", PARTITIONED, (1,)) == ()


def test_equal_file_path_bounds_name_the_one_data_file():
    bound = {FILE_PATH_FIELD_ID: b"s3://b/a.parquet"}
    pos = _file("pos.parquet", POSITION_DELETES, lower_bounds=bound, upper_bounds=bound)
    assert referenced_data_file(pos) == "s3://b/a.parquet"
    index = _index((5, pos, PARTITIONED))
    assert index.for_data_file(3, "s3://b/other.parquet", PARTITIONED, (1,)) == ()
    wide = _file(
        "pos2.parquet",
        POSITION_DELETES,
        lower_bounds={FILE_PATH_FIELD_ID: b"s3://b/a"},
        upper_bounds={FILE_PATH_FIELD_ID: b"s3://b/z"},
    )
    assert referenced_data_file(wide) is None


def test_equality_delete_applies_only_to_strictly_older_files_of_its_partition():
    eq = _file("eq.parquet", EQUALITY_DELETES, (1,), equality_ids=(1,))
    index = _index((5, eq, PARTITIONED))
    assert _paths(index.for_data_file(4, "d", PARTITIONED, (1,))) == ["eq.parquet"]
    assert index.for_data_file(5, "d", PARTITIONED, (1,)) == ()  # same commit: not deleted
    assert index.for_data_file(4, "d", PARTITIONED, (2,)) == ()


def test_equality_delete_of_unpartitioned_spec_is_global():
    eq = _file("eq.parquet", EQUALITY_DELETES, (), equality_ids=(1,))
    index = _index((5, eq, UNPARTITIONED))
    assert _paths(index.for_data_file(4, "d", PARTITIONED, (7,))) == ["eq.parquet"]
    assert _paths(index.for_data_file(1, "d", UNPARTITIONED, ())) == ["eq.parquet"]
    assert index.for_data_file(5, "d", PARTITIONED, (7,)) == ()


def test_deletion_vector_replaces_position_delete_files():
    dv = _file(
        "dv.puffin",
        POSITION_DELETES,
        fmt="PUFFIN",
        referenced_data_file="a",
        content_offset=4,
        content_size_in_bytes=40,
    )
    pos = _file("pos.parquet", POSITION_DELETES)
    eq = _file("eq.parquet", EQUALITY_DELETES, equality_ids=(1,))
    index = _index((3, pos, PARTITIONED), (6, dv, PARTITIONED), (7, eq, PARTITIONED))
    assert _paths(index.for_data_file(2, "a", PARTITIONED, (1,))) == ["dv.puffin", "eq.parquet"]
    # another file of the partition still gets the position delete file
    assert _paths(index.for_data_file(2, "b", PARTITIONED, (1,))) == ["pos.parquet", "eq.parquet"]
    # a DV older than the data file does not apply; neither do older position deletes
    assert _paths(index.for_data_file(6, "a", PARTITIONED, (1,))) == ["dv.puffin", "eq.parquet"]
    assert _paths(index.for_data_file(7, "a", PARTITIONED, (1,))) == []


def test_two_deletion_vectors_for_one_file_are_an_error():
    dv1 = _file("dv1.puffin", POSITION_DELETES, fmt="PUFFIN", referenced_data_file="a")
    dv2 = _file("dv2.puffin", POSITION_DELETES, fmt="PUFFIN", referenced_data_file="a")
    with pytest.raises(icesql.DataError, match="dv1.puffin.*dv2.puffin"):
        _index((3, dv1, PARTITIONED), (4, dv2, PARTITIONED))


def test_nan_partition_values_are_equal():
    nan = float("nan")
    pos = _file("pos.parquet", POSITION_DELETES, (nan,))
    index = _index((5, pos, PARTITIONED))
    assert _paths(index.for_data_file(1, "d", PARTITIONED, (nan,))) == ["pos.parquet"]


def test_position_keep_mask_uses_the_offset_within_the_file():
    deleted = np.array([0, 3, 64, 65, 200], dtype=np.int64)
    assert position_keep_mask(deleted, 0, 4).tolist() == [False, True, True, False]
    assert position_keep_mask(deleted, 4, 60) is None
    assert position_keep_mask(deleted, 64, 3).tolist() == [False, False, True]


def test_equality_deletes_match_null_to_null():
    fields = (NestedField(1, "id", IntegerType()), NestedField(2, "s", StringType()))
    one = EqualityDeletes.from_tables(
        fields[:1], [pa.table({"0": pa.array([2, None], pa.int32())})]
    )
    data = pa.array([1, 2, None, 3], pa.int32())
    assert one.deleted([data]).tolist() == [False, True, True, False]
    two = EqualityDeletes.from_tables(
        fields, [pa.table({"0": pa.array([1, None], pa.int32()), "1": ["a", None]})]
    )
    ids = pa.array([1, 1, None, None], pa.int32())
    names = pa.array(["a", None, None, "a"])
    assert two.deleted([ids, names]).tolist() == [True, False, True, False]


def test_equality_deletes_match_nan_to_nan():
    fields = (NestedField(1, "id", IntegerType()), NestedField(2, "x", DoubleType()))
    nan = float("nan")
    deletes = EqualityDeletes.from_tables(
        fields, [pa.table({"0": pa.array([1], pa.int32()), "1": pa.array([nan])})]
    )
    ids = pa.array([1, 1], pa.int32())
    assert deletes.deleted([ids, pa.array([nan, 1.0])]).tolist() == [True, False]


def test_equality_keys_fall_back_to_python_tuples(monkeypatch):
    import duckdb

    from icesql.scan import equality_keys

    def refuse(self, columns, rows):
        raise duckdb.NotImplementedException("no join on this type")

    def refuse_arrow(self, columns, rows):
        raise pa.ArrowNotImplementedError("no join on this type")

    monkeypatch.setattr(equality_keys.KeyMatcher, "_duckdb", refuse)
    monkeypatch.setattr(equality_keys.KeyMatcher, "_arrow", refuse_arrow)
    fields = (NestedField(1, "id", IntegerType()), NestedField(2, "s", StringType()))
    two = EqualityDeletes.from_tables(
        fields, [pa.table({"0": pa.array([1, None], pa.int32()), "1": ["a", None]})]
    )
    ids = pa.array([1, 1, None, None], pa.int32())
    names = pa.array(["a", None, None, "a"])
    assert two.deleted([ids, names]).tolist() == [True, False, True, False]
