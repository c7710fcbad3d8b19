"""Reading delete files (``icesql.scan.delete_loaders``): position delete files (of one data
file, or shared and split by path), deletion vectors, equality delete files; each shared file
read once per scan; errors naming the delete file."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fresh_process_support import run_python

import icesql
from icesql.errors import CorruptFileError
from icesql.io import FileIO
from icesql.metadata.puffin import write_deletion_vector_puffin
from icesql.scan.delete_loaders import DeleteLoader
from icesql.spec.content_file import EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.spec.name_mapping import NameMapping
from icesql.spec.types import LongType, NestedField, StringType

PATH_META = {b"PARQUET:field_id": b"2147483546"}  # the spec's reserved file_path id
POS_META = {b"PARQUET:field_id": b"2147483545"}  # and pos


def _file(path, content=POSITION_DELETES, fmt="PARQUET", record_count=10, **kw) -> DataFile:
    return DataFile(
        file_path=path,
        file_format=fmt,
        partition=(),
        record_count=record_count,
        file_size_in_bytes=100,
        content=content,
        **kw,
    )


def _position_file(path, paths, positions, **kw) -> DataFile:
    schema = pa.schema(
        [
            pa.field("file_path", pa.string(), metadata=PATH_META),
            pa.field("pos", pa.int64(), True, metadata=POS_META),
        ]
    )
    pq.write_table(pa.table([paths, positions], schema=schema), path)
    return _file(path, record_count=len(positions), **kw)


def _dv(tmp_path, data_path, positions) -> DataFile:
    path = str(tmp_path / "dv.puffin")
    [(offset, length, card)] = write_deletion_vector_puffin(
        FileIO(), path, [(data_path, positions)]
    )
    return _file(
        path,
        fmt="PUFFIN",
        record_count=card,
        referenced_data_file=data_path,
        content_offset=offset,
        content_size_in_bytes=length,
    )


def test_position_delete_rows_split_by_data_file(tmp_path):
    meta = {b"PARQUET:field_id": b"2147483546"}, {b"PARQUET:field_id": b"2147483545"}
    schema = pa.schema(
        [
            pa.field("file_path", pa.string(), False, metadata=meta[0]),
            pa.field("pos", pa.int64(), False, metadata=meta[1]),
        ]
    )
    path = str(tmp_path / "pos.parquet")
    rows = pa.table([["b", "a", "b", "a", "b"], [7, 3, 1, 3, 4]], schema=schema)
    pq.write_table(rows, path, row_group_size=2)  # several chunks
    delete = _file(path)
    loader = DeleteLoader(FileIO())
    assert loader.deleted_positions("b", [delete]).tolist() == [1, 4, 7]
    assert loader.deleted_positions("a", [delete]).tolist() == [3]
    assert loader.deleted_positions("c", [delete]).tolist() == []
    assert loader.files_read == 1
    with pytest.raises(icesql.OperationalError, match="position delete file .*missing"):
        missing = _file(str(tmp_path / "missing.parquet"))
        DeleteLoader(FileIO()).deleted_positions("a", [missing])


def test_delete_files_in_other_formats_are_refused_by_name():
    # Parquet, ORC and Avro delete files are read (tests/scan/test_file_formats.py); a format
    # the spec does not define is refused by name, never opened as one of those
    other = _file("s3://b/t/data/del.csv", fmt="CSV")
    with pytest.raises(icesql.NotSupportedError, match="del.csv is CSV"):
        DeleteLoader(FileIO()).deleted_positions("d", [other])


def test_a_shared_delete_file_is_read_once_by_concurrent_readers(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    meta = {b"PARQUET:field_id": b"2147483546"}, {b"PARQUET:field_id": b"2147483545"}
    schema = pa.schema(
        [
            pa.field("file_path", pa.string(), False, metadata=meta[0]),
            pa.field("pos", pa.int64(), False, metadata=meta[1]),
        ]
    )
    path = str(tmp_path / "pos.parquet")
    paths = [f"d{i % 8}" for i in range(50_000)]
    pq.write_table(pa.table([paths, list(range(50_000))], schema=schema), path)
    delete = _file(path)
    loader = DeleteLoader(FileIO())
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda i: loader.deleted_positions(f"d{i}", [delete]), range(8)))
    assert [len(p) for p in found] == [6250] * 8
    assert loader.files_read == 1


def test_a_delete_file_of_one_data_file_gives_sorted_distinct_positions(tmp_path):
    delete = _position_file(
        str(tmp_path / "own.parquet"), ["d"] * 5, [9, 2, None, 9, 0], referenced_data_file="d"
    )
    loader = DeleteLoader(FileIO())
    positions = loader.deleted_positions("d", [delete])
    assert positions.dtype == np.int64 and positions.tolist() == [0, 2, 9]


def test_deletion_vectors_and_position_files_combine(tmp_path):
    dv = _dv(tmp_path, "d", [5, 1, 70_000])
    shared = _position_file(str(tmp_path / "p.parquet"), ["d", "e", "d"], [1, 3, 4])
    equality = _file(str(tmp_path / "never-read.parquet"), content=EQUALITY_DELETES)
    loader = DeleteLoader(FileIO())
    assert loader.deleted_positions("d", [dv, shared, equality]).tolist() == [1, 4, 5, 70_000]
    assert loader.deleted_positions("d", [equality]).tolist() == []  # equality: skipped
    assert loader.files_read == 2


def test_a_damaged_deletion_vector_is_a_corrupt_file_naming_it(tmp_path):
    dv = _dv(tmp_path, "d", [1, 2])
    raw = bytearray((tmp_path / "dv.puffin").read_bytes())
    raw[dv.content_offset + 12] ^= 0xFF  # inside the bitmap: the CRC no longer matches
    (tmp_path / "dv.puffin").write_bytes(bytes(raw))
    with pytest.raises(CorruptFileError, match="dv.puffin"):
        DeleteLoader(FileIO()).deleted_positions("d", [dv])
    no_offset = _file(dv.file_path, fmt="PUFFIN", referenced_data_file="d")
    with pytest.raises(CorruptFileError, match="no content_offset / content_size"):
        DeleteLoader(FileIO()).deleted_positions("d", [no_offset])


def test_a_position_file_without_its_columns_is_corrupt(tmp_path):
    path = str(tmp_path / "bad.parquet")
    pq.write_table(pa.table({"x": [1]}), path)
    with pytest.raises(CorruptFileError, match="no file_path / pos columns"):
        DeleteLoader(FileIO()).deleted_positions("d", [_file(path)])


def test_a_position_file_with_null_paths_is_a_data_error(tmp_path):
    delete = _position_file(str(tmp_path / "p.parquet"), ["d", None], [1, 2])
    with pytest.raises(icesql.DataError, match="NULL file_path"):
        DeleteLoader(FileIO()).deleted_positions("d", [delete])


def test_equality_rows_are_read_once_typed_and_named_by_position(tmp_path):
    path = str(tmp_path / "eq.parquet")
    schema = pa.schema(
        [
            pa.field("s", pa.string(), metadata={b"PARQUET:field_id": b"2"}),
            pa.field("id", pa.int64(), metadata={b"PARQUET:field_id": b"1"}),
        ]
    )
    pq.write_table(pa.table([["a", None], [1, 2]], schema=schema), path)
    delete = _file(path, content=EQUALITY_DELETES, record_count=2, equality_ids=(1, 2))
    fields = [NestedField(1, "id", LongType()), NestedField(2, "s", StringType())]
    loader = DeleteLoader(FileIO())
    table = loader.equality_rows(delete, fields)
    assert table.column_names == ["0", "1"]
    assert table.to_pydict() == {"0": [1, 2], "1": ["a", None]}
    assert loader.equality_rows(delete, fields) is table
    assert loader.files_read == 1


def test_equality_rows_of_a_file_without_ids_use_the_name_mapping(tmp_path):
    path = str(tmp_path / "eq.parquet")
    pq.write_table(pa.table({"id": pa.array([7], pa.int64())}), path)
    delete = _file(path, content=EQUALITY_DELETES, record_count=1, equality_ids=(1,))
    mapping = NameMapping.from_json('[{"field-id": 1, "names": ["id"]}]')
    loader = DeleteLoader(FileIO(), mapping)
    assert loader.equality_rows(delete, [NestedField(1, "id", LongType())]).to_pydict() == {
        "0": [7]
    }
    with pytest.raises(icesql.NotSupportedError, match="has no Iceberg field ids"):
        DeleteLoader(FileIO()).equality_rows(delete, [NestedField(1, "id", LongType())])


def test_a_missing_equality_file_is_an_operational_error_naming_it(tmp_path):
    delete = _file(str(tmp_path / "gone.parquet"), content=EQUALITY_DELETES, equality_ids=(1,))
    with pytest.raises(icesql.OperationalError, match="cannot read equality delete file .*gone"):
        DeleteLoader(FileIO()).equality_rows(delete, [NestedField(1, "id", LongType())])


def test_a_position_file_without_field_ids_is_read_by_the_specs_column_names(tmp_path):
    path = str(tmp_path / "noids.parquet")
    pq.write_table(pa.table({"file_path": ["d", "e", "d"], "pos": [8, 1, 3]}), path)
    assert DeleteLoader(FileIO()).deleted_positions("d", [_file(path)]).tolist() == [3, 8]


def test_a_position_file_whose_footer_names_are_not_utf8_is_corrupt(tmp_path):
    """Found by tests/reliability/test_fuzz_corruption.py: a flipped byte in a column name of
    the footer made pyarrow raise a raw UnicodeDecodeError out of ``ParquetFile``."""
    deletes = _position_file(str(tmp_path / "p.parquet"), ["d"], [1])
    raw = bytearray((tmp_path / "p.parquet").read_bytes())
    footer = len(raw) - 8 - int.from_bytes(raw[-8:-4], "little")
    for at in range(footer, len(raw)):  # every name in the footer, so no reader decodes one
        if raw[at : at + 9] == b"file_path":
            raw[at] ^= 0xFF  # 'f' becomes a byte no UTF-8 text starts with
    (tmp_path / "p.parquet").write_bytes(bytes(raw))
    with pytest.raises(CorruptFileError, match="p.parquet"):
        DeleteLoader(FileIO()).deleted_positions("d", [deletes])
    with pytest.raises(CorruptFileError, match="p.parquet"):
        DeleteLoader(FileIO()).position_rows(deletes)


def test_a_shared_delete_file_drops_each_part_handed_out_and_rereads_on_a_second_pass(tmp_path):
    """A scan holds the positions of the data files it has not read yet, not of all; a
    second scan of the same rows (a self-join) gets the same positions again."""
    delete = _position_file(str(tmp_path / "p.parquet"), ["b", "a", "b", "c", "a"], [7, 3, 1, 0, 9])
    loader = DeleteLoader(FileIO())
    assert loader.deleted_positions("b", [delete]).tolist() == [1, 7]
    assert set(loader._shared_positions[delete.file_path]) == {"a", "c"}  # b's part dropped
    assert loader.deleted_positions("a", [delete]).tolist() == [3, 9]
    assert loader.deleted_positions("x", [delete]).tolist() == []
    assert loader.files_read == 1
    # the second pass: read again, each data file still gets exactly its positions
    assert loader.deleted_positions("b", [delete]).tolist() == [1, 7]
    assert loader.deleted_positions("a", [delete]).tolist() == [3, 9]
    assert loader.deleted_positions("c", [delete]).tolist() == [0]
    assert loader.files_read == 2


def test_null_positions_delete_nothing_in_a_shared_file_and_are_refused_as_rows(tmp_path):
    delete = _position_file(str(tmp_path / "p.parquet"), ["b", "a", "b"], [4, None, 2])
    loader = DeleteLoader(FileIO())
    assert loader.deleted_positions("b", [delete]).tolist() == [2, 4]
    assert loader.deleted_positions("a", [delete]).tolist() == []
    with pytest.raises(icesql.DataError, match="p.parquet has NULL pos"):
        DeleteLoader(FileIO()).position_rows(delete)


def test_local_position_deletes_load_no_file_system_or_parquet_module(tmp_path) -> None:
    """A local table's position delete files are read without fsspec (with asyncio and
    ssl) or ``pyarrow.parquet`` (with ``pyarrow.fs``): importing them cost the query's
    first position delete file more than reading all its files."""
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.t (id INT, s STRING) USING iceberg PARTITIONED BY (s)"
        " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'b'), (4, 'b')")
    con.execute("DELETE FROM db.t WHERE id = 3")
    assert con.execute("SELECT content FROM db.t.delete_files").fetchall() == [(1,)]
    con.close()
    code = (
        "import sys, icesql\n"
        f"con = icesql.connect({str(tmp_path)!r})\n"
        "print(con.execute('SELECT s, count(*), sum(id) FROM db.t GROUP BY s ORDER BY s')"
        ".fetchall())\n"
        "light = ('fsspec', 'asyncio', 'ssl', 'pyarrow.parquet', 'pyarrow.fs', 'pandas')\n"
        "print(sorted(m for m in light if m in sys.modules))\n"
    )
    lines = run_python(code)
    assert lines == ["[('a', 1, 1), ('b', 2, 6)]", "[]"], lines
