"""Python functions the Spark rewrites call where DuckDB's SQL cannot compute Spark's answer,
registered on each engine's DuckDB database (``register_functions``).

``icesql_decimal_divide`` is Spark's DECIMAL ``/`` where the scaled dividend passes the 38
digits of DuckDB's HUGEINT (the result scale squeezed to 6, e.g. DECIMAL(38, 18) /
DECIMAL(38, 18)): Java's ``BigDecimal.divide`` to 38 places HALF_UP, then rounded HALF_UP to
the result scale, NULL past the result precision (Spark without ANSI mode)::

    >>> _divide(Decimal("1"), Decimal("3"), 38, 6)
    '0.333333'
    >>> _divide(Decimal("-2"), Decimal("3"), 38, 6)
    '-0.666667'
    >>> _divide(Decimal("10123456789012345678901234567890.123456"), Decimal("1.0"), 38, 6)
    '10123456789012345678901234567890.123456'
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Context, Decimal
from typing import TYPE_CHECKING, Any

import duckdb
from duckdb.func import ARROW, SPECIAL

from icesql._lazy import lazy_module
from icesql.sql.spark.ansi_interval_text import (
    day_time_micros,
    day_time_text,
    year_month_months,
    year_month_text,
)
from icesql.sql.spark.interval_text import string_to_interval

if TYPE_CHECKING:
    import pyarrow as pa
else:  # pyarrow loads on first use (icesql._lazy)
    pa = lazy_module("pyarrow")

DECIMAL_DIVIDE = "icesql_decimal_divide"
STRING_TO_INTERVAL = "icesql_string_to_interval"  # Spark's CAST(text AS INTERVAL)
# Spark's text of year-month and day-time intervals, both ways: (value or text, start, end)
YEAR_MONTH_TEXT = "icesql_year_month_text"
DAY_TIME_TEXT = "icesql_day_time_text"
TEXT_YEAR_MONTH = "icesql_text_year_month"
TEXT_DAY_TIME = "icesql_text_day_time"
PYTHON_FUNCTIONS = (
    DECIMAL_DIVIDE,
    STRING_TO_INTERVAL,
    YEAR_MONTH_TEXT,
    DAY_TIME_TEXT,
    TEXT_YEAR_MONTH,
    TEXT_DAY_TIME,
)
_INTERVAL_PARTS = "STRUCT(months INTEGER, days INTEGER, micros BIGINT)"
_EXACT = Context(prec=80)  # room for any 38-digit unscaled value
_SPARK_DIVISION_SCALE = 38  # DecimalType.MAX_SCALE: Decimal./ divides to it first


def _half_up(numerator: int, denominator: int) -> int:
    sign = -1 if (numerator < 0) != (denominator < 0) else 1
    quotient, rest = divmod(abs(numerator), abs(denominator))
    if 2 * rest >= abs(denominator):
        quotient += 1
    return sign * quotient


def _divide(dividend: Decimal, divisor: Decimal, precision: int, scale: int) -> str | None:
    if divisor == 0:
        return None
    xn, xd = dividend.as_integer_ratio()
    yn, yd = divisor.as_integer_ratio()
    first = _half_up(xn * yd * 10**_SPARK_DIVISION_SCALE, xd * yn)
    unscaled = _half_up(first, 10 ** (_SPARK_DIVISION_SCALE - scale))
    if abs(unscaled) >= 10**precision:
        return None
    return f"{Decimal(unscaled).scaleb(-scale, _EXACT):f}"  # not the default 28 digits


def _decimal_divide(
    dividends: pa.Array, divisors: pa.Array, precisions: pa.Array, scales: pa.Array
) -> pa.Array:
    out = []
    for x, y, p, s in zip(
        dividends.to_pylist(),
        divisors.to_pylist(),
        precisions.to_pylist(),
        scales.to_pylist(),
        strict=True,
    ):
        out.append(None if x is None or y is None else _divide(Decimal(x), Decimal(y), p, s))
    return pa.array(out, pa.string())


def _string_to_interval(texts: pa.Array) -> pa.Array:
    out = []
    for text in texts.to_pylist():
        parts = None if text is None else string_to_interval(text)
        out.append(None if parts is None else dict(zip(("months", "days", "micros"), parts)))
    kind = pa.struct([("months", pa.int32()), ("days", pa.int32()), ("micros", pa.int64())])
    return pa.array(out, kind)


def _fields_function(
    body: Callable[[Any, int, int], Any], kind: str
) -> Callable[[pa.Array, pa.Array, pa.Array], pa.Array]:
    """An Arrow function applying ``body(value, start, end)`` row by row, NULL to NULL."""

    def apply(values: pa.Array, starts: pa.Array, ends: pa.Array) -> pa.Array:
        out = [
            None if v is None else body(v, a, b)
            for v, a, b in zip(
                values.to_pylist(), starts.to_pylist(), ends.to_pylist(), strict=True
            )
        ]
        return pa.array(out, getattr(pa, kind)())

    return apply


_FIELDS_FUNCTIONS = (  # name, Python function, argument type, result type (DuckDB, Arrow)
    (YEAR_MONTH_TEXT, year_month_text, "INTEGER", "VARCHAR", "string"),
    (DAY_TIME_TEXT, day_time_text, "BIGINT", "VARCHAR", "string"),
    (TEXT_YEAR_MONTH, year_month_months, "VARCHAR", "INTEGER", "int32"),
    (TEXT_DAY_TIME, day_time_micros, "VARCHAR", "BIGINT", "int64"),
)


def register_functions(con: duckdb.DuckDBPyConnection) -> None:
    """Make the functions above callable in ``con``'s database (its cursors see them)."""
    text, integer = duckdb.sqltype("VARCHAR"), duckdb.sqltype("INTEGER")
    con.create_function(
        DECIMAL_DIVIDE,
        _decimal_divide,
        [text, text, integer, integer],
        text,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
    con.create_function(
        STRING_TO_INTERVAL,
        _string_to_interval,
        [text],
        duckdb.sqltype(_INTERVAL_PARTS),
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
    for name, body, argument, result, kind in _FIELDS_FUNCTIONS:
        con.create_function(
            name,
            _fields_function(body, kind),
            [duckdb.sqltype(argument), integer, integer],
            duckdb.sqltype(result),
            type=ARROW,
            null_handling=SPECIAL,
            side_effects=False,
        )
