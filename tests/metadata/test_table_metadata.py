"""Table metadata JSON of v1, v2 and v3: exact round trips, accessors, refs, time travel."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from icesql.errors import CorruptFileError, NotSupportedError, ProgrammingError
from icesql.metadata.snapshots import SnapshotRef
from icesql.metadata.table_metadata import TableMetadata, parse_table_metadata
from icesql.spec.types import DecimalType

FIXTURES = Path(__file__).parent / "fixtures"
VERSIONS = ["v1", "v2", "v3"]


def load(name: str) -> tuple[str, TableMetadata]:
    path = FIXTURES / f"{name}.metadata.json"
    text = path.read_text()
    return text, parse_table_metadata(text, str(path))


@pytest.mark.parametrize("name", VERSIONS)
def test_round_trip_keeps_every_field(name: str) -> None:
    text, md = load(name)
    assert json.loads(md.to_json()) == json.loads(text)
    assert json.loads(md.to_json(indent=2)) == json.loads(text)


@pytest.mark.parametrize("name", VERSIONS)
def test_gzip_metadata_is_detected_by_content(name: str) -> None:
    text, _ = load(name)
    md = parse_table_metadata(gzip.compress(text.encode()), "v9.gz.metadata.json")
    assert json.loads(md.to_json()) == json.loads(text)


@pytest.mark.parametrize("name", VERSIONS)
def test_typed_views_write_back_their_own_json(name: str) -> None:
    text, md = load(name)
    raw = json.loads(text)
    assert [s.to_json() for s in md.snapshots] == raw["snapshots"]
    assert [e.to_json() for e in md.snapshot_log] == raw["snapshot-log"]
    assert [e.to_json() for e in md.metadata_log] == raw.get("metadata-log", [])
    assert [s.to_json() for s in md.statistics] == raw.get("statistics", [])
    assert [s.to_json() for s in md.partition_statistics] == raw.get("partition-statistics", [])
    assert [k.to_json() for k in md.encryption_keys] == raw.get("encryption-keys", [])
    refs = raw.get("refs")
    if refs is not None:
        assert {n: r.to_json() for n, r in md.refs.items()} == refs


def test_v1_defaults_follow_appendix_e() -> None:
    _, md = load("v1")
    assert md.format_version == 1
    assert md.last_sequence_number == 0
    assert [s.sequence_number for s in md.snapshots] == [0, 0]
    assert md.current_schema_id == 0
    assert md.schema().column_names == ["id", "data", "ts"]
    assert md.specs_json == [
        {
            "spec-id": 0,
            "fields": [{"name": "ts_day", "transform": "day", "source-id": 3, "field-id": 1000}],
        }
    ]
    assert md.default_spec_id == 0
    assert md.last_partition_id == 1000
    assert md.sort_orders_json == [{"order-id": 0, "fields": []}]
    assert md.default_sort_order_id == 0
    assert md.properties["custom.unknown.property"] == "kept"
    # no refs in the file: main derives from current-snapshot-id, as in Java
    assert md.refs == {"main": SnapshotRef(2000000000000000002, "branch")}
    assert md.snapshot_for_ref("main").snapshot_id == 2000000000000000002
    old = md.snapshot_by_id(2000000000000000001)
    assert old.manifest_list is None
    assert old.manifests == ("file:/tmp/warehouse/db/legacy/metadata/m0.avro",)
    assert md.current_snapshot().extra == {"x-snapshot-extension": {"nested": [1, 2, 3]}}
    assert md.next_row_id is None


def test_v1_without_current_snapshot() -> None:
    raw = json.loads(load("v1")[0])
    raw["current-snapshot-id"] = -1
    md = TableMetadata(raw)
    assert md.current_snapshot_id is None
    assert md.current_snapshot() is None
    assert dict(md.refs) == {}


def test_v2_accessors() -> None:
    _, md = load("v2")
    assert md.format_version == 2
    assert md.table_uuid == "0f6b4a0e-8a41-4d0c-b1a3-1d2f0e9c7b55"
    assert md.location == "file:/tmp/warehouse/db/events"
    assert md.last_sequence_number == 3
    assert md.last_updated_ms == 1700000400000
    assert md.last_column_id == 4
    assert [s.schema_id for s in md.schemas] == [0, 1]
    assert md.schema().find_type(4) == DecimalType(12, 2)
    assert md.schema_by_id(0).column_names == ["id", "category", "ts"]
    assert md.schema_by_id(7) is None
    assert md.default_spec_id == 1
    assert md.spec_json_by_id(1)["fields"][1]["transform"] == "bucket[4]"
    assert md.last_partition_id == 1001
    assert md.default_sort_order_id == 1
    assert md.properties["write.delete.mode"] == "merge-on-read"
    assert md.current_snapshot_id == 3055729675574597004
    current = md.current_snapshot()
    assert current.sequence_number == 3
    assert current.parent_snapshot_id == 3052729675574597004
    assert current.operation == "overwrite"
    assert current.schema_id == 1
    assert [s.snapshot_id for s in md.ancestors_of(current.snapshot_id)] == [
        3055729675574597004,
        3052729675574597004,
        3051729675574597004,
    ]
    stats = md.statistics[0]
    assert stats.blob_metadata[0].fields == (1,)
    assert stats.blob_metadata[0].properties == {"ndv": "10"}
    assert md.partition_statistics[0].file_size_in_bytes == 1024
    assert md.metadata_log[-1].metadata_file.endswith("v2.metadata.json")


def test_v2_refs() -> None:
    _, md = load("v2")
    assert set(md.refs) == {"main", "audit", "v1.0"}
    audit = md.refs["audit"]
    assert (audit.type, audit.min_snapshots_to_keep, audit.max_snapshot_age_ms) == (
        "branch",
        5,
        86400000,
    )
    tag = md.refs["v1.0"]
    assert tag.type == "tag" and not tag.is_branch
    assert tag.max_ref_age_ms == 604800000
    assert tag.extra == {"x-ref-extension": "kept"}
    assert md.snapshot_for_ref("v1.0").snapshot_id == 3051729675574597004
    assert md.snapshot_for_ref("nope") is None


@pytest.mark.parametrize(
    ("ts", "expected"),
    [
        (1700000100000, 3051729675574597004),  # exactly the first entry
        (1700000150000, 3051729675574597004),
        (1700000200000, 3052729675574597004),
        (1700000260000, 3051729675574597004),  # after a rollback, the log wins over lineage
        (1700000300000, 3055729675574597004),
        (1800000000000, 3055729675574597004),
    ],
)
def test_snapshot_as_of_follows_the_snapshot_log(ts: int, expected: int) -> None:
    _, md = load("v2")
    assert md.snapshot_as_of(ts).snapshot_id == expected


def test_snapshot_as_of_before_the_first_entry_is_an_error() -> None:
    _, md = load("v2")
    with pytest.raises(ProgrammingError, match="older than 1700000099999"):
        md.snapshot_as_of(1700000099999)


def test_snapshot_as_of_an_expired_snapshot_is_an_error() -> None:
    raw = json.loads(load("v2")[0])
    raw["snapshot-log"].insert(0, {"timestamp-ms": 1600000000000, "snapshot-id": 1})
    md = TableMetadata(raw)
    with pytest.raises(ProgrammingError, match="expired"):
        md.snapshot_as_of(1650000000000)


def test_v3_row_lineage_and_keys() -> None:
    _, md = load("v3")
    assert md.format_version == 3
    assert md.next_row_id == 5
    first, second = md.snapshots
    assert (first.first_row_id, first.added_rows) == (0, 5)
    assert (second.first_row_id, second.added_rows, second.key_id) == (5, 0, "k1")
    key = md.encryption_keys[0]
    assert (key.key_id, key.encrypted_by_id, dict(key.properties)) == ("k1", "kms-1", {"x": "y"})
    assert md.schema().find_field(2).initial_default == 1510871468123456789


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"format-version": 2}', "missing required field 'location'"),
        ('{"format-version": "2"}', "must be an integer"),
    ],
)
def test_malformed_metadata_names_the_file(text: str, match: str) -> None:
    with pytest.raises(CorruptFileError, match=match) as info:
        parse_table_metadata(text, "s3://b/t/metadata/v3.metadata.json")
    assert info.value.path == "s3://b/t/metadata/v3.metadata.json"
    assert "v3.metadata.json" in str(info.value)


def test_v2_without_required_field_is_corrupt() -> None:
    raw = json.loads(load("v2")[0])
    del raw["last-sequence-number"]
    with pytest.raises(CorruptFileError, match="last-sequence-number"):
        parse_table_metadata(json.dumps(raw), "x.json")


def test_v3_without_next_row_id_is_corrupt() -> None:
    raw = json.loads(load("v3")[0])
    del raw["next-row-id"]
    with pytest.raises(CorruptFileError, match="next-row-id"):
        parse_table_metadata(json.dumps(raw), "x.json")


def test_ref_to_missing_snapshot_is_corrupt() -> None:
    raw = json.loads(load("v2")[0])
    raw["refs"]["ghost"] = {"snapshot-id": 42, "type": "tag"}
    with pytest.raises(CorruptFileError, match="ghost"):
        parse_table_metadata(json.dumps(raw), "x.json")


def test_main_must_match_current_snapshot() -> None:
    raw = json.loads(load("v2")[0])
    raw["current-snapshot-id"] = 3051729675574597004
    with pytest.raises(CorruptFileError, match="main branch"):
        parse_table_metadata(json.dumps(raw), "x.json")


def test_bad_gzip_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="gzip"):
        parse_table_metadata(b"\x1f\x8b\x08garbage", "v1.gz.metadata.json")


def test_future_format_version_is_not_supported() -> None:
    raw = json.loads(load("v3")[0])
    raw["format-version"] = 4
    with pytest.raises(NotSupportedError, match="format version 4"):
        parse_table_metadata(json.dumps(raw), "x.json")


def test_typed_specs_and_sort_orders() -> None:
    _, md = load("v2")
    assert [s.spec_id for s in md.specs] == [0, 1]
    spec = md.spec()
    assert spec.spec_id == 1 and [f.name for f in spec.fields] == ["ts_day", "id_bucket"]
    assert str(spec.fields[1].transform) == "bucket[4]"
    assert md.spec_by_id(0).fields[0].field_id == 1000
    assert md.spec_by_id(5) is None
    assert [o.order_id for o in md.sort_orders] == [0, 1]
    assert md.sort_order().fields[0].source_id == 1
    _, v1 = load("v1")
    assert v1.spec().fields[0].field_id == 1000 and v1.sort_order().is_unsorted()


def test_a_default_spec_java_cannot_bind_is_corrupt_on_load() -> None:
    """Java binds the default spec and sort order to the current schema on load."""
    raw = json.loads(load("v2")[0])
    spec = next(s for s in raw["partition-specs"] if s["spec-id"] == raw["default-spec-id"])
    spec["fields"][0]["source-id"] = 99
    with pytest.raises(CorruptFileError, match="missing column id 99"):
        parse_table_metadata(json.dumps(raw), "x.json")
    raw = json.loads(load("v2")[0])
    order = next(o for o in raw["sort-orders"] if o["order-id"] == raw["default-sort-order-id"])
    order["fields"][0]["transform"] = "hour"
    with pytest.raises(CorruptFileError, match=r"cannot sort by hour\("):
        parse_table_metadata(json.dumps(raw), "x.json")


def test_a_v3_multi_argument_spec_loads() -> None:
    """``source-ids`` specs other engines write (v3) load; Spark's SQL syntax cannot make them."""
    raw = json.loads(load("v3")[0])
    raw["partition-specs"].append(  # id long, ts timestamp_ns
        {
            "spec-id": 7,
            "fields": [
                {"source-ids": [1, 2], "field-id": 1010, "name": "b", "transform": "bucket[8]"}
            ],
        }
    )
    raw["default-spec-id"] = 7
    md = parse_table_metadata(json.dumps(raw), "x.json")
    assert md.spec().fields[0].all_source_ids == (1, 2)
    assert md.spec().to_json()["fields"][0]["source-ids"] == [1, 2]


