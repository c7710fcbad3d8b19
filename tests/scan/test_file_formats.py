"""ORC and Avro files read through ``read_data_file`` exactly as Parquet files are: columns by
field id (ORC ``iceberg.id``, Avro ``field-id``), schema evolution, name mapping for files
without ids, batches streamed per stripe / block, and errors naming the file and format.

The files are written by icesql's own writers (``icesql.write.file_writers``), whose layout
the Spark tests (tests/interop/test_orc_avro_spark.py) check against Iceberg Java."""

from __future__ import annotations

import datetime as dt
import decimal
import re
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.orc as orc
import pytest

from icesql.errors import CorruptFileError, NotSupportedError, OperationalError
from icesql.io import FileIO
from icesql.scan.delete_loaders import DeleteLoader
from icesql.scan.reader import ReadContext, read_data_file
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.content_file import DataFile
from icesql.spec.name_mapping import create_mapping_from_schema
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)
from icesql.write.column_metrics import FULL, MetricsConfig
from icesql.write.file_writers import open_writer
from icesql.write.position_deletes import POSITION_DELETE_SCHEMA

FORMATS = ["orc", "avro"]

SCHEMA = Schema(
    (
        NestedField(1, "id", IntegerType(), True),
        NestedField(2, "f", FloatType()),
        NestedField(3, "dec", DecimalType(10, 2)),
        NestedField(4, "d", DateType()),
        NestedField(5, "ts", TimestampType()),
        NestedField(6, "tstz", TimestamptzType()),
        NestedField(7, "t", TimeType()),
        NestedField(8, "u", UUIDType()),
        NestedField(9, "fx", FixedType(3)),
        NestedField(
            10,
            "st",
            StructType((NestedField(11, "a", IntegerType()), NestedField(12, "b", StringType()))),
        ),
        NestedField(13, "arr", ListType(14, LongType(), False)),
        NestedField(15, "m", MapType(16, StringType(), 17, IntegerType(), False)),
        NestedField(18, "mi", MapType(19, IntegerType(), 20, StringType(), False)),
    )
)
UTC = dt.UTC
ROWS = [
    {
        "id": 1,
        "f": 1.5,
        "dec": decimal.Decimal("3.25"),
        "d": dt.date(2024, 1, 2),
        "ts": dt.datetime(2024, 1, 2, 3, 4, 5, 123456),
        "tstz": dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        "t": dt.time(1, 2, 3, 4),
        "u": b"0123456789abcdef",
        "fx": b"abc",
        "st": {"a": 1, "b": "x"},
        "arr": [1, 2],
        "m": [("k", 1)],
        "mi": [(7, "z")],
    },
    {
        "id": 2,
        "f": None,
        "dec": None,
        "d": None,
        "ts": None,
        "tstz": None,
        "t": None,
        "u": None,
        "fx": None,
        "st": None,
        "arr": None,
        "m": None,
        "mi": None,
    },
    {
        "id": 3,
        "f": -0.0,
        "dec": decimal.Decimal("-5.25"),
        "d": dt.date(1960, 1, 2),
        "ts": dt.datetime(1960, 1, 2),
        "tstz": dt.datetime(2100, 1, 1, tzinfo=UTC),
        "t": dt.time(23, 59, 59, 999999),
        "u": bytes(16),
        "fx": b"\x00\x01\x02",
        "st": {"a": None, "b": "y"},
        "arr": [],
        "m": [],
        "mi": [],
    },
]


def _write(
    tmp_path: Path, fmt: str, schema: Schema = SCHEMA, rows: list | None = None, name: str = "f"
) -> DataFile:
    path = str(tmp_path / f"{name}.{fmt}")
    writer = open_writer(
        fmt, FileIO(), path, schema, 0, (), MetricsConfig(FULL, {}), "write.format.default", None
    )
    table = pa.Table.from_pylist(rows if rows is not None else ROWS, schema=schema_to_arrow(schema))
    for batch in table.to_batches(max_chunksize=2):
        writer.write(batch)
    return writer.close()


def _read(schema: Schema, data_file: DataFile, **ctx) -> pa.Table:
    context = ReadContext(schema, FileIO(), **ctx)
    batches = list(
        read_data_file(
            context, data_file.file_path, data_file.record_count, file_format=data_file.file_format
        )
    )
    return pa.Table.from_batches(batches, schema=context.arrow_schema)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_type_round_trips(tmp_path, fmt):
    written = _write(tmp_path, fmt)
    assert written.file_format == fmt.upper() and written.record_count == 3
    table = _read(SCHEMA, written)
    expected = pa.Table.from_pylist(ROWS, schema=schema_to_arrow(SCHEMA))
    assert table.to_pylist() == expected.to_pylist()


