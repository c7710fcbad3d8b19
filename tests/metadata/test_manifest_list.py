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
from icesql.metadata.avro.schema import iceberg_schema
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
# Avro schemas and iceberg.schema keys of manifest lists Java (Iceberg 1.10.2) wrote
JAVA_SCHEMAS = json.loads(
    (Path(__file__).parent / "fixtures" / "java" / "avro_schemas.json").read_text()
)


def header(path: Path) -> dict[str, str]:
    meta, _, _ = read_header(path.read_bytes())
    return {k: v.decode() for k, v in meta.items()}


def manifest(path: str = "m.avro", **kw) -> ManifestFile:
    """A data manifest added by ``SNAPSHOT`` with every count set (v2 requires them)."""
    counts = dict(
        added_files_count=2, existing_files_count=1, deleted_files_count=0,
        added_rows_count=20, existing_rows_count=10, deleted_rows_count=0,
        added_snapshot_id=SNAPSHOT,
    )  # fmt: skip
    return ManifestFile(path, 100, 0, **{**counts, **kw})


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


@pytest.mark.parametrize("version", [1, 2, 3])
def test_round_trip_and_fastavro_reads_the_same_records(tmp_path: Path, version: int) -> None:
    summaries = (FieldSummary(True, False, b"\x01\x00\x00\x00", b"\x09\x00\x00\x00"),
                 FieldSummary(False, None, None, None))  # fmt: skip
    m = manifest(partitions=summaries, key_metadata=b"k", sequence_number=None,
                 min_sequence_number=None)  # fmt: skip
    path = tmp_path / "l.avro"
    written = write_manifest_list(
        FileIO(), str(path), [m], version, SNAPSHOT, None, 6,
        first_row_id=40 if version >= 3 else None,
    )  # fmt: skip
    assert written.length == path.stat().st_size
    [back] = read_manifest_list(FileIO(), str(path))
    seq = 0 if version == 1 else 6  # v1 lists have no sequence numbers (Appendix E: 0)
    expected = replace(m, sequence_number=seq, min_sequence_number=seq,
                       first_row_id=40 if version >= 3 else None)  # fmt: skip
    assert back == expected
    if version >= 2:  # a v1 list stores no sequence numbers, so none are assigned
        assert written.manifests[0] == expected
    with open(path, "rb") as f:  # the reference reader sees the same values under the spec names
        [rec] = list(fastavro.reader(f))
    assert rec["manifest_path"] == "m.avro" and rec["added_snapshot_id"] == SNAPSHOT
    assert (rec["added_files_count"], rec["existing_rows_count"]) == (2, 10)
    assert rec["partitions"][0] == {"contains_null": True, "contains_nan": False,
                                    "lower_bound": b"\x01\x00\x00\x00",
                                    "upper_bound": b"\x09\x00\x00\x00"}  # fmt: skip
    assert rec["key_metadata"] == b"k"
    assert ("sequence_number" in rec) is (version >= 2)
    assert ("first_row_id" in rec) is (version >= 3)
    if version >= 2:
        assert (rec["sequence_number"], rec["min_sequence_number"], rec["content"]) == (6, 6, 0)


def test_unassigned_marker_minus_one_is_assigned_and_assigned_numbers_are_kept(
    tmp_path: Path,
) -> None:
    new = manifest("new.avro", sequence_number=-1, min_sequence_number=-1)
    old = manifest("old.avro", sequence_number=2, min_sequence_number=1, added_snapshot_id=5)
    written = write_manifest_list(FileIO(), str(tmp_path / "l.avro"), [new, old], 2, SNAPSHOT, 5, 7)
    assert [(m.sequence_number, m.min_sequence_number) for m in written.manifests] == [
        (7, 7),
        (2, 1),
    ]
    assert written.next_row_id is None  # only v3 counts row ids


def test_added_snapshot_id_defaults_to_the_new_snapshot(tmp_path: Path) -> None:
    m = manifest(added_snapshot_id=None, sequence_number=None, min_sequence_number=None)
    written = write_manifest_list(FileIO(), str(tmp_path / "l.avro"), [m], 2, SNAPSHOT, None, 1)
    assert written.manifests[0].added_snapshot_id == SNAPSHOT
    assert header(tmp_path / "l.avro")["parent-snapshot-id"] == "null"


@pytest.mark.parametrize(
    "version, manifests, first_row_id, message",
    [
        (4, [], None, "format version 4"),
        (0, [], None, "format version 0"),
        (3, [], None, "needs the snapshot's first-row-id"),
        (3, [manifest(content=1, first_row_id=3)], 0, "delete manifest m.avro has a first_row_id"),
        (3, [manifest(added_rows_count=None)], 0, "manifest m.avro has no row counts"),
        (2, [manifest(added_files_count=None, deleted_rows_count=None)], None,
         "manifest m.avro lacks added_files_count, deleted_rows_count"),
    ],
)  # fmt: skip
def test_write_refuses_what_java_refuses(
    tmp_path: Path, version: int, manifests: list, first_row_id, message: str
) -> None:
    path = tmp_path / "l.avro"
    with pytest.raises(InternalError, match=message):
        write_manifest_list(FileIO(), str(path), manifests, version, SNAPSHOT, None, 1,
                            first_row_id)  # fmt: skip
    assert not path.exists()


def test_v1_counts_may_be_unknown(tmp_path: Path) -> None:
    m = manifest(added_files_count=None, added_rows_count=None, existing_rows_count=None)
    write_manifest_list(FileIO(), str(tmp_path / "l.avro"), [m], 1, SNAPSHOT, None, 0)
    [back] = read_manifest_list(FileIO(), str(tmp_path / "l.avro"))
    assert (back.added_files_count, back.added_rows_count, back.existing_files_count) == (
        None,
        None,
        1,
    )


def test_read_needs_a_path_or_a_v1_snapshot_with_manifests() -> None:
    with pytest.raises(InternalError, match="needs a path or a v1 snapshot"):
        read_manifest_list(FileIO(), None)
    with pytest.raises(InternalError, match="needs a path or a v1 snapshot"):
        read_manifest_list(FileIO(), None, Snapshot(1, 1, "l.avro"))


def test_a_record_missing_a_required_field_is_corrupt(tmp_path: Path) -> None:
    schema = {
        "type": "record",
        "name": "manifest_file",
        "fields": [{"name": "manifest_path", "type": "string", "field-id": 500}],
    }
    path = tmp_path / "short.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, schema, [{"manifest_path": "m.avro"}])
    with pytest.raises(CorruptFileError, match="short.avro") as info:
        read_manifest_list(FileIO(), str(path))
    assert "manifest_length" in str(info.value) and info.value.path == str(path)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_manifest_list_schema_is_javas(version: int) -> None:
    java = JAVA_SCHEMAS[f"manifest_list_v{version}"]
    ours = manifest_list_schema(version)
    assert ours == json.loads(java["avro.schema"])
    assert iceberg_schema(ours) == json.loads(java["iceberg.schema"])
