"""Corruption fuzz: random byte flips and truncations of every kind of file a read touches.

Two tables, each read back through a fresh connection after one of their files was damaged:
a v2 merge-on-read table with position delete files and an equality delete file, and a v3 one
with deletion vectors (Puffin). The damaged file is the current metadata JSON, the version
hint, the manifest list, a manifest, a data file's Parquet footer, a position or equality delete
file, or a DV blob or its Puffin footer. Each read must, within a deadline:

* raise an icesql (PEP 249) error — never a raw exception of a decoder or of DuckDB — and, when
  it says the file is corrupt (``CorruptFileError``), name that file; or
* return the table's rows unchanged; or
* return other rows only when the damaged file still decodes with an independent reader (JSON,
  fastavro, pyarrow, a DV's CRC) — a file valid in form whose content changed.

The original bytes are put back after each example.
"""

from __future__ import annotations

import io
import json
import os
import threading
import zlib
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fuzz_support import fuzz_settings, normal_rows
from hypothesis import event, given
from hypothesis import strategies as st

import icesql
from icesql.errors import CorruptFileError
from icesql.metadata.manifest_list import read_manifest_list
from icesql.scan.planner import plan_scan
from icesql.spec.content_file import EQUALITY_DELETES, DataFile
from icesql.write.commit import commit
from icesql.write.snapshot import Change

pytestmark = pytest.mark.slow

DEADLINE_S = 60
TABLES = {
    "v2": "'format-version'='2', 'write.delete.mode'='merge-on-read'",
    "v3": "'format-version'='3', 'write.delete.mode'='merge-on-read'",
}
QUERY = "SELECT id, s, x, d FROM db.{} ORDER BY id"


def _equality_delete(table, ids: list[int]) -> DataFile:
    """An equality delete file on ``id`` (field 1), as writers other than icesql make them."""
    path = f"{table.metadata.location}/data/eq-deletes.parquet"
    field = pa.field("id", pa.int32(), nullable=False, metadata={b"PARQUET:field_id": b"1"})
    pq.write_table(pa.table([pa.array(ids, pa.int32())], schema=pa.schema([field])), path)
    return DataFile(
        file_path=path,
        file_format="PARQUET",
        partition=(),
        record_count=len(ids),
        file_size_in_bytes=os.path.getsize(path),
        content=EQUALITY_DELETES,
        equality_ids=(1,),
        spec_id=0,
    )


def _files(table) -> dict[str, list[str]]:
    """The files a read of the table's current snapshot opens, by kind."""
    md = table.metadata
    meta = Path(md.location, "metadata")
    versions = sorted(meta.glob("v*.metadata.json"), key=lambda p: int(p.name[1:].split(".")[0]))
    snapshot = md.current_snapshot()
    manifests = read_manifest_list(table.io, snapshot.manifest_list)
    tasks = plan_scan(md, snapshot, table.io).tasks
    deletes = {d.file_path: d for t in tasks for d in t.delete_files}
    kinds = {
        "metadata-json": [str(versions[-1])],
        "version-hint": [str(meta / "version-hint.text")],
        "manifest-list": [snapshot.manifest_list],
        "manifest": [m.manifest_path for m in manifests],
        "data-footer": sorted({t.data_file.file_path for t in tasks}),
        "position-deletes": sorted(
            p for p, d in deletes.items() if d.content == 1 and d.file_format.upper() == "PARQUET"
        ),
        "equality-deletes": sorted(p for p, d in deletes.items() if d.content == EQUALITY_DELETES),
        "dv-blob": sorted(p for p, d in deletes.items() if d.file_format.upper() == "PUFFIN"),
    }
    kinds["puffin-footer"] = kinds["dv-blob"]
    return {k: [p.removeprefix("file://") for p in v] for k, v in kinds.items() if v}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The warehouse, and per table its rows as read intact and its files by kind."""
    warehouse = str(tmp_path_factory.mktemp("corruption-fuzz"))
    con = icesql.connect(warehouse)
    con.execute("CREATE NAMESPACE db")
    out = {}
    for name, props in TABLES.items():
        con.execute(
            f"CREATE TABLE db.{name} (id INT, s STRING, x DOUBLE, d DATE) USING iceberg "
            f"TBLPROPERTIES ({props})"
        )
        for start in (0, 40):
            con.execute(
                f"INSERT INTO db.{name} SELECT CAST(id AS INT), concat('s', id), id / 4, "
                f"date_add(DATE '2024-01-01', CAST(id AS INT)) "
                f"FROM range({start}, {start + 40})"
            )
        con.execute(f"DELETE FROM db.{name} WHERE id % 7 = 3")
        if name == "v2":
            table = con.catalog.load_table(("db", name))
            commit(
                con.catalog,
                table,
                Change(operation="delete", added_files=[_equality_delete(table, [1, 2, 50])]),
            )
        rows = con.execute(QUERY.format(name)).fetchall()
        out[name] = (rows, _files(con.catalog.load_table(("db", name))))
    assert {k for _, files in out.values() for k in files} == {
        "metadata-json",
        "version-hint",
        "manifest-list",
        "manifest",
        "data-footer",
        "position-deletes",
        "equality-deletes",
        "dv-blob",
        "puffin-footer",
    }
    assert len(out["v2"][0]) == 80 - 11 - 3
    con.close()
    return warehouse, out


def _footer_length(data: bytes, magic: bytes) -> int:
    """Bytes at the end of a Parquet / Puffin file holding its footer (all when unreadable)."""
    if len(data) >= 12 and data[-4:] == magic:
        # Parquet: payload, its length, magic; Puffin: magic, payload, length, flags, magic
        n = int.from_bytes(data[-8:-4] if magic == b"PAR1" else data[-12:-8], "little")
        return min(n + (8 if magic == b"PAR1" else 16), len(data))
    return len(data)


def _puffin_footer(data: bytes) -> dict:
    """The JSON payload of a Puffin file's footer."""
    return json.loads(data[-_footer_length(data, b"PFA1") + 4 : -12])


