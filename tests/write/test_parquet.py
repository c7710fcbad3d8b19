"""One Parquet data file as Iceberg lays it out: field ids on every column (also nested),
3-level lists, decimals as integers, unknown columns left out, one row group per write,
split offsets at the row groups, the ``DataFile`` describing what pyarrow reads back."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icesql.errors import OperationalError
from icesql.io import FileIO
from icesql.spec.file_schema import arrow_write_schema
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DecimalType,
    IntegerType,
    ListType,
    LongType,
    NestedField,
    StringType,
    StructType,
    UnknownType,
)
from icesql.spec.values import to_bytes
from icesql.write.column_metrics import MetricsConfig
from icesql.write.parquet import ParquetDataWriter, dictionary_pays, leaf_paths

SCHEMA = Schema((
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "gone", UnknownType()),
    NestedField(3, "amount", DecimalType(9, 2)),
    NestedField(4, "tags", ListType(5, StringType(), False)),
    NestedField(6, "big", DecimalType(38, 4)),
))  # fmt: skip


def _writer(path: Path, **kw) -> ParquetDataWriter:
    config = MetricsConfig.for_table(SCHEMA, {})
    return ParquetDataWriter(FileIO(), str(path), SCHEMA, 3, (7,), config, **kw)


def _batch(ids: list[int]) -> pa.RecordBatch:
    arrow = arrow_write_schema(SCHEMA)
    return pa.record_batch(
        [
            pa.array(ids, pa.int64()),
            pa.array([Decimal(i) / 100 for i in ids], arrow.field("amount").type),
            pa.array([[str(i), None] for i in ids], arrow.field("tags").type),
            pa.array([None for _ in ids], arrow.field("big").type),
        ],
        schema=arrow,
    )


def test_the_arrow_write_schema_leaves_unknown_columns_out() -> None:
    assert arrow_write_schema(SCHEMA).names == ["id", "amount", "tags", "big"]


def test_layout_field_ids_and_types(tmp_path: Path) -> None:
    path = tmp_path / "d" / "f.parquet"  # the folder is created
    writer = _writer(path, compression="snappy")
    writer.write(_batch([1, 2, 3]))
    writer.write(_batch([]))  # no empty row group
    writer.write(pa.Table.from_batches([_batch([4])]))
    data_file = writer.close()
    meta = pq.read_metadata(path)
    assert meta.num_row_groups == 2 and meta.num_rows == 4
    parquet = meta.schema
    paths = [parquet.column(j).path for j in range(len(parquet))]
    assert paths == ["id", "amount", "tags.list.element", "big"]  # 3-level list
    arrow = pq.read_schema(path)
    ids = {f.name: f.metadata[b"PARQUET:field_id"] for f in arrow}
    assert ids == {"id": b"1", "amount": b"3", "tags": b"4", "big": b"6"}
    assert arrow.field("tags").type.value_field.metadata[b"PARQUET:field_id"] == b"5"
    # decimals are stored as integers when the precision allows (Appendix A)
    assert parquet.column(1).physical_type == "INT32"
    assert parquet.column(3).physical_type == "FIXED_LEN_BYTE_ARRAY"
    assert meta.row_group(0).column(0).compression == "SNAPPY"
    assert pq.read_table(path).column("id").to_pylist() == [1, 2, 3, 4]
    assert (data_file.file_path, data_file.file_format, data_file.record_count) == (
        str(path), "PARQUET", 4,
    )  # fmt: skip
    assert data_file.file_size_in_bytes == path.stat().st_size
    assert (data_file.spec_id, data_file.partition, data_file.sort_order_id) == (3, (7,), 0)
    starts = tuple(
        min(c.data_page_offset, c.dictionary_page_offset or c.data_page_offset)
        for c in (meta.row_group(i).column(0) for i in range(meta.num_row_groups))
    )
    assert data_file.split_offsets == starts and starts[0] == 4  # after the "PAR1" magic
    assert data_file.value_counts == {1: 4, 3: 4, 6: 4} and data_file.null_value_counts[6] == 4


def test_columns_are_matched_by_name_and_cast(tmp_path: Path) -> None:
    writer = _writer(tmp_path / "f.parquet")
    batch = _batch([5])
    shuffled = pa.record_batch(
        [batch.column(2), batch.column(0).cast(pa.int32()), batch.column(3), batch.column(1)],
        names=["tags", "id", "big", "amount"],
    )
    writer.write(shuffled)
    writer.close()
    table = pq.read_table(tmp_path / "f.parquet")
    assert table.schema.field("id").type == pa.int64() and table.column("id").to_pylist() == [5]


def test_bytes_written_grows_by_row_groups(tmp_path: Path) -> None:
    writer = _writer(tmp_path / "f.parquet")
    start = writer.bytes_written
    writer.write(_batch(list(range(1000))))
    assert writer.bytes_written > start
    writer.close()


def test_abort_deletes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    writer = _writer(path)
    writer.write(_batch([1]))
    writer.abort()
    assert not path.exists()


def test_an_unwritable_location_names_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OperationalError, match="cannot create data file .*file/f.parquet"):
        _writer(blocker / "f.parquet")


def test_a_dictionary_pays_as_parquet_mr_tests_it() -> None:
    # indices of ceil(log2(distinct)) bits plus the dictionary against the plain values
    assert not dictionary_pays(100, 100, 8)  # 87.5 + 800 bytes against 800
    assert dictionary_pays(100, 10, 8)  # 50 + 80 against 800
    assert dictionary_pays(1000, 400, 4)  # 9-bit indices: 1125 + 1600 against 4000
    assert not dictionary_pays(1000, 800, 4)  # 10-bit indices: 1250 + 3200 against 4000
    assert not dictionary_pays(1, 1, 4)  # one row: a 1-bit index and the value, 4.125 bytes


def test_columns_whose_values_barely_repeat_are_written_plain(tmp_path: Path) -> None:
    """Per row group, from its first rows: a column of distinct numbers has no dictionary
    page (as parquet-mr writes it), one of few values keeps its dictionary, and strings and
    nested columns stay with pyarrow's dictionary; values and bounds are the same."""
    schema = Schema((
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "qty", IntegerType()),
        NestedField(3, "price", DecimalType(12, 2)),
        NestedField(4, "big", DecimalType(38, 4)),
        NestedField(5, "name", StringType()),
        NestedField(6, "s", StructType((NestedField(7, "n", LongType()),))),
    ))  # fmt: skip
    arrow = arrow_write_schema(schema)
    n = 20_000
    rows = pa.table(
        [
            pa.array(range(n), pa.int64()),
            pa.array([i % 50 for i in range(n)], pa.int32()),
            pa.array(
                [Decimal(i * 7919 % 1_000_003) / 100 for i in range(n)], arrow.field("price").type
            ),
            pa.array([Decimal(i) for i in range(n)], arrow.field("big").type),
            pa.array([f"name {i}" for i in range(n)]),
            pa.array([{"n": i} for i in range(n)], arrow.field("s").type),
        ],
        schema=arrow,
    )
    path = tmp_path / "f.parquet"
    config = MetricsConfig.for_table(schema, {})
    writer = ParquetDataWriter(FileIO(), str(path), schema, 0, (), config)
    writer.write(rows)
    writer.write(rows.slice(0, 100).set_column(0, "id", pa.array([7] * 100, pa.int64())))
    data_file = writer.close()
    meta = pq.read_metadata(path)
    dictionary = {
        meta.schema.column(i).path: meta.row_group(0).column(i).has_dictionary_page
        for i in range(meta.num_columns)
    }
    assert dictionary == {
        "id": False,
        "qty": True,
        "price": False,
        "big": False,
        "name": True,
        "s.n": True,
    }
    assert meta.row_group(1).column(0).has_dictionary_page  # 100 times the same id
    assert pq.read_table(path).slice(0, n).equals(rows)
    assert data_file.lower_bounds[1] == (0).to_bytes(8, "little")
    assert data_file.upper_bounds[1] == (n - 1).to_bytes(8, "little")
    assert meta.row_group(0).column(2).statistics.has_min_max  # a plain chunk's statistics
    prices = rows.column("price").to_pylist()
    assert data_file.lower_bounds[3] == to_bytes(DecimalType(12, 2), min(prices))
    assert data_file.upper_bounds[3] == to_bytes(DecimalType(12, 2), max(prices))


