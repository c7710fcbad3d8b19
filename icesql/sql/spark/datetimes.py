"""Spark's date and time functions where DuckDB's answers differ.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT weekday(d) FROM t")).sql("duckdb")
'SELECT (ISODOW(d) - 1) FROM t'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from icesql.sql.dialect import EXTRACT_FIELD, FUNCTION_ARGS, FUNCTION_NAME
from icesql.sql.spark.base import (
    FRACTIONAL,
    INTEGRAL,
    TEXTUAL,
    TIMESTAMPS,
    arg_data_type,
    arg_type,
    call,
    is_zoned_nanos,
    refuse_when,
)
from icesql.sql.spark.interval_casts import arrow_safe, micros_of
from icesql.sql.spark.interval_types import spark_interval_type
from icesql.sql.spark.time_parsing import spark_parsed

# Spark's spellings of date/time units, as DuckDB's date_trunc names them
_SPARK_UNITS = {
    "YEAR": "year",
    "YYYY": "year",
    "YY": "year",
    "QUARTER": "quarter",
    "MONTH": "month",
    "MM": "month",
    "MON": "month",
    "WEEK": "week",
    "DAY": "day",
    "DD": "day",
    "HOUR": "hour",
    "MINUTE": "minute",
    "SECOND": "second",
    "MILLISECOND": "millisecond",
    "MICROSECOND": "microsecond",
}


def _as_date(node: exp.Expr) -> exp.Expr:
    return exp.Cast(this=node, to=exp.DataType.build("DATE"))


# the units Spark's trunc(date, fmt) and date_trunc(fmt, ts) know; any other gives NULL
_TRUNC_UNITS = {"YEAR", "YYYY", "YY", "QUARTER", "MONTH", "MM", "MON", "WEEK"}
_DATE_TRUNC_UNITS = _TRUNC_UNITS | {
    "DAY",
    "DD",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "MICROSECOND",
}


def _unknown_unit(node: exp.Expr, units: set[str]) -> bool:
    written = node.meta.get(FUNCTION_ARGS) or []
    unit = next((a for a in written if isinstance(a, exp.Literal) and a.is_string), None)
    return unit is not None and unit.this.strip().upper() not in units  # sqlglot reads Q as QUARTER


def _spark_unit(node: exp.Expr) -> exp.Expr:
    unit = node.args.get("unit")
    name = unit.name.upper() if isinstance(unit, (exp.Literal, exp.Var)) else None
    if name in _SPARK_UNITS:
        node.set("unit", exp.Literal.string(_SPARK_UNITS[name]))
    return node


def _date_add(node: exp.TsOrDsAdd) -> exp.Expr:
    # date_add/date_sub return DATE in Spark; DuckDB's date + interval is a TIMESTAMP
    unit = node.args.get("unit")
    if isinstance(node.parent, exp.Cast) or (unit is not None and unit.name.upper() != "DAY"):
        return node
    return _as_date(node)


def _add_months(node: exp.AddMonths) -> exp.Expr:
    return node if isinstance(node.parent, exp.Cast) else _as_date(node)


def _date_trunc(node: exp.DateTrunc) -> exp.Expr:
    # Spark's trunc(date, fmt) returns DATE; DuckDB's date_trunc of a date gives TIMESTAMP
    if _unknown_unit(node, _TRUNC_UNITS):
        return exp.cast(exp.Null(), "DATE")
    return node if isinstance(node.parent, exp.Cast) else _as_date(_spark_unit(node))


def _timestamp_trunc(node: exp.TimestampTrunc) -> exp.Expr:
    if _unknown_unit(node, _DATE_TRUNC_UNITS):
        return exp.cast(exp.Null(), _TIMESTAMPTZ)
    return _spark_unit(node)


def _day_of_week(node: exp.DayOfWeek) -> exp.Expr:
    # Spark: Sunday = 1 ... Saturday = 7; DuckDB: Sunday = 0
    return exp.Paren(this=exp.Add(this=node, expression=exp.Literal.number(1)))


def _weekday(node: exp.Anonymous) -> exp.Expr:
    # Spark: Monday = 0 ... Sunday = 6
    return exp.Paren(
        this=exp.Sub(this=exp.func("isodow", *node.expressions), expression=exp.Literal.number(1))
    )


_DATE_UNITS = {"YEAR", "YEARS", "MONTH", "MONTHS", "WEEK", "WEEKS", "DAY", "DAYS"}
_TIMESTAMPTZ = "TIMESTAMPTZ"
_NUMBERS = INTEGRAL | FRACTIONAL
_SECONDS_PER_DAY = 86_400


def _floor_div(value: exp.Expr, by: int) -> exp.Expr:
    """Whole units, rounded down (Spark's Math.floorDiv), as BIGINT."""
    quotient = exp.Div(this=exp.Paren(this=value), expression=exp.Literal.number(by))
    return exp.cast(exp.func("floor", quotient), "BIGINT")


def _epoch_seconds(value: exp.Expr) -> exp.Expr:
    return _floor_div(call("epoch_us", value), 1_000_000)


def _unix_seconds(node: exp.UnixSeconds) -> exp.Expr:
    # Spark floors to the second; DuckDB's CAST(epoch(ts) AS BIGINT) rounds
    return _epoch_seconds(node.this)


def _unix_millis(node: exp.UnixMillis) -> exp.Expr:
    return _floor_div(call("epoch_us", node.this), 1_000)


def _unix_timestamp(node: exp.StrToUnix) -> exp.Expr:
    """unix_timestamp(x[, fmt]): whole seconds, truncated toward zero (unlike unix_seconds,
    which rounds down); NULL for text the pattern does not read (DuckDB's strptime raises); a
    timestamp or date is taken as it is."""
    value = node.this if node.this is not None else exp.CurrentTimestamp()
    if not (
        isinstance(value, exp.CurrentTimestamp)
        or arg_type(node) in (*TIMESTAMPS, exp.DataType.Type.DATE)
    ):
        value = spark_parsed(exp.StrToTime(this=value, format=node.args.get("format"), safe=True))
    micros = call("epoch_us", exp.cast(value, _TIMESTAMPTZ))
    return exp.IntDiv(this=micros, expression=exp.Literal.number(1_000_000))


def _to_timestamp(node: exp.StrToTime) -> exp.Expr:
    # NULL for text the pattern does not read; Spark's TIMESTAMP is icesql's TIMESTAMPTZ
    node.set("safe", True)
    if isinstance(node.parent, exp.Cast):
        return spark_parsed(node)
    return exp.cast(spark_parsed(node), _TIMESTAMPTZ)


def _to_date(node: exp.TsOrDsToDate) -> exp.Expr:
    """to_date(s, fmt): the text parsed with Spark's defaults (``time_parsing``)."""
    pattern = node.args.get("format")
    if pattern is None:
        return node
    return _as_date(spark_parsed(exp.StrToTime(this=node.this, format=pattern, safe=True)))


def _timestamp_cast(node: exp.Cast) -> exp.Expr:
    """to_timestamp(s) (a cast as parsed): NULL for bad text, and the zone-aware TIMESTAMP;
    to_timestamp_ntz(s) the same text read as a TIMESTAMP_NTZ."""
    name = (node.meta.get(FUNCTION_NAME) or "").lower()
    if name in ("to_timestamp", "to_timestamp_ltz") and arg_type(node) in _NUMBERS:
        # a number is seconds since the epoch, as Spark's cast of it to TIMESTAMP
        seconds = exp.Anonymous(this="timestamp_seconds", expressions=[node.this])
        return exp.cast(_timestamp_from("seconds")(seconds), _TIMESTAMPTZ)
    if name in ("to_timestamp", "to_timestamp_ltz"):
        return exp.TryCast(this=node.this, to=exp.DataType.build(_TIMESTAMPTZ))
    if name == "to_timestamp_ntz":
        inner = node.this
        if isinstance(inner, exp.Cast) and not isinstance(inner, exp.TryCast):
            inner = inner.this  # to_timestamp(s)'s own cast, read leniently here
        return exp.TryCast(this=inner, to=exp.DataType.build("TIMESTAMP"))
    return node


def _from_utc_timestamp(node: exp.AtTimeZone) -> exp.Expr:
    # the UTC wall clock of ts read in the zone: timezone(zone, instant) is that wall clock
    value = node.this.this if isinstance(node.this, exp.Cast) else node.this
    local = call("timezone", node.args["zone"], exp.cast(value, _TIMESTAMPTZ))
    return exp.cast(local, _TIMESTAMPTZ)


def _to_utc_timestamp(node: exp.FromTimeZone) -> exp.Expr:
    # ts's wall clock (a TIMESTAMP, in the session's zone) read in the zone; a TIMESTAMP
    # literal is a TIMESTAMPTZ here, which AT TIME ZONE would turn the other way
    value = node.this
    if not (isinstance(value, exp.Cast) and value.to.this == exp.DataType.Type.TIMESTAMP):
        node.set("this", exp.Cast(this=value, to=exp.DataType.build("TIMESTAMP")))
    return node if isinstance(node.parent, exp.Cast) else exp.cast(node, _TIMESTAMPTZ)


def _try(node: exp.Expr) -> exp.Expr:
    # make_date(2024, 2, 30) and make_timestamp of no such time are NULL in Spark; DuckDB raises
    return call("try", node.copy())


def _make_timestamp(node: exp.TimestampFromParts) -> exp.Expr:
    """Spark's make_timestamp: a second of 60 is the next minute only without a fraction
    (PostgreSQL's leap second), else no such time (NULL); DuckDB takes 60.007 as 00.007 of
    the next minute."""
    made = _try(node)
    sec = node.args.get("sec")
    if sec is None:
        return made
    past = exp.and_(
        exp.GT(this=sec.copy(), expression=exp.Literal.number(60)),
        exp.LT(this=sec.copy(), expression=exp.Literal.number(61)),
    )
    return exp.Case(ifs=[exp.If(this=past, true=exp.null())], default=made)


def _extract_field(node: exp.Expr, field: str, value: exp.Expr) -> exp.Expr:
    name = field.upper()
    if name in ("DOW", "DAYOFWEEK"):  # Spark: Sunday = 1 ... Saturday = 7
        return exp.Paren(
            this=exp.Add(this=call("dayofweek", value), expression=exp.Literal.number(1))
        )
    if name in ("DOW_ISO", "DAYOFWEEK_ISO"):
        return call("isodow", value)
    if name in ("SECOND", "SECONDS", "S", "SEC", "SECS"):  # with the fraction: DECIMAL(8, 6)
        micros = call("date_part", exp.Literal.string("microseconds"), value)
        return exp.cast(
            exp.Div(this=micros, expression=exp.Literal.number(1_000_000)), "DECIMAL(8, 6)"
        )
    return node


def _from_text(node: exp.Expr, key: str, index: int | None = None) -> None:
    """Text to extract from is read as a TIMESTAMP, as Spark's implicit cast reads it (NULL
    for text that is none); DuckDB has no date_part of text."""
    if arg_type(node, key, index) in TEXTUAL:
        value = node.args[key][index] if index is not None else node.args[key]
        node.set(key, exp.TryCast(this=value, to=exp.DataType.build("TIMESTAMP")), index)


_DAYS, _HOURS = ("DAY", "D", "DAYS"), ("HOUR", "H", "HOURS", "HR", "HRS")
_MICROS_PER_DAY, _MICROS_PER_HOUR = 86_400_000_000, 3_600_000_000


def _interval_field(field: str, value: exp.Expr) -> exp.Expr | None:
    """Days and hours of a day-time interval from its whole microseconds, as Spark's
    ``ExtractANSIIntervalDays/Hours`` (40 hours are 1 day and 16 hours; DuckDB keeps the
    day count and the hours apart)."""
    micros = micros_of(value)
    if field in _DAYS:
        return exp.IntDiv(this=micros, expression=exp.Literal.number(_MICROS_PER_DAY))
    if field in _HOURS:
        within = exp.Mod(this=micros, expression=exp.Literal.number(_MICROS_PER_DAY))
        return exp.IntDiv(
            this=exp.Paren(this=within), expression=exp.Literal.number(_MICROS_PER_HOUR)
        )
    return None


def _extract(node: exp.Extract) -> exp.Expr:
    field = node.meta.get(EXTRACT_FIELD) or node.this.name
    _from_text(node, "expression")
    return _spark_extract(node, field, node.expression, arg_type(node, "expression"))


def _spark_extract(node: exp.Expr, field: str, value: exp.Expr, kind_of: Any) -> exp.Expr:
    """``extract(field FROM value)``, ``value`` of type kind ``kind_of``."""
    name = field.upper()
    if name in _DAYS + _HOURS and kind_of == exp.DataType.Type.INTERVAL:
        kind = spark_interval_type(value)
        if kind is not None and kind.kind == "dt":
            found = _interval_field(name, value)
            assert found is not None
            return exp.cast(found, "TINYINT" if name in _HOURS else "INT")
        if kind is None:  # a day-time or a calendar interval: they differ past 24 hours
            time_part = exp.Sub(
                this=micros_of(value.copy()),
                expression=exp.Mul(
                    this=exp.cast(
                        call("date_part", exp.Literal.string("day"), value.copy()), "BIGINT"
                    ),
                    expression=exp.Literal.number(_MICROS_PER_DAY),
                ),
            )
            beyond = exp.GTE(
                this=exp.Abs(this=time_part), expression=exp.Literal.number(_MICROS_PER_DAY)
            )
            return refuse_when(
                beyond,
                f"extract({name.lower()} from an interval of 24 hours or more)",
                "Spark's answer depends on whether it is a day-time or a calendar interval",
                _extract_field(node, field, value),
            )
    return _extract_field(node, field, value)


def _date_part(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 2 or not isinstance(node.expressions[0], exp.Literal):
        return node
    _from_text(node, "expressions", 1)
    kind_of = arg_type(node, "expressions", 1)
    return _spark_extract(node, node.expressions[0].name, node.expressions[1], kind_of)


def _date_plus_interval(node: exp.Add | exp.Sub) -> exp.Expr:
    # DATE +/- INTERVAL of days, weeks, months or years is a DATE in Spark, a TIMESTAMP in DuckDB
    # (so is INTERVAL + DATE, and a negated interval)
    date_key, interval = "this", node.expression
    if isinstance(node, exp.Add) and not isinstance(_unnegated(interval), exp.Interval):
        date_key, interval = "expression", node.this
    interval = _unnegated(interval)
    if not isinstance(interval, exp.Interval) or isinstance(node.parent, exp.Cast):
        return node
    unit = interval.args.get("unit")
    kind = spark_interval_type(interval)  # a literal read already: INTERVAL '2-2' YEAR TO MONTH
    whole_days = kind is not None and (kind.kind == "ym" or (kind.kind, kind.end) == ("dt", 0))
    if not whole_days and not (isinstance(unit, exp.Var) and unit.name.upper() in _DATE_UNITS):
        return node
    return _as_date(node) if arg_type(node, date_key) == exp.DataType.Type.DATE else node


_DIFF_UNITS = {
    "MICROSECOND",
    "MILLISECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
}


def _timestamp_diff(node: exp.DateDiff | exp.TimestampDiff) -> exp.Expr:
    """``timestampdiff(unit, start, end)`` and ``datediff(unit, start, end)``: whole units
    between the two local date-times (Java's ``ChronoUnit.between``), which is DuckDB's
    ``date_sub``; ``date_diff`` counts the unit boundaries crossed instead, and sqlglot
    casts ``datediff``'s operands to DATE."""
    unit = node.args.get("unit")
    if unit is None:
        return node  # datediff(end, start): days between two dates
    name = unit.name.upper()
    if name not in _DIFF_UNITS:
        return node

    def operand(value: exp.Expr) -> exp.Expr:
        if isinstance(value, exp.TsOrDsToDate) and isinstance(node, exp.DateDiff):
            value = value.this
        return exp.cast(value, "TIMESTAMP")

    start, end = operand(node.expression), operand(node.this)
    if name in _MONTH_UNITS:
        months = _months_until(start, end)
        divisor = _MONTH_UNITS[name]
        whole = exp.IntDiv(this=months, expression=exp.Literal.number(divisor))
        return exp.cast(whole if divisor > 1 else months, "BIGINT")
    return exp.cast(call("date_sub", exp.Literal.string(name.lower()), start, end), "BIGINT")


_MONTH_UNITS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}
# Java's LocalDateTime.until for months: the end date moved a day toward the start when its
# time of day has not reached the start's, then LocalDate.monthsUntil (packed year-month-day)
_MONTHS_UNTIL = sqlglot.parse_one(
    """
    ((YEAR(e) * 12 + MONTH(e) - 1) * 32 + DAY(e) - ((YEAR(s) * 12 + MONTH(s) - 1) * 32 + DAY(s))) // 32
    """,
    read="duckdb",
)
_END_DATE = sqlglot.parse_one(
    """
    CASE WHEN CAST(b AS DATE) > CAST(a AS DATE) AND CAST(b AS TIME) < CAST(a AS TIME)
         THEN CAST(b AS DATE) - 1
         WHEN CAST(b AS DATE) < CAST(a AS DATE) AND CAST(b AS TIME) > CAST(a AS TIME)
         THEN CAST(b AS DATE) + 1
         ELSE CAST(b AS DATE) END
    """,
    read="duckdb",
)


def _filled(template: exp.Expr, values: dict[str, exp.Expr]) -> exp.Expr:
    tree = template.copy()
    for column in list(tree.find_all(exp.Column)):
        if column.name in values and not column.table:
            column.replace(values[column.name].copy())
    return tree


def _months_until(start: exp.Expr, end: exp.Expr) -> exp.Expr:
    end_date = _filled(_END_DATE, {"a": start, "b": end})
    start_date = exp.cast(start.copy(), "DATE")
    return exp.Paren(this=_filled(_MONTHS_UNTIL, {"s": start_date, "e": end_date}))


def _convert_timezone(node: exp.ConvertTimezone) -> exp.Expr:
    """``convert_timezone([source, ]target, ts)``: the wall clock ``ts`` shows in ``source``
    (the session's zone, UTC, when not given) read in ``target``, a TIMESTAMP_NTZ. DuckDB's
    ``ts AT TIME ZONE target`` reads the wall clock in ``target`` the other way round."""
    source = node.args.get("source_tz") or exp.Literal.string("UTC")
    wall = exp.cast(node.args["timestamp"], "TIMESTAMP")
    instant = call("timezone", source, wall)
    return exp.cast(call("timezone", node.args["target_tz"], instant), "TIMESTAMP")


def _unnegated(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Neg | exp.Paren):
        node = node.this
    return node


def _date_from_unix_date(node: exp.DateFromUnixDate) -> exp.Expr:
    return node if isinstance(node.parent, exp.Cast) else _as_date(node)


def _timestamp_from(unit: str) -> Callable[[exp.Anonymous], exp.Expr]:
    def rule(node: exp.Anonymous) -> exp.Expr:
        if len(node.expressions) != 1:
            return node
        value = node.expressions[0]
        if unit == "seconds":  # Spark: (seconds * 1e6).toLong, a fraction of a micro cut off
            micros = exp.Mul(
                this=value, expression=exp.cast(exp.Literal.number(1_000_000), "BIGINT")
            )
            made = call("make_timestamp", exp.cast(call("trunc", micros), "BIGINT"))
            infinite = exp.or_(call("isnan", value.copy()), call("isinf", value.copy()))
            return exp.Case(
                ifs=[exp.If(this=infinite, true=exp.null())], default=exp.cast(made, _TIMESTAMPTZ)
            )
        made = call("epoch_ms", value) if unit == "millis" else call("make_timestamp", value)
        return exp.cast(made, _TIMESTAMPTZ)

    return rule


def _months_between(node: exp.MonthsBetween) -> exp.Expr:
    """Spark's months_between: whole months when both days of month are equal or both are
    month ends, else the difference plus (day and time difference) / 31 days, rounded to 8
    places unless roundOff is false."""
    late = exp.cast(node.this, _TIMESTAMPTZ)
    early = exp.cast(node.expression, _TIMESTAMPTZ)

    def months(ts: exp.Expr) -> exp.Expr:
        return exp.Paren(
            this=exp.Add(
                this=exp.Mul(this=call("year", ts.copy()), expression=exp.Literal.number(12)),
                expression=call("month", ts.copy()),
            )
        )

    def seconds_in_month(ts: exp.Expr) -> exp.Expr:  # whole seconds: Spark drops the fraction
        day_start = call("date_trunc", exp.Literal.string("day"), ts.copy())
        micros = exp.Sub(this=call("epoch_us", ts.copy()), expression=call("epoch_us", day_start))
        return exp.Paren(
            this=exp.Add(
                this=exp.Mul(
                    this=call("day", ts.copy()), expression=exp.Literal.number(_SECONDS_PER_DAY)
                ),
                expression=_floor_div(micros, 1_000_000),
            )
        )

    def month_end(ts: exp.Expr) -> exp.Expr:
        return exp.EQ(
            this=call("day", ts.copy()), expression=call("day", call("last_day", ts.copy()))
        )

    whole = exp.cast(exp.Paren(this=exp.Sub(this=months(late), expression=months(early))), "DOUBLE")
    part = exp.Div(
        this=exp.Paren(
            this=exp.Sub(this=seconds_in_month(late), expression=seconds_in_month(early))
        ),
        expression=exp.Literal.number(31 * _SECONDS_PER_DAY),
    )
    diff: exp.Expr = exp.Add(this=whole.copy(), expression=part)
    round_off = node.args.get("roundoff")
    if not (isinstance(round_off, exp.Boolean) and not round_off.this):
        scaled = exp.Add(
            this=exp.Mul(this=exp.Paren(this=diff), expression=exp.Literal.number("1e8")),
            expression=exp.Literal.number("0.5"),
        )
        diff = exp.Div(this=exp.func("floor", scaled), expression=exp.Literal.number("1e8"))
    same_day = exp.or_(
        exp.EQ(this=call("day", late.copy()), expression=call("day", early.copy())),
        exp.and_(month_end(late), month_end(early)),
    )
    return exp.Case(ifs=[exp.If(this=same_day, true=whole)], default=diff)


_INTERVAL_PARTS = (  # make_interval's arguments, in order, and DuckDB's interval of each
    ("year", "to_years"),
    ("month", "to_months"),
    ("week", "to_weeks"),
    ("day", "to_days"),
    ("hour", "to_hours"),
    ("minute", "to_minutes"),
    ("second", None),
)


def _make_interval(node: exp.MakeInterval) -> exp.Expr:
    # sqlglot pastes the arguments into an INTERVAL '...' literal, right only for numbers;
    # otherwise add up one interval per argument (NULL in any of them gives NULL, as in Spark)
    values = [(node.args.get(name), to) for name, to in _INTERVAL_PARTS]
    if all(v is None or (isinstance(v, exp.Literal) and not v.is_string) for v, _ in values):
        return arrow_safe(node.copy(), "make_interval")
    total: exp.Expr | None = None
    for value, to in values:
        if value is None:
            continue
        if to is None:  # seconds are DECIMAL(18,6) in Spark: whole microseconds
            micros = exp.Mul(
                this=exp.cast(value.copy(), "DECIMAL(18,6)"),
                expression=exp.Literal.number(1_000_000),
            )
            part = call("to_microseconds", exp.cast(micros, "BIGINT"))
        else:
            part = call(to, exp.cast(value.copy(), "INT"))
        total = part if total is None else exp.Add(this=total, expression=part)
    return arrow_safe(exp.Paren(this=total), "make_interval") if total is not None else node


_COMPARISONS = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
    exp.Between,
)
_ZONED = {exp.DataType.Type.TIMESTAMPTZ, exp.DataType.Type.TIMESTAMPLTZ}


