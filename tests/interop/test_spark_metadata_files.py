"""icesql's metadata readers over every metadata file Spark wrote for the fixture tables.

* every ``v*.metadata.json``: parsed, and ``to_json()`` gives back the same JSON value;
* every manifest list of every snapshot, and every manifest in it: the records icesql reads
  are the records in the Avro file (checked against fastavro), in order;
* each table's current snapshot: the live files icesql finds are the files Spark's
  ``<table>.files`` metadata table lists, with the same record counts and content kinds.
"""

from __future__ import annotations

import json
from pathlib import Path

import fastavro
import pytest

from icesql.io import FileIO
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.table_metadata import parse_table_metadata


def _metadata_files(warehouse: str) -> list[Path]:
    files = sorted(Path(warehouse, "db").glob("*/metadata/v*.metadata.json"))
    assert files, f"no metadata files under {warehouse}/db"
    return files


def _latest_metadata(warehouse: str, table: str) -> Path:
    folder = Path(warehouse, "db", table, "metadata")
    version = int((folder / "version-hint.text").read_text().strip())
    return folder / f"v{version}.metadata.json"


def _avro_records(path: str) -> list[dict]:
    with open(path.removeprefix("file:"), "rb") as f:
        return list(fastavro.reader(f))


def test_every_metadata_json_round_trips(spark_tables):
    for path in _metadata_files(spark_tables.warehouse):
        text = path.read_text()
        metadata = parse_table_metadata(text, str(path))
        assert json.loads(metadata.to_json()) == json.loads(text), path
        assert metadata.format_version == json.loads(text)["format-version"], path
        assert [s.snapshot_id for s in metadata.snapshots] == [
            s["snapshot-id"] for s in json.loads(text).get("snapshots", [])
        ], path


def test_format_versions_are_as_created(spark_tables):
    expected = {"small_v1": 1, "small_v3": 3, "with_dvs": 3, "all_types": 2, "history": 2}
    for table, version in expected.items():
        path = _latest_metadata(spark_tables.warehouse, table)
        assert parse_table_metadata(path.read_bytes(), str(path)).format_version == version


def test_every_manifest_list_and_manifest_reads(spark_tables):
    io = FileIO()
    seen_lists: set[str] = set()
    manifests_read = 0
    for path in _metadata_files(spark_tables.warehouse):
        metadata = parse_table_metadata(path.read_bytes(), str(path))
        for snapshot in metadata.snapshots:
            if snapshot.manifest_list in seen_lists:
                continue
            seen_lists.add(snapshot.manifest_list)
            manifests = read_manifest_list(io, snapshot.manifest_list, snapshot)
            raw = _avro_records(snapshot.manifest_list)
            assert [m.manifest_path for m in manifests] == [r["manifest_path"] for r in raw]
            assert [m.content for m in manifests] == [r.get("content", 0) for r in raw]
            for manifest, record in zip(manifests, raw):
                assert manifest.added_files_count == record.get(
                    "added_files_count", record.get("added_data_files_count")
                )
                assert manifest.added_rows_count == record["added_rows_count"]
                entries = list(read_manifest(io, manifest))
                raw_entries = _avro_records(manifest.manifest_path)
                assert [e.data_file.file_path for e in entries] == [
                    r["data_file"]["file_path"] for r in raw_entries
                ], manifest.manifest_path
                assert [e.status for e in entries] == [r["status"] for r in raw_entries]
                assert [e.data_file.record_count for e in entries] == [
                    r["data_file"]["record_count"] for r in raw_entries
                ]
                added = sum(1 for e in entries if e.status == 1)
                assert added == manifest.added_files_count, manifest.manifest_path
                for entry in entries:
                    assert entry.snapshot_id is not None
                    assert entry.sequence_number is not None
                manifests_read += 1
    assert manifests_read > 0


@pytest.mark.parametrize(
    "table",
    [
        "all_types",
        "nested",
        "part_two_fields",
        "part_hours",
        "history",
        "small_v1",
        "small_v3",
        "with_deletes",
        "with_dvs",
    ],
)
def test_live_files_match_spark_files_table(table, spark, spark_tables):
    io = FileIO()
    path = _latest_metadata(spark_tables.warehouse, table)
    metadata = parse_table_metadata(path.read_bytes(), str(path))
    snapshot = metadata.current_snapshot()
    live = {}
    for manifest in read_manifest_list(io, snapshot.manifest_list, snapshot):
        for entry in read_manifest(io, manifest):
            if entry.is_live:
                live[entry.data_file.file_path] = (
                    entry.data_file.content,
                    entry.data_file.record_count,
                )
    rows = spark.sql(f"SELECT file_path, content, record_count FROM db.{table}.files").collect()
    assert live == {row.file_path: (row.content, row.record_count) for row in rows}
