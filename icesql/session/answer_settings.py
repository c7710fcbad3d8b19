"""The Spark settings that change a query's answer, each with the value icesql answers for.

icesql gives Spark 3.5's answers under Spark's defaults (in UTC). A ``spark.sql.*`` setting
that makes Spark answer differently (ANSI mode, another time zone, a ``legacy`` behaviour,
...) cannot be honoured, so it must not be ignored either: setting it to a value icesql does
not implement is refused with ``NotSupportedError`` naming the key and the value, whether by
``SET``, ``connect(spark_conf=...)`` or the shell's ``--conf`` / ``--spark-conf``. Setting it
to the implemented value is accepted. Settings that only tune how Spark runs
(``spark.sql.shuffle.partitions``, adaptive execution) are not here and stay accepted.

The keys, defaults and versions are Spark 3.5's ``SQLConf`` (checked against Spark 3.5.8's
own config entries). Each row's ``implemented`` values are what icesql's answers match: the
default, except ``spark.sql.legacy.ctePrecedencePolicy``, where icesql resolves a nested CTE
name to the inner definition (``CORRECTED``) where Spark's default raises, and
``spark.sql.legacy.nullInEmptyListBehavior``, ``spark.sql.decimalOperations.allowPrecisionLoss``
and ``spark.sql.groupByAliases``, whose two values icesql both answers for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from icesql.errors import NotSupportedError, ProgrammingError

__all__ = ["ALLOW_PRECISION_LOSS", "ANSWER_SETTINGS", "AnswerSetting", "TIME_ZONE"]

TIME_ZONE = "spark.sql.session.timeZone"
ALLOW_PRECISION_LOSS = "spark.sql.decimalOperations.allowPrecisionLoss"
_BOOLEAN = ("true", "false")


@dataclass(frozen=True)
class AnswerSetting:
    """A setting that changes answers: ``implemented`` (lower case) are the values icesql
    answers as Spark does, ``valid`` (lower case, or None for any text) the values Spark
    takes at all."""

    key: str
    default: str
    since: str
    meaning: str
    implemented: tuple[str, ...]
    valid: tuple[str, ...] | None = _BOOLEAN
    why: str = ""

    def check(self, value: str) -> None:
        """Raise unless icesql answers as Spark does with ``value``."""
        text = value.strip()
        if self.valid is not None and text.lower() not in self.valid:
            raise ProgrammingError(
                f"{self.key} should be one of {', '.join(self.valid)}, but was {text}"
            )
        if text.lower() not in self.implemented:
            values = " or ".join(
                v if self.valid == _BOOLEAN else v.upper() for v in self.implemented
            )
            why = self.why or f"icesql answers as Spark does with {self.key} = {values}"
            raise NotSupportedError(f"{self.key} = {text} is not supported: {why}")


def _flag(key: str, default: str, since: str, meaning: str) -> AnswerSetting:
    """A boolean setting of which icesql implements Spark's default."""
    return AnswerSetting(key, default, since, meaning, (default,))


def _choice(
    key: str, default: str, since: str, meaning: str, valid: Sequence[str]
) -> AnswerSetting:
    """An enumerated setting of which icesql implements Spark's default."""
    return AnswerSetting(
        key, default, since, meaning, (default.lower(),), tuple(v.lower() for v in valid)
    )


_SQL = "spark.sql."
_LEGACY = "spark.sql.legacy."

