"""UPDATE: copy-on-write and merge-on-read, row lineage, nested fields, store assignment,
NULL semantics, and failures that change nothing. Spark's answers for the same scripts are
checked in ``tests/interop/test_dml_delete_update.py``."""

from __future__ import annotations

from decimal import Decimal

import pytest
from table_support import last_snapshot, metadata_version, table_files

import icesql

T = ("db", "t")
MODES = [(v, m) for v in (2, 3) for m in ("copy-on-write", "merge-on-read")]


def _create(con, version: int = 2, mode: str = "copy-on-write") -> None:
    con.execute(
        "CREATE TABLE db.t (id INT NOT NULL, p STRING, x DOUBLE, amount DECIMAL(6,2),"
        " s STRUCT<f: INT, g: STRING, inner: STRUCT<k: INT>>, tags ARRAY<STRING>)"
        " USING iceberg PARTITIONED BY (p)"
        f" TBLPROPERTIES ('format-version'='{version}', 'write.update.mode'='{mode}')"
    )
    con.execute(
        "INSERT INTO db.t VALUES"
        " (1,'a',1.0,1.50,named_struct('f',1,'g','x','inner',named_struct('k',10)),array('t1')),"
        " (2,'a',NULL,NULL,NULL,NULL),"
        " (3,'b',3.0,3.00,named_struct('f',3,'g',NULL,'inner',NULL),array()),"
        " (4,'b',4.0,4.25,NULL,array('t4','t4b'))"
    )


def _rows(con, columns: str = "id, p, x") -> list[tuple]:
    return con.execute(f"SELECT {columns} FROM db.t ORDER BY id").fetchall()


def _last(con) -> tuple[str, dict]:
    return last_snapshot(con, "db.t")


def _version(con) -> int:
    return metadata_version(con, T)


def _files(con) -> set[str]:
    return table_files(con, T)


@pytest.mark.parametrize("version, mode", MODES)
def test_update_by_mode(con, version, mode):
    _create(con, version, mode)
    assert con.execute("UPDATE db.t SET x = x * 10 WHERE p = 'a'").rowcount == 2
    assert _rows(con) == [(1, "a", 10.0), (2, "a", None), (3, "b", 3.0), (4, "b", 4.0)]
    op, summary = _last(con)
    assert op == "overwrite" and summary["added-records"] == "2"
    if mode == "copy-on-write":
        assert summary["deleted-data-files"] == "1" and "added-delete-files" not in summary
    else:
        assert summary["added-position-deletes"] == "2" and "deleted-data-files" not in summary
        assert summary.get("added-dvs") == ("1" if version >= 3 else None)
    # the same rows again: their files have deletes now (merge-on-read merges them)
    assert con.execute("UPDATE db.t AS t SET t.x = 0 WHERE t.id <= 2").rowcount == 2
    assert _rows(con)[:2] == [(1, "a", 0.0), (2, "a", 0.0)]


@pytest.mark.parametrize("version, mode", MODES)
def test_row_lineage_is_kept(con, version, mode):
    if version < 3:
        pytest.skip("row lineage is a v3 feature")
    _create(con, version, mode)
    before = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    con.execute("UPDATE db.t SET x = -1 WHERE id = 3")  # sequence number 2
    con.execute("UPDATE db.t SET p = 'c' WHERE id = 4")  # moved partition, sequence number 3
    rows = con.execute("SELECT id, _row_id, _last_updated_sequence_number FROM db.t").fetchall()
    assert {r[0]: r[1] for r in rows} == before
    assert {r[0]: r[2] for r in rows} == {1: 1, 2: 1, 3: 2, 4: 3}


def test_set_sees_the_old_row_and_moves_partitions(con):
    _create(con)
    con.execute(
        "UPDATE db.t SET p = CASE WHEN p = 'a' THEN 'b' ELSE 'a' END, x = id WHERE x IS NOT NULL"
    )
    assert _rows(con) == [(1, "b", 1.0), (2, "a", None), (3, "a", 3.0), (4, "a", 4.0)]
    partitions = con.execute(
        "SELECT partition.p, record_count FROM db.t.files ORDER BY 1"
    ).fetchall()
    assert sum(n for _, n in partitions) == 4


@pytest.mark.parametrize("version, mode", MODES)
def test_null_conditions_update_only_true_rows(con, version, mode):
    _create(con, version, mode)
    assert con.execute("UPDATE db.t SET x = 0.5 WHERE x < 2 OR x = NULL").rowcount == 1
    assert con.execute("UPDATE db.t SET x = NULL WHERE NOT (x > 3)").rowcount == 2
    assert _rows(con) == [(1, "a", None), (2, "a", None), (3, "b", None), (4, "b", 4.0)]


