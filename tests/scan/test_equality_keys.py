"""Multi-column equality delete keys: every strategy gives the brute-force answer."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from icesql.scan.equality_keys import KeyMatcher


def _brute(deletes: list[tuple], rows: list[tuple]) -> list[bool]:
    def same(a, b):
        return all(x == y or (x is None and y is None) or (x != x and y != y) for x, y in zip(a, b))

    return [any(same(r, d) for d in deletes) for r in rows]


def _columns(rows: list[tuple], types: list[pa.DataType]) -> list[pa.Array]:
    return [pa.array([r[i] for r in rows], t) for i, t in enumerate(types)]


@pytest.mark.parametrize("strategy", ["_arrow", "_duckdb", "_python"])
@pytest.mark.parametrize("seed", range(6))
def test_every_strategy_matches_nulls_like_is_null(strategy, seed):
    rnd = random.Random(seed)
    types = [pa.int64(), pa.string(), pa.int32()]
    pools = [[1, 2, 3, None], ["a", "b", None], [7, None] if seed % 2 else [None]]
    deletes = [tuple(rnd.choice(p) for p in pools) for _ in range(5)]
    rows = [tuple(rnd.choice(p) for p in pools) for _ in range(60)]
    matcher = KeyMatcher(pa.table(_columns(deletes, types), names=["a", "b", "c"]))
    got = getattr(matcher, strategy)(_columns(rows, types), len(rows))
    assert got.tolist() == _brute(deletes, rows)


def test_float_keys_match_nan_to_nan():
    nan = float("nan")
    types = [pa.int32(), pa.float64()]
    deletes = [(1, nan), (2, None)]
    rows = [(1, nan), (1, 1.0), (2, None), (2, nan)]
    matcher = KeyMatcher(pa.table(_columns(deletes, types), names=["a", "b"]))
    assert matcher.deleted(_columns(rows, types)).tolist() == [True, False, True, False]
