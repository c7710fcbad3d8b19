"""The file-system catalog (Spark's hadoop layout) over fsspec: local folders and memory://
alike; namespaces, create / drop, and the atomic swap."""

from __future__ import annotations

import json
import os
import uuid

import pytest

import icesql
from icesql.catalog import exclusive_files
from icesql.catalog.base import CommitFailedError
from icesql.catalog.filesystem import FileSystemCatalog
from icesql.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.io import FileIO
from icesql.metadata.builder import new_table_metadata
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField


def _schema() -> Schema:
    return Schema((NestedField(1, "id", LongType(), True),))


@pytest.fixture
def catalog(tmp_path) -> FileSystemCatalog:
    return FileSystemCatalog(str(tmp_path))


def test_namespaces_are_folders(catalog, tmp_path):
    catalog.create_namespace(("a",))
    catalog.create_namespace(("a", "b"))
    assert (tmp_path / "a" / "b").is_dir()
    assert catalog.list_namespaces() == [("a",)]
    assert catalog.list_namespaces(("a",)) == [("a", "b")]
    with pytest.raises(AlreadyExistsError, match="namespace already exists: a"):
        catalog.create_namespace(("a",))
    with pytest.raises(ProgrammingError, match="not empty"):
        catalog.drop_namespace(("a",))
    catalog.drop_namespace(("a", "b"))
    catalog.drop_namespace(("a",))
    assert not (tmp_path / "a").exists()
    with pytest.raises(NoSuchNamespaceError, match="a"):
        catalog.drop_namespace(("a",))


def test_namespace_properties_are_refused_like_hadoop(catalog):
    with pytest.raises(NotSupportedError, match="namespace metadata"):
        catalog.create_namespace(("a",), {"owner": "me"})


def test_create_table_writes_version_1_and_the_hint(catalog, tmp_path):
    md = new_table_metadata(catalog.default_table_location(("db", "t")), _schema())
    table = catalog.create_table(("db", "t"), md)
    mdir = tmp_path / "db" / "t" / "metadata"
    assert table.metadata_location == str(mdir / "v1.metadata.json")
    assert (mdir / "version-hint.text").read_text() == "1"
    assert json.loads((mdir / "v1.metadata.json").read_text())["table-uuid"] == md.table_uuid
    with pytest.raises(AlreadyExistsError, match="table already exists: db.t"):
        catalog.create_table(("db", "t"), md)


def test_commit_from_a_stale_base_fails_and_never_overwrites(catalog, tmp_path):
    md = new_table_metadata(catalog.default_table_location(("db", "t")), _schema())
    base = catalog.create_table(("db", "t"), md)
    winner = catalog.commit_table(
        base,
        base.metadata.builder().set_properties({"who": "winner"}).build(base.metadata_location),
    )
    assert winner.metadata_location.endswith("v2.metadata.json")
    loser = base.metadata.builder().set_properties({"who": "loser"}).build(base.metadata_location)
    with pytest.raises(CommitFailedError, match="another commit won"):
        catalog.commit_table(base, loser)
    v2 = json.loads((tmp_path / "db" / "t" / "metadata" / "v2.metadata.json").read_text())
    assert v2["properties"]["who"] == "winner"
    assert not (tmp_path / "db" / "t" / "metadata" / "v3.metadata.json").exists()


def test_a_version_created_behind_our_back_is_not_replaced(catalog, tmp_path):
    """The race the spec warns about: the next version appears between our check and our
    write. The exclusive create fails instead of renaming over it."""
    md = new_table_metadata(catalog.default_table_location(("db", "t")), _schema())
    base = catalog.create_table(("db", "t"), md)
    path = tmp_path / "db" / "t" / "metadata" / "v2.metadata.json"
    path.write_text("{}")  # someone else's commit, landed just now
    with pytest.raises(AlreadyExistsError):
        exclusive_files.publish_exclusive(FileIO(), str(path), b'{"mine": true}')
    assert path.read_text() == "{}"
    leftovers = [n for n in os.listdir(path.parent) if n.endswith(".tmp")]
    assert leftovers == []
    with pytest.raises(CommitFailedError):
        # the hint still says 1, but the catalog looks past it and sees v2
        catalog.commit_table(base, base.metadata.builder().set_properties({"x": "y"}).build())


def test_a_missing_or_stale_hint_does_not_hide_commits(catalog, tmp_path):
    md = new_table_metadata(catalog.default_table_location(("db", "t")), _schema())
    base = catalog.create_table(("db", "t"), md)
    catalog.commit_table(
        base, base.metadata.builder().set_properties({"a": "1"}).build(base.metadata_location)
    )
    hint = tmp_path / "db" / "t" / "metadata" / "version-hint.text"
    hint.write_text("1")
    assert catalog.current_version(("db", "t"))[0] == 2
    hint.unlink()
    assert catalog.load_table(("db", "t")).metadata.properties["a"] == "1"


