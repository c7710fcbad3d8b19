"""Manifest lists: the exact schema per format version, the header Java writes, the sequence
number and (v3) first-row-id assignment, the v1 defaults of Appendix E on reading, old Java
count names, and damaged files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import fastavro
import pytest

from icesql.errors import CorruptFileError, InternalError
from icesql.io import FileIO
from icesql.metadata.avro.container import read_header
from icesql.metadata.manifest import ManifestEntry, read_manifest, write_manifest
from icesql.metadata.manifest_list import (
    manifest_list_schema,
    read_manifest_list,
    write_manifest_list,
)
from icesql.metadata.snapshots import Snapshot
from icesql.spec.content_file import DataFile
from icesql.spec.manifest_file import FieldSummary, ManifestFile
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema

SNAPSHOT = 9001
SCHEMA = Schema.from_json(
    {"type": "struct", "fields": [{"id": 1, "name": "id", "required": True, "type": "long"}]}
)
UNPARTITIONED = PartitionSpec(0, ())


def header(path: Path) -> dict[str, str]:
    meta, _, _ = read_header(path.read_bytes())
    return {k: v.decode() for k, v in meta.items()}


def manifest(path: str = "m.avro", **kw) -> ManifestFile:
    """A data manifest added by ``SNAPSHOT`` with every count set (v2 requires them)."""
    counts = dict(
        added_files_count=2, existing_files_count=1, deleted_files_count=0,
        added_rows_count=20, existing_rows_count=10, deleted_rows_count=0,
    )  # fmt: skip
    return ManifestFile(path, 100, 0, added_snapshot_id=SNAPSHOT, **{**counts, **kw})


def test_v3_manifest_list_assigns_first_row_ids_like_the_spec_example(tmp_path: Path) -> None:
    def mf(path: str, added: int, existing: int, first_row_id=None, content=0) -> ManifestFile:
        return ManifestFile(
            path, 100, 0, content, None, None, SNAPSHOT, 1, 1, 0, added, existing, 0,
            first_row_id=first_row_id,
        )  # fmt: skip

    old = replace_seq(mf("existing", 75, 0, first_row_id=925), 3, 1)
    manifests = [
        old,
        mf("added1", 100, 25),
        mf("deletes", 7, 0, content=1),
        mf("added2", 0, 100),
        mf("added3", 125, 25),
    ]
    io = FileIO()
    written = write_manifest_list(
        io, str(tmp_path / "l.avro"), manifests, 3, SNAPSHOT, 5, 8, first_row_id=1000
    )
    assert [m.first_row_id for m in written.manifests] == [925, 1000, None, 1125, 1225]
    assert written.next_row_id == 1375
    listed = read_manifest_list(io, str(tmp_path / "l.avro"))
    assert [m.first_row_id for m in listed] == [925, 1000, None, 1125, 1225]
    assert [m.sequence_number for m in listed] == [3, 8, 8, 8, 8]
    meta = header(tmp_path / "l.avro")
    assert (meta["snapshot-id"], meta["parent-snapshot-id"]) == (str(SNAPSHOT), "5")
    assert (meta["sequence-number"], meta["first-row-id"], meta["format-version"]) == (
        "8",
        "1000",
        "3",
    )


def replace_seq(m: ManifestFile, seq: int, snapshot: int) -> ManifestFile:
    return replace(m, sequence_number=seq, min_sequence_number=seq, added_snapshot_id=snapshot)


def test_manifest_list_rejects_unassigned_sequence_from_another_snapshot(tmp_path: Path) -> None:
    m = ManifestFile("x", 1, 0, 0, None, None, 123, 0, 0, 0, 0, 0, 0)
    with pytest.raises(InternalError, match="unassigned sequence number"):
        write_manifest_list(FileIO(), str(tmp_path / "l.avro"), [m], 2, SNAPSHOT, None, 3)


def test_v1_manifest_list_header_and_parent(tmp_path: Path) -> None:
    m = ManifestFile("x", 1, 0, added_snapshot_id=SNAPSHOT, added_files_count=1)
    write_manifest_list(FileIO(), str(tmp_path / "l.avro"), [m], 1, SNAPSHOT, None, 0)
    meta = header(tmp_path / "l.avro")
    assert {k: v for k, v in meta.items() if not k.startswith(("avro.", "iceberg."))} == {
        "snapshot-id": str(SNAPSHOT),
        "parent-snapshot-id": "null",  # Java's String.valueOf(null)
        "format-version": "1",
    }
    iceberg_schema = json.loads(meta["iceberg.schema"])
    assert iceberg_schema["fields"][3] == {
        "id": 503,
        "name": "added_snapshot_id",
        "required": True,
        "type": "long",
        "doc": "Snapshot ID that added the manifest",
    }
    [back] = read_manifest_list(FileIO(), str(tmp_path / "l.avro"))
    assert back == m
    with pytest.raises(InternalError, match="v1"):
        write_manifest_list(
            FileIO(), str(tmp_path / "l2.avro"), [replace_content(m)], 1, SNAPSHOT, None, 0
        )


def replace_content(m: ManifestFile) -> ManifestFile:
    return replace(m, content=1)


def test_exact_manifest_list_schema_per_version() -> None:
    def fields(v: int) -> list[tuple[str, int, bool]]:
        return [
            (f["name"], f["field-id"], isinstance(f["type"], list))
            for f in manifest_list_schema(v)["fields"]
        ]

    assert fields(1) == [
        ("manifest_path", 500, False), ("manifest_length", 501, False),
        ("partition_spec_id", 502, False), ("added_snapshot_id", 503, False),
        ("added_files_count", 504, True), ("existing_files_count", 505, True),
        ("deleted_files_count", 506, True), ("partitions", 507, True),
        ("added_rows_count", 512, True), ("existing_rows_count", 513, True),
        ("deleted_rows_count", 514, True), ("key_metadata", 519, True),
    ]  # fmt: skip
    v2 = [
        ("manifest_path", 500, False), ("manifest_length", 501, False),
        ("partition_spec_id", 502, False), ("content", 517, False),
        ("sequence_number", 515, False), ("min_sequence_number", 516, False),
        ("added_snapshot_id", 503, False), ("added_files_count", 504, False),
        ("existing_files_count", 505, False), ("deleted_files_count", 506, False),
        ("added_rows_count", 512, False), ("existing_rows_count", 513, False),
        ("deleted_rows_count", 514, False), ("partitions", 507, True),
        ("key_metadata", 519, True),
    ]  # fmt: skip
    assert fields(2) == v2
    assert fields(3) == v2 + [("first_row_id", 520, True)]
    summary = manifest_list_schema(2)["fields"][13]["type"][1]
    assert summary["element-id"] == 508 and summary["items"]["name"] == "r508"
    assert [(f["name"], f["field-id"]) for f in summary["items"]["fields"]] == [
        ("contains_null", 509),
        ("contains_nan", 518),
        ("lower_bound", 510),
        ("upper_bound", 511),
    ]


def test_old_java_count_names_are_read(tmp_path: Path) -> None:
    schema = {
        "type": "record",
        "name": "manifest_file",
        "fields": [
            {"name": "manifest_path", "type": "string", "field-id": 500},
            {"name": "manifest_length", "type": "long", "field-id": 501},
            {"name": "partition_spec_id", "type": "int", "field-id": 502},
            {"name": "added_snapshot_id", "type": ["null", "long"], "field-id": 503},
            {"name": "added_data_files_count", "type": ["null", "int"], "field-id": 504},
            {"name": "existing_data_files_count", "type": ["null", "int"], "field-id": 505},
            {"name": "deleted_data_files_count", "type": ["null", "int"], "field-id": 506},
        ],
    }
    rec = {
        "manifest_path": "m.avro",
        "manifest_length": 5,
        "partition_spec_id": 0,
        "added_snapshot_id": None,
        "added_data_files_count": 2,
        "existing_data_files_count": 0,
        "deleted_data_files_count": 1,
    }
    path = tmp_path / "old.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, schema, [rec])
    snap = Snapshot(77, 1, str(path))
    [m] = read_manifest_list(FileIO(), str(path), snap)
    assert (m.added_files_count, m.existing_files_count, m.deleted_files_count) == (2, 0, 1)
    assert (m.added_snapshot_id, m.sequence_number, m.content) == (77, 0, 0)
    assert m.partitions is None and not m.has_existing_files and m.has_deleted_files


def test_v1_snapshot_with_manifest_paths(tmp_path: Path) -> None:
    a = DataFile(
        file_path="file:/t/data/a.parquet", file_format="PARQUET", partition=(),
        record_count=10, file_size_in_bytes=1010, spec_id=0,
    )  # fmt: skip
    entries = [ManifestEntry(1, 5, None, None, a)]
    path = tmp_path / "m0.avro"
    write_manifest(FileIO(), str(path), UNPARTITIONED, SCHEMA, 1, 5, entries)
    snap = Snapshot(5, 1, manifests=(str(path),))
    [m] = read_manifest_list(FileIO(), None, snap)
    assert (m.manifest_path, m.manifest_length, m.added_snapshot_id) == (
        str(path),
        path.stat().st_size,
        5,
    )
    assert m.added_files_count is None and m.has_added_files
    [entry] = read_manifest(FileIO(), m)
    assert entry.data_file.file_path.endswith("a.parquet") and entry.sequence_number == 0


def test_truncated_manifest_list(tmp_path: Path) -> None:
    manifests = [
        ManifestFile(f"m{i}.avro", 1, 0, 0, 1, 1, SNAPSHOT, 1, 0, 0, 1, 0, 0) for i in range(500)
    ]
    path = tmp_path / "l.avro"
    write_manifest_list(FileIO(), str(path), manifests, 2, SNAPSHOT, None, 1)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(CorruptFileError, match="l.avro"):
        read_manifest_list(FileIO(), str(path))
