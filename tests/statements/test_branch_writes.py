"""Every DML statement writes to a branch (``t.branch_b``, or the session's write-audit-publish
branch), reading the branch's head and validating against the branch's history only; a WAP id
stages snapshots that no ref points at. Spark's reading of the same scripts:
``tests/interop/test_refs_spark.py``."""

from __future__ import annotations

import pytest
from table_support import append_before_commit

import icesql
from icesql.errors import CommitConflictError, NoSuchTableError, ProgrammingError

T = ("db", "t")
MODES = [(v, m) for v in (2, 3) for m in ("copy-on-write", "merge-on-read")]


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE NAMESPACE db")
    yield connection
    connection.close()


def _create(con, version: int = 2, mode: str = "copy-on-write") -> None:
    con.execute(
        "CREATE TABLE db.t (id INT, p STRING) USING iceberg PARTITIONED BY (p) TBLPROPERTIES"
        f" ('format-version'='{version}', 'write.delete.mode'='{mode}',"
        f" 'write.update.mode'='{mode}', 'write.merge.mode'='{mode}')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    con.execute("ALTER TABLE db.t CREATE BRANCH b")


def _rows(con, table: str = "db.t") -> list[tuple]:
    return sorted(con.execute(f"SELECT id, p FROM {table}").fetchall())


def _md(con):
    return con.catalog.load_table(T).metadata


@pytest.mark.parametrize(("version", "mode"), MODES)
def test_every_statement_writes_the_branch_and_leaves_main(con, version, mode):
    _create(con, version, mode)
    main = _md(con).current_snapshot().snapshot_id
    con.execute("INSERT INTO db.t.branch_b VALUES (4, 'c')")
    con.execute("DELETE FROM db.t.branch_b WHERE id = 1")  # row by row
    con.execute("DELETE FROM db.t.branch_b WHERE p = 'c'")  # whole files
    con.execute("UPDATE db.t.branch_b SET id = id * 10 WHERE p = 'b'")
    con.execute(
        "MERGE INTO db.t.branch_b t USING (SELECT 2 AS id, 'z' AS p UNION ALL SELECT 7, 'd') s"
        " ON t.id = s.id WHEN MATCHED THEN UPDATE SET p = s.p WHEN NOT MATCHED THEN INSERT *"
    )
    con.execute("INSERT OVERWRITE db.t.branch_b PARTITION (p = 'd') VALUES (70)")
    assert _rows(con, "db.t.branch_b") == [(2, "z"), (30, "b"), (70, "d")]
    assert _rows(con, "db.t VERSION AS OF 'b'") == [(2, "z"), (30, "b"), (70, "d")]
    assert _rows(con) == [(1, "a"), (2, "a"), (3, "b")]
    md = _md(con)
    assert md.current_snapshot().snapshot_id == main
    history, snapshot = [], md.snapshot_for_ref("b")
    while snapshot.snapshot_id != main:
        history.append(snapshot.summary["operation"])
        snapshot = md.snapshot_by_id(snapshot.parent_snapshot_id)
    assert len(history) == 6 and history[-1] == "append"


def test_branch_targets_spark_refuses(con):
    _create(con)
    con.execute("ALTER TABLE db.t CREATE TAG t1")
    with pytest.raises(ProgrammingError, match=r"Cannot use branch \(does not exist\): nope"):
        con.execute("INSERT INTO db.t.branch_nope VALUES (1, 'a')")
    with pytest.raises(ProgrammingError, match="'t1' is a tag"):
        con.execute("DELETE FROM db.t.tag_t1 WHERE id = 1")
    with pytest.raises(NoSuchTableError, match="db.nope"):
        con.execute("INSERT INTO db.nope.branch_b VALUES (1, 'a')")
    con.execute("INSERT INTO db.t.branch_main VALUES (9, 'a')")  # main is a branch too
    assert (9, "a") in _rows(con)


def test_conflicts_are_checked_against_the_branch_only(con, monkeypatch, tmp_path):
    _create(con, 2, "merge-on-read")
    con.execute(
        "ALTER TABLE db.t SET TBLPROPERTIES ('write.delete.isolation-level'='serializable')"
    )
    # an append to main's partition a while deleting from the branch: no conflict
    append_before_commit(con, monkeypatch, str(tmp_path), "INSERT INTO db.t VALUES (5, 'a')", T)
    con.execute("DELETE FROM db.t.branch_b WHERE id % 2 = 1 AND p = 'a'")
    assert _rows(con, "db.t.branch_b") == [(2, "a"), (3, "b")]
    monkeypatch.undo()
    # an append to the branch's partition a: the serializable DELETE fails
    append_before_commit(
        con, monkeypatch, str(tmp_path), "INSERT INTO db.t.branch_b VALUES (6, 'a')", T
    )
    with pytest.raises(CommitConflictError, match="added data file"):
        con.execute("DELETE FROM db.t.branch_b WHERE id % 2 = 0 AND p = 'a'")
    assert _rows(con, "db.t.branch_b") == [(2, "a"), (3, "b"), (6, "a")]


def test_a_wap_branch_takes_every_write_and_the_reads(con):
    _create(con)
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.wap.enabled'='true')")
    con.execute("SET spark.wap.branch = audit")
    assert _rows(con) == [(1, "a"), (2, "a"), (3, "b")]  # no branch yet: main
    con.execute("INSERT INTO db.t VALUES (4, 'c')")  # creates audit from main
    con.execute("UPDATE db.t SET id = 0 WHERE id = 1")
    assert _rows(con) == [(0, "a"), (2, "a"), (3, "b"), (4, "c")]
    assert _rows(con, "db.t.branch_main") == [(1, "a"), (2, "a"), (3, "b")]
    with pytest.raises(ProgrammingError, match="Cannot write to both branch and WAP branch"):
        con.execute("INSERT INTO db.t.branch_b VALUES (1, 'a')")
    con.execute("RESET spark.wap.branch")
    assert _rows(con) == [(1, "a"), (2, "a"), (3, "b")]
    assert _rows(con, "db.t VERSION AS OF 'audit'") == [(0, "a"), (2, "a"), (3, "b"), (4, "c")]


def test_a_wap_id_stages_snapshots_no_ref_points_at(con):
    _create(con, 3, "merge-on-read")
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.wap.enabled'='true')")
    main = _md(con).current_snapshot().snapshot_id
    refs = dict(_md(con).refs)
    con.execute("SET spark.wap.id = job-7")
    con.execute("INSERT INTO db.t VALUES (4, 'c')")
    con.execute("DELETE FROM db.t WHERE id = 1")
    md = _md(con)
    staged = [s for s in md.snapshots if s.summary.get("wap.id") == "job-7"]
    assert [s.summary["operation"] for s in staged] == ["append", "delete"]
    assert all(s.parent_snapshot_id == main for s in staged)
    assert dict(md.refs) == refs and _rows(con) == [(1, "a"), (2, "a"), (3, "b")]
    inserted = staged[0].snapshot_id
    assert _rows(con, f"db.t VERSION AS OF {inserted}") == [(1, "a"), (2, "a"), (3, "b"), (4, "c")]
    con.execute("SET spark.wap.branch = audit")
    with pytest.raises(ProgrammingError, match="Cannot set both WAP ID and branch"):
        con.execute("INSERT INTO db.t VALUES (5, 'c')")


def test_wap_settings_without_the_table_property_change_nothing(con):
    _create(con)
    con.execute("SET spark.wap.branch = audit")
    con.execute("INSERT INTO db.t VALUES (4, 'c')")
    assert "audit" not in _md(con).refs and (4, "c") in _rows(con)
    con.execute("RESET spark.wap.branch")
    con.execute("SET spark.wap.id = x")
    con.execute("INSERT INTO db.t VALUES (5, 'c')")
    assert (5, "c") in _rows(con)