def _region(kind: str, data: bytes, path: str) -> tuple[int, int]:
    """The byte range a corruption of ``kind`` may touch."""
    if kind in ("data-footer", "position-deletes", "equality-deletes"):
        return len(data) - _footer_length(data, b"PAR1"), len(data)
    if kind == "puffin-footer":
        return len(data) - _footer_length(data, b"PFA1"), len(data)
    if kind == "dv-blob":  # the first blob, as the intact footer places it
        blob = _puffin_footer(data)["blobs"][0]
        return blob["offset"], blob["offset"] + blob["length"]
    return 0, len(data)


def _still_decodes(kind: str, data: bytes) -> bool:
    """Whether an independent reader accepts the damaged bytes as a file of their kind."""
    try:
        if kind == "metadata-json":
            json.loads(data)
        elif kind == "version-hint":
            int(data.decode().strip())
        elif kind in ("manifest-list", "manifest"):
            list(fastavro.reader(io.BytesIO(data)))
        elif kind in ("data-footer", "position-deletes", "equality-deletes"):
            pq.read_table(io.BytesIO(data))
        else:  # Puffin: the footer's JSON, and each DV blob's CRC-32 over magic + bitmap
            for blob in _puffin_footer(data)["blobs"]:
                b = data[blob["offset"] : blob["offset"] + blob["length"]]
                if zlib.crc32(b[4:-4]) != int.from_bytes(b[-4:], "big"):
                    return False
        return True
    except Exception:
        return False


@st.composite
def corruptions(
    draw: st.DrawFn, tables_files: dict
) -> tuple[str, str, str, list[tuple[int, int]] | int]:
    """(table, kind, path, flips [(offset, xor mask)] or a truncated length)."""
    table = draw(st.sampled_from(sorted(tables_files)))
    files = tables_files[table]
    kind = draw(st.sampled_from(sorted(files)))
    path = draw(st.sampled_from(files[kind]))
    size = os.path.getsize(path)
    data = Path(path).read_bytes()
    lo, hi = _region(kind, data, path)
    if hi <= lo:
        lo, hi = 0, size
    if draw(st.integers(0, 3)) == 0:
        return table, kind, path, draw(st.integers(0, size - 1))
    flips = draw(
        st.lists(st.tuples(st.integers(lo, hi - 1), st.integers(1, 255)), min_size=1, max_size=3)
    )
    return table, kind, path, flips


def _read(warehouse: str, table: str) -> tuple[list | None, BaseException | None]:
    """Read the table through a fresh connection within the deadline."""
    result: list = []

    def run() -> None:
        try:
            con = icesql.connect(warehouse)
            try:
                result.append(con.execute(QUERY.format(table)).fetchall())
            finally:
                con.close()
        except BaseException as e:
            result.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE_S)
    assert not thread.is_alive(), f"read of db.{table} hung for {DEADLINE_S}s"
    (outcome,) = result
    return (None, outcome) if isinstance(outcome, BaseException) else (outcome, None)


COUNTS: dict[str, int] = {}


@fuzz_settings(examples=100)
@given(data=st.data())
def test_corrupt_files_give_a_clear_error_or_the_right_rows(tables, data) -> None:
    warehouse, by_table = tables
    table, kind, path, damage = data.draw(corruptions({t: f for t, (_, f) in by_table.items()}))
    original = Path(path).read_bytes()
    if isinstance(damage, int):
        damaged = original[:damage]
    else:
        buf = bytearray(original)
        for offset, mask in damage:
            buf[offset] ^= mask
        damaged = bytes(buf)
    Path(path).write_bytes(damaged)
    try:
        rows, error = _read(warehouse, table)
    finally:
        Path(path).write_bytes(original)
    COUNTS[kind] = COUNTS.get(kind, 0) + 1
    what = f"{kind} {path} {'truncated' if isinstance(damage, int) else 'flipped'} {damage}"
    if error is not None:
        event(f"{kind}: {type(error).__name__}")
        assert isinstance(error, icesql.Error), f"{what}: raw {type(error).__name__}: {error}"
        if isinstance(error, CorruptFileError):
            assert Path(error.path).name in str(error) and error.reason, what
        return
    expected = by_table[table][0]
    if normal_rows(rows, ordered=True) == normal_rows(expected, ordered=True):
        event(f"{kind}: same rows")
        return
    event(f"{kind}: other rows, file still valid")
    assert _still_decodes(kind, damaged), f"{what}: wrong rows from a file that does not decode"
