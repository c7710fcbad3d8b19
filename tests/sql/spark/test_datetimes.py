"""Spark's date and time functions in DuckDB: DATE results where DuckDB gives TIMESTAMP,
Spark's day-of-week numbering, whole seconds rounded down, NULL for text or dates that do
not exist, months_between.

Spark's answers are those of the Spark 3.5 SQL function reference (its examples, with the
session time zone UTC) and of the queries checked against Spark in
``tests/interop/test_sql_compat.py``.
"""

from __future__ import annotations

import datetime
import decimal

import duckdb
import pytest

UTC = datetime.UTC


def _ts(*parts: int) -> datetime.datetime:
    return datetime.datetime(*parts, tzinfo=UTC)


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("dayofweek(DATE '2009-07-30')", 5),
        ("dayofweek(DATE '2024-01-07')", 1),  # a Sunday
        ("dayofweek(DATE '2024-01-13')", 7),
        ("weekday(DATE '2009-07-30')", 3),
        ("weekday(DATE '2024-01-07')", 6),
        ("weekday(DATE '2024-01-08')", 0),
        ("date_add(DATE '2016-07-30', 1)", datetime.date(2016, 7, 31)),
        ("date_add(DATE '2024-02-28', 2)", datetime.date(2024, 3, 1)),
        ("date_sub(DATE '2016-07-30', 1)", datetime.date(2016, 7, 29)),
        ("add_months(DATE '2016-08-31', 1)", datetime.date(2016, 9, 30)),
        ("add_months(DATE '2024-01-31', 1)", datetime.date(2024, 2, 29)),
        ("trunc(DATE '2019-08-04', 'week')", datetime.date(2019, 7, 29)),
        ("trunc(DATE '2019-08-04', 'quarter')", datetime.date(2019, 7, 1)),
        ("trunc(DATE '2009-02-12', 'MM')", datetime.date(2009, 2, 1)),
        ("trunc(DATE '2015-10-27', 'YEAR')", datetime.date(2015, 1, 1)),
        ("trunc(DATE '2024-05-17', 'YY')", datetime.date(2024, 1, 1)),
        ("trunc(DATE '2024-05-17', 'Q')", None),  # not one of trunc's units
        ("trunc(DATE '2024-05-17', 'DAY')", None),
        ("date_trunc('YEAR', TIMESTAMP '2015-03-05 09:32:05.359')", _ts(2015, 1, 1)),
        ("date_trunc('MM', TIMESTAMP '2015-03-05 09:32:05.359')", _ts(2015, 3, 1)),
        ("date_trunc('DD', TIMESTAMP '2015-03-05 09:32:05.359')", _ts(2015, 3, 5)),
        ("date_trunc('HOUR', TIMESTAMP '2015-03-05 09:32:05.359')", _ts(2015, 3, 5, 9)),
        (
            "date_trunc('MILLISECOND', TIMESTAMP '2015-03-05 09:32:05.123456')",
            _ts(2015, 3, 5, 9, 32, 5, 123000),
        ),
        ("date_trunc('FORTNIGHT', TIMESTAMP '2015-03-05 09:32:05')", None),
        ("unix_seconds(TIMESTAMP '1970-01-01 00:00:01Z')", 1),
        ("unix_seconds(TIMESTAMP '1969-12-31 23:59:59.5')", -1),
        ("unix_millis(TIMESTAMP '1970-01-01 00:00:01Z')", 1000),
        ("unix_millis(TIMESTAMP '1969-12-31 23:59:59.9995')", -1),
        ("unix_timestamp(TIMESTAMP '1969-12-31 23:59:59.5')", 0),
        (
            "unix_timestamp('2016-04-08', 'yyyy-MM-dd')",
            int(datetime.datetime(2016, 4, 8, tzinfo=UTC).timestamp()),
        ),
        ("unix_timestamp('x', 'yyyy')", None),
        ("unix_timestamp(DATE '1970-01-02')", 86400),
        ("to_timestamp('2016-12-31 00:12:00')", _ts(2016, 12, 31, 0, 12)),
        ("to_timestamp('2016-12-31', 'yyyy-MM-dd')", _ts(2016, 12, 31)),
        ("to_timestamp('31.12.2016', 'yyyy-MM-dd')", None),
        ("to_timestamp('not a time')", None),
        ("from_utc_timestamp(TIMESTAMP '2016-08-31 00:00:00', 'Asia/Seoul')", _ts(2016, 8, 31, 9)),
        ("to_utc_timestamp(TIMESTAMP '2016-08-31 00:00:00', 'Asia/Seoul')", _ts(2016, 8, 30, 15)),
        ("to_utc_timestamp('2016-08-31', 'Asia/Seoul')", _ts(2016, 8, 30, 15)),
        ("from_utc_timestamp('2016-08-31', 'Asia/Seoul')", _ts(2016, 8, 31, 9)),
        ("make_date(2013, 7, 15)", datetime.date(2013, 7, 15)),
        ("make_date(2019, 7, NULL)", None),
        ("make_date(2024, 2, 30)", None),
        ("make_timestamp(2019, 13, 1, 10, 11, 12)", None),
        ("extract(DOW FROM DATE '2024-01-07')", 1),
        ("extract(DAYOFWEEK FROM DATE '2009-07-30')", 5),
        ("extract(DOW_ISO FROM DATE '2024-01-07')", 7),
        ("extract(SECOND FROM TIMESTAMP '2024-01-01 00:00:30.25')", decimal.Decimal("30.250000")),
        (
            "date_part('SECONDS', TIMESTAMP '2019-10-01 00:00:01.000001')",
            decimal.Decimal("1.000001"),
        ),
        ("date_part('dow', DATE '2024-01-13')", 7),
        ("date_part('YEAR', DATE '2024-01-13')", 2024),
        ("DATE '2024-01-31' + INTERVAL 1 MONTH", datetime.date(2024, 2, 29)),
        ("DATE '2024-03-01' - INTERVAL 1 DAY", datetime.date(2024, 2, 29)),
        ("DATE '2024-01-01' + INTERVAL 2 WEEKS", datetime.date(2024, 1, 15)),
        ("date_from_unix_date(1)", datetime.date(1970, 1, 2)),
        ("date_from_unix_date(-1)", datetime.date(1969, 12, 31)),
        ("timestamp_seconds(1230219000)", _ts(2008, 12, 25, 15, 30)),
        ("timestamp_millis(1230219000123)", _ts(2008, 12, 25, 15, 30, 0, 123000)),
        ("timestamp_micros(1230219000123123)", _ts(2008, 12, 25, 15, 30, 0, 123123)),
        (
            "months_between(TIMESTAMP '1997-02-28 10:30:00', TIMESTAMP '1996-10-30 00:00:00')",
            3.94959677,
        ),
        (
            "months_between(TIMESTAMP '1997-02-28 10:30:00', TIMESTAMP '1996-10-30 00:00:00', false)",
            3.9495967741935485,
        ),
        (
            "months_between(TIMESTAMP '2024-02-29 13:45:30', TIMESTAMP '2024-01-15 00:00:00')",
            1.47010529,
        ),
        ("months_between(DATE '2024-03-31', DATE '2024-02-29')", 1.0),  # both month ends
        ("months_between(DATE '2024-01-15', DATE '2024-03-15')", -2.0),
        # a second of 60 is the next minute only without a fraction
        ("make_timestamp(2021, 7, 11, 6, 30, 60.007)", None),
        ("make_timestamp(2021, 7, 11, 6, 30, 60)", datetime.datetime(2021, 7, 11, 6, 31)),
        # the fraction of a microsecond is cut off, toward zero
        ("timestamp_seconds(0.1234567D)", _ts(1970, 1, 1, 0, 0, 0, 123456)),
        ("timestamp_seconds(-1.9999999D)", _ts(1969, 12, 31, 23, 59, 58, 1)),
        ("timestamp_seconds(CAST('NaN' AS DOUBLE))", None),
        # to_timestamp_ntz reads text as to_timestamp does, without a zone
        (
            "to_timestamp_ntz('2011-05-06 07:08:09.1234567')",
            datetime.datetime(2011, 5, 6, 7, 8, 9, 123456),
        ),
        ("to_timestamp_ntz('abc')", None),
        ("to_timestamp_ntz('abc', 'yyyy')", None),
        ("to_timestamp_ntz('2011', 'yyyy')", datetime.datetime(2011, 1, 1)),
        ("to_timestamp_ntz(DATE '2020-01-02')", datetime.datetime(2020, 1, 2)),
        ("typeof(to_timestamp_ntz('2011', 'yyyy'))", "timestamp_ntz"),
        ("typeof(to_timestamp_ltz('2011'))", "timestamp"),
        # text to extract from is read as a timestamp
        ("extract(second FROM '2011-05-06 07:08:09.1234567')", decimal.Decimal("9.123456")),
        ("extract(hour FROM '2011-05-06 07:08:09.1234567')", 7),
        ("date_part('month', '2011-05-06 07:08:09')", 5),
        ("extract(year FROM 'abc')", None),
        # a day-time interval's days and hours from its whole microseconds
        ("extract(day FROM INTERVAL 30 DAY 40 HOUR 50 MINUTE 6.789 SECOND)", 31),
        ("extract(hour FROM INTERVAL 30 DAY 40 HOUR 50 MINUTE 6.789 SECOND)", 16),
        ("extract(day FROM INTERVAL -30 DAY -40 HOUR)", -31),
        ("date_part('hours', INTERVAL 30 DAY 40 HOUR)", 16),
        # INTERVAL + DATE is a DATE too
        ("INTERVAL '-2' DAY + DATE '2011-11-11'", datetime.date(2011, 11, 9)),
        ("- INTERVAL '2-2' YEAR TO MONTH + DATE '2012-01-01'", datetime.date(2009, 11, 1)),
        ("INTERVAL 2 HOUR + DATE '2011-11-11'", datetime.datetime(2011, 11, 11, 2)),
        # timestampdiff / datediff(unit, ...): whole units, as Java's ChronoUnit.between
        (
            "datediff(MICROSECOND, TIMESTAMP'2022-02-25 01:02:03.123',"
            " TIMESTAMP'2022-02-25 01:02:03.124001')",
            1001,
        ),
        ("date_diff(MINUTE, DATE'2022-02-25', TIMESTAMP'2022-02-24 22:20:00')", -100),
        (
            "timestampdiff(HOUR, TIMESTAMP'2022-02-25 01:59:00', TIMESTAMP'2022-02-25 02:01:00')",
            0,
        ),
        ("timestampdiff(MONTH, DATE'2022-01-31', DATE'2022-02-28')", 0),
        (
            "timestampdiff(MONTH, TIMESTAMP'2022-01-28 10:00:00', TIMESTAMP'2022-02-28 09:00:00')",
            0,
        ),
        ("timestampdiff(MONTH, DATE'2022-03-31', DATE'2022-02-28')", -1),
        ("timestampdiff(QUARTER, DATE'2022-01-01', DATE'2022-07-01')", 2),
        ("datediff(YEAR, DATE'2022-02-25', DATE'2023-02-24')", 0),
        ("datediff('2022-03-01', '2022-02-01')", 28),
        # convert_timezone: the wall clock in the source zone (the session's, UTC) read in
        # the target's
        (
            "convert_timezone('Europe/Brussels', TIMESTAMP_NTZ'2022-03-23 00:00:00')",
            datetime.datetime(2022, 3, 23, 1),
        ),
        (
            "convert_timezone('Europe/Brussels', 'America/Los_Angeles',"
            " TIMESTAMP_NTZ'2022-03-23 00:00:00')",
            datetime.datetime(2022, 3, 22, 16),
        ),
        # a number is seconds since the epoch
        ("to_timestamp(1)", _ts(1970, 1, 1, 0, 0, 1)),
        ("typeof(to_timestamp(1))", "timestamp"),
    ],
)
def test_spark_answer(duck_answer, expr, spark_answer):
    assert duck_answer(f"SELECT {expr}") == [(spark_answer,)]


