"""The SQL catalog: Java's JdbcCatalog tables in SQLite, commits as a conditional UPDATE."""

from __future__ import annotations

import sqlite3
import threading

import pytest

import icesql
from icesql.catalog.base import CommitFailedError
from icesql.catalog.sql import SqlCatalog
from icesql.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    ProgrammingError,
)
from icesql.metadata.builder import new_table_metadata
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField


def _metadata(catalog: SqlCatalog, identifier: tuple[str, ...]):
    schema = Schema((NestedField(1, "id", LongType(), False),))
    return new_table_metadata(catalog.default_table_location(identifier), schema)


@pytest.fixture
def db_path(tmp_path) -> str:
    return str(tmp_path / "catalog.db")


@pytest.fixture
def catalog(db_path, tmp_path) -> SqlCatalog:
    cat = SqlCatalog("local", f"sqlite:///{db_path}", str(tmp_path / "wh"))
    yield cat
    cat.close()


def _rows(db_path: str, sql: str) -> list[tuple]:
    with sqlite3.connect(db_path) as con:
        return con.execute(sql).fetchall()


def test_the_catalog_tables_are_javas_jdbc_layout(catalog, db_path):
    columns = {
        table: [(r[1], r[2], r[3], r[5]) for r in _rows(db_path, f"PRAGMA table_info({table})")]
        for table in ("iceberg_tables", "iceberg_namespace_properties")
    }
    assert columns["iceberg_tables"] == [
        ("catalog_name", "VARCHAR(255)", 1, 1),
        ("table_namespace", "VARCHAR(255)", 1, 2),
        ("table_name", "VARCHAR(255)", 1, 3),
        ("metadata_location", "VARCHAR(1000)", 0, 0),
        ("previous_metadata_location", "VARCHAR(1000)", 0, 0),
        ("iceberg_type", "VARCHAR(5)", 0, 0),
    ]
    assert columns["iceberg_namespace_properties"] == [
        ("catalog_name", "VARCHAR(255)", 1, 1),
        ("namespace", "VARCHAR(255)", 1, 2),
        ("property_key", "VARCHAR(255)", 1, 3),
        ("property_value", "VARCHAR(1000)", 0, 0),
    ]


def test_create_commit_and_the_rows_they_leave(catalog, db_path, tmp_path):
    catalog.create_namespace(("db",))
    assert _rows(db_path, "SELECT * FROM iceberg_namespace_properties") == [
        ("local", "db", "exists", "true")
    ]
    md = _metadata(catalog, ("db", "t"))
    assert md.location == str(tmp_path / "wh" / "db" / "t")
    table = catalog.create_table(("db", "t"), md)
    assert table.metadata_location.startswith(f"{md.location}/metadata/00000-")
    assert table.metadata_location.endswith(".metadata.json")
    assert _rows(db_path, "SELECT * FROM iceberg_tables") == [
        ("local", "db", "t", table.metadata_location, None, "TABLE")
    ]
    committed = catalog.commit_table(table, table.metadata)
    assert committed.metadata_location.startswith(f"{md.location}/metadata/00001-")
    assert _rows(
        db_path, "SELECT metadata_location, previous_metadata_location FROM iceberg_tables"
    ) == [(committed.metadata_location, table.metadata_location)]
    assert catalog.load_table(("db", "t")).metadata_location == committed.metadata_location


def test_a_commit_based_on_a_stale_version_loses_and_leaves_no_file(catalog, tmp_path):
    catalog.create_namespace(("db",))
    table = catalog.create_table(("db", "t"), _metadata(catalog, ("db", "t")))
    winner = catalog.commit_table(table, table.metadata)
    metadata_dir = tmp_path / "wh" / "db" / "t" / "metadata"
    before = sorted(p.name for p in metadata_dir.iterdir())
    with pytest.raises(CommitFailedError, match=r"db\.t \(catalog 'local'\).*another commit won"):
        catalog.commit_table(table, table.metadata)
    assert sorted(p.name for p in metadata_dir.iterdir()) == before
    assert catalog.load_table(("db", "t")).metadata_location == winner.metadata_location


