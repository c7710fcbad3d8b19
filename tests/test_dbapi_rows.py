"""Rows as tuples by DuckDB's converter (``icesql.dbapi_rows``): the same values, of the same
Python types, as pyarrow's ``to_pylist`` gives, for every type; pyarrow's for the rest."""

from __future__ import annotations

import datetime
import decimal
import threading

import pyarrow as pa
import pytest

from icesql import dbapi_rows
from icesql.dbapi_rows import to_rows

UTC = datetime.UTC
COLUMNS = {
    "b": pa.array([True, None, False]),
    "i8": pa.array([1, None, -3], pa.int8()),
    "i32": pa.array([2**31 - 1, None, -(2**31)], pa.int32()),
    "i64": pa.array([2**63 - 1, None, 0], pa.int64()),
    "f32": pa.array([1.1, None, float("inf")], pa.float32()),
    "f64": pa.array([0.1, None, -0.0]),
    "s": pa.array(["é", None, ""]),
    "ls": pa.array(["a", None, "b"], pa.large_string()),
    "bin": pa.array([b"\x00\xff", None, b""]),
    "fsb": pa.array([b"ab", None, b"cd"], pa.binary(2)),
    "d": pa.array([datetime.date(1, 1, 1), None, datetime.date(9999, 12, 31)]),
    "t": pa.array([datetime.time(1, 2, 3, 4), None, datetime.time(0)], pa.time64("us")),
    "ts": pa.array([datetime.datetime(2020, 1, 1, 1, 2, 3, 4), None, datetime.datetime(1, 1, 1)]),
    "tstz": pa.array(
        [datetime.datetime(2020, 1, 1, 1, 2, 3, 4), None, datetime.datetime(1970, 1, 1)],
        pa.timestamp("us", tz="UTC"),
    ),
    "dec": pa.array([decimal.Decimal("1.23"), None, decimal.Decimal("-0.01")], pa.decimal128(9, 2)),
    "dec38": pa.array([decimal.Decimal("1" * 36 + ".5"), None, None], pa.decimal128(38, 1)),
    "list": pa.array([[1, None], None, []], pa.list_(pa.int64())),
    "map": pa.array([[("a", 1)], None, []], pa.map_(pa.string(), pa.int32())),
    "struct": pa.array(
        [{"x": 1, "y": [{"z": "a"}]}, None, {"x": None, "y": None}],
        pa.struct([("x", pa.int16()), ("y", pa.list_(pa.struct([("z", pa.string())])))]),
    ),
    "nothing": pa.array([None, None, None], pa.null()),
    "enum": pa.array(["a", None, "a"]).dictionary_encode(),
}
OTHERS = {  # types DuckDB gives other Python values for: pyarrow converts them
    "fsl": pa.array([[1, 2], None, [3, 4]], pa.list_(pa.int64(), 2)),
    "ns": pa.array([1, None, 2], pa.timestamp("ns")),
    "interval": pa.array([(1, 2, 3), None, (0, 0, 0)], pa.month_day_nano_interval()),
    "tz": pa.array([0, None, 1], pa.timestamp("us", tz="Europe/Paris")),
}


def _pyarrow(batch: pa.RecordBatch) -> list[tuple]:
    return list(zip(*(c.to_pylist(maps_as_pydicts="lossy") for c in batch.columns)))


@pytest.fixture
def duck(con):
    """A cursor of a connection's own DuckDB database, as a Cursor converts on (its time
    zone UTC, its external access off)."""
    cursor = con.engine.duck.cursor()
    yield cursor
    cursor.close()


@pytest.fixture
def duckdb_only(monkeypatch):
    """pyarrow's converter refused: a plain batch must never reach it."""

    def refused(batch: pa.RecordBatch) -> list[tuple]:
        raise AssertionError(f"converted by pyarrow: {batch.schema}")

    monkeypatch.setattr(dbapi_rows, "pyarrow_rows", refused)


def _typed(rows: list[tuple]) -> list[tuple]:
    return [tuple((type(v), repr(v)) for v in row) for row in rows]


@pytest.mark.parametrize("name", list(COLUMNS))
def test_each_plain_type_converts_by_duckdb_as_pyarrow_does(name, duck, duckdb_only):
    batch = pa.record_batch({name: COLUMNS[name], "n": pa.array([1, 2, 3])})
    assert _typed(to_rows(batch, duck)) == _typed(_pyarrow(batch))


@pytest.mark.parametrize("name", list(OTHERS))
def test_the_other_types_are_converted_by_pyarrow(name, duck):
    batch = pa.record_batch({name: OTHERS[name], "n": pa.array([1, 2, 3])})
    assert _typed(to_rows(batch, duck)) == _typed(_pyarrow(batch))


def test_plain_types_go_to_duckdb_and_the_others_to_pyarrow():
    assert all(dbapi_rows._same_values(a.type) for a in COLUMNS.values())
    assert not any(dbapi_rows._same_values(a.type) for a in OTHERS.values())
    assert not dbapi_rows._same_values(pa.struct([("a", OTHERS["ns"].type)]))  # nested too


def test_a_wide_batch_of_every_plain_type_at_once(duck, duckdb_only):
    batch = pa.record_batch(COLUMNS)
    assert _typed(to_rows(batch, duck)) == _typed(_pyarrow(batch))
    assert to_rows(batch.slice(0, 0), duck) == []


def test_a_batch_of_no_columns_has_empty_rows(duck):
    assert to_rows(pa.RecordBatch.from_pydict({}).slice(0, 0), duck) == []
    assert to_rows(pa.record_batch([pa.array([1, 2])], ["a"]).select([]), duck) == [(), ()]


def test_zoned_timestamps_are_utc_whatever_the_machine_says(monkeypatch, duck, duckdb_only):
    monkeypatch.setenv("TZ", "America/New_York")
    batch = pa.record_batch({"t": COLUMNS["tstz"]})
    (first,), _, _ = to_rows(batch, duck)
    assert first == datetime.datetime(2020, 1, 1, 1, 2, 3, 4, tzinfo=UTC)
    assert first.utcoffset() == datetime.timedelta(0)


def test_cursors_of_one_database_convert_on_threads_at_once(con, duckdb_only):
    batch = pa.record_batch({"i": pa.array(range(50_000)), "s": pa.array(["x"] * 50_000)})
    want = _pyarrow(batch)
    got: list[bool] = []

    def convert() -> None:
        duck = con.engine.duck.cursor()
        got.extend(to_rows(batch, duck) == want for _ in range(5))
        duck.close()

    threads = [threading.Thread(target=convert) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [True] * 20