@pytest.mark.parametrize(
    "expr, python_type",
    [
        ("date_add(DATE '2024-01-01', 1)", datetime.date),
        ("add_months(DATE '2024-01-01', 1)", datetime.date),
        ("trunc(DATE '2024-05-17', 'MM')", datetime.date),
        ("DATE '2024-01-01' + INTERVAL 1 DAY", datetime.date),
        ("date_from_unix_date(1)", datetime.date),
        ("to_timestamp('2016-12-31')", datetime.datetime),
        ("timestamp_millis(1)", datetime.datetime),
    ],
)
def test_results_have_sparks_types(duck_answer, expr, python_type):
    # Spark's DATE results are DATEs (DuckDB's date + interval is a TIMESTAMP); Spark's
    # TIMESTAMP is DuckDB's TIMESTAMPTZ, an aware datetime
    (value,) = duck_answer(f"SELECT {expr}")[0]
    assert type(value) is python_type
    if python_type is datetime.datetime:
        assert value.utcoffset() == datetime.timedelta(0)


@pytest.mark.parametrize(
    "zone_function, wall_clock",
    [
        ("from_utc_timestamp", _ts(2016, 8, 31, 9)),
        ("to_utc_timestamp", _ts(2016, 8, 30, 15)),
    ],
)
def test_zone_shifts_of_a_timestamp_column(duck_answer, zone_function, wall_clock):
    tables = {"t": ({"ts": "TIMESTAMP"}, [(_ts(2016, 8, 31),)])}
    assert duck_answer(f"SELECT {zone_function}(ts, 'Asia/Seoul') FROM t", tables) == [
        (wall_clock,)
    ]


