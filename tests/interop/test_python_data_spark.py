"""Spark reads what icesql wrote from Python data: tables filled from pandas, polars, Arrow and a
streamed RecordBatchReader (INSERT and CTAS), checked by Spark, an independent reader, for
values and types. (``tests/sql/test_python_sources.py`` checks the same with PyIceberg.)"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pytest

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

NS = "w_pydata"
COLUMNS = (
    "id BIGINT, i INT, s STRING, d DECIMAL(10,2), ts TIMESTAMP, ntz TIMESTAMP_NTZ, day DATE,"
    " f DOUBLE, b BOOLEAN, tags ARRAY<STRING>"
)
SPARK_TYPES = [
    ("id", "bigint"),
    ("i", "int"),
    ("s", "string"),
    ("d", "decimal(10,2)"),
    ("ts", "timestamp"),
    ("ntz", "timestamp_ntz"),
    ("day", "date"),
    ("f", "double"),
    ("b", "boolean"),
    ("tags", "array<string>"),
]
NOON = dt.datetime(2024, 6, 1, 12, 0)
MICRO = dt.datetime(2024, 6, 1, 12, 0, 0, 1)
DAY = dt.date(2024, 6, 1)


def from_pandas():
    """Nullable, categorical, time-zone-aware nanosecond and naive dtypes."""
    return pd.DataFrame(
        {
            "id": pd.array([1, 2], dtype="Int64"),
            "i": pd.array([10, None], dtype="Int32"),
            "s": pd.Categorical(["a", None]),
            "d": [Decimal("1.50"), None],
            "ts": pd.to_datetime([NOON, None]).tz_localize("Europe/Paris"),  # 10:00 UTC
            "ntz": pd.to_datetime([MICRO, None]),  # datetime64[ns], whole microseconds
            "day": [DAY, None],
            "f": [0.5, None],
            "b": pd.array([True, None], dtype="boolean"),
            "tags": [["x", "y"], None],
        }
    )


def from_polars():
    return pl.DataFrame(
        {
            "id": pl.Series([3, 4], dtype=pl.UInt32),  # unsigned: fits BIGINT
            "i": pl.Series([30, None], dtype=pl.Int16),
            "s": pl.Series(["c", None], dtype=pl.Categorical),
            "d": pl.Series([Decimal("3.25"), None], dtype=pl.Decimal(5, 2)),
            "ts": pl.Series([NOON, None], dtype=pl.Datetime("ns", "UTC")),
            "ntz": pl.Series([MICRO, None], dtype=pl.Datetime("ms")),  # to milliseconds: 12:00
            "day": pl.Series([DAY, None], dtype=pl.Date),
            "f": [3.5, None],
            "b": [False, None],
            "tags": pl.Series([["z"], []], dtype=pl.List(pl.String)),
        }
    )


def from_arrow():
    return pa.table(
        {
            "id": pa.array([5, 6], pa.uint8()),
            "i": pa.array([50, None], pa.int8()),
            "s": pa.array(["e", None]).dictionary_encode(),
            "d": pa.array([Decimal("5.00"), None], pa.decimal128(4, 2)),
            "ts": pa.array([NOON, None], pa.timestamp("us", "UTC")),
            "ntz": pa.array([MICRO, None], pa.timestamp("ns")),
            "day": pa.array([DAY, None], pa.date32()),
            "f": pa.array([5.5, None], pa.float32()),
            "b": [True, False],
            "tags": pa.array([["p"], None], pa.large_list(pa.large_string())),
        }
    )


def streamed():
    """Three batches, made as they are pulled."""
    schema = from_arrow().schema.set(0, pa.field("id", pa.int64()))

    def batches():
        for k in range(3):
            base = from_arrow().cast(schema).to_batches()[0]
            ids = pa.array([7 + 2 * k, 8 + 2 * k], pa.int64())
            yield pa.RecordBatch.from_arrays([ids, *base.columns[1:]], schema=schema)

    return pa.RecordBatchReader.from_batches(schema, batches())


EXPECTED = [
    (
        1,
        10,
        "a",
        Decimal("1.50"),
        dt.datetime(2024, 6, 1, 10, 0),
        MICRO,
        DAY,
        0.5,
        True,
        ["x", "y"],
    ),
    (2, None, None, None, None, None, None, None, None, None),
    (3, 30, "c", Decimal("3.25"), NOON, NOON, DAY, 3.5, False, ["z"]),
    (4, None, None, None, None, None, None, None, None, []),
    *[
        row
        for base in (5, 7, 9, 11)
        for row in (
            (base, 50, "e", Decimal("5.00"), NOON, MICRO, DAY, 5.5, True, ["p"]),
            (base + 1, None, None, None, None, None, None, None, False, None),
        )
    ],
]


def spark_rows(spark, table: str) -> list[tuple]:
    spark.sql(f"REFRESH TABLE {table}")
    return sorted((tuple(r) for r in spark.table(table).collect()), key=lambda r: r[0])


@pytest.fixture(scope="module")
def ns(con):
    con.execute(f"DROP NAMESPACE IF EXISTS {NS} CASCADE")
    con.execute(f"CREATE NAMESPACE {NS}")
    return NS


def test_spark_reads_inserts_from_pandas_polars_arrow_and_a_stream(spark, con, ns):
    con.execute(
        f"CREATE TABLE {ns}.t ({COLUMNS}) USING iceberg PARTITIONED BY (days(ts), bucket(2, id))"
    )
    sources = {"pandas": from_pandas(), "polars": from_polars(), "arrow": from_arrow()}
    for name, frame in sources.items():
        con.register(name, frame)
        assert con.execute(f"INSERT INTO {ns}.t SELECT * FROM {name}").rowcount == 2, name
    stream = streamed()  # noqa: F841 - read by name, once
    assert con.execute(f"INSERT INTO {ns}.t SELECT * FROM stream").rowcount == 6
    assert spark.table(f"{ns}.t").dtypes == SPARK_TYPES
    rows = spark_rows(spark, f"{ns}.t")
    assert rows == [tuple(r) for r in EXPECTED]
    # Spark's own partition pruning agrees with the partition values icesql wrote
    noon = spark.sql(
        f"SELECT count(*) FROM {ns}.t WHERE ts = TIMESTAMP '2024-06-01 12:00:00' AND id = 3"
    ).collect()
    assert noon[0][0] == 1


@pytest.mark.parametrize("source", ["pandas", "polars", "arrow", "stream"])
def test_spark_reads_ctas_from_python_data(spark, con, ns, source):
    """CTAS takes the column types from the Python data (Spark's types, microseconds below
    format version 3); the ones without an Iceberg type are cast in the query."""
    obj = {"pandas": from_pandas, "polars": from_polars, "arrow": from_arrow, "stream": streamed}[
        source
    ]()
    con.register("src", obj)
    table = f"{ns}.c_{source}"
    con.execute(
        f"CREATE TABLE {table} USING iceberg AS SELECT CAST(id AS BIGINT) AS id, i, s, d, ts,"
        " ntz, day, f, b, tags FROM src"
    )
    types = dict(spark.table(table).dtypes)
    assert types["id"] == "bigint" and types["s"] == "string" and types["day"] == "date"
    assert types["tags"] == "array<string>" and types["b"] == "boolean"
    assert types["ts"] == "timestamp" and types["ntz"] == "timestamp_ntz"
    assert types["i"] == "int"  # Iceberg has no narrower integer: int16 and int8 widen
    want_dec = {
        "pandas": "decimal(3,2)",
        "polars": "decimal(5,2)",
        "arrow": "decimal(4,2)",
        "stream": "decimal(4,2)",
    }
    assert types["d"] == want_dec[source]
    assert types["f"] == ("float" if source in ("arrow", "stream") else "double")
    rows = spark_rows(spark, table)
    first = {
        "pandas": EXPECTED[0],
        "polars": EXPECTED[2],
        "arrow": EXPECTED[4],
        "stream": EXPECTED[4][:0] + (7,) + EXPECTED[4][1:],
    }[source]
    assert rows[0] == first
    con.unregister("src")
