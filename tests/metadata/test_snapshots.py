"""Snapshots, refs and the two history logs of table metadata (Appendix C): reading with the
v1 defaults of Appendix E, writing back in Java's key order, unknown keys kept, and errors
that name the field."""

from __future__ import annotations

import json

import pytest

from icesql.metadata.snapshots import (
    BRANCH,
    TAG,
    MetadataLogEntry,
    Snapshot,
    SnapshotLogEntry,
    SnapshotRef,
)

# Appendix C's example snapshot, as the spec prints it
SPEC_SNAPSHOT = json.loads(
    '{"snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770,'
    ' "summary": {"operation": "append"}, "manifest-list": "s3://b/wh/.../s1.avro",'
    ' "schema-id": 0}'
)


def test_the_spec_example_reads_with_v1_defaults() -> None:
    s = Snapshot.from_json(SPEC_SNAPSHOT)
    assert (s.snapshot_id, s.timestamp_ms, s.manifest_list) == (
        3051729675574597004,
        1515100955770,
        "s3://b/wh/.../s1.avro",
    )
    assert (s.operation, s.schema_id, s.parent_snapshot_id) == ("append", 0, None)
    assert s.sequence_number == 0  # Appendix E: v1 snapshots have sequence number 0
    assert (s.first_row_id, s.added_rows, s.key_id, s.manifests) == (None, None, None, None)
    assert s.to_json() == {  # Java's order: id, parent, sequence, time, summary, list, schema
        "snapshot-id": 3051729675574597004,
        "timestamp-ms": 1515100955770,
        "summary": {"operation": "append"},
        "manifest-list": "s3://b/wh/.../s1.avro",
        "schema-id": 0,
    }


def test_a_v3_snapshot_round_trips_in_javas_key_order() -> None:
    raw = {
        "snapshot-id": 2,
        "parent-snapshot-id": 1,
        "sequence-number": 4,
        "timestamp-ms": 99,
        "summary": {"operation": "overwrite", "added-records": "3"},
        "manifest-list": "snap-2.avro",
        "schema-id": 1,
        "first-row-id": 10,
        "added-rows": 3,
        "key-id": "k",
        "x-vendor": {"nested": [1]},
    }
    s = Snapshot.from_json(raw)
    assert s.extra == {"x-vendor": {"nested": [1]}}
    out = s.to_json()
    assert out == raw and list(out) == list(raw)
    assert Snapshot.from_json(out) == s


def test_to_json_puts_the_operation_first_and_may_omit_the_summary() -> None:
    s = Snapshot(5, 10, "l.avro", summary={"added-records": "1", "operation": "append"})
    assert list(s.to_json()["summary"]) == ["operation", "added-records"]
    no_op = Snapshot(5, 10, "l.avro", summary={"added-records": "1"})
    assert no_op.operation is None and no_op.to_json()["summary"] == {"added-records": "1"}
    assert "summary" not in Snapshot(5, 10, "l.avro").to_json()