def test_racing_threads_each_commit_exactly_once(catalog, db_path):
    """Eight writers, each retrying on its lost races: every commit lands, in one line."""
    catalog.create_namespace(("db",))
    catalog.create_table(("db", "t"), _metadata(catalog, ("db", "t")))
    landed: list[str] = []

    def writer() -> None:
        other = SqlCatalog("local", f"sqlite:///{db_path}", catalog.warehouse)
        for _ in range(5):
            while True:
                base = other.load_table(("db", "t"))
                try:
                    landed.append(other.commit_table(base, base.metadata).metadata_location)
                    break
                except CommitFailedError:
                    continue
        other.close()

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(landed) == len(set(landed)) == 40
    final = catalog.load_table(("db", "t")).metadata_location
    assert final in landed and final.rsplit("/", 1)[-1].startswith("00040-")


def test_catalog_names_select_their_own_rows(db_path, tmp_path):
    a = SqlCatalog("a", f"sqlite:///{db_path}", str(tmp_path / "wa"))
    b = SqlCatalog("b", f"sqlite:///{db_path}", str(tmp_path / "wb"))
    a.create_namespace(("db",))
    a.create_table(("db", "t"), _metadata(a, ("db", "t")))
    assert a.list_tables(("db",)) == [("db", "t")]
    assert b.list_namespaces() == []
    assert not b.table_exists(("db", "t"))
    b.create_namespace(("db",))
    assert b.list_tables(("db",)) == []
    with pytest.raises(NoSuchTableError, match=r"db\.t \(catalog 'b'\)"):
        b.load_table(("db", "t"))


def test_namespaces_nest_and_carry_properties(catalog):
    catalog.create_namespace(("a", "b"), {"owner": "me", "comment": "x"})
    catalog.create_namespace(("a", "c"))
    assert catalog.namespace_exists(("a",))  # a parent exists through its children, as in Java
    assert catalog.list_namespaces() == [("a",)]
    assert catalog.list_namespaces(("a",)) == [("a", "b"), ("a", "c")]
    assert catalog.namespace_properties(("a", "b")) == {"comment": "x", "owner": "me"}
    catalog.update_namespace_properties(("a", "b"), removals={"comment"}, updates={"owner": "you"})
    assert catalog.namespace_properties(("a", "b")) == {"owner": "you"}
    with pytest.raises(AlreadyExistsError, match=r"a\.b"):
        catalog.create_namespace(("a", "b"))
    with pytest.raises(ProgrammingError, match="not empty"):
        catalog.drop_namespace(("a",))
    catalog.drop_namespace(("a", "b"))
    catalog.drop_namespace(("a", "c"))
    assert catalog.list_namespaces() == []


def test_like_wildcards_in_names_match_only_themselves(catalog):
    catalog.create_namespace(("a_b",))
    assert not catalog.namespace_exists(("a%",))
    assert not catalog.namespace_exists(("aXb",))
    assert catalog.namespace_exists(("a_b",))


def test_rename_and_drop(catalog):
    catalog.create_namespace(("db",))
    catalog.create_namespace(("other",))
    table = catalog.create_table(("db", "t"), _metadata(catalog, ("db", "t")))
    catalog.rename_table(("db", "t"), ("other", "u"))
    assert catalog.list_tables(("db",)) == []
    assert catalog.load_table(("other", "u")).metadata_location == table.metadata_location
    with pytest.raises(NoSuchNamespaceError, match="nowhere"):
        catalog.rename_table(("other", "u"), ("nowhere", "u"))
    catalog.drop_table(("other", "u"))
    with pytest.raises(NoSuchTableError, match=r"other\.u"):
        catalog.drop_table(("other", "u"))


@pytest.mark.parametrize("name", ["a/b", "..", ".", "", "a%2Fb", "a.b"])
def test_bad_names_are_refused_before_anything_is_written(catalog, db_path, name):
    with pytest.raises(ProgrammingError, match="invalid name part"):
        catalog.create_namespace((name,))
    catalog.create_namespace(("db",))
    if name != "a.b":  # a dot is fine in a table name, only namespace levels are joined by dots
        with pytest.raises(ProgrammingError, match="invalid name part"):
            catalog.default_table_location(("db", name))
    assert _rows(db_path, "SELECT count(*) FROM iceberg_tables") == [(0,)]


