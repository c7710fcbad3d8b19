"""Inclusive and strict projections through every transform, as tables.

Cases follow the spec's projection rules and Java Iceberg's projection tests
(TestTruncatesProjection, TestDatesProjection, TestTimestampsProjection,
TestBucketingProjection, TestStartsWith), adapted where icesql's SQL semantics differ.
Each row: transform, source type, predicate, expected inclusive, expected strict.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from icesql.expressions.projections import inclusive_projection, strict_projection
from icesql.expressions.tree import (
    BooleanExpression,
    and_,
    equal,
    greater_than,
    greater_than_or_equal,
    in_,
    is_nan,
    is_null,
    less_than,
    less_than_or_equal,
    not_,
    not_equal,
    not_in,
    not_null,
    not_starts_with,
    or_,
    starts_with,
)
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import (
    Bucket,
    Day,
    Hour,
    Identity,
    Month,
    Transform,
    Truncate,
    UnknownTransform,
    Void,
    Year,
)
from icesql.spec.types import (
    BinaryType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    IcebergType,
    IntegerType,
    LongType,
    StringType,
    TimestampNanoType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)
from icesql.spec.values import date_to_days


def project(transform: Transform, t: IcebergType, expr: BooleanExpression) -> tuple[str, str]:
    schema = Schema(
        (__import__("icesql.spec.types", fromlist=["NestedField"]).NestedField(1, "x", t),)
    )
    spec = PartitionSpec(0, (PartitionField(1, 1000, transform, "p"),))
    return (
        str(inclusive_projection(schema, spec)(expr)),
        str(strict_projection(schema, spec)(expr)),
    )


def days(text: str) -> int:
    return date_to_days(dt.date.fromisoformat(text))


def micros(text: str) -> int:
    d = dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)
    return int((d - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) / dt.timedelta(microseconds=1))


INT, LONG, DEC = IntegerType(), LongType(), DecimalType(9, 2)
D, TS, TSTZ, STR = DateType(), TimestampType(), TimestamptzType(), StringType()

CASES = [
    # identity: the same predicate, both ways
    (Identity(), INT, less_than("x", 5), "p < 5", "p < 5"),
    (Identity(), INT, not_equal("x", 5), "p != 5", "p != 5"),
    (Identity(), STR, starts_with("x", "ab"), "p STARTS WITH 'ab'", "p STARTS WITH 'ab'"),
    (Identity(), DoubleType(), is_nan("x"), "p IS NAN", "p IS NAN"),
    (Identity(), INT, in_("x", [3, 1]), "p IN (1, 3)", "p IN (1, 3)"),
    (Identity(), INT, is_null("x"), "p IS NULL", "p IS NULL"),
    # truncate[10] on ints, lower bound 100 (Java testIntegerInclusive/StrictLowerBound)
    (Truncate(10), INT, less_than("x", 100), "p <= 90", "p < 100"),
    (Truncate(10), INT, less_than_or_equal("x", 100), "p <= 100", "p < 100"),
    (Truncate(10), INT, greater_than("x", 100), "p >= 100", "p > 100"),
    (Truncate(10), INT, greater_than_or_equal("x", 100), "p >= 100", "p > 90"),
    (Truncate(10), INT, equal("x", 100), "p = 100", "false"),
    (Truncate(10), INT, not_equal("x", 100), "true", "p != 100"),
    # upper bound 99
    (Truncate(10), LONG, less_than("x", 99), "p <= 90", "p < 90"),
    (Truncate(10), LONG, less_than_or_equal("x", 99), "p <= 90", "p < 100"),
    (Truncate(10), LONG, greater_than("x", 99), "p >= 100", "p > 90"),
    (Truncate(10), LONG, greater_than_or_equal("x", 99), "p >= 90", "p > 90"),
    (Truncate(10), LONG, equal("x", 99), "p = 90", "false"),
    (Truncate(10), LONG, not_equal("x", 99), "true", "p != 90"),
    # negative values floor away from zero
    (Truncate(10), INT, less_than("x", -1), "p <= -10", "p < -10"),
    (Truncate(10), INT, equal("x", -1), "p = -10", "false"),
    (Truncate(10), INT, in_("x", [99, 100, 101]), "p IN (100, 90)", "false"),
    (Truncate(10), INT, not_in("x", [99, 100, 101]), "true", "p NOT IN (100, 90)"),
    # decimals truncate the unscaled value (W=10 at scale 2 is 0.10)
    (Truncate(10), DEC, less_than("x", Decimal("100.00")), "p <= 99.90", "p < 100.00"),
    (Truncate(10), DEC, less_than_or_equal("x", Decimal("100.00")), "p <= 100.00", "p < 100.00"),
    (Truncate(10), DEC, greater_than("x", Decimal("100.00")), "p >= 100.00", "p > 100.00"),
    (Truncate(10), DEC, greater_than_or_equal("x", Decimal("100.00")), "p >= 100.00", "p > 99.90"),
    (Truncate(10), DEC, equal("x", Decimal("99.99")), "p = 99.90", "false"),
    (Truncate(10), DEC, not_equal("x", Decimal("99.99")), "true", "p != 99.90"),
    (Truncate(10), DEC, less_than("x", Decimal("10.5")), "p <= 10.40", "p < 10.50"),
    # truncate[5] on strings (prefixes); starts-with by prefix length
    (Truncate(5), STR, less_than("x", "abcdefg"), "p <= 'abcde'", "p < 'abcde'"),
    (Truncate(5), STR, less_than_or_equal("x", "abcdefg"), "p <= 'abcde'", "p < 'abcde'"),
    (Truncate(5), STR, greater_than("x", "abcdefg"), "p >= 'abcde'", "p > 'abcde'"),
    (Truncate(5), STR, greater_than_or_equal("x", "abcdefg"), "p >= 'abcde'", "p > 'abcde'"),
    (Truncate(5), STR, equal("x", "abcdefg"), "p = 'abcde'", "false"),
    (Truncate(5), STR, not_equal("x", "abcdefg"), "true", "p != 'abcde'"),
    (Truncate(5), STR, equal("x", "abc"), "p = 'abc'", "false"),
    (Truncate(5), STR, in_("x", ["abcdefg", "abcdexyz"]), "p = 'abcde'", "false"),
    (Truncate(5), STR, not_in("x", ["abcdefg", "abcdexyz"]), "true", "p != 'abcde'"),
    (Truncate(5), STR, starts_with("x", "ab"), "p STARTS WITH 'ab'", "p STARTS WITH 'ab'"),
    (Truncate(5), STR, starts_with("x", "abcde"), "p = 'abcde'", "p = 'abcde'"),
    (Truncate(5), STR, starts_with("x", "abcdefg"), "p STARTS WITH 'abcde'", "false"),
    (
        Truncate(5),
        STR,
        not_starts_with("x", "ab"),
        "p NOT STARTS WITH 'ab'",
        "p NOT STARTS WITH 'ab'",
    ),
    (Truncate(5), STR, not_starts_with("x", "abcde"), "p != 'abcde'", "p != 'abcde'"),
    (Truncate(5), STR, not_starts_with("x", "abcdefg"), "true", "p NOT STARTS WITH 'abcde'"),
    # strings are cut by code points, not bytes or UTF-16 units
    (Truncate(3), STR, starts_with("x", "日本語です"), "p STARTS WITH '日本語'", "false"),
    (Truncate(2), STR, equal("x", "😀😀😀"), "p = '😀😀'", "false"),
    # binary: prefixes of bytes
    (Truncate(2), BinaryType(), less_than("x", b"\x01\x02\x03"), "p <= X'0102'", "p < X'0102'"),
    # bucket: equality and IN only (inclusive), != and NOT IN only (strict); bucket values
    # from the spec's published hashes (Appendix B): (hash & INT_MAX) % 16
    (Bucket(16), INT, equal("x", 34), "p = 3", "false"),
    (Bucket(16), INT, not_equal("x", 34), "true", "p != 3"),
    (Bucket(16), INT, less_than("x", 34), "true", "false"),
    (Bucket(16), INT, in_("x", [34, 35]), "p IN (3, 5)", "false"),
    (Bucket(16), INT, not_in("x", [34, 35]), "true", "p NOT IN (3, 5)"),
    (Bucket(16), STR, equal("x", "iceberg"), "p = 9", "false"),
    (Bucket(16), LONG, equal("x", 34), "p = 3", "false"),
    (Bucket(16), DEC, equal("x", Decimal("14.20")), "p = 3", "false"),
    (Bucket(16), D, equal("x", "2017-11-16"), "p = 10", "false"),
    (Bucket(16), TimeType(), equal("x", 81068000000), "p = 3", "false"),
    (Bucket(16), TS, equal("x", "2017-11-16 22:31:08"), "p = 7", "false"),
    (Bucket(16), TSTZ, equal("x", "2017-11-16 14:31:08-08:00"), "p = 7", "false"),
    (
        Bucket(16),
        TimestampNanoType(),
        equal("x", 1510871468000001001),
        "p = 6",
        "false",
    ),  # -1207196810
    (Bucket(16), UUIDType(), equal("x", "f79c3e09-677c-4bbd-a479-3f349cb785e7"), "p = 12", "false"),
    (Bucket(16), FixedType(4), equal("x", b"\x00\x01\x02\x03"), "p = 9", "false"),
    (Bucket(16), BinaryType(), equal("x", b"\x00\x01\x02\x03"), "p = 9", "false"),
    (Bucket(16), INT, is_null("x"), "p IS NULL", "p IS NULL"),
    (Bucket(16), INT, not_null("x"), "p IS NOT NULL", "p IS NOT NULL"),
    # dates: month of 2017-12-01 is 575, year 47
    (Month(), D, less_than("x", "2017-12-01"), "p <= 574", "p < 575"),
    (Month(), D, less_than_or_equal("x", "2017-12-01"), "p <= 575", "p < 575"),
    (Month(), D, greater_than("x", "2017-12-01"), "p >= 575", "p > 575"),
    (Month(), D, greater_than_or_equal("x", "2017-12-01"), "p >= 575", "p > 574"),
    (Month(), D, equal("x", "2017-12-01"), "p = 575", "false"),
    (Month(), D, not_equal("x", "2017-12-01"), "true", "p != 575"),
    (Month(), D, in_("x", ["2017-12-01", "2017-12-02"]), "p = 575", "false"),
    (Month(), D, not_in("x", ["2017-12-01", "2017-12-02"]), "true", "p != 575"),
    (Year(), D, less_than("x", "2018-01-01"), "p <= 47", "p < 48"),
    (Year(), D, greater_than_or_equal("x", "2017-12-31"), "p >= 47", "p > 47"),
    (
        Day(),
        D,
        less_than("x", "2017-12-01"),
        f"p <= {days('2017-11-30')}",
        f"p < {days('2017-12-01')}",
    ),
    (Day(), D, equal("x", "1969-12-31"), "p = -1", "false"),
    # negative ordinals: widened (inclusive) / narrowed (strict) for Iceberg <= 0.10 files
    (Month(), D, less_than_or_equal("x", "1969-12-31"), "p <= 0", "p < 0"),
    (Month(), D, equal("x", "1969-11-15"), "p IN (-1, -2)", "false"),
    (Month(), D, greater_than_or_equal("x", "1969-11-01"), "p >= -2", "p > -2"),
    (Month(), D, greater_than("x", "1969-10-31"), "p >= -2", "p > -2"),
    (Month(), D, not_equal("x", "1969-11-15"), "true", "p NOT IN (-1, -2)"),
    (Year(), D, in_("x", ["1969-05-01", "1971-01-01"]), "p IN (0, 1, -1)", "false"),
    # timestamps: hour/day of 2017-12-01 10:00 (day 17501, hour 420034)
    (Hour(), TS, less_than("x", "2017-12-01 10:00:00"), "p <= 420033", "p < 420034"),
    (Hour(), TS, less_than_or_equal("x", "2017-12-01 10:00:00"), "p <= 420034", "p < 420034"),
    (Hour(), TS, greater_than("x", "2017-12-01 10:00:00"), "p >= 420034", "p > 420034"),
    (Hour(), TS, greater_than_or_equal("x", "2017-12-01 10:00:00"), "p >= 420034", "p > 420033"),
    (Day(), TSTZ, equal("x", "2017-12-01 10:00:00+00:00"), "p = 17501", "false"),
    (Day(), TSTZ, less_than("x", "2017-12-02 00:00:00"), "p <= 17501", "p < 17502"),
    (
        Day(),
        TSTZ,
        greater_than_or_equal("x", "2017-12-01 23:59:59.999999"),
        "p >= 17501",
        "p > 17501",
    ),
    (Month(), TS, not_equal("x", "2017-12-01 10:00:00"), "true", "p != 575"),
    # one microsecond before 1970: day -1, hour -1; old writers put it in 0
    (Day(), TS, equal("x", "1969-12-31 23:59:59.999999"), "p IN (-1, 0)", "false"),
    (Hour(), TS, less_than("x", "1970-01-01 00:00:00"), "p <= 0", "p < 0"),
    (Day(), TS, greater_than_or_equal("x", "1969-12-31 00:00:00"), "p >= -1", "p > -1"),
    (Day(), TimestampNanoType(), less_than("x", 86_400_000_000_000), "p <= 0", "p < 1"),
    # void and unknown transforms cannot project anything
    (Void(), INT, equal("x", 5), "true", "false"),
    (UnknownTransform("zorder"), INT, equal("x", 5), "true", "false"),
]


@pytest.mark.parametrize(
    ("transform", "t", "expr", "inclusive", "strict"),
    CASES,
    ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES],
)
def test_projection_table(transform, t, expr, inclusive, strict) -> None:
    got_inclusive, got_strict = project(transform, t, expr)
    assert _canonical(got_inclusive) == _canonical(inclusive)
    assert _canonical(got_strict) == _canonical(strict)


def _canonical(text: str) -> str:
    """Sets print in arbitrary order: compare IN lists as sets."""
    if " IN (" in text:
        head, items = text.split(" IN (", 1)
        values = sorted(v.strip() for v in items.rstrip(")").split(","))
        return f"{head} IN ({', '.join(values)})"
    return text


def test_not_is_pushed_down_before_projecting() -> None:
    # NOT (x < 100) is x >= 100: projected as the rewritten predicate, not the negated projection
    assert project(Truncate(10), INT, not_(less_than("x", 100))) == ("p >= 100", "p > 90")
    expr = not_(and_(greater_than_or_equal("x", 100), less_than("x", 200)))
    assert project(Truncate(10), INT, expr) == ("(p <= 90 OR p >= 200)", "(p < 100 OR p > 190)")


def test_and_or_combine_and_several_fields_on_one_column() -> None:
    from icesql.spec.types import NestedField

    schema = Schema((NestedField(1, "ts", TS), NestedField(2, "id", INT)))
    spec = PartitionSpec(
        0,
        (
            PartitionField(1, 1000, Day(), "ts_day"),
            PartitionField(1, 1001, Hour(), "ts_hour"),
            PartitionField(2, 1002, Bucket(4), "id_bucket"),
        ),
    )
    expr = or_(equal("id", 7), greater_than_or_equal("ts", "2017-12-01 10:00:00"))
    assert str(inclusive_projection(schema, spec)(expr)) == (
        "(id_bucket = 3 OR (ts_day >= 17501 AND ts_hour >= 420034))"
    )
    # strict: either partition field on ts can guarantee the predicate
    assert str(strict_projection(schema, spec)(greater_than("ts", "2017-12-01 10:00:00"))) == (
        "(ts_day > 17501 OR ts_hour > 420034)"
    )
