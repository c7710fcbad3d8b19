"""``has_field_ids`` reads the Parquet footer's schema as pyarrow does: a file has field ids
when a top-level column carries one (the Arrow stream's rule), whatever else the footer
holds; a file that cannot be read or decoded is not taken to have them."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icesql.metadata import parquet_footer
from icesql.metadata.parquet_footer import has_field_ids
from icesql.scan.conform import FIELD_ID_KEY


def _field(name: str, t: pa.DataType, fid: int | None = None) -> pa.Field:
    return pa.field(
        name, t, metadata={FIELD_ID_KEY: str(fid).encode()} if fid is not None else None
    )


def _pyarrow_says(path: Path) -> bool:
    """The oracle: the stream's rule applied to pyarrow's reading of the footer."""
    return any(f.metadata and FIELD_ID_KEY in f.metadata for f in pq.read_schema(path))


NESTED_NO_TOP_ID = pa.schema(
    [
        _field("s", pa.struct([_field("a", pa.int32(), 5), _field("b", pa.string(), 6)])),
        _field("l", pa.list_(_field("element", pa.int64(), 7))),
    ]
)
SCHEMAS = {
    "no ids": pa.schema([_field("id", pa.int64()), _field("s", pa.string())]),
    "all ids": pa.schema([_field("id", pa.int64(), 1), _field("s", pa.string(), 2)]),
    "last column only": pa.schema([_field("id", pa.int64()), _field("s", pa.string(), 2)]),
    "id 0": pa.schema([_field("id", pa.int64(), 0)]),
    # nested children with ids do not count, as in the stream: the top level has none
    "nested children only": NESTED_NO_TOP_ID,
    "after nested columns": pa.schema(
        [
            *NESTED_NO_TOP_ID,
            _field("m", pa.map_(pa.string(), pa.struct([_field("w", pa.int32())]))),
            _field("d", pa.decimal128(20, 3), 9),
        ]
    ),
    # names of 128 bytes and more (a two-byte length), large ids and logical types (structs
    # inside the element) before the column with an id
    "long names, logical types": pa.schema(
        [
            _field("n" * 200, pa.timestamp("us", tz="UTC")),
            _field("é" * 70, pa.decimal128(38, 10)),
            _field("t", pa.time64("us")),
            _field("w" * 127, pa.string(), 2_000_000),
        ]
    ),
}


def _rows(schema: pa.Schema, n: int) -> pa.Table:
    return pa.Table.from_pylist([{} for _ in range(n)], schema=schema)


@pytest.mark.parametrize("name", list(SCHEMAS))
@pytest.mark.parametrize(
    "options",
    [
        {},
        # key/value metadata, several row groups, data page v2, no statistics, other codec
        {
            "row_group_size": 2,
            "data_page_version": "2.0",
            "write_statistics": False,
            "compression": "gzip",
        },
    ],
    ids=["default", "options"],
)
def test_agrees_with_pyarrow(tmp_path: Path, name: str, options: dict) -> None:
    schema = SCHEMAS[name].with_metadata({"writer": "test", "k": "v" * 300})
    path = tmp_path / "f.parquet"
    pq.write_table(_rows(schema, 5), path, **options)
    assert has_field_ids(str(path)) == _pyarrow_says(path)
    assert has_field_ids(str(path)) == (
        name
        in (
            "all ids",
            "last column only",
            "id 0",
            "after nested columns",
            "long names, logical types",
        )
    )
    assert parquet_footer.footer_row_count(str(path)) == 5
    assert parquet_footer.footer_row_groups(str(path)) == pq.read_metadata(path).num_row_groups


def test_a_schema_past_the_first_footer_read(tmp_path: Path, monkeypatch) -> None:
    """The footer's first bytes end before the schema does: the rest is read."""
    monkeypatch.setattr(parquet_footer, "FOOTER_PREFIX", 40)
    schema = pa.schema([_field(f"c{i}", pa.int32(), 50 if i == 29 else None) for i in range(30)])
    path = tmp_path / "wide.parquet"
    pq.write_table(_rows(schema, 1), path)
    assert has_field_ids(str(path))
    no_ids = tmp_path / "wide-no-ids.parquet"
    pq.write_table(_rows(schema.remove(29), 1), no_ids)
    assert not has_field_ids(str(no_ids))


