"""Position delete files (v2) and deletion vectors (v3): content, metadata, merging, cleanup."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyroaring import BitMap64

from icesql.errors import InternalError
from icesql.metadata.puffin import read_deletion_vector, read_puffin_footer
from icesql.scan.delete_loaders import DeleteLoader
from icesql.scan.planner import plan_files
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.spec.reserved import FILE_PATH_FIELD_ID, POS_FIELD_ID
from icesql.spec.types import LongType, StringType
from icesql.spec.values import from_bytes
from icesql.write.position_deletes import PositionDeleteWriter, as_positions

T = ("db", "t")


def _table(con, version: int):
    con.execute(
        "CREATE TABLE db.t (id INT, p STRING) USING iceberg PARTITIONED BY (p)"
        f" TBLPROPERTIES ('format-version'='{version}')"
    )
    con.execute("INSERT INTO db.t VALUES (0,'a'),(1,'a'),(2,'a'),(3,'a'),(4,'b'),(5,'b')")
    table = con.catalog.load_table(T)
    files = {
        t.data_file.partition[0]: t.data_file
        for t in plan_files(table.metadata, table.metadata.current_snapshot(), table.io)
    }
    return table, files


def _positions(table, data_file: DataFile, deletes) -> list[int]:
    return DeleteLoader(table.io).deleted_positions(data_file.file_path, deletes).tolist()


def _shared_delete_file(table, rows: list[tuple[str, int]], partition) -> DataFile:
    """A partition-scoped position delete file naming several data files (no bounds)."""
    path = f"{table.metadata.location}/data/p=a/shared-deletes.parquet"
    schema = pa.schema(
        [
            pa.field(
                "file_path",
                pa.string(),
                False,
                {b"PARQUET:field_id": str(FILE_PATH_FIELD_ID).encode()},
            ),
            pa.field("pos", pa.int64(), False, {b"PARQUET:field_id": str(POS_FIELD_ID).encode()}),
        ]
    )
    pq.write_table(pa.table([[r[0] for r in rows], [r[1] for r in rows]], schema=schema), path)
    return DataFile(
        content=POSITION_DELETES,
        file_path=path,
        file_format="PARQUET",
        partition=partition,
        record_count=len(rows),
        file_size_in_bytes=1,
    )


def test_as_positions_sorts_and_deduplicates():
    assert as_positions([5, 1, 5, 3]).tolist() == [1, 3, 5]
    assert as_positions(BitMap64([2**40, 7])).tolist() == [7, 2**40]


def test_v2_writes_one_file_scoped_parquet_file_per_data_file(con):
    table, files = _table(con, 2)
    writer = PositionDeleteWriter(table)
    writer.delete(files["a"], BitMap64([3, 1]))
    writer.delete(files["b"], np.array([0]))
    result = writer.close()
    assert result.removed == () and result.deleted_rows == 3
    assert result.referenced_data_files == {files["a"].file_path, files["b"].file_path}
    by_target = {f.referenced_data_file: f for f in result.added}
    a = by_target[files["a"].file_path]
    assert a.content == POSITION_DELETES and a.file_format == "PARQUET"
    assert a.partition == ("a",) and a.spec_id == files["a"].spec_id
    assert a.file_path.startswith(f"{table.metadata.location}/data/p=a/")
    assert a.file_path.endswith("-00001-deletes.parquet")
    assert a.record_count == 2 and a.sort_order_id is None and a.split_offsets
    # Java's PositionDeleteWriter: sizes and bounds, no counts, for a single data file
    assert set(a.column_sizes) == {FILE_PATH_FIELD_ID, POS_FIELD_ID}
    assert not a.value_counts and not a.null_value_counts and not a.nan_value_counts
    path = files["a"].file_path
    assert from_bytes(StringType(), a.lower_bounds[FILE_PATH_FIELD_ID]) == path  # untruncated
    assert from_bytes(StringType(), a.upper_bounds[FILE_PATH_FIELD_ID]) == path
    assert from_bytes(LongType(), a.lower_bounds[POS_FIELD_ID]) == 1
    assert from_bytes(LongType(), a.upper_bounds[POS_FIELD_ID]) == 3
    rows = pq.read_table(a.file_path)
    assert rows.column("file_path").to_pylist() == [path, path]
    assert rows.column("pos").to_pylist() == [1, 3]  # sorted by position
    ids = [f.metadata[b"PARQUET:field_id"] for f in pq.read_schema(a.file_path)]
    assert ids == [str(FILE_PATH_FIELD_ID).encode(), str(POS_FIELD_ID).encode()]
    assert not pq.read_schema(a.file_path).field("pos").nullable


def test_v2_merges_and_replaces_file_scoped_deletes_but_keeps_partition_scoped(con):
    table, files = _table(con, 2)
    first = PositionDeleteWriter(table)
    first.delete(files["a"], [0])
    old = first.close().added[0]
    shared = _shared_delete_file(
        table, [(files["a"].file_path, 2), ("elsewhere.parquet", 0)], ("a",)
    )
    writer = PositionDeleteWriter(table)
    writer.delete(files["a"], [1], existing=[old, shared])
    writer.delete(files["a"], [3], existing=[old, shared])  # positions accumulate
    result = writer.close()
    assert result.removed == (old,)  # the partition-scoped file stays
    assert result.deleted_rows == 2
    (new,) = result.added
    assert new.record_count == 3
    assert _positions(table, files["a"], [new]) == [0, 1, 3]  # not the shared file's 2
    assert _positions(table, files["a"], [new, shared]) == [0, 1, 2, 3]


def test_v3_writes_one_puffin_file_of_deletion_vectors(con):
    table, files = _table(con, 3)
    writer = PositionDeleteWriter(table)
    writer.delete(files["a"], BitMap64([2]))
    writer.delete(files["b"], BitMap64([0, 1]))
    result = writer.close()
    assert len(result.added) == 2 and result.removed == () and result.deleted_rows == 3
    puffin = {f.file_path for f in result.added}
    assert len(puffin) == 1
    (path,) = puffin
    assert path.startswith(f"{table.metadata.location}/data/00000-0-") and path.endswith(
        "-deletes.puffin"
    )
    footer = read_puffin_footer(table.io, path)
    assert [b.type for b in footer.blobs] == ["deletion-vector-v1"] * 2
    for dv in result.added:
        assert dv.file_format == "PUFFIN" and dv.content == POSITION_DELETES
        assert dv.file_size_in_bytes == table.io.size(path)
        data = files[dv.partition[0]]
        assert dv.referenced_data_file == data.file_path and dv.spec_id == data.spec_id
        assert not dv.column_sizes and not dv.lower_bounds
        bitmap = read_deletion_vector(table.io, path, dv.content_offset, dv.content_size_in_bytes)
        assert len(bitmap) == dv.record_count
        blob = next(b for b in footer.blobs if b.offset == dv.content_offset)
        assert blob.properties["referenced-data-file"] == data.file_path
        assert blob.properties["cardinality"] == str(dv.record_count)
    b_dv = [f for f in result.added if f.referenced_data_file == files["b"].file_path]
    assert _positions(table, files["b"], b_dv) == [0, 1]


def test_v3_merges_the_old_dv_and_every_position_delete_file(con):
    table, files = _table(con, 3)
    first = PositionDeleteWriter(table)
    first.delete(files["a"], [0])
    old_dv = first.close().added[0]
    shared = _shared_delete_file(
        table, [(files["a"].file_path, 2), ("elsewhere.parquet", 0)], ("a",)
    )
    writer = PositionDeleteWriter(table)
    writer.delete(files["a"], [3], existing=[old_dv, shared])
    result = writer.close()
    assert result.removed == (old_dv,)  # partition-scoped files stay for other data files
    (dv,) = result.added
    assert dv.record_count == 3 and result.deleted_rows == 1
    assert _positions(table, files["a"], [dv]) == [0, 2, 3]


def test_nothing_new_to_delete_writes_nothing(con):
    table, files = _table(con, 3)
    first = PositionDeleteWriter(table)
    first.delete(files["a"], [0, 1])
    old_dv = first.close().added[0]
    writer = PositionDeleteWriter(table)
    writer.delete(files["a"], [1], existing=[old_dv])
    writer.delete(files["b"], [])
    assert writer.close() == type(writer.close())()


def test_positions_outside_the_file_are_refused(con):
    table, files = _table(con, 2)
    writer = PositionDeleteWriter(table)
    with pytest.raises(InternalError, match="outside data file"):
        writer.delete(files["b"], [2])


@pytest.mark.parametrize("version", [2, 3])
def test_abort_deletes_the_written_files(con, version):
    table, files = _table(con, version)
    writer = PositionDeleteWriter(table)
    writer.delete(files["a"], [1])
    paths = {f.file_path for f in writer.close().added}
    assert all(table.io.exists(p) for p in paths)
    writer.abort()
    assert not any(table.io.exists(p) for p in paths)
