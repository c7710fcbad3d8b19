"""rollback_to_snapshot, rollback_to_timestamp, set_current_snapshot, fast_forward and
ancestors_of: where main (or the branch) ends up, Spark's output rows and Spark's errors."""

from __future__ import annotations

import pytest

from icesql.errors import CommitConflictError, ProgrammingError
from icesql.statements.procedures.snapshots import move_branch


def _md(con):
    return con.catalog.load_table(("db", "t")).metadata


def _ids(con, ref: str = "") -> list[int]:
    suffix = f" VERSION AS OF '{ref}'" if ref else ""
    return sorted(r[0] for r in con.execute(f"SELECT id FROM db.t{suffix}").fetchall())


def test_rollback_to_an_ancestor_and_forward_again(con, history):
    cur = con.execute(f"CALL system.rollback_to_snapshot('db.t', {history[0]})")
    assert cur.fetchall() == [(history[2], history[0])]
    assert _ids(con) == [0]
    with pytest.raises(
        ProgrammingError, match=f"not an ancestor of the current state: {history[2]}"
    ):
        con.execute(f"CALL system.rollback_to_snapshot('db.t', {history[2]})")
    with pytest.raises(ProgrammingError, match="Cannot roll back to unknown snapshot id: 42"):
        con.execute("CALL system.rollback_to_snapshot('db.t', 42)")
    cur = con.execute(f"CALL system.set_current_snapshot('db.t', {history[2]})")  # any snapshot
    assert cur.fetchall() == [(history[0], history[2])]
    assert _ids(con) == [0, 1, 2]
    log = [e.snapshot_id for e in _md(con).snapshot_log]
    assert log[-2:] == [history[0], history[2]]


def test_rollback_to_timestamp_takes_the_latest_ancestor_strictly_older(con, history):
    md = _md(con)
    ts = md.snapshot_by_id(history[1]).timestamp_ms
    cur = con.execute(f"CALL system.rollback_to_timestamp('db.t', TIMESTAMP_MILLIS({ts}))")
    assert cur.fetchall() == [(history[2], history[0])]
    con.execute(f"CALL system.set_current_snapshot('db.t', {history[2]})")
    cur = con.execute(f"CALL system.rollback_to_timestamp('db.t', TIMESTAMP_MILLIS({ts + 1}))")
    assert cur.fetchall() == [(history[2], history[1])]


def test_set_current_snapshot_to_a_ref(con, history):
    con.execute(f"ALTER TABLE db.t CREATE TAG t0 AS OF VERSION {history[0]}")
    cur = con.execute("CALL system.set_current_snapshot(table => 'db.t', ref => 't0')")
    assert cur.fetchall() == [(history[2], history[0])]
    with pytest.raises(ProgrammingError, match="Cannot find matching snapshot ID for ref nope"):
        con.execute("CALL system.set_current_snapshot(table => 'db.t', ref => 'nope')")
    with pytest.raises(
        ProgrammingError, match="Either snapshot_id or ref must be provided, not both"
    ):
        con.execute(f"CALL system.set_current_snapshot('db.t', {history[0]}, 't0')")


def test_fast_forward_moves_a_branch_to_a_descendant(con, history):
    con.execute(f"ALTER TABLE db.t CREATE BRANCH b AS OF VERSION {history[2]}")
    con.execute("INSERT INTO db.t.branch_b VALUES (10)")
    head = _md(con).refs["b"].snapshot_id
    with pytest.raises(ProgrammingError, match="Cannot fast-forward: b is not an ancestor of t0"):
        con.execute(f"ALTER TABLE db.t CREATE TAG t0 AS OF VERSION {history[0]}")
        con.execute("CALL system.fast_forward('db.t', 'b', 't0')")
    cur = con.execute("CALL system.fast_forward('db.t', 'main', 'b')")
    assert cur.fetchall() == [("main", history[2], head)]
    assert _ids(con) == [0, 1, 2, 10]


def test_fast_forward_outputs_and_errors(con, history):
    con.execute(
        f"ALTER TABLE db.t CREATE BRANCH old AS OF VERSION {history[0]}"
        " WITH SNAPSHOT RETENTION 4 SNAPSHOTS"
    )
    cur = con.execute("CALL system.fast_forward('db.t', 'old', 'main')")
    assert [d[0] for d in cur.description] == ["branch_updated", "previous_ref", "updated_ref"]
    assert cur.fetchall() == [("old", history[0], history[2])]
    assert _md(con).refs["old"].min_snapshots_to_keep == 4  # retention kept
    assert con.execute("CALL system.fast_forward('db.t', 'new', 'main')").fetchall() == [
        ("new", None, history[2])
    ]
    con.execute("ALTER TABLE db.t CREATE TAG t1")
    with pytest.raises(ProgrammingError, match="Ref t1 is a tag not a branch"):
        con.execute("CALL system.fast_forward('db.t', 't1', 'main')")
    with pytest.raises(ProgrammingError, match="Ref does not exist: nope"):
        con.execute("CALL system.fast_forward('db.t', 'main', 'nope')")


def test_ancestors_of_the_current_snapshot_or_a_given_one(con, history):
    md = _md(con)
    rows = con.execute("CALL system.ancestors_of('db.t')").fetchall()
    assert rows == [(i, md.snapshot_by_id(i).timestamp_ms) for i in reversed(history)]
    con.execute("CREATE TABLE db.empty (id INT) USING iceberg")
    assert con.execute("CALL system.ancestors_of('db.empty')").fetchall() == []


def test_a_concurrent_move_of_the_branch_fails_the_procedure(con, history):
    stale = con.catalog.load_table(("db", "t"))
    con.execute("INSERT INTO db.t VALUES (3)")
    with pytest.raises(CommitConflictError, match="moved ref 'main'"):
        move_branch(con.catalog, stale, "main", history[0])
    assert _ids(con) == [0, 1, 2, 3]