def test_a_timestamp_column_plus_an_interval_stays_a_timestamp(duck_answer):
    # only a DATE operand (its type from the binder) is cast back to DATE
    tables = {
        "t": (
            {"d": "DATE", "ts": "TIMESTAMP"},
            [(datetime.date(2024, 1, 31), _ts(2024, 1, 31, 12))],
        )
    }
    rows = duck_answer("SELECT d + INTERVAL 1 MONTH, ts + INTERVAL 1 MONTH FROM t", tables)
    assert rows == [(datetime.date(2024, 2, 29), _ts(2024, 2, 29, 12))]


def test_make_interval_of_computed_arguments(duck_answer):
    """Issue 23: the arguments were pasted into an interval string, which failed (DataError)
    for anything but literals; Spark answers, and NULL when any argument is NULL."""
    rows = duck_answer(
        "SELECT CAST(TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, n, 1, 1, n, 3, 4.5)"
        " AS STRING), make_interval(0, 0, 0, 0, n) IS NULL, make_interval(1, CAST(NULL AS INT))"
        " IS NULL FROM VALUES (2), (NULL) AS t(n) ORDER BY n NULLS LAST"
    )
    assert rows == [("2024-03-09 02:03:04.5", False, True), (None, True, True)]


_YEARS_100 = (
    {
        "y": "INT",
        "mo": "INT",
        "w": "INT",
        "d": "INT",
        "h": "INT",
        "mi": "INT",
        "s": "DECIMAL(18,6)",
    },
    [(100, 11, 1, 1, 12, 30, decimal.Decimal("1.001001"))],
)


