"""The EXPLAIN text of Iceberg table scans: one section per scan, with the planner's counters,
the pushed filter, the split between DuckDB's reader and the Arrow stream, and residuals
grouped with file counts."""

from __future__ import annotations

import icesql
from icesql.expressions.tree import ALWAYS_TRUE, equal, greater_than, or_
from icesql.scan.explain import explain_scans
from icesql.scan.table_scan import TableScan
from icesql.scan.time_travel import select_version
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import parse_transform
from icesql.spec.types import LongType, NestedField, StringType

SCHEMA = Schema((NestedField(1, "id", LongType()), NestedField(2, "p", StringType())))
SPEC = PartitionSpec(0, (PartitionField(2, 1000, parse_transform("identity"), "p"),))


def _scan(warehouse, row_filter=ALWAYS_TRUE) -> TableScan:
    table = icesql.connect(str(warehouse)).catalog.load_table(("db", "t"))
    return TableScan(table, select_version(table.metadata, table.name), row_filter=row_filter)


def _lines(text: str) -> dict[str, str]:
    return {
        line.split(":", 1)[0]: line.split(":", 1)[1].strip()
        for line in text.splitlines()[1:]
        if not line.startswith("residual")
    }


def test_a_pruned_scan(make_table, warehouse) -> None:
    writer = make_table("db.t", SCHEMA, SPEC)
    writer.append([{"id": i, "p": p} for p in "ab" for i in range(4)], rows_per_file=2)
    snapshot = writer.append([{"id": 10, "p": "a"}])  # a second manifest
    scan = _scan(warehouse, equal("p", "a"))
    text = explain_scans([("db.t AS x", scan)])
    lines = text.splitlines()
    assert lines[0] == "== Iceberg scan: db.t AS x =="
    got = _lines(text)
    assert got["snapshot"] == f"{snapshot} (schema 0)"
    assert got["manifests"] == "total 2, read 2, skipped 0"
    # files of partition b are skipped by partition; the residual of partition a is true
    assert got["data files"] == "total 5, read 3, skipped by partition 2, skipped by metrics 0"
    assert got["delete files"] == "total 0, applied 0, skipped 0"
    assert got["pushed filter"] == str(scan.plan.row_filter) and "p" in got["pushed filter"]
    assert got["readers"] == "DuckDB read_parquet 0 files, Arrow stream 3 files"
    assert lines[-1] == "residual: true (3 files)"


def test_residuals_are_grouped_most_common_first(make_table, warehouse) -> None:
    writer = make_table("db.t", SCHEMA, SPEC)
    writer.append([{"id": i, "p": "a"} for i in range(6)], rows_per_file=2)
    writer.append([{"id": 9, "p": "b"}])
    # partition a satisfies the filter whole; partition b leaves id > 5 to check
    text = explain_scans([("t", _scan(warehouse, or_(equal("p", "a"), greater_than("id", 5))))])
    residuals = [line for line in text.splitlines() if line.startswith("residual")]
    assert residuals[0] == "residual: true (3 files)"
    assert len(residuals) == 2 and residuals[1].endswith(" (1 file)") and "id" in residuals[1]


def test_an_empty_table_and_several_sections(make_table, warehouse) -> None:
    make_table("db.t", SCHEMA, SPEC)
    scan = _scan(warehouse)
    text = explain_scans([("a", scan), ("b", _scan(warehouse))])
    first, second = text.split("\n\n")
    assert first.splitlines()[0] == "== Iceberg scan: a =="
    assert second.splitlines()[0] == "== Iceberg scan: b =="
    got = _lines(first)
    assert got["snapshot"] == "none (empty table) (schema 0)"
    assert got["pushed filter"] == "true"
    assert got["readers"] == "DuckDB read_parquet 0 files, Arrow stream 0 files"
    assert first.splitlines()[-1] == "residual: (no files)"


def test_the_readers_line_after_a_native_split(make_table, warehouse) -> None:
    writer = make_table("db.t", SCHEMA, SPEC)
    writer.append([{"id": 1, "p": "a"}, {"id": 2, "p": "a"}, {"id": 3, "p": "b"}])
    first = writer.files[0]
    writer.commit_files([writer.position_deletes(first, [0])], content=1)
    scan = _scan(warehouse)
    scan.native_read()
    got = _lines(explain_scans([("t", scan)]))
    assert got["readers"] == "DuckDB read_parquet 2 files (1 with deletes), Arrow stream 0 files"
    assert got["delete files"] == "total 1, applied 1, skipped 0"
    scan.release()
