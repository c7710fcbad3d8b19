"""Table properties that steer writing and committing: Java's ``TableProperties`` defaults,
values parsed leniently as Java does (whitespace, case), and a ``ProgrammingError`` naming
the table, the property and the value when one does not parse."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.write.properties import TableProperties

# Java's TableProperties defaults (Iceberg 1.10)
DEFAULTS = {
    "target_file_size_bytes": 512 * 1024 * 1024,
    "row_group_size_bytes": 128 * 1024 * 1024,
    "page_size_bytes": 1024 * 1024,
    "parquet_compression": "zstd",
    "parquet_compression_level": None,
    "file_format": "parquet",
    "metadata_gzip": False,
    "delete_after_commit": False,
    "previous_versions_max": 100,
    "commit_num_retries": 4,
    "commit_min_wait_ms": 100,
    "commit_max_wait_ms": 60_000,
    "commit_total_timeout_ms": 1_800_000,
    "metrics_max_inferred_columns": 100,
}


@pytest.mark.parametrize("name, expected", DEFAULTS.items())
def test_defaults_are_javas(name: str, expected) -> None:
    assert getattr(TableProperties(), name) == expected


@pytest.mark.parametrize(
    "key, text, name, expected",
    [
        ("write.target-file-size-bytes", " 1024 ", "target_file_size_bytes", 1024),
        ("write.parquet.row-group-size-bytes", "1", "row_group_size_bytes", 1),
        ("write.parquet.page-size-bytes", "4096", "page_size_bytes", 4096),
        ("write.parquet.compression-codec", "GZIP", "parquet_compression", "gzip"),
        ("write.parquet.compression-level", "-3", "parquet_compression_level", -3),
        ("write.format.default", "AVRO", "file_format", "avro"),
        ("write.metadata.compression-codec", "Gzip", "metadata_gzip", True),
        ("write.metadata.delete-after-commit.enabled", "TRUE", "delete_after_commit", True),
        ("write.metadata.previous-versions-max", "0", "previous_versions_max", 0),
        ("commit.retry.num-retries", "0", "commit_num_retries", 0),
        ("commit.retry.min-wait-ms", "5", "commit_min_wait_ms", 5),
        ("commit.retry.max-wait-ms", "6", "commit_max_wait_ms", 6),
        ("commit.retry.total-timeout-ms", "7", "commit_total_timeout_ms", 7),
        ("write.metadata.metrics.max-inferred-column-defaults", "3",
         "metrics_max_inferred_columns", 3),
    ],
)  # fmt: skip
def test_values_are_parsed(key: str, text: str, name: str, expected) -> None:
    assert getattr(TableProperties({key: text}), name) == expected


def _attr(name: str):
    return lambda props: getattr(props, name)


@pytest.mark.parametrize(
    "key, text, read, wanted",
    [
        ("write.target-file-size-bytes", "1k", _attr("target_file_size_bytes"),
         "expected an integer"),
        ("write.target-file-size-bytes", "0", _attr("target_file_size_bytes"), "an integer >= 1"),
        ("commit.retry.num-retries", "-1", _attr("commit_num_retries"), "an integer >= 0"),
        ("write.parquet.compression-codec", "zip", _attr("parquet_compression"),
         "one of brotli, gzip"),
        ("write.metadata.compression-codec", "zstd", _attr("metadata_gzip"), "none or gzip"),
        ("write.metadata.delete-after-commit.enabled", "yes", _attr("delete_after_commit"),
         "true or false"),
        ("write.delete.mode", "fast", lambda p: p.row_level_mode("delete"),
         "copy-on-write or merge-on-read"),
        ("write.merge.isolation-level", "none", lambda p: p.isolation_level("merge"),
         "serializable or snapshot"),
    ],
)  # fmt: skip
def test_bad_values_name_the_table_property_and_value(key, text, read, wanted) -> None:
    with pytest.raises(ProgrammingError) as info:
        read(TableProperties({key: text}, table="db.t"))
    message = str(info.value)
    assert f"table property {key!r} of table db.t is {text!r}" in message
    assert wanted in message
    with pytest.raises(ProgrammingError, match=f"table property {key!r} is"):  # no table named
        read(TableProperties({key: text}))


@pytest.mark.parametrize("command", ["delete", "update", "merge"])
def test_row_level_modes_and_isolation_per_command(command: str) -> None:
    props = TableProperties({f"write.{command}.mode": "Merge-On-Read",
                             f"write.{command}.isolation-level": " SNAPSHOT"})  # fmt: skip
    assert props.row_level_mode(command) == "merge-on-read"
    assert props.isolation_level(command) == "snapshot"
    other = next(c for c in ("delete", "update", "merge") if c != command)
    assert props.row_level_mode(other) == "copy-on-write"  # Java's default
    assert props.isolation_level(other) == "serializable"


@pytest.mark.parametrize(
    "values, data, metadata",
    [
        ({}, "s3://b/t/data", "s3://b/t/metadata"),
        ({"write.data.path": "s3://other/d/", "write.metadata.path": "/m/"}, "s3://other/d", "/m"),
        ({"write.data.path": ""}, "s3://b/t/data", "s3://b/t/metadata"),  # empty: the default
    ],
)
def test_locations(values: dict, data: str, metadata: str) -> None:
    props = TableProperties(values)
    assert props.data_location("s3://b/t/") == data
    assert props.metadata_location("s3://b/t") == metadata
