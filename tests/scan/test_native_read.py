"""Files DuckDB reads itself (``read_parquet`` with a field-id schema) give exactly what the
Arrow stream gives: the same DuckDB types and the same values, across schema evolution,
identity partitions, missing columns, and mixed with streamed files that have deletes."""

from __future__ import annotations

import datetime as dt
import os
import re
import uuid
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import icesql
from icesql.errors import CorruptFileError
from icesql.scan.native_read import default_text, duckdb_type
from icesql.scan.table_scan import NAME_MAPPING_PROPERTY, TableScan
from icesql.scan.time_travel import select_version
from icesql.spec.arrow import schema_to_arrow, type_to_arrow
from icesql.spec.content_file import DataFile
from icesql.spec.name_mapping import create_mapping_from_schema
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import parse_transform
from icesql.spec.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

PRIMITIVES = [
    BooleanType(),
    IntegerType(),
    LongType(),
    FloatType(),
    DoubleType(),
    DateType(),
    TimeType(),
    TimestampType(),
    TimestamptzType(),
    TimestampNanoType(),
    TimestamptzNanoType(),
    StringType(),
    UUIDType(),
    BinaryType(),
    FixedType(3),
    DecimalType(9, 2),
    DecimalType(38, 10),
]


@pytest.mark.parametrize("t", PRIMITIVES, ids=str)
def test_duckdb_type_is_what_the_arrow_stream_gives(t) -> None:
    duck = duckdb.connect()
    duck.register("stream", pa.table({"c": pa.nulls(1, type_to_arrow(t))}))
    assert duck.sql("SELECT * FROM stream").types == [duckdb_type(t)]


def test_nested_and_opaque_types_stay_on_the_stream() -> None:
    assert duckdb_type(ListType(2, IntegerType(), False)) is None
    assert duckdb_type(StructType((NestedField(3, "a", IntegerType()),))) is None


def _stream_result(con: icesql.Connection, identifier: str, sql: str) -> pa.Table:
    """``sql`` (over table ``t``) with every file read through the Arrow stream."""
    table = con.catalog.load_table(tuple(identifier.split(".")))
    scan = TableScan(table, select_version(table.metadata, table.name))
    duck = duckdb.connect()
    duck.execute("SET TimeZone = 'UTC'")
    duck.register("t", scan)
    return duck.sql(sql).to_arrow_table()


def _readers(con: icesql.Connection, sql: str) -> str:
    text = con.execute(f"EXPLAIN {sql}").fetchone()[0]
    return next(line for line in text.splitlines() if line.startswith("readers:"))


def _same(con: icesql.Connection, identifier: str, order: str = "1") -> pa.Table:
    got = con.execute(f"SELECT * FROM {identifier} ORDER BY {order}").fetch_arrow_table()
    want = _stream_result(con, identifier, f"SELECT * FROM t ORDER BY {order}")
    assert got.schema.equals(want.schema), (got.schema, want.schema)
    assert got.equals(want)
    return got


def test_every_primitive_type_reads_the_same_as_the_stream(make_table, warehouse) -> None:
    fields = tuple(NestedField(i + 1, f"c{i}", t) for i, t in enumerate(PRIMITIVES))
    schema = Schema((NestedField(100, "id", IntegerType()), *fields))
    values = [
        True,
        -7,
        2**40,
        1.5,
        -2.25,
        19000,
        3_600_000_001,
        1_700_000_000_123_456,
        1_700_000_000_123_456,
        1_700_000_000_123_456_789,
        1_700_000_000_123_456_789,
        "héllo",
        uuid.UUID("12345678-1234-5678-1234-567812345678"),
        b"\x00\xffbin",
        b"abc",
        Decimal("1234567.89"),
        Decimal("-1234567890123456789012.3456789012"),
    ]
    row = {"id": 1, **{f"c{i}": v for i, v in enumerate(values)}}
    empty = {"id": 2}
    make_table("db.types", schema).append([row, empty])
    con = icesql.connect(str(warehouse))
    got = _same(con, "db.types")
    assert got.num_rows == 2 and got.column("c12")[0].as_py() == values[12].bytes
    assert got.column("c9").cast(pa.int64())[0].as_py() == values[9]
    assert _readers(con, "SELECT * FROM db.types") == (
        "readers: DuckDB read_parquet 1 file, Arrow stream 0 files"
    )


