"""Python objects as tables in SQL (``icesql.sql.python_sources``): what a name resolves to,
every statement that reads them, streams read once and batch by batch, and the awkward dtypes
with their result or their error. Written tables are read back by PyIceberg."""

from __future__ import annotations

import datetime
import gc
import weakref
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pytest
import sqlglot
from pyiceberg.table import StaticTable

import icesql

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

GLOBAL_ROWS = pa.table({"id": [7, 8], "name": ["g", "h"]})


@pytest.fixture
def con(tmp_path):
    with icesql.connect(str(tmp_path)) as connection:
        connection.execute("CREATE TABLE db.t (id BIGINT, name STRING) USING iceberg")
        yield connection


def pyiceberg_rows(con, name: str = "db.t") -> pa.Table:
    """The table as PyIceberg (an independent reader) sees it, sorted by its first column."""
    table = con.catalog.load_table(tuple(name.split(".")))
    rows = StaticTable.from_metadata(table.metadata_location).scan().to_arrow()
    return rows.sort_by(rows.schema.names[0])


class ArrowStream:
    """A foreign object with only the Arrow PyCapsule stream protocol."""

    def __init__(self, table: pa.Table):
        self.table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self.table.__arrow_c_stream__(requested_schema)


# -- what a name resolves to ----------------------------------------------------------------


def test_every_kind_of_object_reads_as_a_table(con, tmp_path):
    arrow = pa.table({"id": [1, 2], "name": ["a", "b"]})
    batch = arrow.to_batches()[0]
    pandas_df = pd.DataFrame({"id": [1, 2], "name": ["a", "b"]})
    polars_df = pl.DataFrame({"id": [1, 2], "name": ["a", "b"]})
    lazy = polars_df.lazy().filter(pl.col("id") > 0)
    dataset = ds.dataset(arrow)
    reader = arrow.to_reader()
    stream = ArrowStream(arrow)
    for name in ("arrow", "batch", "pandas_df", "polars_df", "lazy", "dataset", "reader", "stream"):
        rows = con.execute(f"SELECT id, name FROM {name} ORDER BY id").fetchall()
        assert rows == [(1, "a"), (2, "b")], name
    del arrow, batch, pandas_df, polars_df, lazy, dataset, reader, stream  # read by name only


def test_globals_of_the_caller_are_found(con):
    assert con.execute("SELECT count(*) FROM GLOBAL_ROWS").fetchall() == [(2,)]
    assert con.cursor().execute("SELECT max(id) FROM GLOBAL_ROWS").fetchall() == [(8,)]


def test_iceberg_tables_win_then_registered_names_then_variables(con):
    con.execute("CREATE TABLE default.rows (x INT) USING iceberg")
    con.execute("INSERT INTO default.rows VALUES (1)")
    rows = pa.table({"x": [10, 20]})  # noqa: F841 - shadowed by the Iceberg table
    assert con.execute("SELECT * FROM rows").fetchall() == [(1,)]
    other = pa.table({"x": [3]})  # noqa: F841
    con.register("other", pa.table({"x": [4]}))
    assert con.execute("SELECT * FROM other").fetchall() == [(4,)]
    assert con.execute("SELECT * FROM OTHER").fetchall() == [(4,)]  # SQL names ignore case
    con.unregister("other")
    assert con.execute("SELECT * FROM other").fetchall() == [(3,)]
    con.unregister("never-registered")


def test_names_that_hold_no_rows_stay_unknown_tables(con):
    nothing = 42  # noqa: F841
    with pytest.raises(
        icesql.ProgrammingError, match="The table or view `nothing` cannot be found"
    ):
        con.execute("SELECT * FROM nothing")
    data = pa.table({"x": [1]})  # noqa: F841
    with pytest.raises(
        icesql.ProgrammingError, match="The table or view `db`.`data` cannot be found"
    ):
        con.execute("SELECT * FROM db.data")  # qualified names are Iceberg tables only
    with pytest.raises(
        icesql.ProgrammingError,
        match="cannot use 'n' as a table: an object of type int holds no rows",
    ):
        con.register("n", 42)


