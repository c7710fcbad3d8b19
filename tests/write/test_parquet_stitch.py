"""Row groups encoded apart and stitched into one file: byte for byte what one pyarrow
``ParquetWriter`` writing them in turn produces, for every type icesql writes, and what the
data writer makes of several row groups of one file encoded at once."""

from __future__ import annotations

import datetime as dt
import io
import threading
import uuid
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icesql.errors import InternalError
from icesql.io import FileIO
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.schema import Schema
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
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)
from icesql.write.column_metrics import MetricsConfig
from icesql.write.parquet import ParquetDataWriter
from icesql.write.parquet_stitch import MAGIC, Stitcher, decode_struct, encode, encode_struct

SCHEMA = Schema((
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "i", IntegerType()),
    NestedField(3, "b", BooleanType()),
    NestedField(4, "f", FloatType()),
    NestedField(5, "d", DoubleType()),
    NestedField(6, "small", DecimalType(9, 2)),
    NestedField(7, "big", DecimalType(38, 4)),
    NestedField(8, "day", DateType()),
    NestedField(9, "t", TimeType()),
    NestedField(10, "ts", TimestampType()),
    NestedField(11, "tstz", TimestamptzType()),
    NestedField(12, "s", StringType()),
    NestedField(13, "bin", BinaryType()),
    NestedField(14, "fx", FixedType(3)),
    NestedField(15, "u", UUIDType()),
    NestedField(16, "tags", ListType(17, StringType(), False)),
    NestedField(18, "m", MapType(19, StringType(), 20, LongType(), False)),
    NestedField(21, "st", StructType((NestedField(22, "x", IntegerType()),))),
))  # fmt: skip

OPTIONS = dict(
    compression="zstd",
    data_page_size=1024 * 1024,
    store_decimal_as_integer=True,
    store_schema=False,
    write_statistics=True,
    use_compliant_nested_type=True,
    version="2.6",
    data_page_version="1.0",
)


def _rows(start: int, n: int) -> pa.Table:
    arrow = schema_to_arrow(SCHEMA)
    ids = list(range(start, start + n))

    def col(name: str, values: list) -> pa.Array:
        return pa.array(values, arrow.field(name).type)

    base = dt.datetime(2020, 1, 1)
    return pa.Table.from_arrays(
        [
            col("id", ids),
            col("i", [None if i % 7 == 0 else i % 1000 for i in ids]),
            col("b", [i % 2 == 0 for i in ids]),
            col("f", [float("nan") if i % 11 == 0 else i / 3 for i in ids]),
            col("d", [-0.0 if i % 13 == 0 else i * 1.5 for i in ids]),
            col("small", [Decimal(i % 10000) / 100 for i in ids]),
            col("big", [Decimal(i) * 10**20 / 10**4 for i in ids]),
            col("day", [dt.date(2020, 1, 1) + dt.timedelta(days=i % 900) for i in ids]),
            col("t", [dt.time(i % 24, i % 60) for i in ids]),
            col("ts", [base + dt.timedelta(seconds=i) for i in ids]),
            col("tstz", [(base + dt.timedelta(minutes=i)).replace(tzinfo=dt.UTC) for i in ids]),
            col("s", [f"value {i % 97}" if i % 5 else None for i in ids]),
            col("bin", [bytes([i % 256]) * (i % 9) for i in ids]),
            col("fx", [bytes([i % 256]) * 3 for i in ids]),
            col("u", [uuid.UUID(int=i).bytes for i in ids]),
            col("tags", [[str(i), None] if i % 3 else None for i in ids]),
            col("m", [[("k", i), ("n", None)] if i % 4 else [] for i in ids]),
            col("st", [{"x": i} if i % 6 else None for i in ids]),
        ],
        schema=arrow,
    )


def _stitched(parts: list[pa.Table], schema: pa.Schema) -> bytes:
    out = io.BytesIO()
    out.write(MAGIC)
    stitcher = Stitcher()
    for part in parts:
        encoded = encode(part, schema, **OPTIONS)
        position = out.tell()
        out.write(encoded.body)
        stitcher.add(encoded, position)
    out.write(stitcher.footer())
    return out.getvalue()