def _evolve(writer, schema: Schema, format_version: int | None = None) -> None:
    builder = writer.metadata.builder()
    if format_version is not None:
        builder.upgrade_format_version(format_version)
    builder.set_current_schema(builder.add_schema(schema))
    writer.metadata = builder.build()
    writer.schema = writer.metadata.schema()
    writer._write_metadata()


def test_renamed_promoted_dropped_and_added_columns(make_table, warehouse) -> None:
    """Files written before and after the changes, read by one ``read_parquet``."""
    old = Schema(
        (
            NestedField(1, "id", IntegerType()),
            NestedField(2, "n", IntegerType()),
            NestedField(3, "f", FloatType()),
            NestedField(4, "d", DecimalType(9, 2)),
            NestedField(5, "gone", StringType()),
            NestedField(6, "day", DateType()),
        )
    )
    writer = make_table("db.evolved", old)
    writer.append(
        [
            {"id": 1, "n": 5, "f": 1.25, "d": Decimal("3.10"), "gone": "x", "day": 19000},
            {"id": 2, "n": None, "f": None, "d": None, "gone": None, "day": None},
        ]
    )
    mid = (
        NestedField(1, "id", IntegerType()),
        NestedField(2, "n_long", LongType()),
        NestedField(3, "f", DoubleType()),
        NestedField(4, "d", DecimalType(12, 2)),
        NestedField(6, "day", DateType()),
        NestedField(7, "added", StringType()),
    )
    _evolve(writer, Schema(mid))
    writer.append(
        [
            {
                "id": 3,
                "n_long": 2**40,
                "f": 0.1,
                "d": Decimal("1234567890.12"),
                "day": 1,
                "added": "new",
            }
        ]
    )
    new = Schema(
        (
            *mid[:4],
            NestedField(6, "at", TimestampType()),  # v3: date -> timestamp
            mid[5],
            NestedField(8, "with_default", DecimalType(5, 1), initial_default=Decimal("2.5")),
            NestedField(9, "ts_default", TimestamptzType(), initial_default=1_000_000),
            NestedField(10, "flag_default", BooleanType(), initial_default=True),
        )
    )
    _evolve(writer, new, format_version=3)
    con = icesql.connect(str(warehouse))
    rows = _same(con, "db.evolved").to_pylist()
    defaults = {
        "with_default": Decimal("2.5"),
        "ts_default": dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC),
        "flag_default": True,
    }
    assert rows[0] == {
        "id": 1,
        "n_long": 5,
        "f": 1.25,
        "d": Decimal("3.10"),
        "at": dt.datetime(2022, 1, 8),
        "added": None,
        **defaults,
    }
    assert rows[2] == {
        "id": 3,
        "n_long": 2**40,
        "f": 0.1,
        "d": Decimal("1234567890.12"),
        "at": dt.datetime(1970, 1, 2),
        "added": "new",
        **defaults,
    }
    assert "DuckDB read_parquet 2 files" in _readers(con, "SELECT * FROM db.evolved")


def test_column_names_that_need_quoting(make_table, warehouse) -> None:
    schema = Schema((NestedField(1, "it's", LongType()), NestedField(2, 'we "ird"', StringType())))
    make_table("db.names", schema).append([{"it's": 1, 'we "ird"': "x"}])
    con = icesql.connect(str(warehouse))
    _same(con, "db.names")
    assert con.execute('SELECT `we "ird"` FROM db.names WHERE `it\'s` = 1').fetchall() == [("x",)]