ANSWER_SETTINGS: tuple[AnswerSetting, ...] = (
    AnswerSetting(
        TIME_ZONE,
        "UTC",
        "2.2.0",
        "The session time zone; icesql always runs in UTC.",
        ("utc", "z", "gmt", "+00:00", "etc/utc"),
        None,
        "icesql sessions always use the UTC time zone",
    ),
    AnswerSetting(
        _SQL + "caseSensitive",
        "false",
        "1.4.0",
        "Whether names are resolved case-sensitively; icesql resolves them case-insensitively.",
        ("false",),
        why="icesql resolves names case-insensitively",
    ),
    AnswerSetting(
        _SQL + "storeAssignmentPolicy",
        "ANSI",
        "3.0.0",
        "How values are converted when stored in a column; icesql follows the ANSI policy.",
        ("ansi",),
        ("ansi", "legacy", "strict"),
        "icesql stores values by the ANSI store assignment rules",
    ),
    _flag(
        _SQL + "ansi.enabled",
        "false",
        "3.0.0",
        "ANSI mode (errors instead of NULL for a division by zero, a bad cast, an overflow);"
        " icesql answers as Spark without it.",
    ),
    _flag(
        _SQL + "ansi.doubleQuotedIdentifiers",
        "false",
        "3.4.0",
        'With ANSI mode: "..." is an identifier, not a string.',
    ),
    _flag(
        _SQL + "ansi.enforceReservedKeywords",
        "false",
        "3.3.0",
        "With ANSI mode: reserved keywords cannot name tables, columns or aliases.",
    ),
    _flag(
        _SQL + "ansi.relationPrecedence",
        "false",
        "3.4.0",
        "With ANSI mode: JOIN binds tighter than a comma between relations.",
    ),
    AnswerSetting(
        ALLOW_PRECISION_LOSS,
        "true",
        "2.3.1",
        "Decimal arithmetic rounds the fraction to fit 38 digits (false: NULL instead).",
        _BOOLEAN,
    ),
    _flag(
        _SQL + "parser.escapedStringLiterals",
        "false",
        "2.2.1",
        "String literals keep their backslash escapes as written (Spark 1.x parsing).",
    ),
    _flag(
        _SQL + "parser.quotedRegexColumnNames",
        "false",
        "2.3.0",
        "A backquoted name in a SELECT list is a regular expression over column names.",
    ),
    _choice(
        _SQL + "timestampType",
        "TIMESTAMP_LTZ",
        "3.4.0",
        "What the TIMESTAMP type means (TIMESTAMP_NTZ: without time zone).",
        ("TIMESTAMP_LTZ", "TIMESTAMP_NTZ"),
    ),
    _choice(
        _SQL + "mapKeyDedupPolicy",
        "EXCEPTION",
        "3.0.0",
        "A duplicate map key is an error (LAST_WIN: the last one wins).",
        ("EXCEPTION", "LAST_WIN"),
    ),
    _flag(
        _SQL + "groupByOrdinal",
        "true",
        "2.0.0",
        "A number in GROUP BY is the position of a SELECT column (false: a constant).",
    ),
    _flag(
        _SQL + "orderByOrdinal",
        "true",
        "2.0.0",
        "A number in ORDER BY is the position of a SELECT column (false: a constant).",
    ),
    AnswerSetting(
        _SQL + "groupByAliases",
        "true",
        "2.2.0",
        "GROUP BY may name a SELECT alias (false: an error).",
        _BOOLEAN,
    ),
    _flag(
        _SQL + "crossJoin.enabled",
        "true",
        "2.0.0",
        "A cartesian product without CROSS JOIN is allowed (false: an error).",
    ),
    _flag(
        _SQL + "function.concatBinaryAsString",
        "false",
        "2.3.0",
        "concat of binary values is binary (true: a string).",
    ),
    _flag(
        _SQL + "function.eltOutputAsString",
        "false",
        "2.3.0",
        "elt of binary values is binary (true: a string).",
    ),
    _flag(
        _SQL + "jsonGenerator.ignoreNullFields",
        "true",
        "3.0.0",
        "to_json leaves out the fields that are NULL (false: writes them as null).",
    ),
    _flag(
        _SQL + "optimizer.decorrelateSubqueryLegacyIncorrectCountHandling.enabled",
        "false",
        "3.5.0",
        "The pre-3.5 (wrong) COUNT answers of correlated subqueries (SPARK-43098).",
    ),
    _choice(
        _LEGACY + "timeParserPolicy",
        "EXCEPTION",
        "3.0.0",
        "How datetime strings are parsed and formatted (LEGACY: SimpleDateFormat, CORRECTED:"
        " java.time without the errors where the two differ).",
        ("EXCEPTION", "CORRECTED", "LEGACY"),
    ),
    AnswerSetting(
        _LEGACY + "ctePrecedencePolicy",
        "EXCEPTION",
        "3.0.0",
        "A name defined by both an outer and a nested CTE: an error (CORRECTED: the inner"
        " one, as icesql resolves it; LEGACY: the outer one).",
        ("exception", "corrected"),
        ("exception", "corrected", "legacy"),
    ),
    _flag(
        _LEGACY + "setopsPrecedence.enabled",
        "false",
        "2.4.0",
        "Set operations without parentheses run left to right (false: INTERSECT first).",
    ),
    _flag(
        _LEGACY + "parser.havingWithoutGroupByAsWhere",
        "false",
        "2.4.1",
        "HAVING without GROUP BY is a WHERE (false: a filter on one global group).",
    ),
    _flag(
        _LEGACY + "sizeOfNull",
        "true",
        "2.4.0",
        "size(NULL) is -1 (false: NULL).",
    ),
    _flag(
        _LEGACY + "statisticalAggregate",
        "false",
        "3.1.0",
        "stddev, variance, ... of too few rows are NaN (false: NULL).",
    ),
    _flag(
        _LEGACY + "integerGroupingId",
        "false",
        "3.1.0",
        "grouping_id() is an INT (false: a BIGINT).",
    ),
    _flag(
        _LEGACY + "groupingIdWithAppendedUserGroupBy",
        "false",
        "3.2.3",
        "grouping_id() counts the GROUP BY columns after the grouping sets (Spark 3.2).",
    ),
    _flag(
        _LEGACY + "allowNegativeScaleOfDecimal",
        "false",
        "3.0.0",
        "Decimals may have a negative scale (1E10BD is DECIMAL(2,-9)).",
    ),
    _flag(
        _LEGACY + "literal.pickMinimumPrecision",
        "true",
        "2.3.3",
        "An integer literal in decimal arithmetic takes the precision it needs (false: its"
        " type's).",
    ),
    _flag(
        _LEGACY + "castComplexTypesToString.enabled",
        "false",
        "3.1.0",
        "Maps and structs cast to text in [] and without their NULLs (false: {} and null).",
    ),
    _flag(
        _LEGACY + "followThreeValuedLogicInArrayExists",
        "true",
        "3.0.0",
        "exists() over an array follows three-valued logic (NULL when no match and a NULL).",
    ),
    _flag(
        _LEGACY + "createEmptyCollectionUsingStringType",
        "false",
        "3.0.0",
        "array() and map() without arguments hold strings (false: NULL type).",
    ),
    _flag(
        _LEGACY + "typeCoercion.datetimeToString.enabled",
        "false",
        "3.0.0",
        "A date or timestamp compared with a string is compared as text.",
    ),
    _flag(
        _LEGACY + "exponentLiteralAsDecimal.enabled",
        "false",
        "3.0.0",
        "A literal with an exponent (1E-30) is a decimal (false: a double).",
    ),
    _flag(
        _LEGACY + "fromDayTimeString.enabled",
        "false",
        "3.0.0",
        "Day-time interval strings ignore their FROM bound (false: must match the pattern).",
    ),
    _flag(
        _LEGACY + "interval.enabled",
        "false",
        "3.2.0",
        "Intervals are the mixed CalendarIntervalType (false: ANSI interval types).",
    ),
    AnswerSetting(
        _LEGACY + "nullInEmptyListBehavior",
        "true",
        "3.5.0",
        "NULL IN (an empty list) may be NULL (false: always false).",
        ("true", "false"),
    ),
    _flag(
        _LEGACY + "negativeIndexInArrayInsert",
        "false",
        "3.4.2",
        "array_insert's negative index counts from 0 (-1 inserts before the last element).",
    ),
    _flag(
        _LEGACY + "percentileDiscCalculation",
        "false",
        "3.3.4",
        "percentile_disc's old (wrong) calculation.",
    ),
    _flag(
        _LEGACY + "lpadRpadAlwaysReturnString",
        "false",
        "3.3.0",
        "lpad and rpad of binary values return strings (false: binary).",
    ),
    _flag(
        _LEGACY + "allowNullComparisonResultInArraySort",
        "false",
        "3.2.2",
        "array_sort takes a NULL from its comparator as equal (false: an error).",
    ),
    _flag(
        _LEGACY + "histogramNumericPropagateInputType",
        "true",
        "3.3.0",
        "histogram_numeric's x has the input's type (false: always a double).",
    ),
    _flag(
        _LEGACY + "json.allowEmptyString.enabled",
        "false",
        "3.0.0",
        "JSON parsing takes an empty string as NULL for numbers and the like.",
    ),
    _flag(
        _LEGACY + "allowHashOnMapType",
        "false",
        "3.0.0",
        "hash functions take maps (false: an error).",
    ),
    _flag(
        _LEGACY + "charVarcharAsString",
        "false",
        "3.1.0",
        "CHAR and VARCHAR are STRING: no length check, no padding.",
    ),
    _flag(
        _LEGACY + "keepPartitionSpecAsStringLiteral",
        "false",
        "3.4.0",
        "PARTITION (col = 05) of a string column is the text '05' (false: the number 5).",
    ),
    _flag(
        _LEGACY + "parseNullPartitionSpecAsStringLiteral",
        "false",
        "3.0.2",
        "PARTITION (col = null) of a string column is the text 'null' (false: NULL).",
    ),
    _flag(
        _LEGACY + "allowStarWithSingleTableIdentifierInCount",
        "false",
        "3.2",
        "count(t.*) is allowed (false: an error).",
    ),
    _flag(
        _LEGACY + "allowParameterlessCount",
        "false",
        "3.1.1",
        "count() without arguments is allowed (false: an error).",
    ),
    _flag(
        _LEGACY + "allowZeroIndexInFormatString",
        "false",
        "3.3",
        "format_string and printf take %0$ as the first argument (false: an error).",
    ),
)