def test_a_v0_database_without_iceberg_type_is_used_as_it_is(db_path, tmp_path):
    with sqlite3.connect(db_path) as con:
        con.execute(
            "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace"
            " VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, metadata_location"
            " VARCHAR(1000), previous_metadata_location VARCHAR(1000),"
            " PRIMARY KEY (catalog_name, table_namespace, table_name))"
        )
    catalog = SqlCatalog("local", db_path, str(tmp_path / "wh"))  # a plain path is SQLite too
    catalog.create_namespace(("db",))
    table = catalog.create_table(("db", "t"), _metadata(catalog, ("db", "t")))
    assert _rows(db_path, "SELECT * FROM iceberg_tables") == [
        ("local", "db", "t", table.metadata_location, None)
    ]


def test_views_of_a_v1_catalog_are_not_tables(catalog, db_path):
    catalog.create_namespace(("db",))
    with sqlite3.connect(db_path) as con:
        con.execute(
            "INSERT INTO iceberg_tables VALUES ('local', 'db', 'v', '/x/v.metadata.json', NULL, 'VIEW')"
        )
    assert catalog.list_tables(("db",)) == []
    assert not catalog.table_exists(("db", "v"))


def test_sqlalchemy_urls_reach_the_same_tables(db_path, tmp_path):
    pytest.importorskip("sqlalchemy")
    native = SqlCatalog("local", f"sqlite:///{db_path}", str(tmp_path / "wh"))
    native.create_namespace(("db",))
    native.create_table(("db", "t"), _metadata(native, ("db", "t")))
    through = SqlCatalog("local", f"sqlite+pysqlite:///{db_path}", str(tmp_path / "wh"))
    base = through.load_table(("db", "t"))
    committed = through.commit_table(base, base.metadata)
    assert native.load_table(("db", "t")).metadata_location == committed.metadata_location
    with pytest.raises(CommitFailedError):
        through.commit_table(base, base.metadata)


def test_connect_runs_sql_on_a_sql_catalog(db_path, tmp_path):
    con = icesql.connect(catalog="sql", uri=f"sqlite:///{db_path}", warehouse=str(tmp_path / "wh"))
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)")
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    con.execute("DELETE FROM db.t WHERE id = 2")
    con.execute("ALTER TABLE db.t RENAME TO db.u")
    assert con.execute("SELECT id, s FROM db.u ORDER BY id").fetchall() == [(1, "a"), (3, "a")]
    assert con.execute("SHOW TABLES IN db").fetchall() == [("db", "u", False)]
    (location,) = _rows(db_path, "SELECT metadata_location FROM iceberg_tables")[0]
    assert location.rsplit("/", 1)[-1].startswith("00002-")  # create, insert, delete
    con.close()


def test_connect_infers_the_catalog_from_the_uri_and_names_bad_types(db_path):
    con = icesql.connect(uri=f"sqlite:///{db_path}")
    assert isinstance(con.catalog, SqlCatalog) and con.catalog.name == "local"
    con.close()
    with pytest.raises(icesql.ProgrammingError, match="unknown catalog type 'nessie'"):
        icesql.connect(catalog="nessie", uri="x")
    con = icesql.connect(uri=f"sqlite:///{db_path}")
    con.execute("CREATE NAMESPACE db")
    with pytest.raises(icesql.ProgrammingError, match="no warehouse"):
        con.execute("CREATE TABLE db.t (id INT)")
    assert _rows(db_path, "SELECT count(*) FROM iceberg_tables") == [(0,)]


def test_removing_every_property_keeps_the_namespace(catalog):
    catalog.create_namespace(("db",), {"owner": "me"})
    catalog.update_namespace_properties(("db",), removals={"owner"})
    assert catalog.namespace_exists(("db",))
    assert catalog.namespace_properties(("db",)) == {"exists": "true"}