def test_old_v1_snapshots_list_their_manifests() -> None:
    s = Snapshot.from_json({"snapshot-id": 1, "timestamp-ms": 2, "manifests": ["a.avro", "b.avro"]})
    assert s.manifest_list is None and s.manifests == ("a.avro", "b.avro")
    assert s.to_json() == {"snapshot-id": 1, "timestamp-ms": 2, "manifests": ["a.avro", "b.avro"]}


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"timestamp-ms": 1, "manifest-list": "l"}, "missing required field 'snapshot-id'"),
        ({"snapshot-id": 1, "manifest-list": "l"}, "missing required field 'timestamp-ms'"),
        ({"snapshot-id": "1", "timestamp-ms": 1, "manifest-list": "l"},
         "field 'snapshot-id' must be an integer"),
        ({"snapshot-id": 1, "timestamp-ms": 1}, "neither 'manifest-list' nor 'manifests'"),
        ({"snapshot-id": 1, "timestamp-ms": 1, "manifests": "a.avro"},
         "manifests must be a list of paths"),
        ({"snapshot-id": 1, "timestamp-ms": 1, "manifests": [1]},
         "manifests must be a list of paths"),
        ({"snapshot-id": 1, "timestamp-ms": 1, "manifest-list": "l", "summary": ["append"]},
         "summary must be an object"),
        ({"snapshot-id": 1, "timestamp-ms": 1, "manifest-list": 5},
         "field 'manifest-list' must be a string"),
        ([], "snapshot must be a JSON object"),
    ],
)  # fmt: skip
def test_bad_snapshots_name_the_field(raw, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Snapshot.from_json(raw)


@pytest.mark.parametrize("sequence_number, written", [(0, False), (1, True)])
def test_sequence_number_is_written_only_when_positive(sequence_number: int, written: bool):
    s = Snapshot(1, 2, "l", sequence_number=sequence_number)
    assert ("sequence-number" in s.to_json()) is written


def test_extra_keys_do_not_take_part_in_equality() -> None:
    a = Snapshot.from_json({**SPEC_SNAPSHOT, "x": 1})
    assert a == Snapshot.from_json(SPEC_SNAPSHOT) and a.to_json()["x"] == 1


@pytest.mark.parametrize(
    "raw, ref",
    [
        # Appendix C's example ref (its type added: required)
        ({"snapshot-id": 123456789000, "type": "tag", "max-ref-age-ms": 10000000},
         SnapshotRef(123456789000, TAG, max_ref_age_ms=10000000)),
        ({"snapshot-id": 1, "type": "branch", "min-snapshots-to-keep": 2,
          "max-snapshot-age-ms": 3, "max-ref-age-ms": 4},
         SnapshotRef(1, BRANCH, 2, 3, 4)),
        ({"snapshot-id": 1, "type": "branch"}, SnapshotRef(1)),
    ],
)  # fmt: skip
def test_refs_round_trip(raw: dict, ref: SnapshotRef) -> None:
    assert SnapshotRef.from_json(raw) == ref
    assert ref.to_json() == raw and list(ref.to_json()) == list(raw)
    assert ref.is_branch is (raw["type"] == "branch")


def test_ref_type_is_case_insensitive_and_unknown_keys_kept() -> None:
    ref = SnapshotRef.from_json({"snapshot-id": 1, "type": "TAG", "x": True})
    assert (ref.type, ref.is_branch) == (TAG, False)
    assert ref.to_json() == {"snapshot-id": 1, "type": "tag", "x": True}


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"snapshot-id": 1, "type": "label"}, "must be 'branch' or 'tag', got 'label'"),
        ({"snapshot-id": 1}, "missing required field 'type'"),
        ({"type": "tag"}, "missing required field 'snapshot-id'"),
        ({"snapshot-id": 1, "type": "tag", "max-ref-age-ms": "1"},
         "field 'max-ref-age-ms' must be an integer"),
        ("main", "snapshot reference must be a JSON object"),
    ],
)  # fmt: skip
def test_bad_refs_name_the_field(raw, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SnapshotRef.from_json(raw)


def test_history_log_entries_round_trip() -> None:
    raw = {"timestamp-ms": 1515100955770, "snapshot-id": 3051729675574597004}
    assert SnapshotLogEntry.from_json(raw) == SnapshotLogEntry(1515100955770, 3051729675574597004)
    assert SnapshotLogEntry.from_json(raw).to_json() == raw
    raw = {"timestamp-ms": 1515100955770, "metadata-file": "s3://bucket/.../v1.json"}
    entry = MetadataLogEntry.from_json(raw)
    assert entry == MetadataLogEntry(1515100955770, "s3://bucket/.../v1.json")
    assert entry.to_json() == raw


@pytest.mark.parametrize(
    "cls, raw, message",
    [
        (SnapshotLogEntry, {"timestamp-ms": 1}, "missing required field 'snapshot-id'"),
        (SnapshotLogEntry, 5, "snapshot-log entry must be a JSON object"),
        (MetadataLogEntry, {"timestamp-ms": 1, "metadata-file": 2},
         "field 'metadata-file' must be a string"),
        (MetadataLogEntry, {"metadata-file": "v1.json"}, "missing required field 'timestamp-ms'"),
    ],
)  # fmt: skip
def test_bad_log_entries_name_the_field(cls, raw, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cls.from_json(raw)