@pytest.mark.parametrize("fmt", FORMATS)
def test_metrics_counts_and_bounds(tmp_path, fmt):
    written = _write(tmp_path, fmt)
    assert written.value_counts[1] == 3 and written.null_value_counts[1] == 0
    assert written.null_value_counts[2] == 1 and written.nan_value_counts[2] == 0
    assert written.null_value_counts[11] == 2  # a NULL struct's child counts as NULL
    assert written.lower_bounds[1] == (1).to_bytes(4, "little")
    assert written.upper_bounds[1] == (3).to_bytes(4, "little")
    assert 14 not in written.value_counts  # inside a list: no counts, as Java's writers
    assert written.column_sizes in ({}, None)


@pytest.mark.parametrize("fmt", FORMATS)
def test_orc_and_avro_files_carry_iceberg_ids(tmp_path, fmt):
    written = _write(tmp_path, fmt)
    if fmt == "orc":
        schema = orc.ORCFile(written.file_path).schema
        assert schema.field("id").metadata[b"iceberg.id"] == b"1"
        assert schema.field("id").metadata[b"iceberg.required"] == b"true"
        assert schema.field("t").metadata[b"iceberg.long-type"] == b"TIME"
        assert schema.field("u").metadata[b"iceberg.binary-type"] == b"UUID"
        assert schema.field("st").type.field("b").metadata[b"iceberg.id"] == b"12"
    else:
        with open(written.file_path, "rb") as fo:
            avro = fastavro.reader(fo).writer_schema
        by_name = {f["name"]: f for f in avro["fields"]}
        assert by_name["id"]["field-id"] == 1 and by_name["id"]["type"] == "int"
        assert by_name["arr"]["type"][1]["element-id"] == 14
        assert by_name["mi"]["type"][1]["logicalType"] == "map"


@pytest.mark.parametrize("fmt", FORMATS)
def test_projection_by_id_with_evolution(tmp_path, fmt):
    written = _write(tmp_path, fmt)
    evolved = Schema(
        (
            NestedField(13, "list_renamed", ListType(14, LongType(), False)),
            NestedField(1, "key", LongType(), True),  # renamed and promoted int -> long
            NestedField(2, "f", DoubleType()),  # float -> double
            NestedField(3, "dec", DecimalType(12, 2)),  # precision widened
            NestedField(
                10,
                "st",
                StructType(
                    (
                        NestedField(12, "renamed_b", StringType()),
                        NestedField(30, "added", IntegerType()),
                    )
                ),
            ),
            NestedField(31, "added", StringType(), initial_default="dflt"),
        )
    )
    table = _read(evolved, written, batch_rows=1)
    assert table.column("key").to_pylist() == [1, 2, 3]
    assert table.column("f").to_pylist() == [1.5, None, -0.0]
    assert table.column("dec").type == pa.decimal128(12, 2)
    assert table.column("st").to_pylist() == [
        {"renamed_b": "x", "added": None},
        None,
        {"renamed_b": "y", "added": None},
    ]
    assert table.column("added").to_pylist() == ["dflt"] * 3
    assert table.column("list_renamed").to_pylist() == [[1, 2], None, []]


@pytest.mark.parametrize("fmt", FORMATS)
def test_streams_in_batches(tmp_path, fmt):
    schema = Schema((NestedField(1, "id", LongType(), True),))
    rows = [{"id": i} for i in range(10)]
    written = _write(tmp_path, fmt, schema, rows)
    ctx = ReadContext(schema, FileIO(), batch_rows=3)
    sizes = [
        b.num_rows for b in read_data_file(ctx, written.file_path, 10, file_format=fmt.upper())
    ]
    assert max(sizes) <= 3 and sum(sizes) == 10


def test_orc_file_without_ids_uses_name_mapping(tmp_path):
    path = tmp_path / "noids.orc"
    orc.write_table(pa.table({"id": [1, 2], "name": ["a", "b"]}), path)
    schema = Schema((NestedField(5, "id", LongType()), NestedField(6, "name", StringType())))
    data_file = DataFile(
        file_path=str(path), file_format="ORC", partition=(), record_count=2, file_size_in_bytes=1
    )
    with pytest.raises(NotSupportedError, match="name-mapping"):
        _read(schema, data_file)
    table = _read(schema, data_file, name_mapping=create_mapping_from_schema(schema))
    assert table.to_pylist() == [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]


