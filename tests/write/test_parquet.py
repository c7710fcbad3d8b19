"""One Parquet data file as Iceberg lays it out: field ids on every column (also nested),
3-level lists, decimals as integers, unknown columns left out, one row group per write,
split offsets at the row groups, the ``DataFile`` describing what pyarrow reads back."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icesql.errors import NotSupportedError, OperationalError
from icesql.io import FileIO
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DecimalType,
    ListType,
    LongType,
    NestedField,
    StringType,
    StructType,
    UnknownType,
)
from icesql.write.column_metrics import MetricsConfig
from icesql.write.parquet import ParquetDataWriter, arrow_write_schema, file_schema

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


def test_unknown_struct_fields_are_left_out_at_every_level() -> None:
    """Spec: unknown fields are omitted from data files, in structs too (inside lists and maps
    as well); a list element or map value of type unknown has nothing to leave out."""
    inner = StructType((NestedField(3, "a", LongType()), NestedField(4, "b", UnknownType())))
    schema = Schema((NestedField(1, "s", StructType((NestedField(2, "t", inner),
                                                      NestedField(5, "u", UnknownType())))),
                     NestedField(6, "l", ListType(7, inner, False))))
    kept = file_schema(schema)
    assert str(kept.find_type(1)) == "struct<2: t: optional struct<3: a: optional long>>"
    assert str(kept.find_type(6)) == "list<struct<3: a: optional long>>"
    assert arrow_write_schema(schema).field("s").type == pa.struct(
        [pa.field("t", pa.struct([pa.field("a", pa.int64())]))])
    with pytest.raises(NotSupportedError, match="list element or map key/value of type unknown"):
        file_schema(Schema((NestedField(1, "l", ListType(2, UnknownType(), False)),)))


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
