"""Arrow <-> numpy by buffers (``icesql.spec.arrays``): the same values as pyarrow's own
conversions, for slices, chunks, NULLs and every integer width, and a read with deletes in a
fresh process that never imports pandas (pyarrow's conversions do)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

import icesql
from icesql.spec.arrays import bool_array, bools, int_array, ints, repeat_int, repeat_string

INT_TYPES = [
    pa.int8(),
    pa.int16(),
    pa.int32(),
    pa.int64(),
    pa.uint8(),
    pa.uint16(),
    pa.uint32(),
    pa.uint64(),
]


@pytest.mark.parametrize("arrow_type", INT_TYPES, ids=str)
def test_ints_match_pyarrow_on_slices_of_every_width(arrow_type: pa.DataType) -> None:
    rng = np.random.default_rng(7)
    values = pa.array(rng.integers(0, 100, 50), arrow_type)
    for start, stop in [(0, 50), (3, 50), (5, 17), (49, 50), (7, 7)]:
        part = values.slice(start, stop - start)
        got = ints(part)
        assert got.dtype == part.to_numpy().dtype
        assert got.tolist() == part.to_pylist()


def test_ints_of_a_chunked_array_and_refusals() -> None:
    chunked = pa.chunked_array([[1, 2], [], [3]], pa.int64())
    assert ints(chunked).tolist() == [1, 2, 3]
    assert ints(pa.chunked_array([], pa.int64())).tolist() == []
    with pytest.raises(ValueError, match="NULL"):
        ints(pa.array([1, None], pa.int64()))
    with pytest.raises(TypeError, match="integer"):
        ints(pa.array([1.0]))


def test_ints_share_memory_read_only() -> None:
    got = ints(pa.array([1, 2, 3], pa.int64()))
    with pytest.raises(ValueError):
        got[0] = 5  # a caller cannot change an Arrow buffer behind pyarrow's back


def test_bools_match_pyarrow_on_slices_and_nulls() -> None:
    rng = np.random.default_rng(11)
    flags = rng.random(70) < 0.5
    nulls = rng.random(70) < 0.2
    arrays = [pa.array(flags), pa.array(flags, mask=nulls)]
    for array in arrays:
        for start, stop in [(0, 70), (1, 70), (9, 23), (69, 70), (4, 4)]:
            part = array.slice(start, stop - start)
            expected = [bool(v) for v in part.fill_null(False).to_pylist()]
            assert bools(part).tolist() == expected
    assert bools(pa.chunked_array([[True], [False, True]])).tolist() == [True, False, True]
    with pytest.raises(TypeError, match="boolean"):
        bools(pa.array([1]))


def test_round_trips() -> None:
    rng = np.random.default_rng(3)
    for n in (0, 1, 7, 8, 9, 1000):
        flags = rng.random(n) < 0.3
        array = bool_array(flags)
        assert array.type == pa.bool_() and array.null_count == 0
        assert array.to_pylist() == flags.tolist()
        values = rng.integers(-(2**40), 2**40, n)
        assert int_array(values).to_pylist() == values.tolist()
        assert int_array(values).type == pa.int64()
        assert repeat_string("d/é x.parquet", n).to_pylist() == ["d/é x.parquet"] * n
        assert repeat_string("", n).to_pylist() == [""] * n
        for arrow_type in (pa.int32(), pa.int64()):
            got = repeat_int(-5, arrow_type, n)
            assert got.type == arrow_type and got.to_pylist() == [-5] * n


SCRIPT = """
import json, sys
import icesql
con = icesql.connect(sys.argv[1])
rows = {}
for table in ("pos", "dv"):
    rows[table] = con.execute(f"SELECT count(*), sum(id) FROM db.{table}").fetchall()[0]
    rows[table + "_k"] = con.execute(f"SELECT sum(k) FROM db.{table}").fetchall()[0]
    rows[table + "_meta"] = con.execute(
        f"SELECT count(DISTINCT _file), max(_pos), max(_spec_id) FROM db.{table}").fetchall()[0]
reads = "pandas" in sys.modules
for table in ("pos", "dv"):  # merge-on-read DML reads _file/_pos and writes deletes
    con.execute(f"DELETE FROM db.{table} WHERE id % 10 = 4")
    con.execute(f"UPDATE db.{table} SET k = -1 WHERE id % 10 = 5")
    rows[table + "_dml"] = con.execute(f"SELECT count(*), sum(k) FROM db.{table}").fetchall()[0]
print(json.dumps({"rows": rows, "pandas": reads, "pandas_dml": "pandas" in sys.modules}))
"""


def test_reads_and_dml_with_position_deletes_and_dvs_import_no_pandas(tmp_path) -> None:
    """Both read routes (DuckDB's keep-masks for a projection, the Arrow stream for count(*)
    and metadata columns), and merge-on-read DELETE / UPDATE."""
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE NAMESPACE db")
    for table, version in (("pos", 2), ("dv", 3)):
        con.execute(
            f"CREATE TABLE db.{table} (id BIGINT, k INT) TBLPROPERTIES ('format-version' ="
            f" '{version}', 'write.delete.mode' = 'merge-on-read',"
            " 'write.update.mode' = 'merge-on-read')"
        )
        con.execute(f"INSERT INTO db.{table} SELECT id, id % 7 FROM range(1000) t(id)")
        con.execute(f"DELETE FROM db.{table} WHERE id % 10 = 3")
        formats = con.execute(f"SELECT file_format FROM db.{table}.delete_files").fetchall()
        assert formats and {f.upper() for (f,) in formats} == {
            "PARQUET" if version == 2 else "PUFFIN"
        }
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    kept = [i for i in range(1000) if i % 10 != 3]
    for table in ("pos", "dv"):
        assert result["rows"][table] == [len(kept), sum(kept)]
        assert result["rows"][table + "_k"] == [sum(i % 7 for i in kept)]
        assert result["rows"][table + "_meta"] == [1, 999, 0]
        after = [i for i in kept if i % 10 != 4]
        assert result["rows"][table + "_dml"] == [
            len(after),
            sum(-1 if i % 10 == 5 else i % 7 for i in after),
        ]
    assert result["pandas"] is False
    assert result["pandas_dml"] is False
