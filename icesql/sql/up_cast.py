"""Spark's ``Cast.canUpCast``: the casts that lose nothing, which Spark applies without being
asked (an Iceberg view's columns, read as the types its schema keeps) and refuses otherwise.

Types are Spark's simple strings (``bigint``, ``decimal(9,2)``, ``timestamp_ntz``).
Nested types are compared only when equal: ``None`` says "not known here".

>>> can_up_cast("int", "bigint"), can_up_cast("bigint", "int"), can_up_cast("int", "string")
(True, False, True)
>>> can_up_cast("bigint", "decimal(20,0)"), can_up_cast("decimal(9,2)", "decimal(10,1)")
(True, False)
"""

from __future__ import annotations

import re

__all__ = ["can_up_cast"]

# legalNumericPrecedence: each type up-casts to those after it
_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double")
# DecimalType.forType of the integral types
_INTEGRAL_DECIMALS = {"tinyint": (3, 0), "smallint": (5, 0), "int": (10, 0), "bigint": (20, 0)}
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")
_DATETIMES = {("date", "timestamp"), ("date", "timestamp_ntz")}
_DATETIMES |= {("timestamp_ntz", "timestamp"), ("timestamp", "timestamp_ntz")}
_DATETIMES |= {("timestamp", "bigint"), ("bigint", "timestamp")}  # longToTimestamp and back
_NESTED = ("array<", "map<", "struct<")


def _decimal(t: str) -> tuple[int, int] | None:
    match = _DECIMAL.fullmatch(t)
    if match is not None:
        return int(match[1]), int(match[2])
    return _INTEGRAL_DECIMALS.get(t)


def _wider(to: tuple[int, int], other: tuple[int, int]) -> bool:
    """``DecimalType.isWiderThan`` (and, reversed, ``isTighterThan``)."""
    return to[0] - to[1] >= other[0] - other[1] and to[1] >= other[1]


def can_up_cast(source: str, target: str) -> bool | None:
    """Whether Spark up-casts a value of type ``source`` to ``target``; None for nested types
    that differ (not decided here)."""
    source, target = source.lower().replace(" ", ""), target.lower().replace(" ", "")
    if source == target or source == "void":
        return True
    if source.startswith(_NESTED) or target.startswith(_NESTED):
        return None
    if target == "string":
        return True  # every atomic type and intervals print as strings
    if target.startswith("decimal"):
        # a decimal or an integral type to a decimal at least as wide; never float or double
        source_decimal = _decimal(source)
        return source_decimal is not None and _wider(_decimal(target) or (0, 0), source_decimal)
    if source.startswith("decimal"):
        # a decimal to an integral type that holds it (isTighterThan: never float or double)
        target_decimal = _INTEGRAL_DECIMALS.get(target)
        return target_decimal is not None and _wider(target_decimal, _decimal(source) or (0, 0))
    if source in _NUMERIC and target in _NUMERIC:
        return _NUMERIC.index(source) < _NUMERIC.index(target)
    return (source, target) in _DATETIMES
