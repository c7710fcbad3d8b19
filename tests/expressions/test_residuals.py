"""Residuals: what a row filter leaves undecided for the rows of one partition. Beside the
cases of Java's TestResidualEvaluator, the guarantee is checked against DuckDB: on the rows
of a partition the residual keeps exactly the rows the filter keeps."""

from __future__ import annotations

import pyarrow as pa
import pytest
from expressions_support import matching_rows

from icesql.errors import ProgrammingError
from icesql.expressions.residuals import residual_evaluator
from icesql.expressions.tree import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    and_,
    equal,
    greater_than,
    greater_than_or_equal,
    in_,
    is_null,
    less_than,
    not_,
    not_equal,
    not_null,
    or_,
    starts_with,
)
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import Day, Identity, Truncate
from icesql.spec.types import IntegerType, NestedField, StringType, TimestampType

DAY = 86_400_000_000


def test_residuals_by_partition() -> None:
    schema = Schema((NestedField(1, "ts", TimestampType()), NestedField(2, "id", IntegerType())))
    spec = PartitionSpec(0, (PartitionField(1, 1000, Day(), "ts_day"),))
    day = DAY
    expr = and_(greater_than_or_equal("ts", 10 * day + 12 * 3_600_000_000), equal("id", 5))
    residual = residual_evaluator(schema, spec, expr)
    assert str(residual((11,))) == "id = 5"  # the whole day is after noon of day 10
    assert residual((9,)) == ALWAYS_FALSE
    assert str(residual((10,))) == "(ts >= '1970-01-11T12:00' AND id = 5)"
    assert residual((None,)) == ALWAYS_FALSE  # a null day: every ts is null
    or_expr = or_(less_than("ts", 10 * day), equal("id", 5))
    assert residual_evaluator(schema, spec, or_expr)((3,)) == ALWAYS_TRUE
    assert str(residual_evaluator(schema, spec, or_expr)((12,))) == "id = 5"


def test_residual_of_unpartitioned_spec_is_the_filter() -> None:
    schema = Schema((NestedField(1, "id", IntegerType()),))
    residual = residual_evaluator(schema, PartitionSpec(0, ()), not_(equal("id", 5)))
    assert str(residual(())) == "id != 5"


SCHEMA = Schema(
    (
        NestedField(1, "ts", TimestampType()),
        NestedField(2, "id", IntegerType()),
        NestedField(3, "s", StringType()),
    )
)
SPEC = PartitionSpec(
    0,
    (
        PartitionField(1, 1000, Day(), "ts_day"),
        PartitionField(3, 1001, Truncate(2), "s_trunc"),
        PartitionField(2, 1002, Identity(), "id"),
    ),
)
# rows on both sides of the epoch and of midnight, with nulls in every column
ROWS = {
    "ts": [-DAY - 1, -1, 0, DAY // 2, DAY - 1, DAY, 3 * DAY + 7, None, 2 * DAY, DAY + 1],
    "id": [1, 5, 5, None, 7, 5, 9, 5, 1, 7],
    "s": ["ab", "abc", "b", "ba", None, "abd", "a", "zz", "ab", "b"],
}
FILTERS = [
    greater_than_or_equal("ts", DAY // 2),
    less_than("ts", DAY),
    and_(greater_than_or_equal("ts", 0), equal("id", 5)),
    or_(less_than("ts", 0), starts_with("s", "ab")),
    and_(starts_with("s", "a"), not_equal("id", 5)),
    not_(and_(equal("s", "abc"), is_null("ts"))),
    or_(is_null("s"), in_("id", [1, 9])),
    and_(not_null("ts"), greater_than("id", 4), less_than("s", "b")),
    equal("ts", DAY),
]


def _partition(ts, id_, s) -> tuple:
    """The partition tuple by the spec's transforms (day: floor of micros / day; truncate:
    the first 2 characters), written here, not taken from icesql."""
    return (None if ts is None else ts // DAY, None if s is None else s[:2], id_)


@pytest.mark.parametrize("row_filter", FILTERS, ids=str)
def test_residual_keeps_exactly_the_rows_the_filter_keeps(row_filter) -> None:
    residual_of = residual_evaluator(SCHEMA, SPEC, row_filter)
    table = pa.table(
        {
            "ts": pa.array(ROWS["ts"], pa.timestamp("us")).cast(pa.int64()),
            "id": pa.array(ROWS["id"], pa.int32()),
            "s": pa.array(ROWS["s"]),
        }
    )
    partitions = [_partition(*r) for r in zip(ROWS["ts"], ROWS["id"], ROWS["s"])]
    residuals = {p: residual_of(p) for p in set(partitions)}
    keys = list(residuals)
    kept_by_filter, *kept_by_residual = matching_rows(table, [row_filter, *residuals.values()])
    for key, kept in zip(keys, kept_by_residual):
        rows = {i for i, p in enumerate(partitions) if p == key}
        assert kept & rows == kept_by_filter & rows, (key, str(residuals[key]))
    assert any(r in (ALWAYS_TRUE, ALWAYS_FALSE) for r in residuals.values())  # some decided


def test_names_bind_case_insensitively_by_default() -> None:
    residual = residual_evaluator(SCHEMA, SPEC, equal("ID", 5))
    assert residual((0, "ab", 5)) == ALWAYS_TRUE
    assert residual((0, "ab", 6)) == ALWAYS_FALSE
    with pytest.raises(ProgrammingError, match="ID"):
        residual_evaluator(SCHEMA, SPEC, equal("ID", 5), case_sensitive=True)
