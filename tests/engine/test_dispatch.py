"""The engine's dispatch, through a connection: each statement kind reaches its handler,
what icesql has no handler for is refused by name, EXPLAIN shows the scan and DuckDB
sections, and a statement that fails leaves the table as it was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import icesql
from icesql.errors import DataError, IntegrityError, NotSupportedError, ProgrammingError


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute(
        "CREATE TABLE db.t (id BIGINT NOT NULL, p STRING) USING iceberg PARTITIONED BY (p)"
    )
    connection.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    yield connection
    connection.close()


def _rows(con, sql: str) -> list[tuple]:
    return sorted(con.execute(sql).fetchall())


def _location(tmp_path: Path) -> Path:
    return tmp_path / "db" / "t"


def _metadata_files(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (_location(tmp_path) / "metadata").glob("*.metadata.json"))


def _current(tmp_path: Path) -> dict:
    files = sorted(
        (_location(tmp_path) / "metadata").glob("v*.metadata.json"),
        key=lambda p: int(p.name[1:].split(".")[0]),
    )
    return json.loads(files[-1].read_text())


# --- dispatch -------------------------------------------------------------------------------


def test_each_statement_kind_reaches_its_handler(con):
    # DML: each changes the rows as its handler should
    assert con.execute("INSERT INTO db.t VALUES (3, 'a')").rowcount == 1
    con.execute("UPDATE db.t SET p = 'c' WHERE id = 3")
    con.execute("DELETE FROM db.t WHERE id = 2")
    con.execute(
        "MERGE INTO db.t tgt USING (SELECT 1 AS id, 'm' AS p) s ON tgt.id = s.id"
        " WHEN MATCHED THEN UPDATE SET p = s.p"
    )
    assert _rows(con, "SELECT * FROM db.t") == [(1, "m"), (3, "c")]
    # ALTER, DESCRIBE, SHOW, SET, DROP
    con.execute("ALTER TABLE db.t ADD COLUMN extra INT")
    assert [r[0] for r in con.execute("DESCRIBE db.t").fetchall()[:3]] == ["id", "p", "extra"]
    assert con.execute("SHOW TABLES IN db").fetchall() == [("db", "t", False)]
    assert con.execute("SET spark.sql.anything = 7").fetchall() == [("spark.sql.anything", "7")]
    con.execute("DROP TABLE db.t")
    assert con.execute("SHOW TABLES IN db").fetchall() == []


def test_each_dml_statement_commits_one_snapshot(con, tmp_path):
    before = len(_current(tmp_path)["snapshots"])
    con.execute("INSERT INTO db.t VALUES (3, 'a')")
    con.execute("UPDATE db.t SET p = 'c' WHERE id = 3")
    con.execute("DELETE FROM db.t WHERE id = 2")
    con.execute(
        "MERGE INTO db.t tgt USING (SELECT 1 AS id, 'm' AS p) s ON tgt.id = s.id"
        " WHEN MATCHED THEN UPDATE SET p = s.p"
    )
    snapshots = _current(tmp_path)["snapshots"]
    assert len(snapshots) == before + 4
    assert [s["summary"]["operation"] for s in snapshots[before:]] == [
        "append",
        "overwrite",
        "delete",
        "overwrite",
    ]


def test_queries_do_not_commit(con, tmp_path):
    files = _metadata_files(tmp_path)
    assert _rows(con, "SELECT id FROM db.t WHERE p = 'b'") == [(2,)]
    assert _rows(con, "WITH x AS (SELECT * FROM db.t) SELECT count(*) FROM x") == [(2,)]
    assert _rows(con, "SELECT id FROM db.t UNION ALL SELECT 9") == [(1,), (2,), (9,)]
    assert _metadata_files(tmp_path) == files


@pytest.mark.parametrize(
    ("sql", "construct"),
    [
        ("TRUNCATE TABLE db.t", "^TRUNCATE TABLE statements"),
        ("LOAD DATA INPATH '/x' INTO TABLE db.t", "^LOAD DATA statements"),
        ("CACHE TABLE db.t", "CACHE"),
        ("ANALYZE TABLE db.t COMPUTE STATISTICS", "ANALYZE"),
        ("REFRESH TABLE db.t", "REFRESH"),
        ("GRANT SELECT ON db.t TO u", "GRANT"),
        ("EXPLAIN INSERT INTO db.t VALUES (3, 'c')", "EXPLAIN"),
    ],
)
def test_statements_without_a_handler_are_refused_by_name(con, tmp_path, sql, construct):
    files = _metadata_files(tmp_path)
    with pytest.raises(NotSupportedError, match=construct):
        con.execute(sql)
    assert _metadata_files(tmp_path) == files
    assert _rows(con, "SELECT * FROM db.t") == [(1, "a"), (2, "b")]


@pytest.mark.parametrize(
    ("sql", "params", "pattern"),
    [
        ("", (), "no statement"),
        ("SELECT 1; SELECT 2", (), "one statement, got 2"),
        ("SELECT ?", (), r"1 parameter marker\(s\) but 0"),
        ("SELECT 1", (5,), r"0 parameter marker\(s\) but 1"),
        ("EXPLAIN SELECT * FROM db.t WHERE id = ?", (), r"1 parameter marker\(s\) but 0"),
        ("INSERT INTO db.t VALUES (?, ?)", (1,), r"2 parameter marker\(s\) but 1"),
    ],
)
def test_statement_shape_errors(con, sql, params, pattern):
    with pytest.raises(ProgrammingError, match=pattern):
        con.execute(sql, params)


def test_parameters_reach_queries_and_statements(con):
    con.execute("INSERT INTO db.t VALUES (?, ?)", (7, "q"))
    assert con.execute("SELECT id FROM db.t WHERE p = ?", ("q",)).fetchall() == [(7,)]


# --- EXPLAIN --------------------------------------------------------------------------------


def test_explain_shows_each_iceberg_scan_then_duckdb_plan(con, tmp_path):
    snapshot = _current(tmp_path)["current-snapshot-id"]
    cur = con.execute("EXPLAIN SELECT * FROM db.t x WHERE p = 'a'")
    assert [d[0] for d in cur.description] == ["plan"]
    ((text,),) = cur.fetchall()
    sections = re.findall(r"^== (.*) ==$", text, flags=re.M)
    assert sections == ["Iceberg scan: db.t AS x", "DuckDB plan"]
    assert f"snapshot: {snapshot} (schema 0)" in text
    # two files, one per partition: the filter on p keeps one
    assert "data files: total 2, read 1, skipped by partition 1" in text
    assert "pushed filter: p = 'a'" in text


def test_explain_modes_and_joins(con):
    ((text,),) = con.execute(
        "EXPLAIN EXTENDED SELECT * FROM db.t a JOIN db.t b ON a.id = b.id"
    ).fetchall()
    assert re.findall(r"^== (.*) ==$", text, flags=re.M) == [
        "Iceberg scan: db.t AS a",
        "Iceberg scan: db.t AS b",
        "DuckDB plan",
    ]


def test_explain_of_a_query_without_tables_has_only_the_duckdb_plan(con):
    ((text,),) = con.execute("EXPLAIN SELECT 1").fetchall()
    assert text.startswith("== DuckDB plan ==")


def test_explain_does_not_run_or_commit(con, tmp_path):
    files = _metadata_files(tmp_path)
    con.execute("EXPLAIN SELECT * FROM db.t WHERE id = 1").fetchall()
    assert _metadata_files(tmp_path) == files


# --- a failed statement leaves no trace in the table ----------------------------------------


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("INSERT INTO db.t VALUES (NULL, 'x')", IntegrityError),  # NOT NULL
        ("INSERT INTO db.t VALUES ('x', 'y')", ProgrammingError),  # CANNOT_SAFELY_CAST
        ("INSERT INTO db.t VALUES (1e30, 'y')", DataError),  # overflow
        ("INSERT INTO db.t VALUES (1)", ProgrammingError),  # arity
        ("UPDATE db.t SET id = NULL WHERE p = 'a'", IntegrityError),
        ("INSERT INTO db.t SELECT id, p FROM db.nope", ProgrammingError),
    ],
)
def test_a_failed_statement_leaves_no_new_snapshot(con, tmp_path, sql, error):
    before = _current(tmp_path)
    files = _metadata_files(tmp_path)
    with pytest.raises(error):
        con.execute(sql)
    after = _current(tmp_path)
    assert _metadata_files(tmp_path) == files
    assert after["current-snapshot-id"] == before["current-snapshot-id"]
    assert len(after["snapshots"]) == len(before["snapshots"])
    assert _rows(con, "SELECT * FROM db.t") == [(1, "a"), (2, "b")]


def test_failed_query_does_not_poison_the_connection(con):
    with pytest.raises(icesql.Error):
        con.execute("SELECT no_such_column FROM db.t")
    assert _rows(con, "SELECT id FROM db.t") == [(1,), (2,)]


# --- time travel and metadata tables resolve through the engine -----------------------------


def test_time_travel_reads_an_older_snapshot(con, tmp_path):
    first = _current(tmp_path)["current-snapshot-id"]
    con.execute("INSERT INTO db.t VALUES (3, 'c')")
    assert _rows(con, f"SELECT id FROM db.t VERSION AS OF {first}") == [(1,), (2,)]
    assert _rows(con, "SELECT id FROM db.t") == [(1,), (2,), (3,)]
    # a number is seconds since the epoch (Spark casts it); far future = current snapshot
    assert _rows(con, "SELECT count(*) FROM db.t TIMESTAMP AS OF 32503680000") == [(3,)]


def test_timestamp_as_of_null_is_refused(con):
    with pytest.raises(ProgrammingError, match="NULL"):
        con.execute("SELECT * FROM db.t TIMESTAMP AS OF CAST(NULL AS TIMESTAMP)")


def test_metadata_table_takes_its_name_as_default_alias(con, tmp_path):
    snapshot = _current(tmp_path)["current-snapshot-id"]
    assert con.execute("SELECT snapshots.snapshot_id FROM db.t.snapshots").fetchall() == [
        (snapshot,)
    ]


# --- nanosecond timestamps ------------------------------------------------------------------


def _nano_table(tmp_path: Path, fmt: str) -> icesql.Connection:
    """Three files of a v3 table, one nanosecond apart around midnight, partitioned by day."""
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.n (id INT, ts TIMESTAMP_NS, tz TIMESTAMPTZ_NS) USING iceberg"
        " PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version'='3',"
        f" 'write.format.default'='{fmt}', 'write.delete.mode'='merge-on-read')"
    )
    for i, text in enumerate(
        ["2023-12-31 23:59:59.999999999", "2024-01-01 00:00:00", "2024-01-01 00:00:00.000000001"],
        start=1,
    ):
        con.execute(
            f"INSERT INTO db.n SELECT {i}, CAST('{text}' AS TIMESTAMP_NS),"
            f" CAST('{text}Z' AS TIMESTAMPTZ_NS)"
        )
    return con


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
@pytest.mark.parametrize(
    ("condition", "ids", "read"),
    [
        ("ts > TIMESTAMP '2024-01-01 00:00:00'", [3], 1),
        ("tz > TIMESTAMP '2024-01-01 00:00:00'", [3], 1),
        ("ts >= TIMESTAMP '2024-01-01 00:00:00'", [2, 3], 2),
        (
            "ts BETWEEN TIMESTAMP '2023-12-31 23:59:59.999999' AND TIMESTAMP '2024-01-01 00:00:00'",
            [1, 2],
            2,
        ),
        ("ts IN (TIMESTAMP '2024-01-01 00:00:00')", [2], 1),
        ("ts < DATE '2024-01-01'", [1], 1),
        ("ts = '2024-01-01 00:00:00.000000001'", [3], 1),
        ("tz = CAST('2024-01-01 01:00:00.000000001+01:00' AS TIMESTAMPTZ_NS)", [3], 1),
        ("ts = tz", [1, 2, 3], 3),
    ],
)
def test_nanosecond_timestamps_compare_and_prune_to_the_nanosecond(
    tmp_path, fmt, condition, ids, read
):
    """A Spark TIMESTAMP literal (DuckDB's TIMESTAMPTZ) against a nanosecond column was a binder
    error; now every nanosecond counts in the answer, and the planner converts the literal
    exactly, so partitions (days) and column bounds skip the files that cannot match."""
    con = _nano_table(tmp_path, fmt)
    query = f"SELECT id FROM db.n WHERE {condition} ORDER BY id"
    assert [r[0] for r in con.execute(query).fetchall()] == ids
    ((plan,),) = con.execute("EXPLAIN " + query).fetchall()
    assert f"data files: total 3, read {read}," in plan
    con.execute("SET icesql.scan.nativeParquet = false")
    assert [r[0] for r in con.execute(query).fetchall()] == ids


def test_nanosecond_timestamps_in_dml_and_python_frames(tmp_path):
    con = _nano_table(tmp_path, "parquet")
    con.execute("DELETE FROM db.n WHERE ts > TIMESTAMP '2024-01-01 00:00:00'")
    con.execute(
        "UPDATE db.n SET id = 20 WHERE tz BETWEEN TIMESTAMP '2024-01-01 00:00:00'"
        " AND TIMESTAMP '2024-01-01 00:00:00'"
    )
    con.execute(
        "MERGE INTO db.n x USING (SELECT TIMESTAMP '2023-12-31 23:59:59.999999' AS k) s"
        " ON x.ts > s.k AND x.id = 1 WHEN MATCHED THEN UPDATE SET id = 10"
    )
    rows = con.execute("SELECT id, ts FROM db.n ORDER BY id").fetchall()
    assert [(i, ts.value) for i, ts in rows] == [
        (10, 1_704_067_199_999_999_999),
        (20, 1_704_067_200_000_000_000),
    ]
    frame = con.execute("SELECT ts FROM db.n").df()  # pandas' datetime64[ns]
    con.register("frame", frame)
    assert con.execute(
        "SELECT count(*) FROM frame WHERE ts >= TIMESTAMP '2024-01-01 00:00:00'"
    ).fetchall() == [(1,)]
