"""Spark's interval types of an expression: DuckDB has one INTERVAL type where Spark has three.

Spark 3.5 types an interval literal by its units: ``INTERVAL '1' YEAR`` and ``INTERVAL 3 YEAR
1 MONTH`` are year-month intervals (a count of months), ``INTERVAL '10' DAY`` and ``INTERVAL 2
WEEKS 3 MICROSECONDS`` day-time intervals (a count of microseconds), each with a start and an
end field; so is a unit-less string (``INTERVAL '1 day 2 hours'`` is DAY TO HOUR). The calendar interval
of months, days and microseconds comes from casts (``CAST(s AS INTERVAL)``) and functions. Casts and arithmetic depend on that type (``CAST(INTERVAL '1'
YEAR AS INT)`` is 1, ``CAST(INTERVAL '10' DAY AS BIGINT)`` is 10), so the rules read it here
from the expression itself (literals, casts to interval types, negations and sums of them).

>>> from icesql.sql.dialect import parse_one
>>> spark_interval_type(parse_one("SELECT INTERVAL 3 YEAR 1 MONTH").expressions[0])
IntervalType(kind='ym', start=0, end=1)
>>> spark_interval_type(parse_one("SELECT CAST(x AS INTERVAL HOUR TO SECOND)").expressions[0])
IntervalType(kind='dt', start=1, end=3)
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from icesql.sql.spark.interval_text import interval_and_units

__all__ = [
    "CALENDAR",
    "INTERVAL_TYPE_KEY",
    "MICROS_PER_FIELD",
    "DAY_TIME_FIELDS",
    "IntervalType",
    "YEAR_MONTH_FIELDS",
    "interval_type_of_data_type",
    "units_type",
    "spark_interval_type",
]

INTERVAL_TYPE_KEY = "icesql_interval_type"  # on a node a rule made: its Spark interval type
YEAR_MONTH_FIELDS = ("YEAR", "MONTH")
DAY_TIME_FIELDS = ("DAY", "HOUR", "MINUTE", "SECOND")
MICROS_PER_FIELD = (86_400_000_000, 3_600_000_000, 60_000_000, 1_000_000)
# a unit of a literal, as Spark's parser normalises it, and the field of the interval type
_UNIT_FIELDS = {
    "YEAR": ("ym", 0),
    "MONTH": ("ym", 1),
    "WEEK": ("dt", 0),
    "DAY": ("dt", 0),
    "HOUR": ("dt", 1),
    "MINUTE": ("dt", 2),
    "SECOND": ("dt", 3),
    "MILLISECOND": ("dt", 3),
    "MICROSECOND": ("dt", 3),
}


@dataclass(frozen=True)
class IntervalType:
    """``kind`` is ``ym`` (year-month), ``dt`` (day-time) or ``calendar``; ``start`` and
    ``end`` index ``YEAR_MONTH_FIELDS`` or ``DAY_TIME_FIELDS`` (both 0 for a calendar)."""

    kind: str
    start: int
    end: int

    def widened(self, other: IntervalType) -> IntervalType | None:
        """The type of a sum of the two, None where Spark refuses to add them."""
        if self.kind != other.kind or self.kind == "calendar":
            return None
        return IntervalType(self.kind, min(self.start, other.start), max(self.end, other.end))


CALENDAR = IntervalType("calendar", 0, 0)


def _field(unit: exp.Expr | None) -> tuple[str, int] | None:
    if not isinstance(unit, exp.Var):
        return None
    name = unit.name.upper()
    name = name[:-1] if name.endswith("S") else name
    return _UNIT_FIELDS.get(name)


def _span_type(unit: exp.Expr | None) -> IntervalType | None:
    """The type named by a unit or a span of units (``YEAR``, ``DAY TO SECOND``)."""
    if isinstance(unit, exp.IntervalSpan):
        first, last = _field(unit.this), _field(unit.expression)
        if first is None or last is None or first[0] != last[0] or first[1] > last[1]:
            return None
        return IntervalType(first[0], first[1], last[1])
    field = _field(unit)
    return IntervalType(field[0], field[1], field[1]) if field is not None else None


def units_type(units: frozenset[str]) -> IntervalType | None:
    """The type of a literal naming ``units`` (``{"day", "hour"}``: DAY TO HOUR), None when
    it names none or mixes year-month and day-time units (Spark refuses those)."""
    fields = {_UNIT_FIELDS[unit.upper()] for unit in units}
    kinds = {kind for kind, _ in fields}
    if len(kinds) != 1:
        return None
    indexes = [index for _, index in fields]
    return IntervalType(kinds.pop(), min(indexes), max(indexes))


def interval_type_of_data_type(found: exp.DataType | None) -> IntervalType | None:
    """The Spark interval type a data type names (``INTERVAL DAY TO SECOND``), None for
    another type; a bare ``INTERVAL`` is the calendar interval."""
    if found is None:
        return None
    if isinstance(found.this, exp.Interval):
        return _span_type(found.this.args.get("unit"))
    if found.this == exp.DataType.Type.INTERVAL:
        return CALENDAR
    return None


def spark_interval_type(node: exp.Expr | None) -> IntervalType | None:
    """Spark's interval type of ``node``, None when it is not an interval or its type is not
    known from the expression alone."""
    while node is not None and node.meta.get(INTERVAL_TYPE_KEY) is None:
        if not isinstance(node, exp.Paren):
            break
        node = node.this
    if node is None:
        return None
    made = node.meta.get(INTERVAL_TYPE_KEY)
    if made is not None:
        return made
    if isinstance(node, exp.Interval):
        unit = node.args.get("unit")
        if unit is not None:
            return _span_type(unit)
        read = interval_and_units(node.this.name) if isinstance(node.this, exp.Literal) else None
        return units_type(read[1]) if read is not None else None
    if isinstance(node, exp.Cast) and isinstance(node.to, exp.DataType):
        return interval_type_of_data_type(node.to)
    if isinstance(node, exp.Neg):
        return spark_interval_type(node.this)
    if isinstance(node, (exp.Add, exp.Sub)):
        left, right = spark_interval_type(node.this), spark_interval_type(node.expression)
        if left is None or right is None:
            return None
        return left.widened(right)
    return None
