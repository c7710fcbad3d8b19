"""The file-system catalog over fsspec: local folders and memory:// behave alike."""

import uuid

import pytest

import icesql
from icesql.catalog.filesystem import FileSystemCatalog


@pytest.fixture(params=["local", "memory"])
def warehouse(request, tmp_path):
    if request.param == "local":
        return str(tmp_path / "wh")
    return f"memory://wh-{uuid.uuid4().hex}"


def test_tables_written_and_read_through_fsspec(warehouse):
    con = icesql.connect(warehouse)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (bucket(4, id))")
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    assert con.execute("SELECT * FROM db.t ORDER BY id").fetchall() == [(1, "a"), (2, "b"), (3, None)]
    catalog = FileSystemCatalog(warehouse)
    assert catalog.list_namespaces() == [("db",)]
    assert catalog.list_tables(("db",)) == [("db", "t")]
    assert catalog.table_exists(("db", "t")) and not catalog.table_exists(("db", "nope"))
    assert catalog.namespace_exists(("db",)) and not catalog.namespace_exists(("db", "t"))


def test_unknown_names_are_programming_errors(warehouse):
    con = icesql.connect(warehouse)
    with pytest.raises(icesql.ProgrammingError, match="table not found: nope.t"):
        con.execute("SELECT * FROM nope.t")
    with pytest.raises(icesql.ProgrammingError, match="namespace not found: nope"):
        FileSystemCatalog(warehouse).list_tables(("nope",))
