"""Catalogs from Iceberg catalog properties (``icesql.catalog.loader``)."""

from __future__ import annotations

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
        }
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
    con = icesql.connect("wh", catalog=kind, **props)
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
