"""Decimal result types with and without ``spark.sql.decimalOperations.allowPrecisionLoss``;
each expected answer is Spark 3.5.8's for the same SELECT under the same setting."""

from __future__ import annotations

import decimal

import pytest

import icesql
from icesql.sql.spark.decimal_types import divide, multiply, precision_loss

D = decimal.Decimal


def test_types_are_bounded_without_precision_loss():
    assert multiply((38, 18), (38, 18)) == (38, 6)
    with precision_loss(False):
        assert multiply((38, 18), (38, 18)) == (38, 36)
        # Divide.resultDecimalType: 38 digits split about evenly past the maximum
        assert divide((38, 10), (38, 10)) == (38, 18)
    assert divide((38, 10), (38, 10)) == (38, 6)


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory):
    with icesql.connect(str(tmp_path_factory.mktemp("decimals"))) as connection:
        yield connection


@pytest.mark.parametrize(
    "expr, lossy, exact",
    [
        (
            "10.300000000000000000 * 3.000000000000000000",
            D("30.9000000000000000000000000000000000"),
            D("30.900000000000000000000000000000000000"),
        ),
        (
            "12345678912345.123456789123 / 0.000000012345678",
            D("1000000073899961059796.725866332"),
            None,
        ),
        (
            "1.0123456789012345678901234567890123456e31BD / 10.0",
            D("1012345678901234567890123456789.012346"),
            D("1012345678901234567890123456789.0123456"),
        ),
    ],
)
def test_the_setting_is_honoured(con, expr, lossy, exact):
    assert con.execute(f"SELECT {expr}").fetchone() == (lossy,)
    con.execute("SET spark.sql.decimalOperations.allowPrecisionLoss=false")
    try:
        assert con.execute(f"SELECT {expr}").fetchone() == (exact,)
    finally:
        con.execute("SET spark.sql.decimalOperations.allowPrecisionLoss=true")
    assert con.execute(f"SELECT {expr}").fetchone() == (lossy,)
