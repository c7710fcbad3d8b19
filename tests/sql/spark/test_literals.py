"""Numeric literals Spark's parser refuses: each refusal is Spark 3.5.8's."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.sql.dialect import parse_one
from icesql.sql.semantics import apply_spark_semantics


@pytest.mark.parametrize(
    "literal, reason",
    [
        ("128Y", "INVALID_NUMERIC_LITERAL_RANGE"),
        ("32768S", "INVALID_NUMERIC_LITERAL_RANGE"),
        ("9223372036854775808L", "INVALID_NUMERIC_LITERAL_RANGE"),
        ("1E309", "INVALID_NUMERIC_LITERAL_RANGE"),
        ("1234567890123456789012345678901234567890", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"),
        ("1234567890123456789012345678901234567890.0", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"),
    ],
)
def test_refused(literal: str, reason: str) -> None:
    with pytest.raises(ProgrammingError, match=reason):
        apply_spark_semantics(parse_one(f"SELECT {literal}"))


@pytest.mark.parametrize(
    "literal",
    ["-128Y", "-32768S", "-9223372036854775808L", "9223372036854775808", "0.001", "1.5e308"],
)
def test_accepted(literal: str) -> None:
    apply_spark_semantics(parse_one(f"SELECT {literal}"))
