"""One file-pruning component: may match (with the reason), residual, none / some / all rows
match — what the planner, the manifest filter of a commit and commit validation ask."""

from __future__ import annotations

import pytest

from icesql.expressions.file_filter import FileFilter, FileVerdict, RowsMatch
from icesql.expressions.tree import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    and_,
    equal,
    greater_than,
    less_than,
    or_,
)
from icesql.spec.content_file import EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.spec.manifest_file import FieldSummary, ManifestFile
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import Identity
from icesql.spec.types import LongType, NestedField, StringType
from icesql.spec.values import to_bytes

SCHEMA = Schema((NestedField(1, "id", LongType()), NestedField(2, "p", StringType())))
BY_P = PartitionSpec(1, (PartitionField(2, 1000, Identity(), "p"),))
UNPARTITIONED = PartitionSpec(0, ())
SPECS = (UNPARTITIONED, BY_P)


def _file(p: str | None, lo: int, hi: int, content: int = 0, rows: int = 10) -> DataFile:
    """A file of spec 1 (partition ``p``) or spec 0 (``p`` None) with ids ``lo..hi`` and no
    metrics on ``p``."""
    t = LongType()
    return DataFile(
        file_path=f"{p}-{lo}-{hi}.parquet",
        file_format="PARQUET",
        partition=() if p is None else (p,),
        record_count=rows,
        file_size_in_bytes=1,
        content=content,
        value_counts={1: rows},
        null_value_counts={1: 0},
        lower_bounds={1: to_bytes(t, lo)},
        upper_bounds={1: to_bytes(t, hi)},
        equality_ids=(1,) if content == EQUALITY_DELETES else None,
    )


def _filter(expr) -> FileFilter:
    return FileFilter(SCHEMA, SPECS, expr)


def test_may_match_names_what_proved_no_match():
    f = _filter(and_(equal("p", "a"), less_than("id", 5)))
    assert f.may_match(1, _file("b", 1, 3)) is FileVerdict.PARTITION_CANNOT_MATCH
    assert f.may_match(1, _file("a", 6, 9)) is FileVerdict.METRICS_CANNOT_MATCH
    assert f.may_match(1, _file("a", 1, 9)) is FileVerdict.MAY_MATCH
    assert f.may_match(0, _file(None, 6, 9)) is FileVerdict.METRICS_CANNOT_MATCH
    assert f.may_match(0, _file(None, 1, 9)) is FileVerdict.MAY_MATCH


def test_without_a_filter_every_file_may_match():
    f = _filter(ALWAYS_TRUE)
    assert not f.filtering
    assert f.may_match(1, _file("a", 1, 3, rows=0)) is FileVerdict.MAY_MATCH
    assert f.residual(1, ("a",)) == ALWAYS_TRUE
    assert f.manifest_may_match(ManifestFile("m", 1, 1, partitions=(FieldSummary(False),)))


def test_equality_deletes_are_judged_by_partition_only():
    f = _filter(and_(equal("p", "a"), less_than("id", 5)))
    # its id bounds are those of the deleted keys, not of the rows it deletes (iceberg#4311)
    assert f.may_match(1, _file("a", 6, 9, EQUALITY_DELETES)) is FileVerdict.MAY_MATCH
    assert f.may_match(1, _file("b", 1, 3, EQUALITY_DELETES)) is FileVerdict.PARTITION_CANNOT_MATCH
    assert f.may_match(1, _file("a", 6, 9, POSITION_DELETES)) is FileVerdict.METRICS_CANNOT_MATCH


def test_an_unknown_spec_costs_only_partition_pruning():
    f = _filter(and_(equal("p", "a"), less_than("id", 5)))
    assert f.may_match(7, _file("b", 1, 3)) is FileVerdict.MAY_MATCH
    assert f.may_match(7, _file("b", 6, 9)) is FileVerdict.METRICS_CANNOT_MATCH
    assert f.residual(7, ("b",)) == f.bound
    assert f.manifest_may_match(ManifestFile("m", 1, 7, partitions=(FieldSummary(False),)))


def test_residual_of_a_partition():
    f = _filter(and_(equal("p", "a"), equal("id", 5)))
    assert str(f.residual(1, ("a",))) == "id = 5"
    assert f.residual(1, ("b",)) == ALWAYS_FALSE
    assert f.residual(0, ()) == f.bound
    assert f.residual(1, ()) == f.bound  # a tuple that does not fit its spec keeps it all


def test_manifests_by_their_partition_summaries():
    f = _filter(equal("p", "a"))
    summary = FieldSummary(False, None, b"b", b"c")
    assert not f.manifest_may_match(ManifestFile("m", 1, 1, partitions=(summary,)))
    assert f.manifest_may_match(
        ManifestFile("m", 1, 1, partitions=(FieldSummary(False, None, b"a", b"c"),))
    )
    assert f.manifest_may_match(ManifestFile("m", 1, 0, partitions=()))


@pytest.mark.parametrize(
    ("expr", "file", "expected"),
    [
        (equal("p", "a"), _file("a", 1, 9), RowsMatch.ALL),  # the partition covers it
        (equal("p", "a"), _file("b", 1, 9), RowsMatch.NONE),
        (and_(equal("p", "a"), less_than("id", 10)), _file("a", 1, 9), RowsMatch.ALL),
        (and_(equal("p", "a"), less_than("id", 5)), _file("a", 1, 9), RowsMatch.SOME),
        (and_(equal("p", "a"), less_than("id", 5)), _file("a", 6, 9), RowsMatch.NONE),
        (greater_than("id", 0), _file(None, 1, 9), RowsMatch.ALL),
        (ALWAYS_TRUE, _file("a", 1, 9), RowsMatch.ALL),
        (ALWAYS_TRUE, _file("a", 1, 9, rows=0), RowsMatch.NONE),  # no row to match
    ],
)
def test_rows_match(expr, file, expected):
    spec_id = 0 if file.partition == () else 1
    assert _filter(expr).rows_match(spec_id, file) is expected


def test_rows_match_sees_through_an_or_of_partition_and_data_columns():
    """``p = 'b' OR id > 100`` on a file of partition ``a`` with ids 1..9: the whole filter's
    metrics cannot rule out ``p = 'b'`` (no metrics on p), the partition's residual
    ``id > 100`` is ruled out by them."""
    f = _filter(or_(equal("p", "b"), greater_than("id", 100)))
    file = _file("a", 1, 9)
    assert f.may_match(1, file) is FileVerdict.MAY_MATCH
    assert f.rows_match(1, file) is RowsMatch.NONE


def test_must_match_is_the_strict_half():
    f = _filter(ALWAYS_TRUE)
    assert f.must_match(1, _file("a", 1, 9, rows=0))  # an empty file matches vacuously
    g = _filter(and_(equal("p", "a"), less_than("id", 5)))
    assert not g.must_match(1, _file("a", 1, 9))
    assert g.must_match(1, _file("a", 1, 4))
