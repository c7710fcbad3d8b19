"""The block ``input_file_block_start()`` / ``input_file_block_length()`` report for a row.

Spark's Iceberg readers report the scan task's split of the file. Java's planning splits
each data file at its ``split_offsets`` (one split a row group) or, without well-defined
offsets, into pieces of the split size, then bin-packs the pieces of the whole scan and
merges neighbours that land in the same bin. A file that is one piece therefore always
reports that piece; where a file is several pieces, which ones merge depends on the order
of the scan's tasks and the cluster's parallelism (the adaptive split size), so icesql
refuses rather than guess.

>>> from icesql.spec.content_file import DataFile
>>> f = DataFile(
...     file_path="s3://b/f.parquet", file_format="PARQUET", partition=(), record_count=10,
...     file_size_in_bytes=686, split_offsets=(4,),
... )
>>> file_block(f, {})
(4, 682)
"""

from __future__ import annotations

from collections.abc import Mapping

from icesql.errors import NotSupportedError
from icesql.spec.content_file import DataFile

__all__ = ["file_block"]

_TARGET_SPLIT = "read.split.target-size"
_ADAPTIVE = "read.split.adaptive-size.enabled"
_DEFAULT_TARGET = 128 * 1024 * 1024
_MIN_ADAPTIVE_SPLIT = 16 * 1024 * 1024  # TableScanUtil.MIN_SPLIT_SIZE


def file_block(data_file: DataFile, properties: Mapping[str, str]) -> tuple[int, int]:
    """``(start, length)`` of the one split Spark reads ``data_file`` as; raises
    ``NotSupportedError`` where the file is several splits."""
    size = data_file.file_size_in_bytes
    offsets = _well_defined(data_file.split_offsets, size)
    if offsets is not None:
        if len(offsets) == 1:
            return offsets[0], size - offsets[0]
    else:
        target = int(properties.get(_TARGET_SPLIT, _DEFAULT_TARGET))
        adaptive = properties.get(_ADAPTIVE, "true").lower() != "false"
        smallest = min(_MIN_ADAPTIVE_SPLIT, target) if adaptive else target
        if size <= smallest:
            return 0, size
    raise NotSupportedError(
        "input_file_block_start() and input_file_block_length() of data file"
        f" {data_file.file_path}: it is several read splits (row groups), and which of them"
        " Spark merges depends on its scan planning and parallelism"
    )


def _well_defined(offsets: tuple[int, ...] | None, size: int) -> tuple[int, ...] | None:
    """Java's ``BaseFile.hasWellDefinedOffsets`` and ``ArrayUtil.isStrictlyAscending``."""
    if not offsets or offsets[-1] >= size:
        return None
    if any(b <= a for a, b in zip(offsets, offsets[1:])):
        return None
    return offsets
