"""Snapshot summaries of ``write/summary.py``: the keys and totals Java's ``SnapshotProducer``
writes (spec Appendix F), from files whose counts the test chooses."""

from __future__ import annotations

from icesql._version import __version__
from icesql.spec.content_file import DATA, EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.write.summary import ENGINE_NAME, snapshot_summary


def _file(
    path: str,
    records: int,
    size: int,
    content: int = DATA,
    partition=("a",),
    spec_id: int = 0,
    content_offset: int | None = None,
) -> DataFile:
    return DataFile(
        file_path=path,
        file_format="PARQUET",
        partition=partition,
        record_count=records,
        file_size_in_bytes=size,
        content=content,
        spec_id=spec_id,
        content_offset=content_offset,
    )


def test_first_append_counts_from_zero():
    s = snapshot_summary("append", added=[_file("a", 3, 100), _file("b", 4, 50, partition=("b",))])
    assert s == {
        "operation": "append",
        "added-data-files": "2",
        "added-records": "7",
        "added-files-size": "150",
        "changed-partition-count": "2",
        "total-records": "7",
        "total-files-size": "150",
        "total-data-files": "2",
        "total-delete-files": "0",
        "total-position-deletes": "0",
        "total-equality-deletes": "0",
        "engine-name": ENGINE_NAME,
        "engine-version": __version__,
    }


def test_totals_carry_over_from_the_parent_minus_what_is_removed():
    parent = snapshot_summary("append", added=[_file("a", 3, 100), _file("b", 4, 50)])
    s = snapshot_summary(
        "overwrite", added=[_file("c", 2, 70)], removed=[_file("a", 3, 100)], previous=parent
    )
    assert (s["added-data-files"], s["deleted-data-files"]) == ("1", "1")
    assert (s["added-records"], s["deleted-records"]) == ("2", "3")
    assert (s["added-files-size"], s["removed-files-size"]) == ("70", "100")
    assert s["total-records"] == str(7 + 2 - 3)
    assert s["total-files-size"] == str(150 + 70 - 100)
    assert s["total-data-files"] == "2"
    assert s["changed-partition-count"] == "1"  # every file is in partition ('a',) of spec 0


def test_delete_files_are_counted_by_kind():
    pos = _file("p", 2, 30, content=POSITION_DELETES)
    dv = _file("dv", 5, 40, content=POSITION_DELETES, content_offset=4)
    eq = _file("e", 1, 20, content=EQUALITY_DELETES)
    s = snapshot_summary("delete", added=[pos, dv, eq], previous=None)
    assert s["added-delete-files"] == "3"
    assert s["added-position-delete-files"] == "1"  # a deletion vector is counted apart
    assert s["added-dvs"] == "1"
    assert s["added-equality-delete-files"] == "1"
    assert s["added-position-deletes"] == "7"
    assert s["added-equality-deletes"] == "1"
    assert s["total-delete-files"] == "3" and s["total-position-deletes"] == "7"
    assert s["total-equality-deletes"] == "1" and s["total-records"] == "0"
    assert "added-data-files" not in s and "added-records" not in s  # zero counts are left out


def test_removing_delete_files():
    parent = {"total-delete-files": "2", "total-position-deletes": "9", "total-records": "10"}
    s = snapshot_summary(
        "overwrite", removed=[_file("p", 4, 30, content=POSITION_DELETES)], previous=parent
    )
    assert (
        s["removed-delete-files"],
        s["removed-position-delete-files"],
        s["removed-position-deletes"],
    ) == ("1", "1", "4")
    assert (s["total-delete-files"], s["total-position-deletes"], s["total-records"]) == (
        "1",
        "5",
        "10",
    )


def test_a_total_the_parent_lacks_is_left_out_and_unparsable_ones_too():
    s = snapshot_summary("append", added=[_file("a", 3, 100)], previous={"total-records": "x"})
    assert not any(k.startswith("total-") for k in s)
    s = snapshot_summary("append", added=[_file("a", 3, 100)], previous={"total-data-files": "4"})
    assert [k for k in s if k.startswith("total-")] == ["total-data-files"] and s[
        "total-data-files"
    ] == "5"


def test_a_total_that_would_go_negative_is_left_out():
    s = snapshot_summary("delete", removed=[_file("a", 3, 100)], previous={"total-records": "1"})
    assert "total-records" not in s


def test_partitions_of_different_specs_count_apart():
    files = [_file("a", 1, 1, spec_id=0), _file("b", 1, 1, spec_id=1), _file("c", 1, 1, spec_id=1)]
    assert snapshot_summary("append", added=files)["changed-partition-count"] == "2"


def test_extra_keys_are_kept():
    s = snapshot_summary("append", added=[_file("a", 1, 1)], extra={"spark.app.id": "x"})
    assert s["spark.app.id"] == "x" and s["total-records"] == "1"


def test_counts_of_zero_are_left_out_as_java_does():
    """SnapshotSummary.Builder sets each count only above 0: a file of 0 bytes adds no
    ``added-files-size`` key (totals are always written)."""
    s = snapshot_summary("append", added=[_file("empty", 0, 0)])
    assert "added-files-size" not in s and "added-records" not in s
    assert s["added-data-files"] == "1" and s["total-files-size"] == "0"
