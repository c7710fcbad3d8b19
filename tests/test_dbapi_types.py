"""PEP 249 type objects and type codes: the Spark SQL name of each result type DuckDB
returns (Spark's ``DataType.simpleString``, upper-cased), and type objects equal to exactly
the codes of their group."""

from __future__ import annotations

import datetime
import time

import duckdb
import pyarrow as pa
import pytest

from icesql.dbapi_types import (
    BINARY,
    DATETIME,
    NUMBER,
    ROWID,
    STRING,
    Binary,
    Date,
    DateFromTicks,
    Time,
    TimeFromTicks,
    Timestamp,
    TimestampFromTicks,
    type_code,
)

# DuckDB expression -> the name Spark gives the type (DuckDB's unsigned and HUGEINT types
# have no Spark counterpart: DuckDB's own name)
DUCKDB_RESULTS = {
    "1::TINYINT": "TINYINT",
    "1::SMALLINT": "SMALLINT",
    "1::INTEGER": "INT",
    "1::BIGINT": "BIGINT",
    "1::UTINYINT": "UTINYINT",
    "1::USMALLINT": "USMALLINT",
    "1::UINTEGER": "UINT",
    "1::UBIGINT": "UBIGINT",
    "1::HUGEINT": "DECIMAL(38,0)",
    "1.5::FLOAT": "FLOAT",
    "1.5::DOUBLE": "DOUBLE",
    "1.5::DECIMAL(9,2)": "DECIMAL(9,2)",
    "TRUE": "BOOLEAN",
    "'x'": "STRING",
    "uuid()": "STRING",
    "'a'::BLOB": "BINARY",
    "DATE '2024-01-02'": "DATE",
    "TIMESTAMP '2024-01-02 03:04:05'": "TIMESTAMP_NTZ",
    "TIMESTAMPTZ '2024-01-02 03:04:05+00'": "TIMESTAMP",
    "TIME '03:04:05'": "TIME",
    "INTERVAL 1 DAY": "INTERVAL",
    "[1, 2]": "ARRAY<INT>",
    "{'a': 1::SMALLINT, 'b': 'x'}": "STRUCT<a:SMALLINT,b:STRING>",
    "MAP(['k'], [1::BIGINT])": "MAP<STRING,BIGINT>",
    "[{'d': 1.5::DECIMAL(4,1)}]": "ARRAY<STRUCT<d:DECIMAL(4,1)>>",
}


def _duckdb_type(expression: str) -> pa.DataType:
    with duckdb.connect() as con:
        schema = con.sql(f"SELECT {expression} AS v").to_arrow_table().schema
    return schema.field("v").type


@pytest.mark.parametrize(("expression", "code"), DUCKDB_RESULTS.items())
def test_type_code_of_duckdb_results(expression: str, code: str) -> None:
    assert type_code(_duckdb_type(expression)) == code


@pytest.mark.parametrize(
    ("arrow_type", "code"),
    [
        (pa.float16(), "DOUBLE"),
        (pa.decimal256(50, 3), "DECIMAL(50,3)"),  # wider than Iceberg's 38 digits
        (pa.large_string(), "STRING"),
        (pa.large_binary(), "BINARY"),
        (pa.binary(16), "BINARY"),
        (pa.timestamp("ns"), "TIMESTAMP_NTZ"),
        (pa.large_list(pa.int64()), "ARRAY<BIGINT>"),
        (pa.list_(pa.int8(), 2), "ARRAY<TINYINT>"),
        (pa.duration("us"), "INTERVAL"),
        (pa.null(), "VOID"),
    ],
    ids=str,
)
def test_type_code_of_other_arrow_types(arrow_type: pa.DataType, code: str) -> None:
    assert type_code(arrow_type) == code


GROUPS = {
    STRING: ["STRING"],
    BINARY: ["BINARY"],
    NUMBER: [
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "UTINYINT",
        "USMALLINT",
        "UINT",
        "UBIGINT",
        "HUGEINT",
        "FLOAT",
        "DOUBLE",
        "DECIMAL(38,0)",
        "DECIMAL(9,2)",
        "BOOLEAN",
    ],
    DATETIME: ["DATE", "TIMESTAMP", "TIMESTAMP_NTZ", "TIME"],
    ROWID: [],
}
OTHER_CODES = ["INTERVAL", "VOID", "ARRAY<INT>", "STRUCT<a:INT>", "MAP<STRING,INT>"]


@pytest.mark.parametrize("type_object", list(GROUPS), ids=repr)
def test_type_objects_equal_exactly_the_codes_of_their_group(type_object) -> None:
    codes = [c for group in GROUPS.values() for c in group] + OTHER_CODES
    assert [c for c in codes if type_object == c] == GROUPS[type_object]
    assert [c for c in codes if c.lower() == type_object] == GROUPS[type_object]
    assert all(type_object != c for c in OTHER_CODES)


def test_type_objects_are_hashable_named_and_never_equal_non_strings() -> None:
    assert len({STRING, BINARY, NUMBER, DATETIME, ROWID}) == 5
    assert repr(NUMBER) == "icesql.NUMBER"
    assert NUMBER != 1 and STRING != None  # noqa: E711


def test_constructors() -> None:
    assert Date(2024, 1, 2) == datetime.date(2024, 1, 2)
    assert Time(3, 4, 5) == datetime.time(3, 4, 5)
    assert Timestamp(2024, 1, 2, 3, 4, 5) == datetime.datetime(2024, 1, 2, 3, 4, 5)
    assert Binary(bytearray(b"\x00\x01")) == b"\x00\x01" and type(Binary(b"")) is bytes


@pytest.mark.parametrize("ticks", [0.0, 1_704_164_645.25, -86_400.0])
def test_from_ticks_are_local_time_as_pep_249_defines_them(ticks: float) -> None:
    # PEP 249: DateFromTicks(t) is Date(*time.localtime(t)[:3]), and so on
    local = time.localtime(ticks)
    assert DateFromTicks(ticks) == Date(*local[:3])
    assert TimeFromTicks(ticks).replace(microsecond=0) == Time(*local[3:6])
    assert TimestampFromTicks(ticks).replace(microsecond=0) == Timestamp(*local[:6])
