"""``TableScan``: one table version's rows as an Arrow stream DuckDB can scan again and again,
projected onto some columns, with hidden metadata columns, identity partition values and
deletes applied, and the split between DuckDB's own reader and the stream."""

from __future__ import annotations

import os

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import icesql
from icesql.expressions.tree import ALWAYS_TRUE, greater_than_or_equal
from icesql.scan.planner import ManifestCache
from icesql.scan.reader import ROW_COUNT_COLUMN
from icesql.scan.table_scan import TableScan
from icesql.scan.time_travel import select_version
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.content_file import DataFile
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import parse_transform
from icesql.spec.types import IntegerType, LongType, NestedField, StringType

SCHEMA = Schema(
    (
        NestedField(1, "id", LongType()),
        NestedField(2, "Name", StringType()),
        NestedField(3, "part", IntegerType()),
    )
)
ROWS = [{"id": i, "Name": f"n{i}", "part": i % 2} for i in range(6)]


def _scan(warehouse, identifier: str = "db.t", **kwargs) -> TableScan:
    con = icesql.connect(str(warehouse))
    table = con.catalog.load_table(tuple(identifier.split(".")))
    return TableScan(table, select_version(table.metadata, table.name), **kwargs)


def _rows(scan: TableScan, sql: str = "SELECT * FROM t ORDER BY id") -> list[tuple]:
    duck = duckdb.connect()
    duck.register("t", scan)
    return duck.sql(sql).fetchall()


@pytest.fixture
def writer(make_table):
    w = make_table("db.t", SCHEMA)
    w.append(ROWS, rows_per_file=2)  # 3 files: ids 0-1, 2-3, 4-5
    return w


@pytest.mark.parametrize(
    ("columns", "names"),
    [
        (None, ["id", "Name", "part"]),
        (["part", "id"], ["id", "part"]),  # the schema's order, not the request's
        (["NAME", "ID"], ["id", "Name"]),  # matched case-insensitively, named as in the schema
        (["nope"], []),
    ],
)
def test_columns_project_the_version_schema(writer, warehouse, columns, names) -> None:
    scan = _scan(warehouse, columns=columns)
    assert [f.name for f in scan.read_schema.fields] == names
    assert scan.read_schema.schema_id == SCHEMA.schema_id
    if names:
        assert scan.arrow_schema.names == names


def test_no_columns_stream_one_null_column_per_row(writer, warehouse) -> None:
    """``count(*)`` needs rows but no values: a single NULL column with the right count."""
    scan = _scan(warehouse, columns=[])
    assert scan.arrow_schema == pa.schema([pa.field(ROW_COUNT_COLUMN, pa.null())])
    table = scan.to_reader().read_all()
    assert table.num_rows == len(ROWS) and table.column(0).null_count == len(ROWS)


def test_rows_and_types_match_what_was_written(writer, warehouse) -> None:
    scan = _scan(warehouse)
    assert scan.arrow_schema.field("id").type == pa.int64()
    assert scan.arrow_schema.field("part").type == pa.int32()
    assert _rows(scan) == [(r["id"], r["Name"], r["part"]) for r in ROWS]


def test_duckdb_can_scan_the_same_object_twice(writer, warehouse) -> None:
    """A self-join scans the registered object twice; a one-shot reader would read empty."""
    scan = _scan(warehouse, columns=["id"])
    got = _rows(scan, "SELECT count(*) FROM t a JOIN t b ON a.id = b.id")
    assert got == [(len(ROWS),)]
    assert _rows(scan, "SELECT sum(id) FROM t") == [(sum(r["id"] for r in ROWS),)]


def test_row_filter_prunes_files_but_does_not_filter_rows(writer, warehouse) -> None:
    scan = _scan(warehouse, row_filter=greater_than_or_equal("id", 3))
    tasks = scan.tasks()
    # files 0-1 cannot match; 2-3 and 4-5 may, and the stream keeps all their rows
    assert len(tasks) == 2 and scan.plan is not None
    assert [r[0] for r in _rows(scan)] == [2, 3, 4, 5]
    assert scan.plan.row_filter != ALWAYS_TRUE


def test_tasks_are_planned_once(writer, warehouse) -> None:
    cache = ManifestCache()
    scan = _scan(warehouse, cache=cache)
    first = scan.tasks()
    reads = cache.reads
    assert scan.tasks() is first and cache.reads == reads


def test_an_empty_table_streams_no_rows(make_table, warehouse) -> None:
    make_table("db.t", SCHEMA)
    scan = _scan(warehouse)
    assert scan.tasks() == [] and _rows(scan) == []


def test_restrict_to_reads_only_the_given_tasks(writer, warehouse) -> None:
    planned = _scan(warehouse).tasks()
    scan = _scan(warehouse)
    scan.restrict_to(planned[1:2])
    assert scan.streamed_tasks() == planned[1:2]
    assert len(_rows(scan)) == 2


