"""``table_health`` on metadata-only tables (benchmarks.planning_tables: manifests describing
files that were never written), so a report that succeeds read no data file; the 100k-file
table is a sanity check of the cost (it prints the time; nothing asserts it)."""

from __future__ import annotations

import time

import pytest

import icesql
from benchmarks.planning_tables import planning_table


def _report(root, files):
    planning_table(str(root), files)
    with icesql.connect(str(root)) as con:
        started = time.perf_counter()
        h = con.health(f"planning.`files-{files}`")
        return h, time.perf_counter() - started


def test_a_report_reads_manifests_only(tmp_path):
    h, _ = _report(tmp_path, 1_000)  # 10 manifests of 100 files, one month partition each
    assert (h.files.files, len(h.manifests), len(h.partitions)) == (1_000, 10, 10)
    assert h.files.records == 1_000 * 20
    (advice,) = h.advice  # 100 files per partition, all small; 10 manifests < 100
    assert advice.code == "small-files"
    assert advice.preview["rewritten_data_files"] == 1_000
    assert advice.preview["file_groups"] == 10
    assert "Partitions: 10" in repr(h) and "<svg" in h._repr_html_()


@pytest.mark.slow
def test_a_100k_file_table(tmp_path):
    h, seconds = _report(tmp_path, 100_000)
    assert (h.files.files, len(h.manifests), len(h.partitions)) == (100_000, 1_000, 1_000)
    assert [a.code for a in h.advice] == ["small-files", "manifests"]
    print(f"health of 100,000 files / 1,000 manifests: {seconds:.1f} s")
