"""The SQL catalog's database: SQLite through the standard library, others through SQLAlchemy."""

from __future__ import annotations

import sqlite3

import pytest

from icesql.catalog.sql_database import DuplicateKeyError, open_database, sqlite_path
from icesql.errors import NotSupportedError, OperationalError


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("sqlite:///rel/c.db", "rel/c.db"),
        ("sqlite:////abs/c.db", "/abs/c.db"),
        ("sqlite:////abs/c.db?timeout=5", "/abs/c.db"),
        ("sqlite://", ":memory:"),
        ("sqlite:///:memory:", ":memory:"),
        ("jdbc:sqlite:file:/abs/c.db", "/abs/c.db"),
        ("jdbc:sqlite:/abs/c.db", "/abs/c.db"),
        ("/plain/path.db", "/plain/path.db"),
        ("postgresql://h/db", None),
        ("jdbc:postgresql://h/db", None),
    ],
)
def test_uris_name_the_database(uri, path):
    assert sqlite_path(uri) == path


def test_jdbc_urls_of_other_databases_ask_for_a_sqlalchemy_url():
    with pytest.raises(NotSupportedError, match="JDBC URLs other than jdbc:sqlite:"):
        open_database("jdbc:postgresql://h/db")
    with pytest.raises(NotSupportedError, match="names a host"):
        open_database("sqlite://host/c.db")


@pytest.fixture(params=["sqlite", "sqlalchemy"])
def db(request, tmp_path):
    if request.param == "sqlalchemy":
        pytest.importorskip("sqlalchemy")
        database = open_database(f"sqlite+pysqlite:///{tmp_path / 'c.db'}")
    else:
        database = open_database(f"sqlite:///{tmp_path / 'c.db'}")
    database.change([("CREATE TABLE kv (k VARCHAR(10) PRIMARY KEY, v INT)", {})])
    yield database
    database.close()


def test_a_transaction_is_all_or_nothing(db):
    assert db.change(
        [
            ("INSERT INTO kv VALUES (:k, :v)", {"k": "a", "v": 1}),
            ("UPDATE kv SET v = :v WHERE k = :k", {"k": "a", "v": 2}),
            ("UPDATE kv SET v = 9 WHERE k = :k", {"k": "none"}),
        ]
    ) == [1, 1, 0]
    with pytest.raises(DuplicateKeyError):
        db.change(
            [
                ("INSERT INTO kv VALUES (:k, :v)", {"k": "b", "v": 1}),
                ("INSERT INTO kv VALUES (:k, :v)", {"k": "a", "v": 3}),
            ]
        )
    assert db.query("SELECT k, v FROM kv ORDER BY k") == [("a", 2)]


def test_errors_name_the_database(db):
    with pytest.raises(OperationalError, match="SQL catalog database"):
        db.query("SELECT * FROM no_such_table")


def test_another_process_sees_each_committed_change(tmp_path):
    db = open_database(str(tmp_path / "c.db"))
    db.change(
        [
            ("CREATE TABLE kv (k VARCHAR(10) PRIMARY KEY, v INT)", {}),
            ("INSERT INTO kv VALUES ('a', 1)", {}),
        ]
    )
    with sqlite3.connect(tmp_path / "c.db") as other:
        assert other.execute("SELECT v FROM kv").fetchall() == [(1,)]
    db.close()


def test_an_unopenable_file_is_named(tmp_path):
    with pytest.raises(OperationalError, match="cannot open SQL catalog database"):
        open_database(str(tmp_path / "missing-folder" / "c.db"))