def test_identity_partition_column_missing_from_the_file(make_table, warehouse) -> None:
    """Spec, Column Projection: a column the file lacks takes its identity partition value;
    files are grouped by that value, and a file that holds the column keeps its values."""
    schema = Schema((NestedField(1, "id", LongType()), NestedField(2, "region", StringType())))
    spec = PartitionSpec(0, (PartitionField(2, 1000, parse_transform("identity"), "region"),))
    writer = make_table("db.parts", schema, spec)
    writer.append([{"id": 1, "region": "eu"}, {"id": 2, "region": "us"}])
    files = []
    for region, ids in (("eu", [10, 11]), ("it's", [12])):  # files without the column
        path = f"{writer.location}/data/{region.replace(chr(39), '')}-nocol.parquet"
        only_id = Schema((schema.fields[0],))
        pq.write_table(
            pa.table({"id": pa.array(ids, pa.int64())}, schema=schema_to_arrow(only_id)), path
        )
        files.append(
            DataFile(
                file_path=path,
                file_format="PARQUET",
                partition=(region,),
                record_count=len(ids),
                file_size_in_bytes=os.path.getsize(path),
            )
        )
    writer.commit_files(files)
    con = icesql.connect(str(warehouse))
    got = _same(con, "db.parts")
    assert got.to_pylist() == [
        {"id": 1, "region": "eu"},
        {"id": 2, "region": "us"},
        {"id": 10, "region": "eu"},
        {"id": 11, "region": "eu"},
        {"id": 12, "region": "it's"},
    ]
    assert con.execute("SELECT count(*) FROM db.parts WHERE region = 'eu'").fetchone() == (3,)
    assert "DuckDB read_parquet 4 files" in _readers(con, "SELECT * FROM db.parts")


def test_files_past_the_group_limit_stream(make_table, warehouse, monkeypatch) -> None:
    from icesql.scan import native_read

    monkeypatch.setattr(native_read, "MAX_GROUPS", 2)
    schema = Schema((NestedField(1, "id", LongType()), NestedField(2, "k", IntegerType())))
    spec = PartitionSpec(0, (PartitionField(2, 1000, parse_transform("identity"), "k"),))
    make_table("db.groups", schema, spec).append([{"id": i, "k": i % 5} for i in range(20)])
    con = icesql.connect(str(warehouse))
    assert _same(con, "db.groups").num_rows == 20
    assert _readers(con, "SELECT * FROM db.groups") == (
        "readers: DuckDB read_parquet 2 files, Arrow stream 3 files"
    )
    # without the identity column in the query every file is one group
    assert _readers(con, "SELECT id FROM db.groups") == (
        "readers: DuckDB read_parquet 5 files, Arrow stream 0 files"
    )


def test_files_with_deletes_union_with_the_rest(make_table, warehouse) -> None:
    schema = Schema((NestedField(1, "id", LongType()), NestedField(2, "s", StringType())))
    writer = make_table("db.mixed", schema)
    writer.append([{"id": i, "s": f"r{i}"} for i in range(10)], rows_per_file=5)
    first = writer.files[0]
    writer.commit_files([writer.position_deletes(first, [0, 3])], content=1)
    con = icesql.connect(str(warehouse))
    got = _same(con, "db.mixed")
    assert got.column("id").to_pylist() == [i for i in range(10) if i not in (0, 3)]
    assert _readers(con, "SELECT * FROM db.mixed") == (
        "readers: DuckDB read_parquet 2 files (1 with deletes), Arrow stream 0 files"
    )
    # _file / _pos / _spec_id come from DuckDB too; other metadata columns keep the stream
    assert _readers(con, "SELECT id, _pos FROM db.mixed") == (
        "readers: DuckDB read_parquet 2 files (1 with deletes), Arrow stream 0 files"
    )
    assert _readers(con, "SELECT id, _deleted FROM db.mixed") == (
        "readers: DuckDB read_parquet 0 files, Arrow stream 2 files"
    )
    assert con.execute("SELECT count(*), sum(id) FROM db.mixed").fetchone() == (8, 42)


