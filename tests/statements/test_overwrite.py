"""INSERT OVERWRITE and INSERT ... PARTITION: static and dynamic overwrite, the PARTITION
clause, snapshot operations and summaries, delete files in replaced partitions, bad input.

Expected rows, operations and summary counts are what Spark 3.5 + Iceberg 1.10 produced for
the same statements (``tests/interop/test_dml_overwrite.py`` compares against a live Spark).
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pytest
from deletes_support import deletion_vector

import icesql
from icesql.scan.planner import plan_files
from icesql.write.commit import commit
from icesql.write.snapshot import Change

T = ("db", "t")


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute(
        "CREATE TABLE db.t (id BIGINT, p STRING, q INT) USING iceberg PARTITIONED BY (p, q)"
        " TBLPROPERTIES ('format-version'='2')"
    )
    connection.execute(
        "INSERT INTO db.t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 1), (4, NULL, 1)"
    )
    yield connection
    connection.close()


def _rows(con, table="db.t"):
    return sorted(con.execute(f"SELECT * FROM {table}").fetchall(), key=repr)


def _last(con, table="db.t"):
    op, summary = con.execute(
        f"SELECT operation, summary FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1"
    ).fetchone()
    return op, dict(summary)


def _count(summary, key):
    return int(summary.get(key, "0"))


def _version(con, ident=T):
    return con.catalog.current_version(ident)[0]


def test_static_partition_replaces_matching_partitions(con):
    con.execute("INSERT OVERWRITE db.t PARTITION (p = 'a') SELECT 10, 7")
    assert _rows(con) == sorted([(3, "b", 1), (4, None, 1), (10, "a", 7)], key=repr)
    op, s = _last(con)
    assert op == "overwrite"
    assert (_count(s, "deleted-data-files"), _count(s, "added-data-files")) == (2, 1)
    assert (s["changed-partition-count"], s["total-records"]) == ("3", "3")
    assert "replace-partitions" not in s


def test_full_and_partial_static_specs(con):
    con.execute("INSERT OVERWRITE TABLE db.t PARTITION (p = 'a', q = 2) VALUES (20)")
    assert (
        (20, "a", 2) in _rows(con) and (2, "a", 2) not in _rows(con) and (1, "a", 1) in _rows(con)
    )
    con.execute("INSERT OVERWRITE db.t PARTITION (p = 'a', q) SELECT 21, 5")  # q from the query
    assert [r for r in _rows(con) if r[1] == "a"] == [(21, "a", 5)]
    con.execute("INSERT OVERWRITE db.t PARTITION (q = 1) SELECT 22, 'z'")
    assert _rows(con) == [(21, "a", 5), (22, "z", 1)]
    con.execute("INSERT OVERWRITE db.t PARTITION (p = NULL) SELECT 23, 9")  # p <=> NULL
    assert _rows(con) == [(21, "a", 5), (22, "z", 1), (23, None, 9)]
    op, s = _last(con)
    assert op == "overwrite" and "deleted-data-files" not in s  # nothing matched p IS NULL


def test_no_partition_clause_replaces_the_table_and_may_read_it(con):
    con.execute("INSERT OVERWRITE db.t SELECT id * 10, p, q FROM db.t WHERE id < 3")
    assert _rows(con) == [(10, "a", 1), (20, "a", 2)]
    op, s = _last(con)
    assert op == "overwrite" and s["deleted-data-files"] == "4" and s["total-records"] == "2"


def test_static_overwrite_without_rows_is_a_delete(con):
    con.execute("INSERT OVERWRITE db.t PARTITION (p = 'b') SELECT 1, 2 WHERE false")
    assert (3, "b", 1) not in _rows(con)
    op, s = _last(con)
    assert op == "delete" and s["deleted-records"] == "1" and "added-data-files" not in s


def test_column_list_with_static_partition(con):
    con.execute("INSERT OVERWRITE db.t PARTITION (p = 'a') (q, id) SELECT 4, 21")
    assert [r for r in _rows(con) if r[1] == "a"] == [(21, "a", 4)]
    con.execute("INSERT INTO db.t PARTITION (q = 3) (id, p) VALUES (30, 'c')")
    assert (30, "c", 3) in _rows(con)


def test_insert_into_with_static_values_appends(con):
    con.execute("INSERT INTO db.t PARTITION (p = 'c') SELECT 30, 5")
    con.execute("INSERT INTO db.t PARTITION (p = 'c', q = '6') VALUES (31), (32)")
    assert [r for r in _rows(con) if r[1] == "c"] == [(30, "c", 5), (31, "c", 6), (32, "c", 6)]
    assert _last(con)[0] == "append"


def test_dynamic_mode_replaces_only_written_partitions(con):
    con.execute("SET spark.sql.sources.partitionOverwriteMode = dynamic")
    con.execute("INSERT OVERWRITE db.t VALUES (40, 'a', 1), (41, 'c', 3)")
    assert _rows(con) == sorted(
        [(2, "a", 2), (3, "b", 1), (4, None, 1), (40, "a", 1), (41, "c", 3)], key=repr
    )
    op, s = _last(con)
    assert op == "overwrite" and s["replace-partitions"] == "true"
    assert (s["deleted-data-files"], s["added-data-files"], s["changed-partition-count"]) == (
        "1",
        "2",
        "2",
    )
    before = _version(con)
    con.execute("INSERT OVERWRITE db.t SELECT 1, 'x', 1 WHERE false")  # no rows: no commit
    assert _version(con) == before
    con.execute(
        "INSERT OVERWRITE db.t PARTITION (p = 'b') SELECT 42, 7"
    )  # static value, new partition
    assert (3, "b", 1) in _rows(con) and (42, "b", 7) in _rows(con)
    con.execute("SET spark.sql.sources.partitionOverwriteMode = STATIC")
    con.execute("INSERT OVERWRITE db.t PARTITION (p = 'b') SELECT 43, 7")
    assert [r for r in _rows(con) if r[1] == "b"] == [(43, "b", 7)]


def test_dynamic_mode_on_an_unpartitioned_table_replaces_everything(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.u (id BIGINT, s STRING) USING iceberg")
    con.execute("INSERT INTO db.u VALUES (1, 'x'), (2, 'y')")
    con.execute("SET spark.sql.sources.partitionOverwriteMode=dynamic")
    con.execute("INSERT OVERWRITE db.u SELECT id + 10, s FROM db.u")
    assert _rows(con, "db.u") == [(11, "x"), (12, "y")]
    op, s = _last(con, "db.u")
    assert op == "overwrite" and s["replace-partitions"] == "true" and s["deleted-records"] == "2"


@pytest.mark.parametrize(
    "transform", ["days(ts)", "bucket(4, id)", "truncate(2, s)", "months(ts), bucket(3, s)"]
)
def test_dynamic_mode_with_transforms(tmp_path, transform):
    con = icesql.connect(str(tmp_path))
    con.execute(
        f"CREATE TABLE db.x (id BIGINT, ts TIMESTAMP, s STRING) USING iceberg PARTITIONED BY ({transform})"
    )
    con.execute(
        "INSERT INTO db.x VALUES (1, TIMESTAMP '2024-01-01 10:00:00', 'abc'),"
        " (2, TIMESTAMP '2024-02-02 10:00:00', 'xyz'), (3, TIMESTAMP '2024-01-01 11:00:00', 'abd')"
    )
    con.execute("SET spark.sql.sources.partitionOverwriteMode=dynamic")
    con.execute("INSERT OVERWRITE db.x VALUES (1, TIMESTAMP '2024-01-01 10:00:00', 'abc')")
    table = con.catalog.load_table(("db", "x"))
    md = table.metadata
    spec = md.spec()
    schema = md.schema()
    new_key = _partition_of(spec, schema, (1, dt.datetime(2024, 1, 1, 10), "abc"))
    expected = {1} | {
        i
        for i, ts, s in [
            (2, dt.datetime(2024, 2, 2, 10), "xyz"),
            (3, dt.datetime(2024, 1, 1, 11), "abd"),
        ]
        if _partition_of(spec, schema, (i, ts, s)) != new_key
    }
    assert {r[0] for r in con.execute("SELECT id FROM db.x").fetchall()} == expected


def _partition_of(spec, schema, row):
    import pyarrow as pa

    from icesql.write.sorting import partition_keys

    batch = pa.RecordBatch.from_pydict(
        {"id": [row[0]], "ts": pa.array([row[1]], pa.timestamp("us", "UTC")), "s": [row[2]]}
    )
    [(values, _)] = partition_keys(batch, schema, spec)
    return values


@pytest.mark.parametrize("mode", ["static", "dynamic"])
def test_delete_files_of_replaced_partitions_are_removed(tmp_path, mode):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.d (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO db.d VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'b')")
    table = con.catalog.load_table(("db", "d"))
    files = {
        t.data_file.partition: t.data_file
        for t in plan_files(table.metadata, table.metadata.current_snapshot(), table.io)
    }
    dvs = (
        deletion_vector(table, files[("a",)], [0], "dva.puffin"),
        deletion_vector(table, files[("b",)], [0], "dvb.puffin"),
    )
    commit(con.catalog, table, Change(operation="delete", added_files=dvs))
    assert sorted(r[0] for r in con.execute("SELECT id FROM db.d").fetchall()) == [2, 4]
    con.execute(f"SET spark.sql.sources.partitionOverwriteMode = {mode}")
    if mode == "static":
        con.execute("INSERT OVERWRITE db.d PARTITION (p = 'a') VALUES (10)")
    else:
        con.execute("INSERT OVERWRITE db.d VALUES (10, 'a')")
    assert sorted(r[0] for r in con.execute("SELECT id FROM db.d").fetchall()) == [4, 10]
    op, s = _last(con, "db.d")
    assert op == "overwrite"
    assert (s["removed-dvs"], s["removed-delete-files"], s["removed-position-deletes"]) == (
        "1",
        "1",
        "1",
    )
    assert (s["total-delete-files"], s["total-position-deletes"]) == ("1", "1")
    live = [
        r[0].rsplit("/", 1)[-1]
        for r in con.execute("SELECT file_path FROM db.d.delete_files").fetchall()
    ]
    assert live == ["dvb.puffin"]


def test_old_delete_files_age_out_when_their_data_is_gone(tmp_path):
    """Java drops delete files older than every live data file once a commit removes data."""
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.g (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p) TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO db.g VALUES (1, 'a'), (2, 'a')")
    table = con.catalog.load_table(("db", "g"))
    [task] = plan_files(table.metadata, table.metadata.current_snapshot(), table.io)
    commit(
        con.catalog,
        table,
        Change(
            operation="delete",
            added_files=(deletion_vector(table, task.data_file, [0], "old.puffin"),),
        ),
    )
    con.execute("ALTER TABLE db.g DROP PARTITION FIELD p")  # the DV's partition is not the filter's
    con.execute("INSERT OVERWRITE db.g SELECT 5, 'z'")
    op, s = _last(con, "db.g")
    assert (op, s["total-delete-files"], s["removed-delete-files"]) == ("overwrite", "0", "1")
    assert con.execute("SELECT id, p FROM db.g").fetchall() == [(5, "z")]


def test_a_file_straddling_the_filter_fails_and_changes_nothing(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.e (id BIGINT, p STRING, q INT) USING iceberg PARTITIONED BY (p)")
    con.execute("INSERT INTO db.e VALUES (1, 'a', 1), (2, 'a', 2), (4, 'c', 3)")
    con.execute("ALTER TABLE db.e ADD PARTITION FIELD q")
    before = _version(con, ("db", "e"))
    with pytest.raises(icesql.ProgrammingError, match="holds rows that match and rows that do not"):
        con.execute("INSERT OVERWRITE db.e PARTITION (q = 1) SELECT 6, 'b'")
    assert _version(con, ("db", "e")) == before
    data = tmp_path / "db" / "e" / "data"
    assert not [p for p in data.rglob("*.parquet") if "q=1" in str(p)]  # the new file was deleted
    con.execute("INSERT OVERWRITE db.e PARTITION (q = 3) SELECT 7, 'c'")  # metrics prove q = 3
    assert _rows(con, "db.e") == [(1, "a", 1), (2, "a", 2), (7, "c", 3)]


@pytest.mark.parametrize(
    ("clause", "error", "pattern"),
    [
        ("PARTITION (id = 1) SELECT 'a', 1", icesql.ProgrammingError, "NON_PARTITION_COLUMN.*`id`"),
        ("PARTITION (zz = 1) SELECT 1, 'a'", icesql.ProgrammingError, "NON_PARTITION_COLUMN.*`zz`"),
        (
            "PARTITION (q = 'x') SELECT 1, 'a'",
            icesql.DataError,
            "CAST_INVALID_INPUT.*'x'.*`q`.*INT",
        ),
        ("PARTITION (q = 1.5) SELECT 1, 'a'", icesql.DataError, "CAST_INVALID_INPUT.*'1.5'"),
        ("PARTITION (q = 2147483648) SELECT 1, 'a'", icesql.DataError, "CAST_INVALID_INPUT"),
        (
            "PARTITION (q = 1) SELECT 1",
            icesql.ProgrammingError,
            "NOT_ENOUGH_DATA_COLUMNS.*table columns: id, p",
        ),
        ("PARTITION (q = 1) SELECT 1, 'a', 3", icesql.ProgrammingError, "TOO_MANY_DATA_COLUMNS"),
        ("SELECT 1, 'a'", icesql.ProgrammingError, "NOT_ENOUGH_DATA_COLUMNS"),
        (
            "PARTITION (p = 'a') (p, id, q) SELECT 'a', 1, 2",
            icesql.ProgrammingError,
            "STATIC_PARTITION_COLUMN_IN_INSERT_COLUMN_LIST",
        ),
        ("PARTITION (p = 'a', P = 'b') SELECT 1, 2", icesql.ProgrammingError, "duplicate keys"),
        ("PARTITION (p = upper('a')) SELECT 1, 2", icesql.ProgrammingError, "only literals"),
        ("PARTITION (p = 'a') IF NOT EXISTS SELECT 1, 2", icesql.ProgrammingError, "IF NOT EXISTS"),
        ("SELECT 1, 'a', 'x'", icesql.ProgrammingError, "CANNOT_SAFELY_CAST"),
    ],
)
def test_bad_input_changes_nothing(con, tmp_path, clause, error, pattern):
    before = _version(con)
    files = sorted(p.name for p in (tmp_path / "db" / "t" / "data").rglob("*.parquet"))
    with pytest.raises(error, match=pattern):
        con.execute(f"INSERT OVERWRITE db.t {clause}")
    assert _version(con) == before
    assert sorted(p.name for p in (tmp_path / "db" / "t" / "data").rglob("*.parquet")) == files


def test_partition_values_are_cast_as_spark_casts_them(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.c (v INT, d DATE, x DECIMAL(5,2), s STRING, f FLOAT, ts TIMESTAMP,"
        " tn TIMESTAMP_NTZ, b BOOLEAN, bn BINARY) USING iceberg PARTITIONED BY (d, x, s, f, ts, tn, b, bn)"
    )
    con.execute(
        "INSERT INTO db.c PARTITION (d = '2020', x = 1.005, s = 1.50, f = 'inf',"
        " ts = '2020-01-01 10:00:00+02:00', tn = '2020-01-01T10:00:01.5Z', b = 'yes', bn = X'0102') SELECT 1"
    )
    con.execute(
        "INSERT INTO db.c PARTITION (d = DATE '2020-01-05', x = ' 2 ', s = 1e3, f = -1.5,"
        " ts = TIMESTAMP '2020-01-01 10:00:00', tn = '2020-01-01', b = 0, bn = 'hi') SELECT 2"
    )
    con.execute(
        "INSERT INTO db.c PARTITION (d = ?, x = ?, s = ?, f = ?, ts = ?, tn = ?, b = ?, bn = ?) SELECT 3",
        [
            dt.date(2021, 2, 3),
            Decimal("7.125"),
            "p",
            0.25,
            dt.datetime(2021, 1, 1, tzinfo=dt.UTC),
            dt.datetime(2021, 1, 1, 12),
            True,
            b"\x00",
        ],
    )
    rows = {r[0]: r[1:] for r in con.execute("SELECT * FROM db.c").fetchall()}
    utc = dt.UTC
    assert rows[1][:4] == (dt.date(2020, 1, 1), Decimal("1.01"), "1.50", math.inf)
    assert rows[1][4:] == (
        dt.datetime(2020, 1, 1, 8, tzinfo=utc),
        dt.datetime(2020, 1, 1, 10, 0, 1, 500000),
        True,
        b"\x01\x02",
    )
    assert rows[2] == (
        dt.date(2020, 1, 5),
        Decimal("2.00"),
        "1000.0",
        -1.5,
        dt.datetime(2020, 1, 1, 10, tzinfo=utc),
        dt.datetime(2020, 1, 1),
        False,
        b"hi",
    )
    assert rows[3] == (
        dt.date(2021, 2, 3),
        Decimal("7.13"),
        "p",
        0.25,
        dt.datetime(2021, 1, 1, tzinfo=utc),
        dt.datetime(2021, 1, 1, 12),
        True,
        b"\x00",
    )
    with pytest.raises(icesql.DataError, match="NUMERIC_VALUE_OUT_OF_RANGE.*DECIMAL"):
        con.execute(
            "INSERT INTO db.c PARTITION (x = 12345) SELECT 4, NULL, 'a', 1, NULL, NULL, true, NULL"
        )
    with pytest.raises(icesql.DataError, match="CAST_INVALID_INPUT.*'maybe'.*BOOLEAN"):
        con.execute(
            "INSERT INTO db.c PARTITION (b = 'maybe') SELECT 4, NULL, 1, 'a', 1, NULL, NULL, NULL"
        )
    with pytest.raises(icesql.DataError, match="CAST_INVALID_INPUT.*'2020-13-01'.*DATE"):
        con.execute(
            "INSERT INTO db.c PARTITION (d = '2020-13-01') SELECT 4, 1, 'a', 1, NULL, NULL, true, NULL"
        )
    with pytest.raises(icesql.DataError, match="CAST_INVALID_INPUT.*25:00"):
        con.execute(
            "INSERT INTO db.c PARTITION (ts = '2020-01-01 25:00') SELECT 4, NULL, 1, 'a', 1, NULL, true, NULL"
        )


def test_static_boolean_and_nan_partitions_overwrite(tmp_path):
    """Spark 3.5 cannot push ``b <=> true`` to Iceberg ("does not support overwrite by
    expression"); icesql overwrites the partition, as the statement asks."""
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.b (v INT, b BOOLEAN, f DOUBLE) USING iceberg PARTITIONED BY (b, f)"
    )
    con.execute("INSERT INTO db.b VALUES (1, true, 1.0), (2, false, 1.0), (3, true, double('NaN'))")
    con.execute("INSERT OVERWRITE db.b PARTITION (b = true) SELECT 4, 2.0")
    assert sorted(r[0] for r in con.execute("SELECT v FROM db.b").fetchall()) == [2, 4]
    con.execute("INSERT INTO db.b VALUES (5, false, double('NaN'))")
    con.execute("INSERT OVERWRITE db.b PARTITION (f = 'NaN') SELECT 6, true")
    assert sorted(r[0] for r in con.execute("SELECT v FROM db.b").fetchall()) == [2, 4, 6]