def test_avro_file_without_ids_uses_name_mapping(tmp_path):
    path = tmp_path / "noids.avro"
    avro_schema = {
        "type": "record",
        "name": "r",
        "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": ["null", "string"]}],
    }
    with open(path, "wb") as fo:
        fastavro.writer(fo, avro_schema, [{"id": 1, "name": "a"}, {"id": 2, "name": None}])
    schema = Schema((NestedField(5, "id", LongType()), NestedField(6, "name", StringType())))
    data_file = DataFile(
        file_path=str(path), file_format="AVRO", partition=(), record_count=2, file_size_in_bytes=1
    )
    table = _read(schema, data_file, name_mapping=create_mapping_from_schema(schema))
    assert table.to_pylist() == [{"id": 1, "name": "a"}, {"id": 2, "name": None}]


@pytest.mark.parametrize("fmt", FORMATS)
def test_corrupt_file_names_file_and_format(tmp_path, fmt):
    written = _write(tmp_path, fmt)
    Path(written.file_path).write_bytes(b"PAR1 this is not " + fmt.encode() + b" PAR1")
    label = {"orc": "ORC", "avro": "Avro"}[fmt]
    with pytest.raises(CorruptFileError, match=re.escape(written.file_path) + f".*read as {label}"):
        _read(SCHEMA, written)


def test_truncated_orc_is_corrupt(tmp_path):
    written = _write(tmp_path, "orc")
    data = Path(written.file_path).read_bytes()
    Path(written.file_path).write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptFileError, match="read as ORC"):
        _read(SCHEMA, written)


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_file(tmp_path, fmt):
    missing = DataFile(
        file_path=str(tmp_path / f"gone.{fmt}"),
        file_format=fmt.upper(),
        partition=(),
        record_count=1,
        file_size_in_bytes=1,
    )
    with pytest.raises(OperationalError, match="not found"):
        _read(SCHEMA, missing)


def test_format_comes_from_the_manifest_not_the_name(tmp_path):
    """An ORC file named .parquet is read as ORC; a Parquet read of it would fail."""
    written = _write(tmp_path, "orc", name="misnamed")
    renamed = tmp_path / "misnamed.parquet"
    Path(written.file_path).rename(renamed)
    entry = DataFile(
        file_path=str(renamed),
        file_format="ORC",
        partition=(),
        record_count=3,
        file_size_in_bytes=1,
    )
    assert _read(SCHEMA, entry).column("id").to_pylist() == [1, 2, 3]
    as_parquet = DataFile(
        file_path=str(renamed),
        file_format="PARQUET",
        partition=(),
        file_size_in_bytes=1,
        record_count=3,
    )
    with pytest.raises(CorruptFileError):
        _read(SCHEMA, as_parquet)


def test_unknown_format_is_refused(tmp_path):
    entry = DataFile(
        file_path=str(tmp_path / "x.csv"),
        file_format="CSV",
        partition=(),
        file_size_in_bytes=1,
        record_count=1,
    )
    with pytest.raises(NotSupportedError, match="CSV"):
        _read(SCHEMA, entry)


@pytest.mark.parametrize("fmt", FORMATS)
def test_position_delete_files(tmp_path, fmt):
    rows = [{"file_path": "s3://b/a.parquet", "pos": p} for p in (1, 5)] + [
        {"file_path": "s3://b/b.parquet", "pos": 2}
    ]
    written = _write(tmp_path, fmt, POSITION_DELETE_SCHEMA, rows, name="deletes")
    delete = DataFile(
        file_path=written.file_path,
        file_format=fmt.upper(),
        partition=(),
        file_size_in_bytes=1,
        record_count=3,
        content=1,
    )
    loader = DeleteLoader(FileIO())
    assert loader.deleted_positions("s3://b/a.parquet", [delete]).tolist() == [1, 5]
    assert loader.deleted_positions("s3://b/b.parquet", [delete]).tolist() == [2]
    paths, positions, stored = loader.position_rows(delete)
    assert paths.to_pylist() == [r["file_path"] for r in rows]
    assert positions.tolist() == [1, 5, 2]
    assert stored is None  # the file stores no deleted rows


@pytest.mark.parametrize("fmt", FORMATS)
def test_equality_delete_files(tmp_path, fmt):
    schema = Schema((NestedField(1, "id", IntegerType(), True),))
    written = _write(tmp_path, fmt, schema, [{"id": 4}, {"id": 9}], name="eq")
    delete = DataFile(
        file_path=written.file_path,
        file_format=fmt.upper(),
        partition=(),
        file_size_in_bytes=1,
        record_count=2,
        content=2,
        equality_ids=(1,),
    )
    table = DeleteLoader(FileIO()).equality_rows(delete, [NestedField(1, "id", LongType())])
    assert table.column(0).to_pylist() == [4, 9]