def test_file_position_and_spec_id_read_as_the_stream_gives_them(make_table, warehouse) -> None:
    """What DML reads of its target: ``_file``, ``_pos`` and ``_spec_id`` from DuckDB's
    ``file_row_number`` and each row's ``file_index``, over files without deletes, with
    position deletes (positional scans) and with equality deletes (the anti-join), under
    two specs; a data column named like DuckDB's virtual columns keeps the stream."""
    schema = Schema(
        (
            NestedField(1, "id", LongType()),
            NestedField(2, "s", StringType()),
            NestedField(3, "file_index", LongType()),
        )
    )
    writer = make_table("db.meta", schema)
    writer.append(
        [{"id": i, "s": f"r{i % 3}", "file_index": i} for i in range(12)], rows_per_file=4
    )
    first, second = writer.files[0], writer.files[1]
    writer.commit_files([writer.position_deletes(first, [1, 2])], content=1)
    # 13 is written later: the equality delete does not apply to it
    writer.commit_files([writer.equality_deletes(["id"], [{"id": 5}, {"id": 13}])], content=2)
    writer.evolve_spec(
        PartitionSpec(1, (PartitionField(2, 1000, parse_transform("identity"), "s"),))
    )
    writer.append([{"id": i, "s": f"r{i % 3}", "file_index": i} for i in range(12, 18)])
    con = icesql.connect(str(warehouse))
    sql = "SELECT _file, _pos, _spec_id, id, s FROM db.meta ORDER BY id"
    assert _readers(con, sql) == (
        "readers: DuckDB read_parquet 6 files (3 with deletes), Arrow stream 0 files"
    )
    got = con.execute(sql).fetch_arrow_table()
    assert _readers(con, "SELECT *, _pos FROM db.meta") == (
        "readers: DuckDB read_parquet 0 files, Arrow stream 6 files"  # file_index hides DuckDB's
    )
    con.execute("SET icesql.scan.nativeParquet = false")
    want = con.execute(sql).fetch_arrow_table()
    assert got.schema.equals(want.schema) and got.equals(want)
    assert got.column("id").to_pylist() == [i for i in range(18) if i not in (1, 2, 5)]
    rows = {r["id"]: r for r in got.to_pylist()}
    assert rows[0]["_file"] == first.file_path and rows[3]["_pos"] == 3
    assert rows[4]["_file"] == second.file_path and rows[4]["_pos"] == 0
    assert {rows[i]["_spec_id"] for i in (0, 11)} == {0} and rows[12]["_spec_id"] == 1


def test_native_parquet_setting_sends_every_file_through_the_stream(make_table, warehouse) -> None:
    schema = Schema((NestedField(1, "id", LongType()), NestedField(2, "s", StringType())))
    make_table("db.switch", schema).append([{"id": i, "s": f"r{i}"} for i in range(4)])
    con = icesql.connect(str(warehouse))
    native = con.execute("SELECT * FROM db.switch ORDER BY id").fetch_arrow_table()
    con.execute("SET icesql.scan.nativeParquet = false")
    assert _readers(con, "SELECT * FROM db.switch") == (
        "readers: DuckDB read_parquet 0 files, Arrow stream 1 file"
    )
    assert con.execute("SELECT * FROM db.switch ORDER BY id").fetch_arrow_table().equals(native)
    with pytest.raises(icesql.ProgrammingError, match="TRUE, FALSE"):
        con.execute("SET icesql.scan.nativeParquet = sometimes")


def test_missing_and_corrupt_files_name_the_file(make_table, warehouse: Path) -> None:
    schema = Schema((NestedField(1, "id", LongType()),))
    paths = {}
    for name in ("missing", "corrupt"):
        writer = make_table(f"db.{name}", schema)
        writer.append([{"id": i} for i in range(6)], rows_per_file=3)
        paths[name] = writer.files[1].file_path
    os.remove(paths["missing"])
    with open(paths["corrupt"], "r+b") as f:
        f.truncate(20)
    con = icesql.connect(str(warehouse))
    with pytest.raises(icesql.OperationalError, match="data file not found") as info:
        con.execute("SELECT sum(id) FROM db.missing").fetchall()
    assert paths["missing"] in str(info.value)
    with pytest.raises(icesql.OperationalError) as info:
        con.execute("SELECT sum(id) FROM db.corrupt").fetchall()
    assert paths["corrupt"] in str(info.value)