@pytest.mark.parametrize(
    "args, spark_answer",
    [
        # Spark's documented answers (DESCRIBE FUNCTION EXTENDED make_interval), arguments as columns
        (
            "y, mo, w, d, h, mi, s",
            "100 years 11 months 8 days 12 hours 30 minutes 1.001001 seconds",
        ),
        ("y, NULL, w", None),
        ("0, 1, 0, 1, 0, 0, 100.000001 + mi - 30", "1 months 1 days 1 minutes 40.000001 seconds"),
    ],
)
def test_make_interval_of_columns(duck_answer, args, spark_answer):
    # sqlglot pasted the arguments into an INTERVAL '...' string, which failed for columns
    tables = {"t": _YEARS_100}
    (value,) = duck_answer(f"SELECT make_interval({args}) FROM t", tables)[0]
    if spark_answer is None:
        assert value is None
        return
    literal = spark_answer.replace("years", "year").replace("months", "month")
    # DuckDB's reading of the answer: Spark refuses a literal mixing months and days
    (expected,) = duckdb.connect().execute(f"SELECT INTERVAL '{literal}'").fetchone()
    assert value == expected


def test_make_interval_of_a_column_moves_a_timestamp(duck_answer):
    rows = duck_answer(
        "SELECT TIMESTAMP '2024-03-01 00:00:00'"
        " + make_interval(0, 0, 0, 0, CAST(id AS INT)) FROM range(2)"
    )
    assert rows == [(_ts(2024, 3, 1),), (_ts(2024, 3, 1, 1),)]


_NANO_ROWS = [  # (id, ts TIMESTAMP_NS, tz TIMESTAMPTZ_NS), one nanosecond around midnight
    (1, "2023-12-31 23:59:59.999999999", "2023-12-31 23:59:59.999999999+00"),
    (2, "2024-01-01 00:00:00", "2024-01-01 00:00:00+00"),
    (3, "2024-01-01 00:00:00.000000001", "2024-01-01 00:00:00.000000001+00"),
]


