"""Catalogs from Iceberg catalog properties (``icesql.catalog.loader``)."""

from __future__ import annotations

import uuid

import pytest

import icesql
from icesql.catalog.filesystem import FileSystemCatalog
from icesql.catalog.loader import absolute_local_path, catalog_type, load_catalog, load_catalogs
from icesql.catalog.sql import SqlCatalog
from icesql.errors import NotSupportedError, ProgrammingError


@pytest.mark.parametrize(
    ("properties", "kind"),
    [
        ({"type": "hadoop"}, "hadoop"),
        ({"type": "JDBC"}, "sql"),  # Spark's name for the SQL catalog, any case
        ({"type": "sql"}, "sql"),
        ({"catalog-impl": "org.apache.iceberg.jdbc.JdbcCatalog"}, "sql"),
        ({"uri": "sqlite:///c.db"}, "sql"),  # a uri without a type: its scheme says which
        ({"uri": "https://rest.example/v1"}, "rest"),
        ({"uri": "thrift://hms:9083"}, "hive"),
        ({"warehouse": "/tmp/wh"}, "hadoop"),
    ],
)
def test_catalog_type(properties, kind):
    assert catalog_type("c", properties) == kind


def test_unknown_and_unsupported_types_name_the_catalog_and_type(tmp_path):
    with pytest.raises(ProgrammingError, match="catalog 'prod': unknown catalog type 'nessie'"):
        load_catalog("prod", {"type": "nessie", "uri": "x"})
    with pytest.raises(
        NotSupportedError, match="catalog 'prod': catalog type 'hive' is not supported"
    ):
        load_catalog("prod", {"type": "hive", "uri": "thrift://x:9083"})
    with pytest.raises(
        NotSupportedError, match="catalog 'x': catalog-impl 'com.Foo' is not supported"
    ):
        load_catalog("x", {"catalog-impl": "com.Foo"})
    with pytest.raises(
        ProgrammingError, match="catalog 'w': the file-system catalog needs a warehouse"
    ):
        load_catalog("w", {"type": "hadoop"})
    with pytest.raises(ProgrammingError, match="catalog 's': the SQL catalog needs a uri"):
        load_catalog("s", {"type": "sql"})
    assert list(tmp_path.iterdir()) == []


def test_load_catalogs_builds_each_by_name_in_order(tmp_path):
    built = load_catalogs(
        {
            "fs": {"warehouse": str(tmp_path / "wh")},
            "db": {
                "type": "jdbc",
                "uri": f"sqlite:///{tmp_path}/c.db",
                "warehouse": str(tmp_path / "w2"),
            },
        },
        create=True,
    )
    try:
        assert [(type(c), c.name) for c in built] == [(FileSystemCatalog, "fs"), (SqlCatalog, "db")]
    finally:
        for c in built:
            c.close()


def test_one_bad_configuration_leaves_nothing_written(tmp_path):
    """The SQL catalog creates its tables when built: a later bad catalog must stop that."""
    with pytest.raises(NotSupportedError, match="catalog 'later': catalog type 'hive'"):
        load_catalogs(
            {
                "db": {"uri": f"sqlite:///{tmp_path}/c.db"},
                "later": {"uri": "thrift://127.0.0.1:1"},
            }
        )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["hadoop", "sql"])
def test_a_relative_local_warehouse_becomes_absolute_in_table_locations(
    tmp_path, monkeypatch, kind
):
    """Table metadata records where the table lives for every reader: a path relative to this
    process's working folder would point elsewhere for Spark or a process started elsewhere."""
    monkeypatch.chdir(tmp_path)
    props = {"hadoop": {}, "sql": {"uri": f"sqlite:///{tmp_path / 'catalog.db'}"}}[kind]
    con = icesql.connect("wh", catalog=kind, create=True, **props)
    con.execute("CREATE NAMESPACE IF NOT EXISTS db")
    con.execute("CREATE TABLE db.t (a INT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    location = con.catalog.load_table(("db", "t")).metadata.location
    assert location == str(tmp_path / "wh" / "db" / "t")
    (path,) = con.execute("SELECT file_path FROM db.t.files").fetchone()
    assert path.startswith(str(tmp_path / "wh" / "db" / "t" / "data"))
    con.close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # another working folder reads the same table
    absolute = str(tmp_path / "wh") if kind == "hadoop" else "wh-unused"
    other = icesql.connect(absolute, catalog=kind, **props)
    assert other.execute("SELECT * FROM db.t").fetchall() == [(1,)]
    other.close()


@pytest.mark.parametrize("location", ["s3://bucket/wh", "file:/tmp/wh", "/tmp/wh", "memory://wh"])
def test_urls_and_absolute_paths_are_kept(location):
    assert absolute_local_path(location) == location


def test_a_missing_warehouse_folder_is_named_and_nothing_is_made(tmp_path):
    """A typo in the path would otherwise open an empty catalog where every table is "not
    found": the folder is refused by name, and made only when a new warehouse is asked for."""
    typo = tmp_path / "wh-typo"
    with pytest.raises(
        icesql.OperationalError,
        match=f"catalog 'local': the warehouse folder {typo} does not exist .*create=True",
    ):
        icesql.connect(str(typo))
    assert not typo.exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(icesql.OperationalError, match="the warehouse .*file is not a folder"):
        icesql.connect(str(tmp_path / "file"), create=True)
    with icesql.connect(str(typo), create=True) as con:
        con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    assert (typo / "db" / "t" / "metadata").is_dir()
    with icesql.connect(str(typo)) as con:  # there now: no flag needed
        assert con.execute("SHOW TABLES IN db").fetchall() == [("db", "t", False)]


def test_the_check_covers_every_catalog_before_any_is_built(tmp_path):
    catalogs = {
        "a": {"type": "hadoop", "warehouse": str(tmp_path / "a")},
        "b": {"type": "hadoop", "warehouse": str(tmp_path / "b")},
    }
    (tmp_path / "a").mkdir()
    with pytest.raises(icesql.OperationalError, match="catalog 'b': the warehouse folder"):
        icesql.connect(catalogs=catalogs)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def test_a_warehouse_in_another_file_system_is_checked_too():
    name = f"memory://wh-{uuid.uuid4().hex}"
    with pytest.raises(icesql.OperationalError, match=f"the warehouse {name} holds nothing"):
        icesql.connect(name)
    with icesql.connect(name, create=True) as con:
        con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    with icesql.connect(name) as con:
        assert con.execute("SELECT count(*) FROM db.t").fetchone() == (0,)


def test_a_missing_bucket_or_empty_prefix_is_named(s3_server, s3_bucket):
    props = s3_server.properties
    with pytest.raises(icesql.OperationalError, match="s3://no-such-bucket/wh holds nothing"):
        icesql.connect("s3://no-such-bucket/wh", properties=props)
    with pytest.raises(icesql.OperationalError, match=f"s3://{s3_bucket}/wh holds nothing"):
        icesql.connect(f"s3://{s3_bucket}/wh", properties=props)
    with icesql.connect(f"s3://{s3_bucket}/wh", properties=props, create=True) as con:
        con.execute("CREATE NAMESPACE db")
    with icesql.connect(f"s3://{s3_bucket}/wh", properties=props) as con:  # its marker
        assert con.execute("SHOW NAMESPACES").fetchall() == [("db",)]
