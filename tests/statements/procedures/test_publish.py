"""cherrypick_snapshot and publish_changes: fast-forwards, re-applied appends with Java's
summary, and Spark's refusals (already an ancestor, already picked, duplicate WAP id)."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError


def _md(con):
    return con.catalog.load_table(("db", "t")).metadata


def _ids(con) -> list[int]:
    return sorted(r[0] for r in con.execute("SELECT id FROM db.t").fetchall())


def _stage(con, wap_id: str, value: int) -> int:
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.wap.enabled' = 'true')")
    con.execute(f"SET spark.wap.id = {wap_id}")
    con.execute(f"INSERT INTO db.t VALUES ({value})")
    con.execute("RESET spark.wap.id")
    return next(s.snapshot_id for s in _md(con).snapshots if s.summary.get("wap.id") == wap_id)


def test_a_staged_child_of_main_is_fast_forwarded(con, history):
    staged = _stage(con, "w1", 7)
    cur = con.execute("CALL system.publish_changes('db.t', 'w1')")
    assert [d[0] for d in cur.description] == ["source_snapshot_id", "current_snapshot_id"]
    assert cur.fetchall() == [(staged, staged)]
    assert _ids(con) == [0, 1, 2, 7]
    with pytest.raises(ProgrammingError, match="published already: w1"):
        con.execute("CALL system.publish_changes('db.t', 'w1')")


@pytest.mark.parametrize("version", [2, 3])
def test_an_append_is_re_applied_on_a_moved_main(con, history, version):
    con.execute(f"ALTER TABLE db.t SET TBLPROPERTIES ('format-version' = '{version}')")
    staged = _stage(con, "w2", 8)
    con.execute("INSERT INTO db.t VALUES (9)")  # main moves past the staged snapshot's parent
    ((source, current),) = con.execute(
        "CALL system.publish_changes(wap_id => 'w2', table => 'db.t')"
    ).fetchall()
    md = _md(con)
    picked = md.current_snapshot()
    assert (source, current) == (staged, picked.snapshot_id) and staged != current
    assert picked.summary["operation"] == "append"
    assert picked.summary["source-snapshot-id"] == str(staged)
    assert picked.summary["published-wap-id"] == "w2"
    assert picked.summary["added-records"] == "1"
    assert _ids(con) == [0, 1, 2, 8, 9]
    with pytest.raises(ProgrammingError, match="published already: w2"):
        con.execute(f"CALL system.cherrypick_snapshot('db.t', {staged})")


def test_cherrypick_refusals(con, history):
    con.execute(f"ALTER TABLE db.t CREATE BRANCH b AS OF VERSION {history[0]}")
    con.execute("INSERT INTO db.t.branch_b VALUES (5)")
    picked = _md(con).refs["b"].snapshot_id
    cur = con.execute(f"CALL system.cherrypick_snapshot(table => 'db.t', snapshot_id => {picked})")
    assert cur.fetchall()[0][0] == picked
    assert _ids(con) == [0, 1, 2, 5]
    with pytest.raises(
        ProgrammingError, match=f"Cannot cherrypick snapshot {picked}: already picked"
    ):
        con.execute(f"CALL system.cherrypick_snapshot('db.t', {picked})")
    with pytest.raises(
        ProgrammingError, match=f"Cannot cherrypick snapshot {history[1]}: already an ancestor"
    ):
        con.execute(f"CALL system.cherrypick_snapshot('db.t', {history[1]})")
    con.execute("DELETE FROM db.t.branch_b WHERE id = 5")
    deleted = _md(con).refs["b"].snapshot_id
    with pytest.raises(ProgrammingError, match="not append, dynamic overwrite, or fast-forward"):
        con.execute(f"CALL system.cherrypick_snapshot('db.t', {deleted})")
    with pytest.raises(ProgrammingError, match="Cannot cherry-pick unknown snapshot ID: 42"):
        con.execute("CALL system.cherrypick_snapshot('db.t', 42)")


def test_publish_changes_needs_one_snapshot_of_the_id(con, history):
    with pytest.raises(ProgrammingError, match="Cannot apply unknown WAP ID 'w'"):
        con.execute("CALL system.publish_changes('db.t', 'w')")
    _stage(con, "w", 1)
    con.execute("SET spark.wap.id = w")
    con.execute("INSERT INTO db.t VALUES (2)")
    with pytest.raises(ProgrammingError, match="Found multiple snapshots with WAP ID 'w'"):
        con.execute("CALL system.publish_changes('db.t', 'w')")