def test_the_same_bytes_at_the_same_path_are_parsed_once(tmp_path, monkeypatch) -> None:
    """Every statement reads the current metadata file again; the same bytes from the same
    path give the same parsed document, other bytes at that path (a table dropped and created
    again) a new one, and the process keeps at most PARSED_KEPT documents."""
    import icesql.metadata.table_metadata as module

    text, _ = load("v2")
    data = text.encode()
    path = str(tmp_path / "v1.metadata.json")
    first = parse_table_metadata(data, path)
    assert parse_table_metadata(data, path) is first
    assert parse_table_metadata(bytes(data), path) is first
    changed = json.loads(text)
    changed["last-updated-ms"] += 1
    other = parse_table_metadata(json.dumps(changed).encode(), path)
    assert other is not first and other.last_updated_ms == first.last_updated_ms + 1
    assert parse_table_metadata(data, str(tmp_path / "elsewhere.json")) is not first
    monkeypatch.setattr(module, "PARSED_KEPT", 2)
    for i in range(4):
        parse_table_metadata(data, str(tmp_path / f"v{i}.json"))
    assert len(module._parsed) == 2
    with pytest.raises(CorruptFileError):  # a bad document is refused, and never kept
        parse_table_metadata(b"{", path)
    with pytest.raises(CorruptFileError):
        parse_table_metadata(b"{", path)