@pytest.mark.parametrize(
    "t",
    [
        pa.struct(
            [pa.field("a", pa.int64()), pa.field("b", pa.struct([pa.field("c", pa.string())]))]
        ),
        pa.list_(pa.field("element", pa.struct([pa.field("x", pa.int32())]))),
        pa.map_(pa.string(), pa.list_(pa.field("element", pa.float64()))),
        pa.int64(),
    ],
    ids=["struct", "list of struct", "map of lists", "long"],
)
def test_leaf_paths_are_pyarrow_s(t: pa.DataType) -> None:
    schema = pa.schema([pa.field("v", t), pa.field("w.x", pa.int32())])
    sink = pa.BufferOutputStream()
    pq.ParquetWriter(sink, schema, use_compliant_nested_type=True).close()
    written = pq.read_metadata(pa.BufferReader(sink.getvalue())).schema
    assert leaf_paths(schema) == [written.column(i).path for i in range(len(written))]


def test_a_decimal_with_a_default_keeps_its_dictionary(tmp_path: Path) -> None:
    """Iceberg Java's vectorized reader (Spark's) fails on plain pages of a decimal column
    with a default (apache/iceberg#16502): its values stay dictionary-encoded."""
    schema = Schema((
        NestedField(1, "with_default", DecimalType(12, 2), initial_default=Decimal("-1.50"),
                    write_default=Decimal("-1.50")),
        NestedField(2, "without", DecimalType(12, 2)),
    ))  # fmt: skip
    arrow = arrow_write_schema(schema)
    values = pa.array([Decimal(i) / 100 for i in range(10_000)], arrow.field("without").type)
    path = tmp_path / "f.parquet"
    writer = ParquetDataWriter(
        FileIO(), str(path), schema, 0, (), MetricsConfig.for_table(schema, {})
    )
    writer.write(pa.table([values, values], schema=arrow))
    writer.close()
    group = pq.read_metadata(path).row_group(0)
    assert [group.column(i).has_dictionary_page for i in range(2)] == [True, False]