def _sequential(parts: list[pa.Table], schema: pa.Schema) -> bytes:
    out = io.BytesIO()
    with pq.ParquetWriter(out, schema, **OPTIONS) as writer:
        for part in parts:
            writer.write_table(part, row_group_size=part.num_rows)
    return out.getvalue()


@pytest.mark.parametrize("sizes", [[500], [300, 1, 700], [40] * 17])  # 17: a long Thrift list
def test_stitched_file_is_the_sequential_writers_file(sizes: list[int]) -> None:
    schema = schema_to_arrow(SCHEMA)
    parts, start = [], 0
    for n in sizes:
        parts.append(_rows(start, n))
        start += n
    stitched = _stitched(parts, schema)
    assert stitched == _sequential(parts, schema)
    meta = pq.read_metadata(io.BytesIO(stitched))
    assert meta.num_row_groups == len(sizes) and meta.num_rows == sum(sizes)
    alone = [pq.read_table(io.BytesIO(_sequential([part], schema))) for part in parts]
    read = pq.read_table(io.BytesIO(stitched))
    expected = pa.concat_tables(alone)
    assert read.drop_columns(["f"]).equals(expected.drop_columns(["f"]))  # NaN != NaN
    assert str(read.column("f").to_pylist()) == str(expected.column("f").to_pylist())
    assert read.column("id").to_pylist() == list(range(sum(sizes)))


def test_footer_decodes_and_encodes_to_the_same_bytes() -> None:
    data = _sequential([_rows(0, 100), _rows(100, 50)], schema_to_arrow(SCHEMA))
    length = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - length
    footer, end = decode_struct(data, start)
    assert end == len(data) - 8
    assert encode_struct(footer) == data[start:end]


def test_a_row_group_with_a_page_index_is_refused() -> None:
    schema = schema_to_arrow(SCHEMA)
    encoded = encode(_rows(0, 10), schema, **OPTIONS, write_page_index=True)
    with pytest.raises(InternalError, match="page index"):
        Stitcher().add(encoded, 4)


def test_row_groups_of_one_file_encode_at_once(tmp_path: Path, monkeypatch) -> None:
    """The second row group of a file is submitted before the first is encoded: both wait
    for each other at a barrier, which a one-at-a-time writer would never pass."""
    from concurrent.futures import ThreadPoolExecutor

    barrier = threading.Barrier(2, timeout=20)
    encode_row_group = ParquetDataWriter._encode_row_group

    def meeting(self, table, first):
        if first < 200:  # the first two row groups
            barrier.wait()
        return encode_row_group(self, table, first)

    monkeypatch.setattr(ParquetDataWriter, "_encode_row_group", meeting)
    config = MetricsConfig.for_table(SCHEMA, {})
    path = tmp_path / "f.parquet"
    writer = ParquetDataWriter(FileIO(), str(path), SCHEMA, 0, (), config)
    with ThreadPoolExecutor(2) as pool:
        futures = [writer.submit(_rows(start, 100), pool) for start in (0, 100, 200)]
        assert writer.size_after(0) == 4
        data_file = writer.close()
    assert all(f is not None and f.done() for f in futures)
    assert data_file.record_count == 300 and len(data_file.split_offsets) == 3
    monkeypatch.undo()  # the same rows written one row group after another: the same file
    one_at_a_time = ParquetDataWriter(FileIO(), str(tmp_path / "g.parquet"), SCHEMA, 0, (), config)
    for start in (0, 100, 200):
        one_at_a_time.write(_rows(start, 100))
    one_at_a_time.close()
    assert path.read_bytes() == (tmp_path / "g.parquet").read_bytes()
    assert data_file.value_counts[1] == 300 and data_file.nan_value_counts[4] == 28
    assert data_file.lower_bounds is not None and 1 in data_file.lower_bounds
