"""The manifest-file model: unknown (v1) counts must not let a reader skip a manifest."""

from __future__ import annotations

from icesql.spec.manifest_file import CONTENT_DATA, FieldSummary, ManifestFile


def test_unknown_counts_mean_the_manifest_may_hold_files() -> None:
    m = ManifestFile("m.avro", 10, 0)
    assert m.content == CONTENT_DATA
    assert (m.has_added_files, m.has_existing_files, m.has_deleted_files) == (True, True, True)


def test_zero_counts_mean_none_of_that_kind() -> None:
    m = ManifestFile(
        "m.avro",
        10,
        0,
        added_files_count=0,
        existing_files_count=2,
        deleted_files_count=0,
        partitions=(FieldSummary(False),),
    )
    assert (m.has_added_files, m.has_existing_files, m.has_deleted_files) == (False, True, False)
    assert m.partitions[0].lower_bound is None
