"""Results out as pandas, polars and Arrow: ``df()``, ``pl()``, ``arrow()`` and the Arrow
PyCapsule stream (``Cursor.__arrow_c_stream__``), checked with the consumers themselves."""

from __future__ import annotations

import datetime
import sys
from decimal import Decimal

import duckdb
import pyarrow as pa
import pytest

import icesql

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

QUERY = (
    "SELECT * FROM VALUES (1, CAST(NULL AS BIGINT), 'a', CAST(1.25 AS DECIMAL(9,2)),"
    " TIMESTAMP_NTZ '2024-01-02 03:04:05.123456', DATE '2024-01-02', CAST('NaN' AS DOUBLE)),"
    " (2, 7, NULL, NULL, NULL, NULL, NULL) AS t(i, n, s, d, ts, dt, f) ORDER BY i"
)


def test_df_keeps_every_value_and_type(con):
    df = con.execute(QUERY).df()
    assert list(df.columns) == ["i", "n", "s", "d", "ts", "dt", "f"]
    assert df["n"].dtype == pd.ArrowDtype(pa.int64())  # NULL does not turn it into floats
    assert df["n"].isna().tolist() == [True, False] and df["n"][1] == 7
    assert df["s"].dtype == pd.StringDtype("pyarrow")
    assert df["d"][0] == Decimal("1.25")
    assert df["ts"].dtype == "datetime64[us]"
    assert df["ts"][0] == pd.Timestamp("2024-01-02 03:04:05.123456")
    assert df["dt"][0] == datetime.date(2024, 1, 2)
    assert df["f"].isna().tolist() == [False, True]  # NaN is a value, NULL is missing
    assert pd.isna(df["ts"][1])


def test_fetchdf_and_df_read_the_remaining_rows(con):
    cur = con.execute("SELECT id FROM range(5) t(id) ORDER BY id")
    assert cur.fetchone() == (0,)
    assert cur.fetchdf()["id"].tolist() == [1, 2, 3, 4]
    assert len(cur.df()) == 0


def test_timestamptz_becomes_utc_datetimes(con):
    df = con.execute("SELECT TIMESTAMP '2024-01-02 03:04:05' AS ts").df()
    assert str(df["ts"].dtype) == "datetime64[us, UTC]"
    assert df["ts"][0] == pd.Timestamp("2024-01-02 03:04:05", tz="UTC")


def test_pl_and_arrow(con):
    frame = con.execute(QUERY).pl()
    assert isinstance(frame, pl.DataFrame)
    assert frame.schema["n"] == pl.Int64 and frame["n"].to_list() == [None, 7]
    assert frame["d"].to_list() == [Decimal("1.25"), None]
    table = con.execute(QUERY).arrow()
    assert isinstance(table, pa.Table) and table.num_rows == 2
    assert table.schema.field("d").type == pa.decimal128(9, 2)


def test_arrow_pycapsule_stream_reaches_pyarrow_polars_and_duckdb(con):
    reader = pa.RecordBatchReader.from_stream(con.execute(QUERY))
    assert reader.read_all().column("i").to_pylist() == [1, 2]
    assert pl.DataFrame(con.execute(QUERY))["s"].to_list() == ["a", None]
    cur = con.execute("SELECT id FROM range(1000) t(id)")  # noqa: F841 - DuckDB finds it by name
    assert duckdb.sql("SELECT sum(id) FROM cur").fetchall() == [(499500,)]


def test_pycapsule_stream_is_the_rest_of_the_rows(con):
    cur = con.execute("SELECT id FROM range(3) t(id) ORDER BY id")
    cur.fetchone()
    assert pa.table(cur).column("id").to_pylist() == [1, 2]


def test_missing_pandas_or_polars_names_the_extra(con, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(ImportError, match=r"pip install 'icesql\[pandas\]'"):
        con.execute("SELECT 1").df()
    with pytest.raises(ImportError, match=r"Cursor.fetchdf\(\) needs pandas"):
        con.execute("SELECT 1").fetchdf()
    with pytest.raises(ImportError, match=r"pip install 'icesql\[polars\]'"):
        con.execute("SELECT 1").pl()


def test_no_result_to_convert(con):
    con.execute("CREATE TABLE t (a INT) USING iceberg")
    with pytest.raises(icesql.InterfaceError, match="no rows"):
        con.execute("INSERT INTO t VALUES (1)").df()
