"""One statement's outcome: Spark's answer held against icesql's.

Rows are compared as Spark's suite compares them, as text (``hive_format``), sorted on both
sides unless Spark's plan keeps an order (``Answer.sorted``). One tolerance: in a column Spark
types ``double`` or ``float``, two numbers within a relative 1e-9 are equal (a sum or average
of doubles may differ in its last digits with the order of the additions; Java 17's
``Double.toString`` and the shortest repr also differ in rare last digits).

The outcomes:

* ``agree`` — both answer, with the same rows (and the same order where it counts);
* ``both raise`` — Spark raises and so does icesql (an error where Spark errors);
* ``differ`` — both answer, with other rows (``order only``: the same rows in another order
  where Spark's order counts, which ties in the ORDER BY keys may explain);
* ``refused`` — icesql raises ``NotSupportedError`` where Spark answers;
* ``error`` — icesql raises another error where Spark answers;
* ``accepts`` — icesql answers where Spark raises.

A temporary view both engines read from the Iceberg table Spark wrote (``Answer.setup``) is
``setup``, not a query; when icesql cannot make it the outcome is ``setup failed``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.spark_sql_tests.answers import Answer

__all__ = ["OUTCOMES", "Outcome", "compare"]

AGREE, BOTH_RAISE, DIFFER, REFUSED, ERROR, ACCEPTS = (
    "agree",
    "both raise",
    "differ",
    "refused",
    "error",
    "accepts",
)
SETUP, SETUP_FAILED = "setup", "setup failed"
OUTCOMES = (AGREE, BOTH_RAISE, DIFFER, REFUSED, ERROR, ACCEPTS)
_FLOATING = {"double", "float"}
_REL_TOL = 1e-9


@dataclass(frozen=True)
class Outcome:
    kind: str
    order_only: bool = False


def _java_number(text: str) -> float | None:
    try:
        return float(text)  # Java's NaN / Infinity / 1.0E-4 read as Python reads them
    except ValueError:
        return None


def _cells_equal(left: str, right: str) -> bool:
    if left == right:
        return True
    a, b = _java_number(left), _java_number(right)
    if a is None or b is None:
        return False
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return False
    return math.isclose(a, b, rel_tol=_REL_TOL, abs_tol=0.0)


def _rows_equal(left: Sequence[str], right: Sequence[str], types: Sequence[str]) -> bool:
    if len(left) != len(right):
        return False
    floating = [t in _FLOATING for t in types]
    if not any(floating):
        return list(left) == list(right)
    for a, b in zip(left, right):
        if a == b:
            continue
        cells_a, cells_b = a.split("\t"), b.split("\t")
        if not (len(cells_a) == len(cells_b) == len(types)):
            return False
        for x, y, tolerant in zip(cells_a, cells_b, floating):
            if x != y and not (tolerant and _cells_equal(x, y)):
                return False
    return True


def compare(spark: Answer, mine: Answer) -> Outcome:
    """The outcome of one statement (module docstring)."""
    if spark.setup:
        return Outcome(SETUP if mine.ok else SETUP_FAILED)
    if not spark.ok:
        return Outcome(BOTH_RAISE if not mine.ok else ACCEPTS)
    if not mine.ok:
        return Outcome(REFUSED if mine.refused else ERROR)
    want, got = list(spark.rows), list(mine.rows)
    if not spark.sorted:
        want.sort()
        got.sort()
    if _rows_equal(want, got, spark.types):
        return Outcome(AGREE)
    order_only = spark.sorted and _rows_equal(sorted(want), sorted(got), spark.types)
    return Outcome(DIFFER, order_only=order_only)
