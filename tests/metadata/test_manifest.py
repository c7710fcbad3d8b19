"""Manifests: write -> read round trips per format version (through a manifest list, as a
snapshot reads them), the spec's inheritance rules, partition value normalisation, exact
entry schemas, and damaged files. The manifest list itself: test_manifest_list.py."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icesql.errors import CorruptFileError, InternalError
from icesql.io import FileIO
from icesql.metadata.avro.container import read_header
from icesql.metadata.manifest import ManifestEntry, open_manifest, read_manifest, write_manifest
from icesql.metadata.manifest_list import (
    read_manifest_list,
    write_manifest_list,
)
from icesql.spec.content_file import DataFile
from icesql.spec.manifest_file import FieldSummary, ManifestFile
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import DateType, DecimalType, IntegerType, UUIDType
from icesql.spec.values import to_bytes

SCHEMA = Schema.from_json(
    {
        "type": "struct",
        "schema-id": 3,
        "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "ts", "required": False, "type": "timestamptz"},
            {"id": 3, "name": "amount", "required": False, "type": "decimal(9,2)"},
            {"id": 4, "name": "key", "required": False, "type": "uuid"},
            {"id": 5, "name": "day", "required": False, "type": "date"},
            {"id": 6, "name": "cat-egory", "required": False, "type": "string"},
        ],
    }
)
SPEC = PartitionSpec.from_json(
    {
        "spec-id": 2,
        "fields": [
            {"name": "ts_day", "transform": "day", "source-id": 2, "field-id": 1000},
            {"name": "ts", "transform": "identity", "source-id": 2, "field-id": 1001},
            {"name": "amount", "transform": "identity", "source-id": 3, "field-id": 1002},
            {"name": "key", "transform": "identity", "source-id": 4, "field-id": 1003},
            {"name": "id_bucket", "transform": "bucket[4]", "source-id": 1, "field-id": 1004},
            {"name": "cat-egory", "transform": "identity", "source-id": 6, "field-id": 1005},
        ],
    }
)
UNPARTITIONED = PartitionSpec(0, ())
KEY = uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
SNAPSHOT = 9001


def data_file(name: str, partition: tuple, rows: int = 10, **kw) -> DataFile:
    return DataFile(
        file_path=f"file:/t/data/{name}.parquet",
        file_format="PARQUET",
        partition=partition,
        record_count=rows,
        file_size_in_bytes=1000 + rows,
        column_sizes={1: 40, 2: 80},
        value_counts={1: rows, 2: rows},
        null_value_counts={1: 0, 2: 1},
        nan_value_counts={},
        lower_bounds={1: to_bytes(IntegerType(), 1)},
        upper_bounds={1: to_bytes(IntegerType(), 9)},
        split_offsets=(4,),
        sort_order_id=0,
        **{"spec_id": 2, **kw},
    )


PARTS = [
    (19675, 1700000000123456, Decimal("-12.34"), KEY, 3, "a"),
    (-1, -1, Decimal("0.01"), KEY, 0, "b"),
    (None, None, None, None, None, None),
]


def entries_v2() -> list[ManifestEntry]:
    return [
        ManifestEntry(1, None, None, None, data_file("added", PARTS[0])),
        ManifestEntry(0, 11, 4, 5, data_file("existing", PARTS[1])),
        ManifestEntry(2, 12, 3, 3, data_file("deleted", PARTS[2])),
        ManifestEntry(1, None, 2, None, data_file("added_old_data", PARTS[0])),
    ]


def commit(tmp_path: Path, version: int, entries, spec=SPEC, snapshot_id=SNAPSHOT, **kw):
    io = FileIO()
    manifest = write_manifest(
        io, str(tmp_path / "m.avro"), spec, SCHEMA, version, snapshot_id, entries, **kw
    )
    written = write_manifest_list(
        io,
        str(tmp_path / "list.avro"),
        [manifest],
        version,
        SNAPSHOT,
        None,
        7,
        first_row_id=1000 if version >= 3 else None,
    )
    listed = read_manifest_list(io, str(tmp_path / "list.avro"))
    return io, manifest, written, listed


@pytest.mark.parametrize("version", [2, 3])
def test_v2_v3_round_trip_with_sequence_number_inheritance(tmp_path: Path, version: int) -> None:
    io, manifest, written, listed = commit(tmp_path, version, entries_v2())
    assert manifest.sequence_number is None  # unassigned until the manifest list
    assert manifest.min_sequence_number == 2  # live entries only: the deleted one has 3
    assert (manifest.added_files_count, manifest.existing_files_count) == (2, 1)
    assert (manifest.deleted_files_count, manifest.added_rows_count) == (1, 20)
    [m] = listed
    assert m == written.manifests[0]
    assert (m.sequence_number, m.min_sequence_number, m.added_snapshot_id) == (7, 2, SNAPSHOT)
    got = list(read_manifest(io, m))
    added, existing, deleted, added_old = got
    assert (added.status, added.snapshot_id, added.sequence_number) == (1, SNAPSHOT, 7)
    assert added.file_sequence_number == 7
    assert (existing.snapshot_id, existing.sequence_number, existing.file_sequence_number) == (
        11,
        4,
        5,
    )
    # DELETED entries get the deleting snapshot's id, as Java's wrapDelete does
    assert (deleted.snapshot_id, deleted.sequence_number) == (SNAPSHOT, 3)
    # an explicit (older) data sequence number is kept; the file sequence number inherits
    assert (added_old.sequence_number, added_old.file_sequence_number) == (2, 7)
    for entry, original in zip(got, entries_v2()):
        assert replace(entry.data_file, first_row_id=None) == original.data_file
    # v3: every live data file without one gets a row id range, EXISTING ones included
    expected_ids = [1000, 1010, None, 1020] if version == 3 else [None] * 4
    assert [e.data_file.first_row_id for e in got] == expected_ids
    assert added.data_file.partition == PARTS[0]
    assert deleted.data_file.partition == PARTS[2]


@pytest.mark.parametrize("version", [1, 2, 3])
def test_read_without_metrics_leaves_only_the_metrics_out(tmp_path: Path, version: int) -> None:
    entries = (
        entries_v2()
        if version > 1
        else [ManifestEntry(1, None, None, None, data_file("a", PARTS[0]))]
    )
    io, _, _, [m] = commit(tmp_path, version, entries)
    full = list(read_manifest(io, m))
    lean = list(read_manifest(io, m, metrics=False))
    none = dict.fromkeys(
        [
            "column_sizes",
            "value_counts",
            "null_value_counts",
            "nan_value_counts",
            "lower_bounds",
            "upper_bounds",
        ]
    )
    assert [replace(e, data_file=replace(e.data_file, **none)) for e in full] == lean
    assert full[0].data_file.value_counts == {1: 10, 2: 10}


def test_v1_round_trip_sequence_numbers_are_zero(tmp_path: Path) -> None:
    entries = [
        ManifestEntry(1, None, None, None, data_file("a", PARTS[0])),
        ManifestEntry(0, 11, None, None, data_file("b", PARTS[1])),
    ]
    io, manifest, _, [m] = commit(tmp_path, 1, entries)
    assert (m.content, m.sequence_number, m.min_sequence_number) == (0, 0, 0)
    got = list(read_manifest(io, m))
    assert [(e.snapshot_id, e.sequence_number, e.file_sequence_number) for e in got] == [
        (SNAPSHOT, 0, 0),
        (11, 0, 0),
    ]
    assert [e.data_file for e in got] == [e.data_file for e in entries]
    reader = open_manifest(io, m)
    assert reader.format_version == 1
    assert "content" not in reader.metadata and "schema-id" not in reader.metadata


def test_snapshot_id_inheritance_when_written_without_one(tmp_path: Path) -> None:
    entries = [ManifestEntry(1, None, None, None, data_file("a", PARTS[0]))]
    io, manifest, _, [m] = commit(tmp_path, 2, entries, snapshot_id=None)
    assert manifest.added_snapshot_id is None
    assert m.added_snapshot_id == SNAPSHOT
    [entry] = read_manifest(io, m)
    assert (entry.snapshot_id, entry.sequence_number) == (SNAPSHOT, 7)


def test_existing_entry_without_sequence_number_does_not_inherit(tmp_path: Path) -> None:
    """Only ADDED entries inherit in v2; Java leaves an EXISTING null as null."""
    raw = write_raw_manifest(tmp_path, status=0, sequence_number=None)
    m = ManifestFile(str(raw), raw.stat().st_size, 0, sequence_number=5, added_snapshot_id=1)
    [entry] = read_manifest(FileIO(), m)
    assert entry.sequence_number is None and entry.file_sequence_number is None
    # ... unless the manifest's own number is 0 (v1 tables), where everything is 0
    m0 = ManifestFile(str(raw), raw.stat().st_size, 0, sequence_number=0, added_snapshot_id=1)
    [entry] = read_manifest(FileIO(), m0)
    assert entry.sequence_number == 0 and entry.file_sequence_number == 0


def test_v3_first_row_id_inheritance_follows_the_spec_example(tmp_path: Path) -> None:
    entries = [
        ManifestEntry(0, 11, 1, 1, data_file("data1", PARTS[0], 25, first_row_id=800)),
        ManifestEntry(1, None, None, None, data_file("data2", PARTS[0], 50)),
        ManifestEntry(2, None, 1, 1, data_file("gone", PARTS[0], 1000)),
        ManifestEntry(1, None, None, None, data_file("data3", PARTS[0], 50)),
    ]
    io, manifest, written, [m] = commit(tmp_path, 3, entries)
    assert m.first_row_id == 1000
    assert written.next_row_id == 1000 + 100 + 25
    got = [e.data_file.first_row_id for e in read_manifest(io, m)]
    assert got == [800, 1000, None, 1050]  # DELETED entries neither get nor consume ids


def test_v3_data_files_of_a_manifest_without_first_row_id_stay_null(tmp_path: Path) -> None:
    entries = [ManifestEntry(1, None, None, None, data_file("a", PARTS[0]))]
    io = FileIO()
    manifest = write_manifest(io, str(tmp_path / "m.avro"), SPEC, SCHEMA, 3, SNAPSHOT, entries)
    [entry] = read_manifest(io, manifest)
    assert entry.data_file.first_row_id is None


def test_partition_summaries(tmp_path: Path) -> None:
    io, manifest, _, [m] = commit(tmp_path, 2, entries_v2())
    day, ts, amount, key, bucket, cat = m.partitions
    assert day == FieldSummary(True, False, to_bytes(DateType(), -1), to_bytes(DateType(), 19675))
    assert amount.lower_bound == to_bytes(DecimalType(9, 2), Decimal("-12.34"))
    assert amount.upper_bound == to_bytes(DecimalType(9, 2), Decimal("0.01"))
    assert key.lower_bound == key.upper_bound == to_bytes(UUIDType(), KEY)
    assert (bucket.lower_bound, bucket.upper_bound) == (
        to_bytes(IntegerType(), 0),
        to_bytes(IntegerType(), 3),
    )
    assert (cat.lower_bound, cat.upper_bound) == (b"a", b"b")
    assert all(s.contains_null for s in m.partitions)
    assert m.partitions == manifest.partitions


def test_float_partition_summary_nan_and_signed_zero(tmp_path: Path) -> None:
    schema = Schema.from_json(
        {"type": "struct", "fields": [{"id": 1, "name": "x", "required": False, "type": "double"}]}
    )
    spec = {"spec-id": 0, "fields": [{"name": "x", "transform": "identity", "source-id": 1, "field-id": 1000}]}  # fmt: skip
    entries = [
        ManifestEntry(1, None, None, None, data_file(str(i), (v,)))
        for i, v in enumerate([0.0, float("nan"), -0.0, 2.5])
    ]
    io = FileIO()
    m = write_manifest(io, str(tmp_path / "m.avro"), spec, schema, 2, 1, entries)
    [s] = m.partitions
    assert s.contains_nan is True and s.contains_null is False
    assert s.lower_bound == b"\x00" * 7 + b"\x80"  # -0.0 sorts before +0.0
    got = [e.data_file.partition[0] for e in read_manifest(io, m)]
    assert str(got) == "[0.0, nan, -0.0, 2.5]"


def test_exact_entry_schema_per_version(tmp_path: Path) -> None:
    expected = {
        1: [
            "file_path", "file_format", "partition", "record_count", "file_size_in_bytes",
            "block_size_in_bytes", "column_sizes", "value_counts", "null_value_counts",
            "nan_value_counts", "lower_bounds", "upper_bounds", "key_metadata", "split_offsets",
            "sort_order_id",
        ],
        2: [
            "content", "file_path", "file_format", "partition", "record_count",
            "file_size_in_bytes", "column_sizes", "value_counts", "null_value_counts",
            "nan_value_counts", "lower_bounds", "upper_bounds", "key_metadata", "split_offsets",
            "equality_ids", "sort_order_id", "referenced_data_file",
        ],
        3: [
            "content", "file_path", "file_format", "partition", "record_count",
            "file_size_in_bytes", "column_sizes", "value_counts", "null_value_counts",
            "nan_value_counts", "lower_bounds", "upper_bounds", "key_metadata", "split_offsets",
            "equality_ids", "sort_order_id", "first_row_id", "referenced_data_file",
            "content_offset", "content_size_in_bytes",
        ],
    }  # fmt: skip
    ids = {
        "content": 134, "file_path": 100, "file_format": 101, "partition": 102,
        "record_count": 103, "file_size_in_bytes": 104, "block_size_in_bytes": 105,
        "column_sizes": 108, "value_counts": 109, "null_value_counts": 110,
        "nan_value_counts": 137, "lower_bounds": 125, "upper_bounds": 128, "key_metadata": 131,
        "split_offsets": 132, "equality_ids": 135, "sort_order_id": 140, "first_row_id": 142,
        "referenced_data_file": 143, "content_offset": 144, "content_size_in_bytes": 145,
    }  # fmt: skip
    for version, names in expected.items():
        entries = [ManifestEntry(1, SNAPSHOT, None, None, data_file("a", PARTS[0]))]
        path = tmp_path / f"m{version}.avro"
        write_manifest(FileIO(), str(path), SPEC, SCHEMA, version, SNAPSHOT, entries)
        meta = header(path)
        schema = json.loads(meta["avro.schema"])
        fastavro.parse_schema(schema)  # a valid Avro schema
        entry_fields = [(f["name"], f["field-id"]) for f in schema["fields"]]
        if version == 1:
            assert entry_fields == [("status", 0), ("snapshot_id", 1), ("data_file", 2)]
            assert schema["fields"][1]["type"] == ["null", "long"]  # optional, as Java writes
        else:
            assert entry_fields == [
                ("status", 0),
                ("snapshot_id", 1),
                ("sequence_number", 3),
                ("file_sequence_number", 4),
                ("data_file", 2),
            ]
        df = schema["fields"][-1]["type"]
        assert df["name"] == "r2"
        assert [f["name"] for f in df["fields"]] == names
        assert all(f["field-id"] == ids[f["name"]] for f in df["fields"])
        part = next(f for f in df["fields"] if f["name"] == "partition")["type"]
        assert part["name"] == "r102"
        assert [f["field-id"] for f in part["fields"]] == [1000, 1001, 1002, 1003, 1004, 1005]
        types = [f["type"][1] for f in part["fields"]]
        assert types[0] == {"type": "int", "logicalType": "date"}
        assert types[1] == {
            "type": "long",
            "logicalType": "timestamp-micros",
            "adjust-to-utc": True,
        }
        assert types[2] == {
            "type": "fixed",
            "name": "decimal_9_2",
            "size": 4,
            "logicalType": "decimal",
            "precision": 9,
            "scale": 2,
        }
        assert types[3] == {
            "type": "fixed",
            "name": "uuid_fixed",
            "size": 16,
            "logicalType": "uuid",
        }
        assert part["fields"][5]["name"] == "cat_x2Degory"  # Java's Avro-compatible name
        assert part["fields"][5]["iceberg-field-name"] == "cat-egory"
        counts = next(f for f in df["fields"] if f["name"] == "column_sizes")["type"][1]
        assert counts["logicalType"] == "map" and counts["items"]["name"] == "k117_v118"
        assert json.loads(meta["schema"]) == SCHEMA.to_json()
        assert json.loads(meta["partition-spec"]) == SPEC.to_json()["fields"]
        assert meta["partition-spec-id"] == "2" and meta["format-version"] == str(version)
        if version >= 2:
            assert (meta["content"], meta["schema-id"]) == ("data", "3")


def test_reads_java_style_logical_types(tmp_path: Path) -> None:
    """A manifest as Java writes it (fastavro stands in): values come back normalised."""
    part_fields = [
        ("d", 1000, {"type": "int", "logicalType": "date"}, 19675),
        (
            "t",
            1001,
            {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False},
            1700000000123456,
        ),  # fmt: skip
        (
            "n",
            1002,
            {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": True},
            1700000000123456789,
        ),  # fmt: skip
        ("tm", 1003, {"type": "long", "logicalType": "time-micros"}, 3_600_000_001),
        (
            "dec",
            1004,
            {
                "type": "fixed",
                "name": "decimal_38_10",
                "size": 16,
                "logicalType": "decimal",
                "precision": 38,
                "scale": 10,
            },
            (-123456789012345678901).to_bytes(16, "big", signed=True),
        ),  # fmt: skip
        (
            "u",
            1005,
            {"type": "fixed", "name": "uuid_fixed", "size": 16, "logicalType": "uuid"},
            KEY.bytes,
        ),  # fmt: skip
        ("far", 1006, {"type": "int", "logicalType": "date"}, 3_000_000),  # past year 9999
    ]
    path = write_raw_manifest(tmp_path, part_fields=part_fields)
    m = ManifestFile(str(path), path.stat().st_size, 0, sequence_number=1, added_snapshot_id=1)
    [entry] = read_manifest(FileIO(), m)
    assert entry.data_file.partition == (
        19675,
        1700000000123456,
        1700000000123456789,
        3_600_000_001,
        Decimal("-12345678901.2345678901"),
        KEY,
        3_000_000,
    )


def test_partition_tuple_follows_spec_order_by_field_id(tmp_path: Path) -> None:
    part_fields = [("b", 1001, "int", 2), ("a", 1000, "int", 1)]
    spec = [{"name": "a", "transform": "identity", "source-id": 1, "field-id": 1000},
            {"name": "b", "transform": "identity", "source-id": 2, "field-id": 1001}]  # fmt: skip
    path = write_raw_manifest(tmp_path, part_fields=part_fields, spec_fields=spec)
    m = ManifestFile(str(path), path.stat().st_size, 0, sequence_number=1, added_snapshot_id=1)
    [entry] = read_manifest(FileIO(), m)
    assert entry.data_file.partition == (1, 2)


def test_delete_manifest_fields(tmp_path: Path) -> None:
    dv = DataFile(
        content=1,
        file_path="file:/t/data/dv.puffin",
        file_format="puffin",
        partition=(),
        record_count=3,
        file_size_in_bytes=100,
        referenced_data_file="file:/t/data/a.parquet",
        content_offset=4,
        content_size_in_bytes=40,
    )
    eq = DataFile(
        content=2,
        file_path="file:/t/data/eq.parquet",
        file_format="PARQUET",
        partition=(),
        record_count=1,
        file_size_in_bytes=50,
        equality_ids=(1, 2),
    )
    entries = [ManifestEntry(1, None, None, None, dv), ManifestEntry(1, None, None, None, eq)]
    for version in (2, 3):
        io = FileIO()
        path = str(tmp_path / f"d{version}.avro")
        m = write_manifest(io, path, UNPARTITIONED, SCHEMA, version, 1, entries, content=1)
        assert m.content == 1
        reader = open_manifest(io, m)
        assert reader.content == 1 and reader.metadata["content"] == "deletes"
        got_dv, got_eq = (e.data_file for e in reader)
        assert got_dv.file_format == "PUFFIN" and got_dv.referenced_data_file.endswith("a.parquet")
        assert (got_dv.content_offset, got_dv.content_size_in_bytes) == (
            (4, 40) if version == 3 else (None, None)
        )
        assert got_eq.equality_ids == (1, 2) and got_eq.referenced_data_file is None


def test_writer_rejects_null_sequence_on_existing_entries(tmp_path: Path) -> None:
    entries = [ManifestEntry(0, 3, None, None, data_file("a", PARTS[0]))]
    with pytest.raises(InternalError, match="only ADDED"):
        write_manifest(FileIO(), str(tmp_path / "m.avro"), SPEC, SCHEMA, 2, 1, entries)


@pytest.mark.parametrize("cut", [0.5, 0.9, 0.999])
def test_truncated_manifest_names_the_file(tmp_path: Path, cut: float) -> None:
    entries = [ManifestEntry(1, None, None, None, data_file(str(i), PARTS[0])) for i in range(300)]
    io, manifest, _, [m] = commit(tmp_path, 2, entries)
    data = (tmp_path / "m.avro").read_bytes()
    (tmp_path / "m.avro").write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(CorruptFileError) as info:
        list(read_manifest(io, m))
    assert info.value.path == m.manifest_path


def test_bad_magic_and_truncated_header(tmp_path: Path) -> None:
    io = FileIO()
    for content in (b"PAR1 not avro at all", b"Obj\x01\x04", b""):
        path = tmp_path / "bad.avro"
        path.write_bytes(content)
        with pytest.raises(CorruptFileError, match="bad.avro"):
            read_manifest_list(io, str(path))
        with pytest.raises(CorruptFileError, match="bad.avro"):
            list(read_manifest(io, ManifestFile(str(path), len(content), 0)))


def test_ten_thousand_entries_round_trip_in_order(tmp_path: Path) -> None:
    # speed is measured by `python -m benchmarks` (planning scenario), never timed in tests
    entries = [
        ManifestEntry(1, None, None, None, data_file(str(i), PARTS[i % 2])) for i in range(10_000)
    ]
    io, _, _, [m] = commit(tmp_path, 2, entries)
    got = list(read_manifest(io, m))
    assert [e.data_file.file_path for e in got] == [e.data_file.file_path for e in entries]
    assert len({e.data_file.file_path for e in got}) == 10_000


# ---------------------------------------------------------------------------------------------
# helpers


def header(path: Path) -> dict[str, str]:
    meta, _, _ = read_header(path.read_bytes())
    return {k: v.decode() for k, v in meta.items()}


def write_raw_manifest(
    tmp_path: Path,
    status: int = 1,
    sequence_number: int | None = None,
    part_fields=(),
    spec_fields=None,
) -> Path:
    """A v2 manifest written directly with fastavro and logical types, as Java would."""
    partition = {
        "type": "record",
        "name": "r102",
        "fields": [
            {"name": n, "type": ["null", t], "default": None, "field-id": fid}
            for n, fid, t, _ in part_fields
        ],
    }
    schema = {
        "type": "record",
        "name": "manifest_entry",
        "fields": [
            {"name": "status", "type": "int", "field-id": 0},
            {"name": "snapshot_id", "type": ["null", "long"], "field-id": 1},
            {"name": "sequence_number", "type": ["null", "long"], "field-id": 3},
            {"name": "file_sequence_number", "type": ["null", "long"], "field-id": 4},
            {
                "name": "data_file",
                "field-id": 2,
                "type": {
                    "type": "record",
                    "name": "r2",
                    "fields": [
                        {"name": "content", "type": "int", "field-id": 134},
                        {"name": "file_path", "type": "string", "field-id": 100},
                        {"name": "file_format", "type": "string", "field-id": 101},
                        {"name": "partition", "type": partition, "field-id": 102},
                        {"name": "record_count", "type": "long", "field-id": 103},
                        {"name": "file_size_in_bytes", "type": "long", "field-id": 104},
                    ],
                },
            },
        ],
    }
    rec = {
        "status": status,
        "snapshot_id": 1,
        "sequence_number": sequence_number,
        "file_sequence_number": sequence_number,
        "data_file": {
            "content": 0,
            "file_path": "f.parquet",
            "file_format": "PARQUET",
            "partition": {n: v for n, _, _, v in part_fields},
            "record_count": 1,
            "file_size_in_bytes": 1,
        },
    }
    from icesql.metadata.avro.container import write_avro  # raw values, annotated header, like Java

    meta = {"format-version": "2", "content": "data", "partition-spec-id": "0"}
    if spec_fields is not None:
        meta["partition-spec"] = json.dumps(spec_fields)
    path = tmp_path / "raw.avro"
    path.write_bytes(write_avro(schema, [rec], meta))
    return path


ALL_TYPES = [
    ("boolean", st.booleans()),
    ("int", st.integers(-(2**31), 2**31 - 1)),
    ("long", st.integers(-(2**63), 2**63 - 1)),
    ("float", st.floats(width=32, allow_nan=False)),
    ("double", st.floats(allow_nan=False)),
    ("decimal(38,10)", st.decimals(-(10**27) + 1, 10**27 - 1, places=10)),
    ("decimal(3,0)", st.integers(-999, 999).map(Decimal)),
    ("date", st.integers(-(10**6), 10**7)),
    ("time", st.integers(0, 86_400_000_000 - 1)),
    ("timestamp", st.integers(-(2**62), 2**62)),
    ("timestamptz", st.integers(-(2**62), 2**62)),
    ("timestamp_ns", st.integers(-(2**63), 2**63 - 1)),
    ("timestamptz_ns", st.integers(-(2**63), 2**63 - 1)),
    ("string", st.text(max_size=20)),
    ("uuid", st.uuids()),
    ("fixed[3]", st.binary(min_size=3, max_size=3)),
    ("binary", st.binary(max_size=10)),
]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.tuples(*[st.one_of(st.none(), s) for _, s in ALL_TYPES]))
def test_every_partition_type_round_trips(tmp_path: Path, values: tuple) -> None:
    schema = Schema.from_json(
        {
            "type": "struct",
            "fields": [
                {"id": i + 1, "name": f"c{i}", "required": False, "type": t}
                for i, (t, _) in enumerate(ALL_TYPES)
            ],
        }
    )
    spec = {
        "spec-id": 0,
        "fields": [
            {"name": f"p{i}", "transform": "identity", "source-id": i + 1, "field-id": 1000 + i}
            for i in range(len(ALL_TYPES))
        ],
    }
    entries = [ManifestEntry(1, None, None, None, data_file("x", values, spec_id=0))]
    io = FileIO()
    for version in (1, 2, 3):
        path = str(tmp_path / f"all{version}.avro")
        m = write_manifest(io, path, spec, schema, version, 1, entries)
        [entry] = read_manifest(io, replace(m, sequence_number=1))
        assert entry.data_file.partition == values