def test_native_read_splits_the_files(writer, warehouse) -> None:
    scan = _scan(warehouse)
    assert scan.native_read_files() == 0 and len(scan.streamed_tasks()) == 3
    native = scan.native_read()
    assert native is not None
    assert scan.native_read_files() == 3 and scan.native_read_deletes() == 0
    assert scan.streamed_tasks() == []
    assert _rows(scan) == []  # DuckDB reads them through native.sql, not the stream
    scan.release()


def test_metadata_columns_on_the_stream_and_in_duckdb(writer, warehouse) -> None:
    """``_file``, ``_pos`` and ``_spec_id`` are read by DuckDB too (``native_read``); other
    metadata columns keep every file on the stream."""
    scan = _scan(warehouse, columns=["id"], metadata_columns=["_file", "_pos"])
    assert scan.arrow_schema.names == ["id", "_file", "_pos"]
    rows = _rows(scan)
    paths = [f.file_path for f in writer.files]
    assert rows == [(i, paths[i // 2], i % 2) for i in range(6)]
    native = _scan(warehouse, columns=["id"], metadata_columns=["_file", "_pos"])
    assert native.native_read() is not None
    assert native.streamed_tasks() == [] and native.native_read_files() == 3
    streamed = _scan(warehouse, columns=["id"], metadata_columns=["_file", "_deleted"])
    assert streamed.native_read() is None
    assert len(streamed.streamed_tasks()) == 3 and streamed.native_read_files() == 0


def test_a_data_column_hides_its_metadata_twin(make_table, warehouse) -> None:
    schema = Schema((NestedField(1, "id", LongType()), NestedField(2, "_pos", StringType())))
    make_table("db.t", schema).append([{"id": 1, "_pos": "mine"}])
    scan = _scan(warehouse, metadata_columns=["_POS"])
    assert scan.metadata_columns is None
    assert _rows(scan) == [(1, "mine")]


def test_metadata_columns_with_position_deletes(writer, warehouse) -> None:
    """``_pos`` is the position before deletes: deleted rows leave gaps."""
    first = writer.files[0]
    writer.commit_files([writer.position_deletes(first, [0])], content=1)
    scan = _scan(warehouse, columns=["id"], metadata_columns=["_pos"])
    assert _rows(scan) == [(1, 1), (2, 0), (3, 1), (4, 0), (5, 1)]
    kept = _scan(warehouse, columns=["id"], metadata_columns=["_deleted"])
    assert _rows(kept)[:2] == [(0, True), (1, False)]


def test_metadata_columns_without_data_columns(writer, warehouse) -> None:
    scan = _scan(warehouse, columns=[], metadata_columns=["_spec_id"])
    assert scan.arrow_schema.names == ["_spec_id"]
    assert _rows(scan, "SELECT _spec_id, count(*) FROM t GROUP BY 1") == [(0, 6)]


def test_unsupported_metadata_column_is_refused_by_name(writer, warehouse) -> None:
    with pytest.raises(icesql.NotSupportedError, match="_change_type"):
        _scan(warehouse, metadata_columns=["_change_type"])


def test_identity_partition_values_fill_columns_the_file_lacks(make_table, warehouse) -> None:
    """Spec, Column Projection: an identity-partitioned column missing from the data file
    reads as the partition value."""
    spec = PartitionSpec(0, (PartitionField(3, 1000, parse_transform("identity"), "part"),))
    writer = make_table("db.t", SCHEMA, spec)
    path = f"{writer.location}/data/no-part.parquet"
    arrow = pa.schema([f for f in schema_to_arrow(SCHEMA) if f.name != "part"])
    pq.write_table(pa.table({"id": [7, 8], "Name": ["a", "b"]}, schema=arrow), path)
    writer.commit_files(
        [
            DataFile(
                file_path=path,
                file_format="PARQUET",
                partition=(5,),
                record_count=2,
                file_size_in_bytes=os.path.getsize(path),
            )
        ]
    )
    assert _rows(_scan(warehouse)) == [(7, "a", 5), (8, "b", 5)]
    assert _rows(_scan(warehouse, columns=["part"]), "SELECT part FROM t") == [(5,), (5,)]
    with_meta = _scan(warehouse, metadata_columns=["_file"])  # the other code path
    assert _rows(with_meta) == [(7, "a", 5, path), (8, "b", 5, path)]


def test_stream_errors_are_kept_for_the_engine(writer, warehouse) -> None:
    """DuckDB re-raises an error of the stream as its own type; the scan keeps ours."""
    os.remove(writer.files[1].file_path)
    scan = _scan(warehouse)
    with pytest.raises(duckdb.Error):
        _rows(scan)
    assert isinstance(scan.error, icesql.OperationalError)
    assert writer.files[1].file_path in str(scan.error)
