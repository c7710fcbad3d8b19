"""Statement results: ``done``, ``rows`` and ``Result.close`` (``icesql.session.result``)."""

from __future__ import annotations

import datetime as dt

import duckdb
import pyarrow as pa
import pytest

from icesql.session.result import Result, done, rows


@pytest.mark.parametrize("rowcount", [-1, 0, 7])
def test_done_has_a_rowcount_and_no_rows(rowcount):
    result = done(rowcount)
    assert (result.reader, result.rowcount, result.scans) == (None, rowcount, [])


def test_done_defaults_to_no_rowcount():
    assert done().rowcount == -1  # PEP 249: -1 when not determined (DDL)


def test_rows_from_name_type_pairs_keeps_order_types_and_nulls():
    result = rows(
        [("name", pa.string()), ("n", pa.int64()), ("day", pa.date32())],
        [("a", 1, dt.date(2020, 1, 2)), (None, None, None), ("c", -3, dt.date(1969, 12, 31))],
    )
    table = result.reader.read_all()
    assert table.schema == pa.schema(
        [("name", pa.string()), ("n", pa.int64()), ("day", pa.date32())]
    )
    assert table.to_pylist() == [
        {"name": "a", "n": 1, "day": dt.date(2020, 1, 2)},
        {"name": None, "n": None, "day": None},
        {"name": "c", "n": -3, "day": dt.date(1969, 12, 31)},
    ]
    assert result.rowcount == -1


def test_rows_with_an_arrow_schema_and_no_data():
    schema = pa.schema([pa.field("k", pa.string()), pa.field("v", pa.bool_())])
    table = rows(schema, []).reader.read_all()
    assert table.schema == schema and table.num_rows == 0


def test_rows_refuses_a_value_of_the_wrong_type():
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError)):
        rows([("n", pa.int64())], [("not a number",)])


def test_close_closes_the_duckdb_cursor_once():
    con = duckdb.connect()
    cursor = con.cursor()
    result = Result(duck_cursor=cursor)
    result.close()
    assert result.duck_cursor is None
    with pytest.raises(duckdb.ConnectionException):
        cursor.execute("SELECT 1")
    result.close()  # a second close is harmless
    con.close()