def _add_file_without_field_ids(writer, rows: dict[str, list]) -> str:
    """A Parquet file written by pyarrow with plain column names (no field ids), committed
    without column metrics, as a foreign writer or an import might leave it."""
    path = f"{writer.location}/data/no-ids-{uuid.uuid4().hex[:8]}.parquet"
    pq.write_table(pa.table(rows), path)
    assert not any(f.metadata for f in pq.read_schema(path))
    writer.commit_files(
        [
            DataFile(
                file_path=path,
                file_format="PARQUET",
                partition=(),
                record_count=len(next(iter(rows.values()))),
                file_size_in_bytes=os.path.getsize(path),
            )
        ]
    )
    return path


def test_files_without_field_ids_raise_on_both_routes(make_table, warehouse) -> None:
    """DuckDB's ``read_parquet`` would read an id-less file as NULLs: it stays on the stream,
    which names it; a name mapping then reads it on both routes."""
    schema = Schema((NestedField(1, "id", LongType()), NestedField(2, "s", StringType())))
    writer = make_table("db.noids", schema)
    writer.append([{"id": 1, "s": "a"}])
    path = _add_file_without_field_ids(
        writer,
        {"s": ["c", "b"], "id": pa.array([3, 2], pa.int64())},  # another order
    )
    con = icesql.connect(str(warehouse))
    assert _readers(con, "SELECT id, s FROM db.noids") == (
        "readers: DuckDB read_parquet 1 file, Arrow stream 1 file"
    )
    for native in ("true", "false"):
        con.execute(f"SET icesql.scan.nativeParquet = {native}")
        for sql in ("SELECT id, s FROM db.noids", "SELECT sum(id) FROM db.noids"):
            with pytest.raises(icesql.NotSupportedError, match=re.escape(path) + ".*mapping"):
                con.execute(sql).fetchall()
    builder = writer.metadata.builder()
    mapping = create_mapping_from_schema(schema).to_json_string()
    builder.set_properties({NAME_MAPPING_PROPERTY: mapping})
    writer.metadata = builder.build()
    writer._write_metadata()
    for native in ("true", "false"):
        con.execute(f"SET icesql.scan.nativeParquet = {native}")
        assert con.execute("SELECT id, s FROM db.noids ORDER BY id").fetchall() == [
            (1, "a"),
            (2, "b"),
            (3, "c"),
        ]
        assert con.execute("SELECT sum(id) FROM db.noids").fetchone() == (6,)
    # the mapping is for files without ids: the file with ids still goes to DuckDB
    con.execute("SET icesql.scan.nativeParquet = true")
    assert _readers(con, "SELECT id, s FROM db.noids") == (
        "readers: DuckDB read_parquet 1 file, Arrow stream 1 file"
    )


def test_files_without_metrics_read_natively(warehouse) -> None:
    """The field-id check reads footers, not manifest metrics: a file written with metrics
    mode none still goes to DuckDB's reader, with the right values."""
    con = icesql.connect(str(warehouse), create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.bare (id BIGINT, s STRING, d DECIMAL(9, 2)) USING iceberg"
        " TBLPROPERTIES ('write.metadata.metrics.default' = 'none')"
    )
    con.execute("INSERT INTO db.bare VALUES (1, 'a', 1.50), (2, NULL, -2.25), (3, 'c', NULL)")
    metrics = con.execute("SELECT value_counts, lower_bounds FROM db.bare.files").fetchall()
    assert len(metrics) == 1 and not any(metrics[0]), metrics
    assert _readers(con, "SELECT * FROM db.bare") == (
        "readers: DuckDB read_parquet 1 file, Arrow stream 0 files"
    )
    got = _same(con, "db.bare")
    assert got.to_pylist() == [
        {"id": 1, "s": "a", "d": Decimal("1.50")},
        {"id": 2, "s": None, "d": Decimal("-2.25")},
        {"id": 3, "s": "c", "d": None},
    ]


