"""INSERT: Spark's store assignment (casts, overflow, NOT NULL, arity), column lists,
parameters; every failure names its cause and leaves the table's metadata version alone.

The expected values are what Spark 3.5 + Iceberg 1.10 does with the same statements
(``tests/interop/test_write_casts.py`` checks them against a live Spark)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import icesql

T = ("db", "c")
DDL = (
    "CREATE TABLE db.c (a INT NOT NULL, b STRING, d DATE, ts TIMESTAMP, dec DECIMAL(5,2),"
    " l BIGINT, f FLOAT) USING iceberg"
)


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute(DDL)
    yield connection
    connection.close()


def _version(con) -> int:
    return con.catalog.current_version(T)[0]


@pytest.mark.parametrize(
    ("values", "error", "pattern"),
    [
        ("(1, 'x')", icesql.ProgrammingError, "NOT_ENOUGH_DATA_COLUMNS.*table columns: a, b, d"),
        (
            "(1, 'x', NULL, NULL, NULL, NULL, NULL, 9)",
            icesql.ProgrammingError,
            "TOO_MANY_DATA_COLUMNS",
        ),
        ("(NULL, 'x', NULL, NULL, NULL, NULL, NULL)", icesql.IntegrityError, "NOT NULL column `a`"),
        (
            "('5', 'x', NULL, NULL, NULL, NULL, NULL)",
            icesql.ProgrammingError,
            "cannot safely cast `a` STRING to INT",
        ),
        (
            "(1, 'x', '2024-01-01', NULL, NULL, NULL, NULL)",
            icesql.ProgrammingError,
            "cast `d` STRING to DATE",
        ),
        (
            "(3000000000, 'x', NULL, NULL, NULL, NULL, NULL)",
            icesql.DataError,
            "CAST_OVERFLOW.*column `a`",
        ),
        (
            "(1, 'x', NULL, NULL, 123456.0, NULL, NULL)",
            icesql.DataError,
            "CAST_OVERFLOW.*column `dec`",
        ),
        (
            "(1, 'x', NULL, NULL, NULL, CAST('NaN' AS DOUBLE), NULL)",
            icesql.DataError,
            "CAST_OVERFLOW.*column `l`",
        ),
        (
            "(true, 'x', NULL, NULL, NULL, NULL, NULL)",
            icesql.ProgrammingError,
            "cast `a` BOOLEAN to INT",
        ),
    ],
)
def test_bad_rows_name_their_cause_and_commit_nothing(con, values, error, pattern):
    before = _version(con)
    with pytest.raises(error, match=pattern) as caught:
        con.execute(f"INSERT INTO db.c VALUES {values}")
    assert "db.c" in str(caught.value)
    assert _version(con) == before
    assert con.execute("SELECT count(*) FROM db.c").fetchone() == (0,)


def test_implicit_casts_match_spark(con):
    rows = [
        "(1, 5, NULL, NULL, NULL, NULL, NULL)",
        "(2, 'x', TIMESTAMP '2024-01-01 10:00:00', DATE '2024-01-02', 1.234, 2.9D, 1.5D)",
        "(3, 'x', NULL, NULL, 1.005, 1.5, 1)",
        "(-1.7D, true, NULL, NULL, NULL, NULL, NULL)",
        "(4, 1.5D, NULL, NULL, -1.005, -2.9D, NULL)",
    ]
    for r in rows:
        con.execute(f"INSERT INTO db.c VALUES {r}")
    got = con.execute("SELECT * FROM db.c ORDER BY a").fetchall()
    utc = dt.UTC
    assert got == [
        (-1, "true", None, None, None, None, None),
        (1, "5", None, None, None, None, None),
        (2, "x", dt.date(2024, 1, 1), dt.datetime(2024, 1, 2, tzinfo=utc), Decimal("1.23"), 2, 1.5),
        (3, "x", None, None, Decimal("1.01"), 1, 1.0),
        (4, "1.5", None, None, Decimal("-1.01"), -2, None),
    ]


def test_column_lists_reorder_and_must_be_complete(con):
    con.execute(
        "INSERT INTO db.c (b, a, d, ts, dec, l, f) VALUES ('z', 8, NULL, NULL, NULL, NULL, NULL)"
    )
    assert con.execute("SELECT a, b FROM db.c").fetchall() == [(8, "z")]
    with pytest.raises(icesql.ProgrammingError, match="CANNOT_FIND_DATA.*output column `d`"):
        con.execute("INSERT INTO db.c (a, b) VALUES (7, 'y')")
    with pytest.raises(icesql.ProgrammingError, match="no column 'nope'"):
        con.execute("INSERT INTO db.c (a, nope) VALUES (7, 'y')")


def test_parameters_and_insert_select(con):
    con.execute(
        "INSERT INTO db.c VALUES (?, ?, ?, NULL, ?, ?, NULL)",
        [1, "p", dt.date(2020, 2, 29), Decimal("3.14"), 10],
    )
    con.execute("INSERT INTO TABLE db.c SELECT a + 1, upper(b), d, ts, dec, l * 2, f FROM db.c")
    assert con.execute("SELECT a, b, d, dec, l FROM db.c ORDER BY a").fetchall() == [
        (1, "p", dt.date(2020, 2, 29), Decimal("3.14"), 10),
        (2, "P", dt.date(2020, 2, 29), Decimal("3.14"), 20),
    ]


def test_rowcount_and_empty_inserts(con):
    cur = con.execute("INSERT INTO db.c SELECT * FROM db.c")
    assert cur.rowcount == 0
    md = con.catalog.load_table(T).metadata
    assert (
        md.current_snapshot().summary["total-records"] == "0"
    )  # an empty append, as Spark commits


def test_nested_values_and_not_null_inside_structs(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.n (id INT, st STRUCT<a: INT NOT NULL, b: STRING>, xs ARRAY<BIGINT>,"
        " m MAP<STRING, DOUBLE>) USING iceberg"
    )
    con.execute(
        "INSERT INTO db.n VALUES (1, named_struct('a', 1, 'b', 'x'), array(1, 2), map('k', 1)),"
        " (2, NULL, NULL, NULL), (3, named_struct('a', 3, 'b', NULL), array(), map())"
    )
    assert con.execute("SELECT id, st, xs, m FROM db.n ORDER BY id").fetchall() == [
        (1, {"a": 1, "b": "x"}, [1, 2], {"k": 1.0}),
        (2, None, None, None),
        (3, {"a": 3, "b": None}, [], {}),
    ]
    with pytest.raises(icesql.IntegrityError, match="`st.a`"):
        con.execute(
            "INSERT INTO db.n VALUES (4, named_struct('a', CAST(NULL AS INT), 'b', 'y'), NULL, NULL)"
        )


def test_unsupported_forms_say_so(con):
    with pytest.raises(icesql.NotSupportedError, match="BY NAME"):
        con.execute("INSERT INTO db.c BY NAME SELECT * FROM db.c")
    with pytest.raises(icesql.ProgrammingError, match="table not found: db.nope"):
        con.execute("INSERT INTO db.nope VALUES (1)")


def test_types_spark_cannot_declare(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.x (u UUID, fx FIXED(2), tm TIME, ns TIMESTAMP_NS) USING iceberg"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute(
        "INSERT INTO db.x VALUES ('f79c3e09-677c-4d5f-9e49-6f9b0f3e5a21', X'0102', TIME '12:34:56.789',"
        " TIMESTAMP_NTZ '2024-01-01 00:00:00.123456')"
    )
    ((u, fx, tm, ns),) = con.execute("SELECT * FROM db.x").fetchall()
    assert (
        str(u) in ("f79c3e09-677c-4d5f-9e49-6f9b0f3e5a21",)
        or bytes(u).hex() == "f79c3e09677c4d5f9e496f9b0f3e5a21"
    )
    assert bytes(fx) == b"\x01\x02" and tm == dt.time(12, 34, 56, 789000)
    assert ns == dt.datetime(2024, 1, 1, 0, 0, 0, 123456)


def test_timestamp_ns_round_trips_with_transforms_bounds_and_duckdb(tmp_path):
    """v3 ``timestamp_ns``: nanoseconds kept, day/hour/identity/bucket partitions (bucket hashes
    the value truncated to micros, spec "Hashing" note 3), bounds as 8-byte little-endian
    nanos, and DuckDB reads the data files directly."""
    import struct

    import duckdb

    from icesql.spec.transforms import Bucket
    from icesql.spec.types import TimestampNanoType, TimestampType

    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.n (id INT, ns TIMESTAMP_NS) USING iceberg"
        " PARTITIONED BY (hours(ns), bucket(4, ns)) TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO db.n SELECT 1, CAST('2024-01-02 03:04:05.123456789' AS TIMESTAMP_NS)")
    nanos = 1704164645123456789
    rows = con.execute("SELECT id, ns FROM db.n").fetchall()
    assert rows[0][0] == 1 and rows[0][1].value == nanos  # pandas Timestamp keeps nanos
    ((partition, lower, upper, path),) = con.execute(
        "SELECT partition, lower_bounds, upper_bounds, file_path FROM db.n.files"
    ).fetchall()
    assert partition["ns_bucket"] == Bucket(4).apply(TimestampNanoType(), nanos)
    assert partition["ns_bucket"] == Bucket(4).apply(TimestampType(), nanos // 1000)
    assert partition["ns_hour"] == nanos // 3_600_000_000_000
    assert dict(lower)[2] == dict(upper)[2] == struct.pack("<q", nanos)
    direct = duckdb.sql(f"SELECT epoch_ns(ns), typeof(ns) FROM read_parquet('{path}')").fetchall()
    assert direct == [(nanos, "TIMESTAMP_NS")]


def test_the_default_keyword_writes_the_write_default(tmp_path):
    """``VALUES (1, DEFAULT)`` (with or without a column list) writes the column's write-default,
    NULL for a column without one, as Spark does; UPDATE ... SET c = DEFAULT and MERGE's SET /
    VALUES take it too, in every format."""
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.d (id INT, c INT, s STRING, l ARRAY<INT>, ns TIMESTAMP_NS)"
        " USING iceberg TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("ALTER TABLE db.d ALTER COLUMN c SET DEFAULT 2 + 3")
    con.execute(
        "ALTER TABLE db.d ALTER COLUMN ns SET DEFAULT"
        " CAST('2024-01-01 00:00:00.000000001' AS TIMESTAMP_NS)"
    )
    con.execute("INSERT INTO db.d VALUES (1, DEFAULT, DEFAULT, DEFAULT, DEFAULT)")
    con.execute(
        "INSERT INTO db.d (id, s, c, l, ns) VALUES (2, DEFAULT, 20, NULL, DEFAULT),"
        " (3, 'x', DEFAULT, array(3), NULL)"
    )
    con.execute("UPDATE db.d SET c = DEFAULT, s = DEFAULT WHERE id = 2")
    con.execute(
        "MERGE INTO db.d t USING (SELECT 3 AS id UNION ALL SELECT 4) u ON t.id = u.id"
        " WHEN MATCHED THEN UPDATE SET l = DEFAULT"
        " WHEN NOT MATCHED THEN INSERT (id, c, s, l, ns) VALUES (u.id, DEFAULT, 'new', DEFAULT, DEFAULT)"
    )
    rows = con.execute("SELECT id, c, s, l, ns FROM db.d ORDER BY id").fetchall()
    ns = 1_704_067_200_000_000_001
    assert [(i, c, s, li, None if t is None else t.value) for i, c, s, li, t in rows] == [
        (1, 5, None, None, ns),
        (2, 5, None, None, ns),
        (3, 5, "x", None, None),
        (4, 5, "new", None, ns),
    ]