def test_nested_fields(con):
    _create(con, 3, "merge-on-read")
    assert con.execute("UPDATE db.t SET s.f = s.f + 100, s.inner.k = 0").rowcount == 4
    assert _rows(con, "id, s") == [
        (1, {"f": 101, "g": "x", "inner": {"k": 0}}),
        (2, {"f": None, "g": None, "inner": {"k": 0}}),  # a NULL struct becomes a struct (Spark)
        (3, {"f": 103, "g": None, "inner": {"k": 0}}),
        (4, {"f": None, "g": None, "inner": {"k": 0}}),
    ]
    con.execute("UPDATE db.t SET s = NULL, tags = array('new') WHERE id = 1")
    assert _rows(con, "id, s, tags")[0] == (1, None, ["new"])


def test_store_assignment_converts_like_spark(con):
    _create(con)
    con.execute("UPDATE db.t SET id = id + 0.9, amount = 2.345 WHERE id = 1")  # truncated, rounded
    assert _rows(con, "id, amount")[0] == (1, Decimal("2.35"))
    con.execute(
        "UPDATE db.t SET x = amount, p = 7 WHERE id = 1"
    )  # decimal -> double, int -> string
    assert _rows(con)[0] == (1, "7", 2.35)


def test_subqueries_in_set_and_where(con):
    _create(con)
    con.execute("CREATE TABLE db.u (id INT, bonus DOUBLE) USING iceberg")
    con.execute("INSERT INTO db.u VALUES (1, 0.5), (4, 1.5)")
    n = con.execute(
        "UPDATE db.t AS t SET x = (SELECT bonus FROM db.u AS u WHERE u.id = t.id)"
        " WHERE EXISTS (SELECT 1 FROM db.u AS u WHERE u.id = t.id)"
    ).rowcount
    assert n == 2
    assert [r[2] for r in _rows(con)] == [0.5, None, 3.0, 1.5]
    con.execute("UPDATE db.t SET x = (SELECT max(x) FROM db.t) WHERE id = 2")  # the target itself
    assert _rows(con)[1] == (2, "a", 3.0)


@pytest.mark.parametrize(
    "sql, error, pattern",
    [
        ("UPDATE db.t SET nope = 1", icesql.ProgrammingError, r"UNRESOLVED_COLUMN.*db\.t.*`nope`"),
        ("UPDATE db.t SET id = 'abc'", icesql.ProgrammingError, r"CANNOT_SAFELY_CAST.*db\.t.*`id`"),
        ("UPDATE db.t SET x = true", icesql.ProgrammingError, "cast `x` BOOLEAN to DOUBLE"),
        ("UPDATE db.t SET id = 3000000000", icesql.DataError, r"CAST_OVERFLOW.*db\.t.*`id`"),
        ("UPDATE db.t SET id = NULL WHERE id = 3", icesql.IntegrityError, "NOT NULL.*`id`"),
        ("UPDATE db.t SET x = 1, x = 2", icesql.ProgrammingError, "Multiple assignments for 'x'"),
        (
            "UPDATE db.t SET s = NULL, s.f = 1",
            icesql.ProgrammingError,
            "Conflicting assignments for 's'",
        ),
        ("UPDATE db.t SET s.nope = 1", icesql.ProgrammingError, "`s` has no field `nope`"),
        ("UPDATE db.t SET tags.element = 'x'", icesql.NotSupportedError, "array or map"),
        ("UPDATE db.missing SET x = 1", icesql.ProgrammingError, "table not found: db.missing"),
        ("UPDATE db.t VERSION AS OF 1 SET x = 1", icesql.NotSupportedError, "time travel"),
    ],
)
def test_bad_updates_change_nothing(con, sql, error, pattern):
    _create(con, 3, "merge-on-read")
    before, files = _version(con), _files(con)
    with pytest.raises(error, match=pattern):
        con.execute(sql)
    assert _version(con) == before and _files(con) == files


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
def test_a_late_failure_removes_the_files_already_written(con, mode):
    """The error comes after the first 64K-row batches were written as data files."""
    con.execute(
        "CREATE TABLE db.t (id BIGINT NOT NULL, v STRING) USING iceberg TBLPROPERTIES"
        f" ('write.update.mode'='{mode}', 'write.parquet.row-group-size-bytes'='4096',"
        " 'write.target-file-size-bytes'='65536')"
    )
    con.execute(
        "INSERT INTO db.t SELECT id, concat('v', id) FROM (SELECT explode(sequence(0, 199999)) AS id)"
    )
    before, files = _version(con), _files(con)
    with pytest.raises(icesql.IntegrityError, match="NOT NULL"):
        con.execute("UPDATE db.t SET id = CASE WHEN id = 199999 THEN NULL ELSE id + 1 END")
    assert _version(con) == before and _files(con) == files
    assert con.execute("SELECT count(*), max(id) FROM db.t").fetchone() == (200000, 199999)