def test_delete_after_commit_keeps_previous_versions_max(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ("
        "'write.metadata.delete-after-commit.enabled'='true', 'write.metadata.previous-versions-max'='2')"
    )
    for i in range(5):
        con.execute(f"INSERT INTO db.t VALUES ({i})")
    mdir = tmp_path / "db" / "t" / "metadata"
    versions = sorted(n for n in os.listdir(mdir) if n.endswith(".metadata.json"))
    assert versions == ["v4.metadata.json", "v5.metadata.json", "v6.metadata.json"]
    md = con.catalog.load_table(("db", "t")).metadata
    assert [e.metadata_file.rsplit("/", 1)[1] for e in md.metadata_log] == [
        "v4.metadata.json",
        "v5.metadata.json",
    ]
    assert con.execute("SELECT count(*) FROM db.t").fetchone() == (5,)


def test_drop_table_removes_the_folder_and_purge_the_files(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    con.execute("DROP TABLE db.t PURGE")
    assert not (tmp_path / "db" / "t").exists()
    assert con.execute("SHOW TABLES IN db").fetchall() == []


def test_rename_is_refused_like_spark_hadoop_catalog(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    with pytest.raises(NotSupportedError, match="Cannot rename Hadoop tables"):
        con.execute("ALTER TABLE db.t RENAME TO db.u")


@pytest.fixture(params=["local", "memory"])
def warehouse(request, tmp_path):
    if request.param == "local":
        return str(tmp_path / "wh")
    return f"memory://wh-{uuid.uuid4().hex}"


def test_tables_written_and_read_through_fsspec(warehouse):
    con = icesql.connect(warehouse, create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (bucket(4, id))"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    assert con.execute("SELECT * FROM db.t ORDER BY id").fetchall() == [
        (1, "a"),
        (2, "b"),
        (3, None),
    ]
    catalog = FileSystemCatalog(warehouse)
    assert catalog.list_namespaces() == [("db",)]
    assert catalog.list_tables(("db",)) == [("db", "t")]
    assert catalog.table_exists(("db", "t")) and not catalog.table_exists(("db", "nope"))
    assert catalog.namespace_exists(("db",)) and not catalog.namespace_exists(("db", "t"))


def test_unknown_names_are_programming_errors(warehouse):
    con = icesql.connect(warehouse, create=True)
    with pytest.raises(
        icesql.ProgrammingError, match="The table or view `nope`.`t` cannot be found"
    ):
        con.execute("SELECT * FROM nope.t")
    with pytest.raises(icesql.ProgrammingError, match="namespace not found: nope"):
        FileSystemCatalog(warehouse).list_tables(("nope",))


@pytest.mark.parametrize(
    "name", ["`a\\\\b`", "`a\x00b`", "`%2e%2e`", "`a%2Fb`", "`a%5cb`", "`/etc`", "`..`"]
)
def test_names_cannot_leave_the_warehouse(tmp_path, name):
    warehouse = tmp_path / "wh"
    con = icesql.connect(str(warehouse), create=True)
    con.execute("CREATE NAMESPACE IF NOT EXISTS default")
    before = sorted(p.name for p in warehouse.iterdir())
    for sql in (
        f"CREATE NAMESPACE {name}",
        f"CREATE TABLE {name}.t (x int)",
        f"CREATE TABLE default.{name} (x int)",
        f"SELECT * FROM default.{name}",
    ):
        with pytest.raises(ProgrammingError, match="invalid name part"):
            con.execute(sql)
    assert sorted(p.name for p in warehouse.iterdir()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wh"]


def test_a_link_out_of_the_warehouse_is_refused(tmp_path):
    warehouse, outside = tmp_path / "wh", tmp_path / "outside"
    outside.mkdir()
    con = icesql.connect(str(warehouse), create=True)
    con.execute("CREATE NAMESPACE IF NOT EXISTS default")
    (warehouse / "evil").symlink_to(outside)
    (warehouse / "default" / "t").symlink_to(outside)
    for sql in (
        "CREATE TABLE evil.t (x int)",
        "CREATE TABLE default.t (x int)",
        "SELECT * FROM evil.t",
        "DROP NAMESPACE evil CASCADE",
    ):
        with pytest.raises(ProgrammingError, match="link out of the warehouse"):
            con.execute(sql)
    assert list(outside.iterdir()) == []
    con.execute("CREATE TABLE default.inside (x int)")  # a plain folder is fine
