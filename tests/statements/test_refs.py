"""ALTER TABLE ... CREATE / REPLACE / DROP BRANCH and TAG: where refs point, their retention,
and Spark's errors for existing, missing and wrong-kind refs and for ``main``."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import AlreadyExistsError, CommitConflictError, ProgrammingError
from icesql.sql.dialect import parse_one
from icesql.statements.refs import change_ref

DAY = 86_400_000


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE NAMESPACE db")
    connection.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    yield connection
    connection.close()


def _md(con):
    return con.catalog.load_table(("db", "t")).metadata


def _head(con) -> int:
    return _md(con).current_snapshot().snapshot_id


def _refs(con) -> dict[str, tuple]:
    rows = con.execute(
        "SELECT name, type, snapshot_id, max_reference_age_in_ms,"
        " min_snapshots_to_keep, max_snapshot_age_in_ms FROM db.t.refs"
    ).fetchall()
    return {r[0]: r[1:] for r in rows}


def test_create_branch_and_tag_at_the_current_snapshot_or_a_version(con):
    con.execute("INSERT INTO db.t VALUES (1)")
    first = _head(con)
    con.execute("INSERT INTO db.t VALUES (2)")
    second = _head(con)
    con.execute(
        "ALTER TABLE db.t CREATE BRANCH b RETAIN 7 DAYS WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 HOURS"
    )
    con.execute(f"ALTER TABLE db.t CREATE TAG `t-1` AS OF VERSION {first} RETAIN 10 MINUTES")
    assert _refs(con) == {
        "main": ("BRANCH", second, None, None, None),
        "b": ("BRANCH", second, 7 * DAY, 3, 2 * 3_600_000),
        "t-1": ("TAG", first, 600_000, None, None),
    }
    assert con.execute("SELECT id FROM db.t VERSION AS OF 't-1'").fetchall() == [(1,)]
    assert sorted(con.execute("SELECT id FROM db.t.branch_b").fetchall()) == [(1,), (2,)]


def test_replace_moves_the_ref_and_keeps_the_retention_not_given(con):
    con.execute("INSERT INTO db.t VALUES (1)")
    first = _head(con)
    con.execute("ALTER TABLE db.t CREATE BRANCH b WITH SNAPSHOT RETENTION 3 SNAPSHOTS")
    con.execute("ALTER TABLE db.t CREATE TAG t1 RETAIN 1 DAYS")
    con.execute("INSERT INTO db.t VALUES (2)")
    second = _head(con)
    con.execute("ALTER TABLE db.t REPLACE BRANCH b RETAIN 2 DAYS")
    con.execute(f"ALTER TABLE db.t CREATE OR REPLACE TAG t1 AS OF VERSION {first}")
    con.execute("ALTER TABLE db.t CREATE OR REPLACE TAG t2")  # created
    refs = _refs(con)
    assert refs["b"] == ("BRANCH", second, 2 * DAY, 3, None)
    assert refs["t1"] == ("TAG", first, DAY, None, None)
    assert refs["t2"] == ("TAG", second, None, None, None)


def test_a_branch_of_a_table_without_snapshots_gets_an_empty_snapshot(con):
    con.execute("ALTER TABLE db.t CREATE BRANCH b RETAIN 2 DAYS")
    md = _md(con)
    assert md.current_snapshot() is None
    snapshot = md.snapshot_for_ref("b")
    assert snapshot.summary["operation"] == "append" and snapshot.parent_snapshot_id is None
    assert md.refs["b"].max_ref_age_ms == 2 * DAY
    assert con.execute("SELECT * FROM db.t.branch_b").fetchall() == []
    with pytest.raises(
        ProgrammingError, match="create or replace tag operation on db.t, main has no snapshot"
    ):
        con.execute("ALTER TABLE db.t CREATE TAG t1")


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        ("ALTER TABLE db.t CREATE BRANCH b", AlreadyExistsError, "Ref b already exists"),
        ("ALTER TABLE db.t CREATE TAG b", AlreadyExistsError, "Ref b already exists"),
        ("ALTER TABLE db.t REPLACE BRANCH nope", ProgrammingError, "Branch does not exist: nope"),
        ("ALTER TABLE db.t REPLACE TAG b", ProgrammingError, "Ref b is a branch not a tag"),
        ("ALTER TABLE db.t REPLACE BRANCH t1", ProgrammingError, "Ref t1 is a tag not a branch"),
        ("ALTER TABLE db.t DROP BRANCH main", ProgrammingError, "Cannot remove main branch"),
        (
            "ALTER TABLE db.t DROP BRANCH IF EXISTS main",
            ProgrammingError,
            "Cannot remove main branch",
        ),
        ("ALTER TABLE db.t DROP BRANCH nope", ProgrammingError, "Branch does not exist: nope"),
        ("ALTER TABLE db.t DROP TAG nope", ProgrammingError, "Tag does not exist: nope"),
        ("ALTER TABLE db.t DROP TAG b", ProgrammingError, "Ref b is a branch not a tag"),
        ("ALTER TABLE db.t DROP BRANCH t1", ProgrammingError, "Ref t1 is a tag not a branch"),
        (
            "ALTER TABLE db.t CREATE BRANCH x AS OF VERSION 42",
            ProgrammingError,
            "Cannot set x to unknown snapshot: 42",
        ),
    ],
)
def test_spark_errors(con, sql, error, message):
    con.execute("INSERT INTO db.t VALUES (1)")
    con.execute("ALTER TABLE db.t CREATE BRANCH b")
    con.execute("ALTER TABLE db.t CREATE TAG t1")
    with pytest.raises(error, match=message):
        con.execute(sql)
    assert set(_refs(con)) == {"main", "b", "t1"}


def test_if_not_exists_and_if_exists_do_nothing(con):
    con.execute("INSERT INTO db.t VALUES (1)")
    con.execute("ALTER TABLE db.t CREATE BRANCH b RETAIN 1 DAYS")
    location = con.catalog.load_table(("db", "t")).metadata_location
    con.execute("ALTER TABLE db.t CREATE BRANCH IF NOT EXISTS b RETAIN 9 DAYS")
    con.execute("ALTER TABLE db.t CREATE TAG IF NOT EXISTS b")
    con.execute("ALTER TABLE db.t DROP TAG IF EXISTS nope")
    assert con.catalog.load_table(("db", "t")).metadata_location == location
    con.execute("ALTER TABLE db.t DROP BRANCH b")
    assert set(_refs(con)) == {"main"}


def test_a_ref_moved_since_the_statement_read_the_table_fails_it(con):
    con.execute("INSERT INTO db.t VALUES (1)")
    con.execute("ALTER TABLE db.t CREATE BRANCH b")
    stale = con.catalog.load_table(("db", "t"))
    con.execute("INSERT INTO db.t VALUES (2)")
    con.execute("ALTER TABLE db.t REPLACE BRANCH b")
    action = parse_one("ALTER TABLE db.t DROP BRANCH b").args["actions"][0]
    with pytest.raises(CommitConflictError, match="moved ref 'b'"):
        change_ref(con.catalog, stale, action)
    assert "b" in _refs(con)
