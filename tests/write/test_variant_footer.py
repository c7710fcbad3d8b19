"""Variant columns written as the Parquet variant encoding: the group of ``metadata`` and
``value`` (no field ids on them, Appendix A) annotated ``VARIANT`` in the footer, at the top
level and nested, so that DuckDB's Parquet reader (and Iceberg Java, Spark 4) read the
column as a variant."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from variant_support import decode

from icesql.errors import InternalError
from icesql.io import FileIO
from icesql.spec.arrow import PYARROW_READS_VARIANT
from icesql.spec.file_schema import arrow_write_schema
from icesql.spec.schema import Schema
from icesql.spec.types import IntegerType, ListType, NestedField, StructType, VariantType
from icesql.write.column_metrics import MetricsConfig
from icesql.write.parquet import ParquetDataWriter
from icesql.write.variant_footer import annotate_footer, variant_paths

# pyarrow 20 and 21 write the annotated file but cannot open it again
pytestmark = pytest.mark.skipif(
    not PYARROW_READS_VARIANT, reason="pyarrow < 22 opens no variant file"
)

SCHEMA = Schema((
    NestedField(1, "id", IntegerType(), required=True),
    NestedField(2, "v", VariantType()),
    NestedField(3, "s", StructType((NestedField(4, "inner", VariantType()),))),
    NestedField(5, "l", ListType(6, VariantType(), False)),
))  # fmt: skip
DOCS = ['{"a":1,"b":[true,null,"x"]}', '"text"', '[{"k":-3}]']


def test_variant_paths_name_the_parquet_groups():
    assert variant_paths(SCHEMA) == [("v",), ("s", "inner"), ("l", "list", "element")]


def _variants(docs: list[str]) -> pa.Array:
    """DuckDB's VARIANTs for JSON texts, as it hands them to Arrow."""
    texts = ", ".join("'" + d.replace("'", "''") + "'" for d in docs)
    table = duckdb.sql(f"SELECT CAST(CAST(unnest([{texts}]) AS JSON) AS VARIANT) AS v")
    return table.to_arrow_table().column("v").combine_chunks()


def _write(path: Path) -> None:
    arrow = arrow_write_schema(SCHEMA)
    variants = _variants(DOCS).cast(arrow.field("v").type)
    batch = pa.record_batch(
        [
            pa.array([1, 2, 3], pa.int32()),
            pa.array([variants[0].as_py(), None, variants[2].as_py()], arrow.field("v").type),
            pa.array(
                [{"inner": variants[1].as_py()}, None, {"inner": None}], arrow.field("s").type
            ),
            pa.array([[variants[2].as_py(), variants[0].as_py()], [], None], arrow.field("l").type),
        ],
        schema=arrow,
    )
    writer = ParquetDataWriter(
        FileIO(), str(path), SCHEMA, 0, (), MetricsConfig.for_table(SCHEMA, {})
    )
    writer.write(batch)
    data_file = writer.close()
    assert data_file.file_size_in_bytes == path.stat().st_size
    assert data_file.record_count == 3


def test_variant_groups_are_annotated_and_carry_no_child_ids(tmp_path: Path):
    path = tmp_path / "f.parquet"
    _write(path)
    rows = duckdb.sql(
        f"SELECT name, duckdb_type, field_id FROM parquet_schema('{path}')"
    ).fetchall()
    annotated = [(name, fid) for name, logical, fid in rows if logical == "VARIANT"]
    assert annotated == [("v", 2), ("inner", 4), ("element", 6)]
    children = [(name, fid) for name, _, fid in rows if name in ("metadata", "value")]
    assert children and all(fid is None for _, fid in children)
    # the footer still decodes for pyarrow, rows and statistics intact
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows == 3 and meta.row_group(0).column(0).statistics.max == 3


def test_duckdb_reads_the_written_variants(tmp_path: Path):
    path = tmp_path / "f.parquet"
    _write(path)
    rows = duckdb.sql(f"""SELECT id, typeof(v), to_json(v), to_json(s.inner),
        [to_json(e) FOR e IN l] FROM read_parquet('{path}') ORDER BY id""").fetchall()
    assert rows == [
        (1, "VARIANT", '{"a":1,"b":[true,null,"x"]}', '"text"', ['[{"k":-3}]', DOCS[0]]),
        (2, "VARIANT", None, None, []),
        (3, "VARIANT", '[{"k":-3}]', None, None),
    ]


def test_written_bytes_follow_the_variant_encoding(tmp_path: Path):
    path = tmp_path / "f.parquet"
    _write(path)
    column = pq.read_table(path).column("v").to_pylist()
    assert [decode(c["metadata"], c["value"]) if c else None for c in column] == [
        {"a": 1, "b": [True, None, "x"]},
        None,
        [{"k": -3}],
    ]


def test_annotate_footer_refuses_a_footer_without_the_group(tmp_path: Path):
    path = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"x": [1]}), path)
    raw = path.read_bytes()
    length = int.from_bytes(raw[-8:-4], "little")
    with pytest.raises(InternalError, match="not all found"):
        annotate_footer(raw[-8 - length : -8], [("v",)])
