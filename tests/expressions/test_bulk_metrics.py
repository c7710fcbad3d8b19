"""Bulk inclusive metrics: the columnar evaluation answers exactly what the per-file
visitor answers, file by file, on the ported case table and on random files and filters."""

from __future__ import annotations

import random

import numpy as np
import pytest
from expressions_support import (
    FILE_42,
    FILE_ABC,
    METRICS_FILE,
    METRICS_SCHEMA,
    RANDOM_SCHEMA,
    data_file,
    random_data_file,
    random_predicate,
)

from icesql.expressions.binding import bind
from icesql.expressions.bulk_metrics import (
    MISSING,
    bulk_inclusive_metrics,
    bulk_supported,
)
from icesql.expressions.inclusive_metrics import inclusive_metrics_evaluator
from icesql.expressions.tree import ALWAYS_FALSE, ALWAYS_TRUE, equal, in_
from icesql.spec.content_file import DataFile
from tests.expressions.test_inclusive_metrics import INCLUSIVE_CASES


class FileColumns:
    """The files' metrics as the bulk evaluator reads them (like ``ManifestColumns``)."""

    def __init__(self, files: list[DataFile]):
        self.files = files
        self.n = len(files)
        self.record_counts = np.array([f.record_count for f in files], np.int64)
        self.derived: dict = {}

    def counts(self, kind: str, field_id: int) -> np.ndarray:
        return np.array(
            [(getattr(f, kind) or {}).get(field_id, MISSING) for f in self.files], np.int64
        )

    def bounds(self, kind: str, field_id: int) -> list:
        return [(getattr(f, kind) or {}).get(field_id) for f in self.files]


def _both(schema, expr, files) -> tuple[list[bool], list[bool]]:
    bound = bind(schema, expr)
    assert bulk_supported(bound), bound
    per_file = inclusive_metrics_evaluator(schema, bound)
    expected = [per_file(f) for f in files]
    got = bulk_inclusive_metrics(bound, FileColumns(files)).tolist()
    return got, expected


SPECIAL_FILES = [
    METRICS_FILE,
    FILE_ABC,
    FILE_42,
    data_file(record_count=0),
    data_file(record_count=-1),
    data_file(),
]


@pytest.mark.parametrize(("expr", "_"), INCLUSIVE_CASES, ids=[str(c[0]) for c in INCLUSIVE_CASES])
def test_case_table_in_bulk(expr, _) -> None:
    got, expected = _both(METRICS_SCHEMA, expr, SPECIAL_FILES)
    assert got == expected


def test_constants_and_in_limit() -> None:
    files = [METRICS_FILE, data_file(record_count=0), data_file(record_count=-1)]
    for expr in (
        ALWAYS_TRUE,
        ALWAYS_FALSE,
        in_("id", range(1000, 1201)),
        in_("id", range(1000, 1200)),
        equal("id", 2**31 - 1),
    ):
        got, expected = _both(METRICS_SCHEMA, expr, files)
        assert got == expected, expr


def test_no_files() -> None:
    got, expected = _both(METRICS_SCHEMA, equal("id", 5), [])
    assert got == expected == []


@pytest.mark.parametrize("seed", range(12))
def test_random_files_and_filters_match_the_visitor(seed: int) -> None:
    rng = random.Random(seed)
    files = [random_data_file(rng, i) for i in range(60)]
    checked = pruned = 0
    for _ in range(60):
        bound = bind(RANDOM_SCHEMA, random_predicate(rng))
        if not bulk_supported(bound):
            continue
        per_file = inclusive_metrics_evaluator(RANDOM_SCHEMA, bound)
        columns = FileColumns(files)
        got = bulk_inclusive_metrics(bound, columns).tolist()
        assert got == [per_file(f) for f in files], str(bound)
        # the decoded bounds kept with the columns give the same answers again
        assert bulk_inclusive_metrics(bound, columns).tolist() == got
        checked += 1
        pruned += got.count(False)
    assert checked > 40
    assert 0 < pruned < checked * len(files)  # both answers occur