@pytest.mark.parametrize(
    ("t", "value", "text"),
    [
        (IntegerType(), 5, "5"),
        (StringType(), "it's", "it's"),
        (BinaryType(), b"\x01\xab", "\\x01\\xAB"),
        (DoubleType(), float("nan"), None),
        (TimestampNanoType(), 1, "1970-01-01T00:00:00.000000001"),
        (ListType(2, IntegerType(), False), [1], None),
    ],
)
def test_default_texts(t, value, text) -> None:
    assert default_text(t, value) == text


def _garble_footer(path: str) -> None:
    """Flip the first byte of a Parquet file's Thrift footer after which icesql's own footer
    reader still sends the file to DuckDB, whose error then names no file
    (``TProtocolException: Invalid data`` and the like)."""
    from icesql.metadata.parquet_footer import footer_row_count

    raw = Path(path).read_bytes()
    footer = len(raw) - 8 - int.from_bytes(raw[-8:-4], "little")
    for at in range(footer, len(raw) - 8):
        damaged = bytearray(raw)
        damaged[at] ^= 0xFF
        Path(path).write_bytes(bytes(damaged))
        try:
            duckdb.connect().execute(f"SELECT * FROM read_parquet('{path}')").fetchall()
        except duckdb.Error as e:
            if path not in str(e) and Path(path).name not in str(e) and footer_row_count(path):
                return
    raise AssertionError("no flip of the footer gives an error naming no file")


def test_a_damaged_footer_duckdb_does_not_name_is_pinned_on_its_file(tmp_path) -> None:
    """Found by tests/reliability/test_fuzz_corruption.py: the error was a DatabaseError
    without the file's name."""
    from icesql.errors import CorruptFileError

    con = icesql.connect(str(tmp_path))
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1), (2)")
    con.execute("INSERT INTO db.t VALUES (3)")
    from table_support import live_data_files

    damaged = sorted(f.file_path for f in live_data_files(con.catalog.load_table(("db", "t"))))[0]
    _garble_footer(damaged.removeprefix("file://"))
    with pytest.raises(CorruptFileError) as info:
        icesql.connect(str(tmp_path)).execute("SELECT * FROM db.t").fetchall()
    assert info.value.path == damaged.removeprefix("file://")


def test_a_damaged_equality_delete_file_is_named(tmp_path) -> None:
    from icesql.errors import CorruptFileError
    from icesql.scan.native_read import NativeRead

    good, bad = str(tmp_path / "data.parquet"), str(tmp_path / "eq.parquet")
    pq.write_table(pa.table({"id": [1]}), good)
    pq.write_table(pa.table({"id": [1]}), bad)
    _garble_footer(bad)
    read = NativeRead((), (good,), delete_paths=(bad,))
    error = read.file_error("Invalid Error: TProtocolException: Invalid data")
    assert isinstance(error, CorruptFileError) and error.path == bad
    assert NativeRead((), (good,)).file_error("TProtocolException: Invalid data") is None
    assert read.file_error("Conversion Error: Could not convert string 'x' to INT32") is None


@pytest.mark.parametrize("page", ["data_page_offset", "dictionary_page_offset"])
def test_a_damaged_data_page_names_its_file(tmp_path, page):
    # the footer decodes, so only reading the pages fails, and DuckDB's message ("don't know
    # what type", "dictionary offset out of range") names no file: the error must
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.t (id BIGINT, s STRING)")
    con.execute("INSERT INTO db.t SELECT id, concat('v', CAST(id % 7 AS STRING)) FROM range(5000)")
    con.execute("INSERT INTO db.t SELECT id, 'w' FROM range(10)")
    paths = sorted(Path(tmp_path).rglob("data/*.parquet"), key=lambda p: p.stat().st_size)
    damaged = paths[-1]
    column = pq.ParquetFile(damaged).metadata.row_group(0).column(1)
    data = bytearray(damaged.read_bytes())
    start = getattr(column, page)
    data[start : start + 6] = b"\xff" * 6
    damaged.write_bytes(bytes(data))
    with pytest.raises(CorruptFileError) as e:
        con.execute("SELECT count(*), max(s) FROM db.t").fetchall()
    assert e.value.path == str(damaged)
    assert str(damaged) in str(e.value)
    con.close()
