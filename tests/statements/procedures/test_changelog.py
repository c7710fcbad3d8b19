"""CALL system.create_changelog_view: the view it registers (named, replaced, listed, a range
fixed when it is made), the options Spark's changelog scan reads, and Spark's errors for bad
arguments (Spark's rows are pinned by tests/interop/test_changelog_view_spark.py)."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import NotSupportedError, ProgrammingError


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE TABLE db.t (id BIGINT, data STRING)")
    connection.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    connection.execute("UPDATE db.t SET data = 'bb' WHERE id = 2")
    yield connection
    connection.close()


def _call(con, args="table => 'db.t'"):
    return con.execute(f"CALL system.create_changelog_view({args})").fetchall()


def _rows(con, view):
    return sorted(con.execute(f"SELECT * FROM {view}").fetchall(), key=lambda r: (r[3], r[0], r[2]))


def test_the_default_view_removes_carry_overs(con):
    assert _call(con) == [("`t_changes`",)]
    rows = _rows(con, "t_changes")
    assert [r[:4] for r in rows] == [
        (1, "a", "INSERT", 0),
        (2, "b", "INSERT", 0),
        (2, "b", "DELETE", 1),  # (1, 'a') was rewritten unchanged: a carry-over, left out
        (2, "bb", "INSERT", 1),
    ]
    assert ("", "t_changes", True) in con.execute("SHOW VIEWS").fetchall()
    assert [r[:2] for r in con.execute("DESCRIBE t_changes").fetchall()] == [
        ("id", "bigint"),
        ("data", "string"),
        ("_change_type", "string"),
        ("_change_ordinal", "int"),
        ("_commit_snapshot_id", "bigint"),
    ]


def test_update_images_pair_a_delete_and_an_insert_of_one_identifier(con):
    _call(con, "table => 'db.t', changelog_view => 'u', identifier_columns => array('id')")
    assert [r[:3] for r in _rows(con, "u") if r[3] == 1] == [
        (2, "bb", "UPDATE_AFTER"),
        (2, "b", "UPDATE_BEFORE"),
    ]


def test_the_range_is_fixed_when_the_view_is_made(con):
    _call(con, "table => 'db.t', changelog_view => 'v'")
    before = _rows(con, "v")
    con.execute("INSERT INTO db.t VALUES (3, 'c')")
    assert _rows(con, "v") == before
    _call(con, "table => 'db.t', changelog_view => 'v'")  # replaced
    assert len(_rows(con, "v")) == len(before) + 1


def test_two_deletes_of_one_identifier_fail_the_read(con):
    con.execute("INSERT INTO db.t VALUES (2, 'z')")
    con.execute("DELETE FROM db.t WHERE id = 2")
    _call(con, "table => 'db.t', changelog_view => 'u', identifier_columns => array('id')")
    with pytest.raises(icesql.Error, match="multiple rows with the same identifier fields"):
        con.execute("SELECT * FROM u").fetchall()


@pytest.mark.parametrize(
    "args, error, match",
    [
        (
            "table => 'db.t', net_changes => true, compute_updates => true,"
            " identifier_columns => array('id')",
            ProgrammingError,
            "Not support net changes with update images",
        ),
        (
            "table => 'db.t', compute_updates => true",
            ProgrammingError,
            "identifier columns are not set",
        ),
        (
            "table => 'db.t', options => map('start-snapshot-id', '1', 'start-timestamp', '1')",
            ProgrammingError,
            "Cannot set both start-snapshot-id and start-timestamp",
        ),
        (
            "table => 'db.t', options => map('start-timestamp', '5', 'end-timestamp', '5')",
            ProgrammingError,
            "Cannot set start-timestamp to be greater than end-timestamp",
        ),
        (
            "table => 'db.t', options => map('branch', 'main')",
            ProgrammingError,
            "for changelogs",
        ),
        ("table => 'db.t', options => map('frobnicate', '1')", NotSupportedError, "frobnicate"),
        (
            "table => 'db.t', options => map('start-snapshot-id', '12345')",
            ProgrammingError,
            "is not a parent ancestor of end snapshot",
        ),
        (
            "table => 'db.t', changelog_view => 'a.b'",
            ProgrammingError,
            "only accept single-part view names",
        ),
        (
            "table => 'db.t', identifier_columns => array('nope')",
            ProgrammingError,
            "nope",
        ),
    ],
)
def test_bad_arguments_make_no_view(con, args, error, match):
    with pytest.raises(error, match=match):
        _call(con, args)
    assert [r[1] for r in con.execute("SHOW VIEWS").fetchall()] == []


def test_a_map_column_needs_identifier_columns(tmp_path):
    with icesql.connect(str(tmp_path)) as con:
        con.execute("CREATE TABLE db.m (id INT, m MAP<STRING, INT>)")
        con.execute("INSERT INTO db.m VALUES (1, map('a', 1))")
        with pytest.raises(ProgrammingError, match=r"unorderable columns: \[m\]"):
            _call(con, "table => 'db.m'")
        _call(con, "table => 'db.m', identifier_columns => array('id')")
        assert con.execute("SELECT id, _change_type FROM m_changes").fetchall() == [(1, "INSERT")]
