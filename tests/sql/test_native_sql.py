"""The trees ``icesql.sql.native_sql`` writes run in DuckDB over real Parquet files (field
ids, quotes in paths, keep-masks, tagged anti-joins) and give what plain DuckDB SQL over
the same files gives."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlglot import exp

from icesql.scan.read_parts import (
    AntiJoin,
    DeleteRows,
    EqualityJoin,
    FileRead,
    FileValues,
    ParquetCall,
    ReadColumn,
    RowPosition,
)
from icesql.sql.native_sql import native_query

ID, NAME = ReadColumn(1, "id", "BIGINT", None), ReadColumn(2, "name", "VARCHAR", None)


def _write(path: Path, ids: list[int], names: list[str | None] | None = None) -> str:
    fields = [pa.field("id", pa.int64(), metadata={b"PARQUET:field_id": b"1"})]
    columns: list[list] = [ids]
    if names is not None:
        fields.append(pa.field("name", pa.string(), metadata={b"PARQUET:field_id": b"2"}))
        columns.append(names)
    pq.write_table(pa.table(columns, schema=pa.schema(fields)), path)
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    """Two data files, the second without column ``name`` and with a quote in its path."""
    first = _write(tmp_path / "a.parquet", [1, 2, 3], ["x", None, "z"])
    second = _write(tmp_path / "it's b.parquet", [4, 5])
    return first, second


def _run(parts: tuple, **relations: object) -> list[tuple]:
    duck = duckdb.connect()
    for name, value in relations.items():
        duck.register(name, value)
    return sorted(duck.execute(native_query(parts).sql("duckdb")).fetchall())


def test_a_read_gives_columns_by_id_defaults_and_file_values(files) -> None:
    first, second = files
    call = ParquetCall(
        (first, second), (ID, ReadColumn(2, "label", "VARCHAR", "none")), row_numbers=True
    )
    extra = (RowPosition(), FileValues("_file", "VARCHAR", ("s3://a", "s3://it's")))
    got = _run((FileRead(call, extra),))
    duck = duckdb.connect()  # the same files by plain SQL
    plain = duck.execute(
        "SELECT id, coalesce(name, CASE WHEN filename LIKE '%a.parquet' THEN NULL ELSE 'none' END),"
        " file_row_number, CASE WHEN filename LIKE '%a.parquet' THEN 's3://a' ELSE 's3://it''s' END"
        " FROM read_parquet(?, filename=true, file_row_number=true, union_by_name=true)",
        [[first, second]],
    ).fetchall()
    assert got == sorted(plain)
    assert got[0] == (1, "x", 0, "s3://a") and got[-1] == (5, "none", 1, "s3://it's")


def test_one_value_for_all_files_is_a_constant(files) -> None:
    call = ParquetCall(files, (ID,))
    query = native_query((FileRead(call, (FileValues("_spec_id", "INTEGER", (7,)),)),))
    assert not list(query.find_all(exp.Anonymous))[1:]  # read_parquet only: no list_extract
    assert _run((FileRead(call, (FileValues("_spec_id", "INTEGER", (7,)),)),)) == [
        (i, 7) for i in range(1, 6)
    ]


def test_a_masked_read_keeps_the_flagged_rows(files) -> None:
    mask = pa.table({"keep": [True, False, True, False, True]})
    got = _run((FileRead(ParquetCall(files, (ID,)), mask="m0"),), m0=mask)
    assert got == [(1,), (3,), (5,)]


def test_anti_joins_drop_the_matching_rows(files, tmp_path) -> None:
    deletes = _write(tmp_path / "eq.parquet", [2, 5])
    rows = DeleteRows(ParquetCall((deletes,), (ReadColumn(1, "0", "BIGINT", None),)))
    parts = (
        AntiJoin(
            (FileRead(ParquetCall(files, (ID,))),),
            ("id",),
            (EqualityJoin(rows, ("id",), tagged=False, checked=(False,)),),
        ),
    )
    assert _run(parts) == [(1,), (3,), (4,)]
    checked = (EqualityJoin(rows, ("id",), tagged=False, checked=(True,)),)
    assert _run((AntiJoin(parts[0].inner, ("id",), checked),)) == [(1,), (3,), (4,)]


def test_tagged_anti_joins_match_only_the_files_a_delete_applies_to(files, tmp_path) -> None:
    first, second = files
    deletes = _write(tmp_path / "eq.parquet", [2, 5])
    call = ParquetCall((first, second), (ID,))
    tagged = FileRead(call, (FileValues("__icesql_part", "INTEGER", (0, 1)),))
    # the delete file applies to the first data file only (tag 0)
    rows = DeleteRows(ParquetCall((deletes,), (ReadColumn(1, "0", "BIGINT", None),)), ((0,),))
    join = EqualityJoin(rows, ("id",), tagged=True, checked=(False,))
    assert _run((AntiJoin((tagged,), ("id",), (join,)),)) == [(1,), (3,), (4,), (5,)]


def test_parts_union_all(files) -> None:
    first, second = files
    parts = (FileRead(ParquetCall((first,), (ID,))), FileRead(ParquetCall((first,), (ID,))))
    assert _run(parts) == [(1,), (1,), (2,), (2,), (3,), (3,)]
    assert _run(parts[:1] + (FileRead(ParquetCall((second,), (ID,))),)) == [
        (i,) for i in range(1, 6)
    ]
