"""The read split ``input_file_block_start/length`` report, by Iceberg Java's split rules."""

from __future__ import annotations

import pytest

from icesql.errors import NotSupportedError
from icesql.scan.file_blocks import file_block
from icesql.spec.content_file import DataFile

MB = 1024 * 1024


def _file(size: int, offsets: tuple[int, ...] | None) -> DataFile:
    return DataFile(
        file_path="/w/db/t/data/f.parquet",
        file_format="PARQUET",
        partition=(),
        record_count=10,
        file_size_in_bytes=size,
        split_offsets=offsets,
    )


def test_one_row_group_is_its_offset_to_the_end():
    # Spark 3.5.8 + Iceberg 1.10 on a 1478-byte file with split_offsets [4]: (4, 1474)
    assert file_block(_file(1478, (4,)), {}) == (4, 1474)


def test_without_offsets_a_small_file_is_one_split_from_zero():
    assert file_block(_file(5 * MB, None), {}) == (0, 5 * MB)
    assert file_block(_file(16 * MB, None), {}) == (0, 16 * MB)


def test_offsets_past_the_end_or_unordered_are_ignored_as_java_does():
    assert file_block(_file(1000, (4, 2000)), {}) == (0, 1000)
    assert file_block(_file(1000, (500, 4)), {}) == (0, 1000)


@pytest.mark.parametrize(
    ("size", "offsets", "properties"),
    [
        (4 * MB, (4, 2 * MB), {}),  # two row groups
        (17 * MB, None, {}),  # above the smallest adaptive split
        (5 * MB, None, {"read.split.target-size": str(4 * MB)}),
        (
            10 * MB,
            None,
            {"read.split.adaptive-size.enabled": "false", "read.split.target-size": str(8 * MB)},
        ),
    ],
)
def test_several_splits_are_refused_naming_the_file(size, offsets, properties):
    with pytest.raises(NotSupportedError, match="data file /w/db/t/data/f.parquet"):
        file_block(_file(size, offsets), properties)


def test_a_target_below_the_file_without_adaptive_sizing_is_still_one_split():
    props = {"read.split.adaptive-size.enabled": "false", "read.split.target-size": str(64 * MB)}
    assert file_block(_file(20 * MB, None), props) == (0, 20 * MB)