def test_join_with_an_iceberg_table_and_aliases(con):
    con.execute("INSERT INTO db.t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
    scores = pd.DataFrame({"id": [1, 3, 4], "score": [0.5, 1.5, 2.5]})  # noqa: F841
    rows = con.execute(
        "SELECT t.name, s.score FROM db.t t JOIN scores s ON t.id = s.id ORDER BY t.id"
    ).fetchall()
    assert rows == [("one", 0.5), ("three", 1.5)]
    rows = con.execute("SELECT scores.id FROM scores WHERE scores.score > 1 ORDER BY 1").fetchall()
    assert rows == [(3,), (4,)]


# -- writing from Python data ---------------------------------------------------------------


def test_insert_from_pandas_polars_and_arrow(con):
    from_pandas = pd.DataFrame({"id": pd.array([1, 2], dtype="Int64"), "name": ["a", None]})
    from_polars = pl.DataFrame({"id": [3], "name": ["c"]})
    from_arrow = pa.table({"id": pa.array([4], pa.int32()), "name": ["d"]})
    for name in ("from_pandas", "from_polars", "from_arrow"):
        con.execute(f"INSERT INTO db.t SELECT * FROM {name}")
    del from_pandas, from_polars, from_arrow  # read by name only
    rows = pyiceberg_rows(con)
    assert rows.schema.field("id").type == pa.int64()
    assert rows.to_pylist() == [
        {"id": 1, "name": "a"},
        {"id": 2, "name": None},
        {"id": 3, "name": "c"},
        {"id": 4, "name": "d"},
    ]


PLAIN = pa.table(
    {
        "id": pa.array([1, 2, 3], pa.int64()),
        "i8": pa.array([1, None, -3], pa.int8()),
        "f": pa.array([1.5, float("nan"), None], pa.float32()),
        "d": pa.array([0.25, None, -1e300]),
        "s": pa.array(["a", None, "ü"]),
        "ls": pa.array(["x" * 40, None, ""], pa.large_string()),
        "b": pa.array([b"\x00", None, b""]),
        "day": pa.array([datetime.date(2020, 1, 1), None, datetime.date(1, 1, 1)]),
        "ts": pa.array([datetime.datetime(2020, 1, 1, 1, 2, 3, 4), None, None], pa.timestamp("us")),
        "tz": pa.array([datetime.datetime(2020, 1, 1), None, None], pa.timestamp("us", tz="UTC")),
        "dec": pa.array(
            [Decimal("1.25"), None, Decimal("-99999999999999999999999999999999999.99")],
            pa.decimal128(37, 2),
        ),
        "ok": pa.array([True, None, False]),
    }
)
PLAIN_DDL = (
    "id BIGINT, i8 TINYINT, f FLOAT, d DOUBLE, s STRING, ls STRING, b BINARY, day DATE,"
    " ts TIMESTAMP_NTZ, tz TIMESTAMP, dec DECIMAL(37, 2), ok BOOLEAN"
)


def test_a_plain_insert_of_arrow_rows_writes_what_duckdb_would(con):
    """``INSERT ... SELECT * FROM data`` of an Arrow table whose types DuckDB returns
    unchanged writes its batches without DuckDB's pass: the table holds what the same rows
    through DuckDB (``WHERE true`` keeps the pass) give, types and values."""
    data = PLAIN
    con.execute(f"CREATE TABLE db.direct ({PLAIN_DDL}) USING iceberg")
    con.execute(f"CREATE TABLE db.through ({PLAIN_DDL}) USING iceberg")
    assert con.execute("INSERT INTO db.direct SELECT * FROM data").rowcount == 3
    assert con.execute("INSERT INTO db.through SELECT * FROM data WHERE true").rowcount == 3
    direct, through = pyiceberg_rows(con, "db.direct"), pyiceberg_rows(con, "db.through")
    assert direct.schema == through.schema
    assert str(direct.to_pylist()) == str(through.to_pylist())  # NaN printed alike
    assert direct.column("s").to_pylist() == ["a", None, "ü"]
    engine = con._engine
    plain = sqlglot.parse_one("SELECT * FROM data", read="spark")
    assert engine.python_rows(plain) is None  # not in the engine's scope outside a statement
    engine.registered["data"] = data
    assert engine.python_rows(plain) is data
    for other in (
        "SELECT id FROM data",
        "SELECT * FROM data LIMIT 1",
        "SELECT DISTINCT * FROM data",
        "SELECT * EXCEPT (id) FROM data",
    ):
        assert engine.python_rows(sqlglot.parse_one(other, read="spark")) is None, other
    engine.registered["data"] = data.set_column(4, "s", data.column("s").dictionary_encode())
    assert data.schema.field(4).name == "s"
    assert engine.python_rows(plain) is None  # a dictionary column: DuckDB's pass decodes it
    engine.registered["data"] = data
    con.execute("CREATE TABLE db.data (id BIGINT) USING iceberg")
    con.execute("USE db")
    assert engine.python_rows(plain) is None  # the Iceberg table db.data wins


def test_a_frame_is_converted_once_per_statement(con, monkeypatch):
    """An INSERT looks its source up twice (the direct write, then the query when a column
    is not plain: here a categorical); the DataFrame is converted once. A frame changed in
    place is converted again by the next statement."""
    from icesql.sql import python_sources

    calls = []
    convert = python_sources._from_pandas
    monkeypatch.setattr(
        python_sources, "_from_pandas", lambda df, name: calls.append(name) or convert(df, name)
    )
    frame = pd.DataFrame({"id": [1, 2], "name": pd.Categorical(["a", "b"])})
    con.register("frame", frame)
    con.execute("INSERT INTO db.t SELECT * FROM frame")
    assert calls == ["frame"]
    frame.loc[0, "id"] = 5  # in place: the same object
    con.execute("INSERT INTO db.t SELECT * FROM frame")
    assert calls == ["frame", "frame"]
    assert pyiceberg_rows(con).column("id").to_pylist() == [1, 2, 2, 5]


def test_insert_overwrite_and_ctas(con):
    con.execute("INSERT INTO db.t VALUES (9, 'old')")
    fresh = pd.DataFrame({"id": [1, 2], "name": ["x", "y"]})
    con.execute("INSERT OVERWRITE db.t SELECT * FROM fresh")
    assert pyiceberg_rows(con).column("name").to_pylist() == ["x", "y"]
    con.execute(
        "CREATE TABLE db.c USING iceberg AS SELECT id, name, id * 1.5 AS f FROM fresh WHERE id > 1"
    )
    rows = pyiceberg_rows(con, "db.c")
    assert rows.to_pylist() == [{"id": 2, "name": "y", "f": 3.0}]
    assert fresh is not None


def test_replace_table_as_select_from_a_dataframe(con):
    first = pl.DataFrame({"id": [1], "name": ["a"]})  # noqa: F841 - read by name
    con.execute("CREATE OR REPLACE TABLE db.r USING iceberg AS SELECT * FROM first")
    second = pd.DataFrame({"id": [2, 3], "label": ["b", "c"]})  # noqa: F841
    con.execute("CREATE OR REPLACE TABLE db.r USING iceberg AS SELECT * FROM second")
    rows = pyiceberg_rows(con, "db.r")
    assert rows.schema.names == ["id", "label"]
    assert rows.to_pylist() == [{"id": 2, "label": "b"}, {"id": 3, "label": "c"}]


def test_merge_from_a_registered_table(con):
    con.execute("INSERT INTO db.t VALUES (1, 'one'), (2, 'two')")
    con.register("changes", pl.DataFrame({"id": [2, 3], "name": ["TWO", "three"]}))
    con.execute(
        "MERGE INTO db.t t USING changes s ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    assert pyiceberg_rows(con).to_pylist() == [
        {"id": 1, "name": "one"},
        {"id": 2, "name": "TWO"},
        {"id": 3, "name": "three"},
    ]


def test_merge_from_a_stream_reads_it_once(con):
    con.execute("INSERT INTO db.t VALUES (1, 'one')")
    source = pa.table({"id": [1, 2], "name": ["ONE", "two"]}).to_reader()  # noqa: F841
    con.execute(
        "MERGE INTO db.t t USING source s ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    assert pyiceberg_rows(con).column("name").to_pylist() == ["ONE", "two"]


# -- streams --------------------------------------------------------------------------------

BATCHES, ROWS = 400, 1000


class CountingStream:
    """A RecordBatchReader whose batches are made as they are pulled, counted, and watched
    (weak references) to see how many are alive at once."""

    def __init__(self):
        self.pulled = 0
        self.max_alive = 0
        self._alive: list[weakref.ref] = []
        self.schema = pa.schema([("id", pa.int64()), ("name", pa.string())])

    def _batches(self):
        for i in range(BATCHES):
            self.pulled += 1
            gc.collect(0)
            self._alive = [r for r in self._alive if r() is not None]
            self.max_alive = max(self.max_alive, len(self._alive))
            ids = pa.array(np.arange(i * ROWS, (i + 1) * ROWS, dtype=np.int64))
            batch = pa.RecordBatch.from_arrays([ids, pa.array(["n"] * ROWS)], schema=self.schema)
            self._alive.append(weakref.ref(batch))
            yield batch

    def reader(self) -> pa.RecordBatchReader:
        return pa.RecordBatchReader.from_batches(self.schema, self._batches())


def test_a_stream_is_read_batch_by_batch_and_once(con):
    counting = CountingStream()
    stream = counting.reader()  # noqa: F841
    assert con.execute("INSERT INTO db.t SELECT * FROM stream").rowcount == BATCHES * ROWS
    assert counting.pulled == BATCHES
    assert counting.max_alive < BATCHES // 4  # never held whole
    assert pyiceberg_rows(con).num_rows == BATCHES * ROWS
    with pytest.raises(icesql.Error, match="can be read only once"):
        con.execute("SELECT count(*) FROM stream").fetchall()


def test_a_query_that_needs_few_rows_pulls_few_batches(con):
    counting = CountingStream()
    stream = counting.reader()  # noqa: F841
    cur = con.execute("SELECT id FROM stream")
    assert cur.fetchone() == (0,)
    assert counting.pulled < BATCHES // 2


# -- awkward dtypes: their result or their error --------------------------------------------


def test_pandas_nullable_categorical_and_unsigned(con):
    con.execute("CREATE TABLE db.k (i INT, b BOOLEAN, s STRING, c STRING, u BIGINT) USING iceberg")
    frame = pd.DataFrame(  # noqa: F841
        {
            "i": pd.array([1, None], dtype="Int32"),
            "b": pd.array([True, None], dtype="boolean"),
            "s": pd.array(["x", None], dtype="string"),
            "c": pd.Categorical(["red", None]),
            "u": np.array([1, 2**32], dtype="uint64"),
        }
    )
    con.execute("INSERT INTO db.k SELECT * FROM frame")
    rows = pyiceberg_rows(con, "db.k")
    assert rows.to_pylist() == [
        {"i": 1, "b": True, "s": "x", "c": "red", "u": 1},
        {"i": None, "b": None, "s": None, "c": None, "u": 2**32},
    ]
    assert (
        rows.schema.field("c").type == pa.large_string()
        or rows.schema.field("c").type == pa.string()
    )


def test_unsigned_overflow_and_ctas_name_the_column(con):
    big = pd.DataFrame({"id": np.array([2**63], dtype="uint64"), "name": ["x"]})  # noqa: F841
    with pytest.raises(icesql.DataError, match=r"CAST_OVERFLOW_IN_TABLE_INSERT.*`id`"):
        con.execute("INSERT INTO db.t SELECT * FROM big")
    with pytest.raises(
        icesql.NotSupportedError, match=r"column `id` of type uint64.*DECIMAL\(20,0\)"
    ):
        con.execute("CREATE TABLE db.u USING iceberg AS SELECT * FROM big")
    con.execute(
        "CREATE TABLE db.u USING iceberg AS SELECT CAST(id AS DECIMAL(20,0)) AS id FROM big"
    )
    assert pyiceberg_rows(con, "db.u").column("id").to_pylist() == [Decimal(2**63)]


def test_dictionary_arrays_and_incompatible_types(con):
    coded = pa.table(  # noqa: F841
        {
            "id": [1],
            "name": pa.array(["x"]).dictionary_encode(),
        }
    )
    con.execute("INSERT INTO db.t SELECT * FROM coded")
    assert pyiceberg_rows(con).column("name").to_pylist() == ["x"]
    wrong = pa.table({"id": ["1"], "name": ["x"]})  # noqa: F841
    with pytest.raises(icesql.ProgrammingError, match=r"CANNOT_SAFELY_CAST.*`id` STRING to BIGINT"):
        con.execute("INSERT INTO db.t SELECT * FROM wrong")
    mixed = pd.DataFrame({"id": [1, "x"], "name": ["a", "b"]})  # noqa: F841
    with pytest.raises(icesql.ProgrammingError, match=r"column `id` \(dtype object\)"):
        con.execute("INSERT INTO db.t SELECT * FROM mixed")


def test_nanosecond_timestamps(con):
    con.execute("CREATE TABLE db.ts (ts TIMESTAMP_NTZ) USING iceberg")
    micros = pd.DataFrame(  # noqa: F841 - read by name
        {"ts": pd.to_datetime(["2024-01-02 03:04:05.123456"]).astype("datetime64[ns]")}
    )
    con.execute("INSERT INTO db.ts SELECT * FROM micros")
    assert pyiceberg_rows(con, "db.ts").column("ts").to_pylist() == [
        datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)
    ]
    nanos = pd.DataFrame({"ts": pd.to_datetime(["2024-01-02 03:04:05.123456789"])})  # noqa: F841
    with pytest.raises(icesql.DataError, match=r"column `ts`.*would lose data"):
        con.execute("INSERT INTO db.ts SELECT * FROM nanos")
    # CTAS below format version 3 takes Spark's microsecond type; v3 keeps nanoseconds
    con.execute("CREATE TABLE db.c2 USING iceberg AS SELECT * FROM micros")
    assert pyiceberg_rows(con, "db.c2").schema.field("ts").type == pa.timestamp("us")
    con.execute(
        "CREATE TABLE db.c3 USING iceberg TBLPROPERTIES ('format-version'='3')"
        " AS SELECT * FROM nanos"
    )
    table = con.catalog.load_table(("db", "c3"))
    assert str(table.metadata.schema().fields[0].type) == "timestamp_ns"
    assert con.execute("SELECT CAST(ts AS STRING) FROM db.c3").fetchall() == [
        ("2024-01-02 03:04:05.123456789",)
    ]


def test_time_zone_aware_and_naive_timestamps(con):
    con.execute("CREATE TABLE db.z (aware TIMESTAMP, naive TIMESTAMP_NTZ) USING iceberg")
    paris = pd.to_datetime(["2024-06-01 12:00"]).tz_localize("Europe/Paris")
    both = pd.DataFrame({"aware": paris, "naive": paris})  # noqa: F841
    con.execute("INSERT INTO db.z SELECT * FROM both")
    row = pyiceberg_rows(con, "db.z").to_pylist()[0]
    # the instant is kept; a zone-less column gets its wall-clock time in the session zone (UTC)
    assert row["aware"] == datetime.datetime(2024, 6, 1, 10, 0, tzinfo=datetime.UTC)
    assert row["naive"] == datetime.datetime(2024, 6, 1, 10, 0)
    local = pd.DataFrame({"aware": pd.to_datetime(["2024-06-01 12:00"]), "naive": [None]})  # noqa: F841
    con.execute("INSERT INTO db.z SELECT aware, CAST(naive AS TIMESTAMP_NTZ) FROM local")
    rows = pyiceberg_rows(con, "db.z").column("aware").to_pylist()
    assert datetime.datetime(2024, 6, 1, 12, 0, tzinfo=datetime.UTC) in rows  # naive read as UTC