def _nanos_comparison(node: exp.Expr) -> exp.Expr:
    """A ``TIMESTAMP_NS`` or ``TIMESTAMPTZ_NS`` compared with a zoned timestamp (``ts_ns >
    TIMESTAMP '...'``, a ``TIMESTAMPTZ`` here): DuckDB 2.0.0 casts neither implicitly (2.0.1
    does for ``TIMESTAMPTZ_NS``), so the zoned operands are cast to ``TIMESTAMP_NS``, which
    keeps every nanosecond. Spark would read both as its zoned type;
    icesql sessions run in UTC, where a zoneless value and its instant read alike."""
    keys = ("this", "low", "high") if isinstance(node, exp.Between) else ("this", "expression")
    types = {key: arg_data_type(node, key) for key in keys}
    if not any(
        t is not None and (t.this == exp.DataType.Type.TIMESTAMP_NS or is_zoned_nanos(t))
        for t in types.values()
    ):
        return node
    for key, found in types.items():
        if found is not None and (found.this in _ZONED or is_zoned_nanos(found)):
            node.set(
                key,
                exp.Cast(this=node.args[key], to=exp.DataType(this=exp.DataType.Type.TIMESTAMP_NS)),
            )
    return node


# each rule takes a node of its key's class (semantics looks it up by type), hence Any
RULES: dict[type[exp.Expr], Callable[[Any], exp.Expr]] = {
    **dict.fromkeys(_COMPARISONS, _nanos_comparison),
    exp.MakeInterval: _make_interval,
    exp.UnixSeconds: _unix_seconds,
    exp.UnixMillis: _unix_millis,
    exp.StrToUnix: _unix_timestamp,
    exp.StrToTime: _to_timestamp,
    exp.TsOrDsToDate: _to_date,
    exp.AtTimeZone: _from_utc_timestamp,
    exp.FromTimeZone: _to_utc_timestamp,
    exp.TimestampFromParts: _make_timestamp,
    exp.Extract: _extract,
    exp.Add: _date_plus_interval,
    exp.Sub: _date_plus_interval,
    exp.DateFromUnixDate: _date_from_unix_date,
    exp.MonthsBetween: _months_between,
    exp.Cast: _timestamp_cast,
    exp.TsOrDsAdd: _date_add,
    exp.AddMonths: _add_months,
    exp.DateTrunc: _date_trunc,
    exp.TimestampTrunc: _timestamp_trunc,
    exp.DayOfWeek: _day_of_week,
    exp.DateDiff: _timestamp_diff,
    exp.ConvertTimezone: _convert_timezone,
    exp.TimestampDiff: _timestamp_diff,
}
FUNCTIONS = {
    "weekday": _weekday,
    "make_date": _try,
    "date_part": _date_part,
    "timestamp_seconds": _timestamp_from("seconds"),
    "timestamp_millis": _timestamp_from("millis"),
    "timestamp_micros": _timestamp_from("micros"),
}
TYPED = {exp.StrToUnix, exp.Add, exp.Sub, exp.Extract, *_COMPARISONS}
NANOS_ONLY = _COMPARISONS  # only a nanosecond timestamp makes a comparison need types
TYPED_FUNCTIONS = {"date_part"}


def needs_types(node: exp.Expr) -> bool:
    """Only a sum with an interval needs its operand's type (DATE or TIMESTAMP); a comparison
    does where a nanosecond timestamp may be compared (``NANOS_ONLY``)."""
    if isinstance(node, exp.Sub):
        return isinstance(_unnegated(node.expression), exp.Interval)
    if isinstance(node, exp.Add):
        return any(
            isinstance(_unnegated(side), exp.Interval) for side in (node.this, node.expression)
        )
    return True
