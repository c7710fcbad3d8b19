"""Metadata-only tables for the planning scaling scenarios (1k / 10k / 100k files).

Planning reads only metadata, so these tables describe files that are never written: the
lineitem schema and month partitions of the other tables, 100 files per manifest, every
file with the metrics of all 16 columns (as writers record them), file ``k`` holding
``l_orderkey`` ``[20k, 20k + 19]``. A point lookup on ``l_orderkey`` then matches one file,
which only the column metrics can find: every manifest is read. Generated once per size
under the dataset directory (a few seconds for 100k files).
"""

from __future__ import annotations

import os
import struct

from benchmarks.datagen import SPEC
from benchmarks.iceberg_files import TableLayout, commit_table
from benchmarks.lineitem import SCHEMA
from icesql.spec.content_file import DataFile

FILES_PER_MANIFEST = 100
ROWS_PER_FILE = 20


def point_key(files: int) -> int:
    """An ``l_orderkey`` held by exactly one file of the table of ``files`` files."""
    return files * ROWS_PER_FILE // 2 + 5


def planning_table(root: str, files: int) -> str:
    """The metadata file of the ``files``-file table under ``root``, written if missing."""
    location = os.path.join(os.path.abspath(root), "planning", f"files-{files}")
    metadata = f"{location}/metadata/v1.metadata.json"
    if os.path.exists(metadata):
        return metadata
    manifests = []
    for m in range(max(1, files // FILES_PER_MANIFEST)):
        count = min(FILES_PER_MANIFEST, files - m * FILES_PER_MANIFEST)
        base = m * FILES_PER_MANIFEST
        manifests.append([_file(location, m, base + j) for j in range(count)])
    written = commit_table(TableLayout(location, SCHEMA, SPEC, 2, manifests, [], {}), files)
    assert written == metadata, written
    return metadata


def _long(v: int) -> bytes:
    return struct.pack("<q", v)


def _int(v: int) -> bytes:
    return struct.pack("<i", v)


def _file(location: str, month: int, k: int) -> DataFile:
    lo, hi = k * ROWS_PER_FILE, k * ROWS_PER_FILE + ROWS_PER_FILE - 1
    day = 8036 + month * 30  # 1992-01-01 + ~month
    lower = {
        1: _long(lo),
        2: _long(1),
        3: _long(1),
        4: _int(1),
        5: b"\x64",
        6: b"\x03\xe8",
        7: b"\x00",
        8: b"\x00",
        9: b"A",
        10: b"F",
        11: _int(day),
        12: _int(day),
        13: _int(day),
        14: b"COLLECT COD",
        15: b"AIR",
        16: b" about the",
    }
    upper = {
        1: _long(hi),
        2: _long(200_000),
        3: _long(10_000),
        4: _int(7),
        5: b"\x13\x88",
        6: b"\x01\x86\xa0",
        7: b"\x0a",
        8: b"\x08",
        9: b"R",
        10: b"O",
        11: _int(day + 29),
        12: _int(day + 60),
        13: _int(day + 60),
        14: b"TAKE BACK RETURN",
        15: b"TRUCK",
        16: b"zzle. slyly",
    }
    fields = range(1, 17)
    return DataFile(
        file_path=f"{location}/data/m{month:04d}/{k:07d}-00000-0-0123456789ab.parquet",
        file_format="PARQUET",
        partition=(month,),
        record_count=ROWS_PER_FILE,
        file_size_in_bytes=4096 + k % 1000,
        column_sizes={i: 120 + i for i in fields},
        value_counts={i: ROWS_PER_FILE for i in fields},
        null_value_counts={i: 0 for i in fields},
        nan_value_counts={},
        lower_bounds=lower,
        upper_bounds=upper,
        split_offsets=(4,),
    )
