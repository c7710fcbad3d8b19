"""Deterministic lineitem-like rows (TPC-H's shape, not its generator).

Rows are numbered globally; row ``i`` belongs to order ``i // 4 + 1`` (line ``i % 4 + 1``),
and orders are placed in time order, so ``l_orderkey`` increases with ``l_shipdate``: each
month's files cover a disjoint key range, which is what makes the metrics-pruning scenario
meaningful. Each file's values come from its own seeded generator, so files can be made one at
a time (bounded memory) and always come out the same.
"""

from __future__ import annotations

import calendar
import datetime as dt
from functools import lru_cache

import numpy as np
import pyarrow as pa

from benchmarks.config import LINES_PER_ORDER
from icesql.spec.schema import Schema
from icesql.spec.types import (
    DateType,
    DecimalType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
)

ORDERKEY_ID = 1
LINENUMBER_ID = 4
SHIPDATE_ID = 11

SCHEMA = Schema(
    (
        NestedField(1, "l_orderkey", LongType()),
        NestedField(2, "l_partkey", LongType()),
        NestedField(3, "l_suppkey", LongType()),
        NestedField(4, "l_linenumber", IntegerType()),
        NestedField(5, "l_quantity", DecimalType(12, 2)),
        NestedField(6, "l_extendedprice", DecimalType(12, 2)),
        NestedField(7, "l_discount", DecimalType(12, 2)),
        NestedField(8, "l_tax", DecimalType(12, 2)),
        NestedField(9, "l_returnflag", StringType()),
        NestedField(10, "l_linestatus", StringType()),
        NestedField(11, "l_shipdate", DateType()),
        NestedField(12, "l_commitdate", DateType()),
        NestedField(13, "l_receiptdate", DateType()),
        NestedField(14, "l_shipinstruct", StringType()),
        NestedField(15, "l_shipmode", StringType()),
        NestedField(16, "l_comment", StringType()),
    )
)

COLUMNS_DDL = (
    "l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT,"
    " l_quantity DECIMAL(12,2), l_extendedprice DECIMAL(12,2), l_discount DECIMAL(12,2),"
    " l_tax DECIMAL(12,2), l_returnflag STRING, l_linestatus STRING, l_shipdate DATE,"
    " l_commitdate DATE, l_receiptdate DATE, l_shipinstruct STRING, l_shipmode STRING,"
    " l_comment STRING"
)

_EPOCH = dt.date(1970, 1, 1)
_INSTRUCT = ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"]
_MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]
_WORDS = (
    "furiously quickly carefully blithely slyly express regular final pending ironic special"
    " bold even silent unusual accounts deposits packages requests theodolites foxes pinto"
    " beans instructions dependencies platelets asymptotes courts dolphins ideas sauternes"
).split()


@lru_cache(maxsize=1)
def _comment_pool() -> pa.Array:
    """5,000 comments of 3-7 words: realistic lengths (~30 chars), dictionary-friendly."""
    rng = np.random.default_rng(7)
    words = np.array(_WORDS)
    out = [" ".join(words[rng.integers(0, len(words), rng.integers(3, 8))]) for _ in range(5000)]
    return pa.array(out, pa.string())


def _decimal(unscaled: np.ndarray, t: pa.Decimal128Type) -> pa.Array:
    """A decimal128 array straight from non-negative unscaled int64 values (exact, no cast)."""
    words = np.zeros((len(unscaled), 2), dtype=np.int64)
    words[:, 0] = unscaled
    return pa.Array.from_buffers(t, len(unscaled), [None, pa.py_buffer(words.tobytes())])


def rows(
    arrow_schema: pa.Schema, first_row: int, count: int, month: dt.date, seed: int
) -> pa.Table:
    """Rows ``first_row .. first_row + count - 1``, all shipped in ``month``."""
    rng = np.random.default_rng([seed, first_row])
    idx = np.arange(first_row, first_row + count, dtype=np.int64)
    days = calendar.monthrange(month.year, month.month)[1]
    ship = (month - _EPOCH).days + rng.integers(0, days, count)
    flag = np.where(rng.random(count) < 0.5, "N", np.where(rng.random(count) < 0.5, "A", "R"))
    dec = arrow_schema.field("l_quantity").type
    cols = [
        pa.array(idx // LINES_PER_ORDER + 1, pa.int64()),
        pa.array(rng.integers(1, 200_000, count), pa.int64()),
        pa.array(rng.integers(1, 10_000, count), pa.int64()),
        pa.array((idx % LINES_PER_ORDER + 1).astype(np.int32), pa.int32()),
        _decimal(rng.integers(1, 51, count) * 100, dec),
        _decimal(rng.integers(90_000, 10_500_000, count), dec),
        _decimal(rng.integers(0, 11, count), dec),
        _decimal(rng.integers(0, 9, count), dec),
        pa.array(flag, pa.string()),
        pa.array(np.where(ship > (dt.date(1995, 6, 17) - _EPOCH).days, "O", "F"), pa.string()),
        pa.array(ship.astype(np.int32), pa.date32()),
        pa.array((ship + rng.integers(-30, 31, count)).astype(np.int32), pa.date32()),
        pa.array((ship + rng.integers(1, 31, count)).astype(np.int32), pa.date32()),
        pa.array(np.array(_INSTRUCT)[rng.integers(0, 4, count)], pa.string()),
        pa.array(np.array(_MODES)[rng.integers(0, 7, count)], pa.string()),
        _comment_pool().take(pa.array(rng.integers(0, 5000, count))),
    ]
    return pa.Table.from_arrays(cols, schema=arrow_schema)


def deleted_positions(count: int, fraction: float, seed: int, file_index: int) -> np.ndarray:
    """Sorted, distinct row positions of one file to delete (the same for every variant)."""
    rng = np.random.default_rng([seed, 99, file_index])
    k = int(count * fraction)
    return np.sort(rng.choice(count, size=k, replace=False)).astype(np.int64)
