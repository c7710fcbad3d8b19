"""Spark's ``Cast.canUpCast`` over Spark's type names."""

from __future__ import annotations

import pytest

from icesql.sql.up_cast import can_up_cast


@pytest.mark.parametrize(
    "source, target, expected",
    [
        ("int", "int", True),
        ("tinyint", "double", True),
        ("double", "float", False),
        ("bigint", "int", False),
        ("float", "decimal(38,10)", False),  # DecimalType.isWiderThan: not of a float
        ("int", "decimal(10,0)", True),
        ("int", "decimal(9,0)", False),
        ("bigint", "decimal(20,0)", True),
        ("decimal(9,2)", "decimal(10,2)", True),
        ("decimal(9,2)", "decimal(10,1)", False),  # a smaller scale loses digits
        ("decimal(5,0)", "int", True),  # isTighterThan(DecimalType(10, 0))
        ("decimal(11,0)", "int", False),
        ("decimal(5,2)", "double", False),
        ("date", "timestamp", True),
        ("timestamp", "date", False),
        ("timestamp_ntz", "timestamp", True),
        ("timestamp", "bigint", True),
        ("decimal(9,2)", "string", True),
        ("string", "int", False),
        ("boolean", "int", False),
        ("void", "int", True),
        ("array<int>", "array<int>", True),
        ("array<int>", "array<bigint>", None),  # nested: not decided here
    ],
)
def test_can_up_cast_as_spark(source, target, expected):
    assert can_up_cast(source, target) is expected
