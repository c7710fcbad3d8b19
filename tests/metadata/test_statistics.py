"""Statistics, partition statistics and encryption keys of table metadata: the spec's fields
read and written back as Java writes them, unknown keys kept, errors naming the field."""

from __future__ import annotations

import pytest

from icesql.metadata.statistics import (
    BlobMetadata,
    EncryptionKey,
    PartitionStatisticsFile,
    StatisticsFile,
)

# the spec's "Table Statistics" fields, with a theta sketch blob as Java's Puffin writer records it
STATS = {
    "snapshot-id": 3055729675574597004,
    "statistics-path": "s3://a/b/stats.puffin",
    "file-size-in-bytes": 413,
    "file-footer-size-in-bytes": 42,
    "key-metadata": "aWNlYmVyZwo=",
    "blob-metadata": [
        {
            "type": "apache-datasketches-theta-v1",
            "snapshot-id": 3055729675574597004,
            "sequence-number": 1,
            "fields": [1, 3],
            "properties": {"ndv": "7"},
        },
        {"type": "x", "snapshot-id": 1, "sequence-number": 0, "fields": []},
    ],
}


def test_statistics_file_round_trips() -> None:
    stats = StatisticsFile.from_json(STATS)
    assert (stats.snapshot_id, stats.statistics_path) == (
        3055729675574597004,
        "s3://a/b/stats.puffin",
    )
    assert (stats.file_size_in_bytes, stats.file_footer_size_in_bytes) == (413, 42)
    assert stats.key_metadata == "aWNlYmVyZwo="
    theta, other = stats.blob_metadata
    assert theta == BlobMetadata(
        "apache-datasketches-theta-v1", 3055729675574597004, 1, (1, 3), {"ndv": "7"}
    )
    assert (other.fields, dict(other.properties)) == ((), {})
    out = stats.to_json()
    assert out == STATS and list(out) == list(STATS)
    assert list(out["blob-metadata"][0]) == list(STATS["blob-metadata"][0])


def test_optional_parts_are_left_out_and_unknown_keys_kept() -> None:
    raw = {
        "snapshot-id": 1,
        "statistics-path": "p",
        "file-size-in-bytes": 2,
        "file-footer-size-in-bytes": 1,
        "x-vendor": [1],
    }
    stats = StatisticsFile.from_json(raw)
    assert stats.blob_metadata == () and stats.key_metadata is None
    assert stats.extra == {"x-vendor": [1]}
    # blob-metadata is required by the spec, so it is always written
    assert stats.to_json() == {**{k: v for k, v in raw.items() if k != "x-vendor"},
                               "blob-metadata": [], "x-vendor": [1]}  # fmt: skip
    blob = BlobMetadata.from_json({"type": "t", "snapshot-id": 1, "sequence-number": 2,
                                   "fields": [4], "y": "z"})  # fmt: skip
    assert blob.extra == {"y": "z"} and blob.to_json()["y"] == "z"
    assert "properties" not in blob.to_json()


@pytest.mark.parametrize(
    "cls, raw, message",
    [
        (StatisticsFile, {**STATS, "file-footer-size-in-bytes": None},
         "missing required field 'file-footer-size-in-bytes'"),
        (StatisticsFile, {**STATS, "statistics-path": 1}, "field 'statistics-path' must be a string"),
        # empty but of the wrong type: rejected too, not read as "no blobs"
        (StatisticsFile, {**STATS, "blob-metadata": {}}, "'blob-metadata' must be a list"),
        (StatisticsFile, {**STATS, "blob-metadata": [{"type": "t", "fields": []}]},
         "missing required field 'snapshot-id'"),
        (StatisticsFile, [], "statistics file must be a JSON object"),
        (BlobMetadata, {"type": "t", "snapshot-id": 1, "sequence-number": 1},
         "blob metadata 'fields' must be a list, got None"),
        (BlobMetadata, {"type": "t", "snapshot-id": 1, "sequence-number": 1, "fields": [],
                        "properties": ["a"]}, "field 'properties' must be an object"),
        (BlobMetadata, {"type": "t", "snapshot-id": 1, "sequence-number": 1, "fields": [],
                        "properties": []}, "field 'properties' must be an object, got \\[\\]"),
        (EncryptionKey, {"key-id": "k", "encrypted-key-metadata": "m", "properties": ""},
         "field 'properties' must be an object"),
        (PartitionStatisticsFile, {"snapshot-id": 1, "statistics-path": "p"},
         "missing required field 'file-size-in-bytes'"),
        (PartitionStatisticsFile, "p", "partition statistics file must be a JSON object"),
        (EncryptionKey, {"key-id": "k"}, "missing required field 'encrypted-key-metadata'"),
        (EncryptionKey, {"key-id": 5, "encrypted-key-metadata": "m"},
         "field 'key-id' must be a string"),
    ],
)  # fmt: skip
def test_bad_objects_name_the_field(cls, raw, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cls.from_json(raw)


def test_partition_statistics_round_trip() -> None:
    raw = {"snapshot-id": 7, "statistics-path": "s3://a/p.parquet", "file-size-in-bytes": 9}
    stats = PartitionStatisticsFile.from_json({**raw, "x": 1})
    assert stats == PartitionStatisticsFile(7, "s3://a/p.parquet", 9)
    assert stats.to_json() == {**raw, "x": 1}


@pytest.mark.parametrize(
    "raw",
    [
        {"key-id": "5f819b", "encrypted-key-metadata": "aWNlYmVyZwo="},
        {"key-id": "k2", "encrypted-key-metadata": "bWV0YQ==", "encrypted-by-id": "5f819b",
         "properties": {"kms": "aws"}},
    ],
)  # fmt: skip
def test_encryption_keys_round_trip(raw: dict) -> None:
    key = EncryptionKey.from_json(raw)
    assert (key.key_id, key.encrypted_key_metadata) == (
        raw["key-id"],
        raw["encrypted-key-metadata"],
    )
    assert key.encrypted_by_id == raw.get("encrypted-by-id")
    assert dict(key.properties) == raw.get("properties", {})
    assert key.to_json() == raw and list(key.to_json()) == list(raw)