def _nano_ids(condition: str) -> list[int]:
    """The ids a condition keeps over a table of nanosecond timestamps, typed for the binder
    as the engine types a scanned table's columns (``query_type_name``)."""
    from icesql.spec.schema import Schema
    from icesql.spec.types import IntegerType, NestedField, TimestampNanoType, TimestamptzNanoType
    from icesql.sql.bound_query import TableSource, bind_query, query_type_name
    from icesql.sql.dialect import parse_one
    from icesql.sql.translate import to_duckdb_sql

    schema = Schema(
        (
            NestedField(1, "id", IntegerType()),
            NestedField(2, "ts", TimestampNanoType()),
            NestedField(3, "tz", TimestamptzNanoType()),
        )
    )
    statement = parse_one(f"SELECT id FROM t WHERE {condition} ORDER BY id")
    bind_query(
        statement,
        {"t": TableSource(schema, {f.name: query_type_name(f.type) for f in schema.fields})},
    )
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute("CREATE TABLE t (id INT, ts TIMESTAMP_NS, tz TIMESTAMPTZ_NS)")
        con.executemany("INSERT INTO t VALUES (?, ?::TIMESTAMP_NS, ?::TIMESTAMPTZ_NS)", _NANO_ROWS)
        return [row[0] for row in con.execute(to_duckdb_sql(statement, [])[0]).fetchall()]
    finally:
        con.close()


@pytest.mark.parametrize(
    "condition, ids",
    [
        # DuckDB compares neither TIMESTAMP_NS with TIMESTAMPTZ (Spark's TIMESTAMP literal) nor
        # with TIMESTAMPTZ_NS by itself; every nanosecond counts
        ("ts > TIMESTAMP '2024-01-01 00:00:00'", [3]),
        ("ts >= TIMESTAMP '2024-01-01 00:00:00'", [2, 3]),
        ("TIMESTAMP '2024-01-01 00:00:00' > ts", [1]),
        ("ts <= TIMESTAMP '2024-01-01 00:00:00'", [1, 2]),
        ("ts = TIMESTAMP '2024-01-01 00:00:00'", [2]),
        ("ts <=> TIMESTAMP '2024-01-01 00:00:00'", [2]),
        ("ts != TIMESTAMP '2024-01-01 00:00:00'", [1, 3]),
        (
            "ts BETWEEN TIMESTAMP '2023-12-31 23:59:59.999999' AND TIMESTAMP '2024-01-01 00:00:00'",
            [1, 2],
        ),
        ("ts NOT BETWEEN TIMESTAMP '2024-01-01 00:00:00' AND TIMESTAMP '2024-01-02 00:00:00'", [1]),
        ("ts IN (TIMESTAMP '2024-01-01 00:00:00')", [2]),
        ("ts > TIMESTAMP_NTZ '2024-01-01 00:00:00'", [3]),
        ("ts < DATE '2024-01-01'", [1]),
        ("ts > '2024-01-01 00:00:00.000000000'", [3]),
        ("ts < tz", []),
        ("ts = tz", [1, 2, 3]),
        ("tz > ts", []),
        ("tz BETWEEN ts AND TIMESTAMP '2024-01-01 00:00:00'", [1, 2]),
        ("tz > TIMESTAMP '2024-01-01 00:00:00'", [3]),
        ("tz = CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS)", [3]),
        ("ts = CAST('2024-01-01 01:00:00.000000001+01:00' AS TIMESTAMPTZ_NS)", [3]),
    ],
)
def test_nanosecond_timestamps_compare_with_every_timestamp(condition, ids):
    assert _nano_ids(condition) == ids


def test_timestamp_seconds_past_a_long_of_micros_raises(duck_answer):
    # Spark 3.5.8: timestamp_seconds(1230219000123123) is ArithmeticException: long overflow
    with pytest.raises(duckdb.Error):
        duck_answer("SELECT timestamp_seconds(1230219000123123)")


def test_days_of_an_interval_of_unknown_kind_past_a_day_are_refused(duck_answer):
    # a day-time interval (Spark: 31) or a calendar one (Spark: 30): the rows cannot say
    with pytest.raises(duckdb.Error, match="not supported"):
        duck_answer("SELECT extract(day FROM j) FROM (SELECT INTERVAL 30 DAY 40 HOUR AS j) v")
