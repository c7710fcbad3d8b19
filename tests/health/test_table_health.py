"""``table_health`` on metadata-only tables (manifests describing files that were never
written, committed by ``benchmarks.iceberg_files``), so a report that succeeds read no data
file; the 100k-file table is a sanity check of the cost (it prints the time; nothing asserts
it)."""

from __future__ import annotations

import time

import pytest

import icesql
from benchmarks.iceberg_files import TableLayout, commit_table
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import parse_transform
from icesql.spec.types import LongType, NestedField

FILES_PER_MANIFEST = 100
SCHEMA = Schema((NestedField(1, "id", LongType(), False), NestedField(2, "p", LongType())))
SPEC = PartitionSpec(0, (PartitionField(2, 1000, parse_transform("identity"), "p"),))


def _data_file(location: str, k: int, partitions: int) -> DataFile:
    p = k % partitions
    return DataFile(
        file_path=f"{location}/data/p={p}/{k:07d}.parquet",
        file_format="PARQUET",
        partition=(p,),
        record_count=20,
        file_size_in_bytes=4096 + k % 1000,
    )


def _metadata_only_table(root, files: int, partitions: int) -> str:
    """Table ``db.t{files}`` of ``files`` data files in ``partitions`` partitions and one
    position delete file per 100 data files (naming its data file)."""
    location = f"{root}/db/t{files}"
    data = [_data_file(location, k, partitions) for k in range(files)]
    manifests = [data[i : i + FILES_PER_MANIFEST] for i in range(0, files, FILES_PER_MANIFEST)]
    deletes = [
        DataFile(
            file_path=f"{location}/data/p={f.partition[0]}/{k:07d}-deletes.parquet",
            file_format="PARQUET",
            partition=f.partition,
            record_count=2,
            file_size_in_bytes=1500,
            content=POSITION_DELETES,
            referenced_data_file=f.file_path,
        )
        for k, f in enumerate(data[::100])
    ]
    layout = TableLayout(location, SCHEMA, SPEC, 2, manifests, deletes, {})
    return commit_table(layout, files)


def _report(root, files, partitions):
    _metadata_only_table(root, files, partitions)
    with icesql.connect(str(root)) as con:
        started = time.perf_counter()
        h = con.health(f"db.t{files}")
        return h, time.perf_counter() - started


def test_a_report_reads_manifests_only(tmp_path):
    h, _ = _report(tmp_path, 1_000, 10)  # files never written: reading one would fail
    assert (h.files.files, len(h.partitions)) == (1_000, 10)
    assert len(h.manifests) == 11  # ten data manifests, one delete manifest
    assert h.files.records == 1_000 * 20
    assert sum(p.position_delete_files for p in h.partitions) == 10
    assert sum(p.position_deleted_records for p in h.partitions) == 20
    # 100 small files per partition; 11 manifests < 100; the append of late 2025 is past
    # the retention (five days), the delete snapshot after it is the one kept
    advice, expiry = h.advice
    assert (advice.code, expiry.code) == ("small-files", "snapshots")
    assert expiry.preview["expired_snapshots"] == 1 and expiry.preview["data_files"] == 0
    assert advice.preview["rewritten_data_files"] == 1_000
    assert advice.preview["file_groups"] == 10
    assert "Partitions: 10" in repr(h) and "<svg" in h._repr_html_()


@pytest.mark.slow
def test_a_100k_file_table(tmp_path):
    h, seconds = _report(tmp_path, 100_000, 1_000)
    assert (h.files.files, len(h.partitions)) == (100_000, 1_000)
    assert len(h.manifests) == 1_001
    assert sum(p.position_delete_files for p in h.partitions) == 1_000
    assert [a.code for a in h.advice] == ["small-files", "manifests", "snapshots"]
    assert len(repr(h).splitlines()) < 80 and len(h._repr_html_()) < 200_000
    print(f"health of 100,000 files / 1,001 manifests: {seconds:.1f} s")