def test_unreadable_files_are_not_taken_to_have_ids(tmp_path: Path) -> None:
    good = tmp_path / "good.parquet"
    pq.write_table(_rows(SCHEMAS["all ids"], 3), good)
    data = good.read_bytes()
    footer = data[-8 - int.from_bytes(data[-8:-4], "little") : -8]
    cases = {
        "missing": None,
        "empty": b"",
        "truncated": data[:20],
        "not parquet": b"x" * 100,
        "footer length past the start": data[:-8] + (10**6).to_bytes(4, "little") + b"PAR1",
        "encrypted footer magic": data[:-4] + b"PARE",
        "schema cut short": b"PAR1" + footer[:8] + (8).to_bytes(4, "little") + b"PAR1",
    }
    for name, content in cases.items():
        path = tmp_path / f"{name}.parquet"
        if content is not None:
            path.write_bytes(content)
        assert not has_field_ids(str(path)), name


def test_answers_are_cached_until_the_file_changes(tmp_path: Path, monkeypatch) -> None:
    reads = []
    tail = parquet_footer._read_tail
    monkeypatch.setattr(parquet_footer, "_read_tail", lambda *a: reads.append(a) or tail(*a))
    path = tmp_path / "f.parquet"
    pq.write_table(_rows(SCHEMAS["no ids"], 3), path)
    assert not has_field_ids(str(path)) and not has_field_ids(str(path))
    assert len(reads) == 1
    pq.write_table(_rows(SCHEMAS["all ids"], 3), path)  # rewritten in place
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert has_field_ids(str(path))
    assert len(reads) == 2


def test_field_ids_are_decoded_up_to_the_first_column_with_one(tmp_path: Path, monkeypatch) -> None:
    """Only the root and the first column are decoded when that column has an id (a 10,000
    file scan decoded 17 elements a file); the row count decodes the rest, once."""
    decoded = []
    element = parquet_footer._schema_element
    monkeypatch.setattr(
        parquet_footer, "_schema_element", lambda *a: decoded.append(1) or element(*a)
    )
    path = tmp_path / "wide.parquet"
    pq.write_table(
        _rows(pa.schema([_field(f"c{i}", pa.int32(), i + 1) for i in range(30)]), 1), path
    )
    assert has_field_ids(str(path)) and len(decoded) == 2
    assert parquet_footer.footer_row_count(str(path)) == 1 and len(decoded) == 2 + 31
    assert has_field_ids(str(path)) and len(decoded) == 33  # answered by the full decode's cache


@pytest.mark.parametrize("rows", [0, 1, 7, 300])
def test_row_count_is_the_footers(tmp_path: Path, rows: int) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(_rows(SCHEMAS["after nested columns"], rows), path, row_group_size=100)
    assert parquet_footer.footer_row_count(str(path)) == pq.read_metadata(path).num_rows == rows
    assert parquet_footer.footer_row_count(str(tmp_path / "missing.parquet")) is None


def test_a_small_files_footer_is_one_read(tmp_path: Path, monkeypatch) -> None:
    """The tail of a file read once holds its whole footer (a table of many small files
    pays one read per file); a footer longer than the prefix read takes a second."""
    reads: list[int] = []

    class Counting:
        def __init__(self, f):
            self._f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._f.close()

        def seek(self, pos):
            return self._f.seek(pos)

        def read(self, n=-1):
            reads.append(n)
            return self._f.read(n)

    monkeypatch.setattr(
        parquet_footer, "open", lambda *a, **k: Counting(open(*a, **k)), raising=False
    )
    small = tmp_path / "small.parquet"
    pq.write_table(_rows(SCHEMAS["all ids"], 3), small)
    assert has_field_ids(str(small), decode_all=True) and len(reads) == 1
    assert parquet_footer.footer_row_count(str(small)) == 3 and len(reads) == 1  # cached
    monkeypatch.setattr(parquet_footer, "FOOTER_PREFIX", 40)
    wide = tmp_path / "wide.parquet"
    schema = pa.schema([_field(f"c{i}", pa.int32(), i + 1) for i in range(30)])
    pq.write_table(_rows(schema, 2), wide)
    reads.clear()
    assert has_field_ids(str(wide)) and parquet_footer.footer_row_count(str(wide)) == 2
    assert len(reads) >= 2
