"""PyIceberg's ``RestCatalog`` (a client written by others) against ``icesql serve``; icesql
opens the server's SQL catalog database directly and sees exactly the same rows."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import LongType, NestedField, StringType

import icesql

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "cat", StringType(), required=False),
)
SPEC = PartitionSpec(
    PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="cat")
)
ROWS = pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()), "cat": ["a", "b", "a", "c"]})


@pytest.fixture
def catalog():
    """PyIceberg's RestCatalog on a server, each closed after the test: its requests session
    keeps connections alive, and one left to the garbage collector is warned of as unclosed."""
    made: list[RestCatalog] = []

    def catalog(rest, **props) -> RestCatalog:
        if "credential" in props:  # PyIceberg deprecates guessing the token endpoint
            props["oauth2-server-uri"] = f"{rest.uri}/v1/oauth/tokens"
        made.append(RestCatalog("rest", uri=rest.uri, warehouse=rest.warehouse, **props))
        return made[-1]

    yield catalog
    for cat in made:
        cat.close()


def _icesql(rest):
    return icesql.connect(catalog="sql", uri=rest.db_uri, warehouse=rest.warehouse, name=rest.name)


def test_namespaces_with_properties(rest, catalog):
    cat = catalog(rest)
    cat.create_namespace("db", {"owner": "ana"})
    cat.create_namespace(("db", "inner"))
    assert cat.list_namespaces() == [("db",)]
    assert cat.list_namespaces("db") == [("db", "inner")]
    assert cat.load_namespace_properties("db") == {"owner": "ana"}
    summary = cat.update_namespace_properties(
        "db", removals={"owner", "nope"}, updates={"team": "x"}
    )
    assert (summary.updated, summary.removed, summary.missing) == (["team"], ["owner"], ["nope"])
    assert cat.load_namespace_properties("db") == {"team": "x"}
    with pytest.raises(NamespaceAlreadyExistsError):
        cat.create_namespace("db")
    with pytest.raises(NamespaceNotEmptyError):
        cat.drop_namespace("db")
    cat.drop_namespace(("db", "inner"))
    assert cat.list_namespaces("db") == []


def test_create_append_delete_read_and_icesql_sees_the_same_rows(rest, catalog):
    cat = catalog(rest)
    cat.create_namespace("db")
    table = cat.create_table("db.t", SCHEMA, partition_spec=SPEC)
    assert table.location() == f"{rest.warehouse}/db/t"
    assert cat.list_tables("db") == [("db", "t")] and cat.table_exists("db.t")
    table.append(ROWS)
    table.delete("id = 2")
    table = cat.load_table("db.t")
    got = sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    assert got == [{"id": 1, "cat": "a"}, {"id": 3, "cat": "a"}, {"id": 4, "cat": "c"}]
    assert len(table.metadata.snapshots) >= 2

    with _icesql(rest) as con:
        assert con.execute("SELECT id, cat FROM db.t ORDER BY id").fetchall() == [
            (1, "a"),
            (3, "a"),
            (4, "c"),
        ]
        con.execute("INSERT INTO db.t VALUES (5, 'b')")
        con.execute("DELETE FROM db.t WHERE id = 1")
    table = cat.load_table("db.t")
    got = sorted(r["id"] for r in table.scan().to_arrow().to_pylist())
    assert got == [3, 4, 5]
    # PyIceberg commits on top of icesql's commit through the server again
    table.append(pa.table({"id": pa.array([6], pa.int64()), "cat": ["c"]}))
    with _icesql(rest) as con:
        assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchall() == [(4, 18)]


def test_schema_evolution_properties_and_a_stale_commit(rest, catalog):
    cat = catalog(rest)
    cat.create_namespace("db")
    table = cat.create_table("db.t", SCHEMA, properties={"format-version": "2", "k": "v"})
    assert table.format_version == 2 and table.properties["k"] == "v"
    assert "format-version" not in table.properties
    stale = cat.load_table("db.t")
    with table.update_schema() as update:
        update.add_column("extra", StringType())
    with table.transaction() as tx:
        tx.set_properties(owner="ana")
    table = cat.load_table("db.t")
    assert [f.name for f in table.schema().fields] == ["id", "cat", "extra"]
    assert table.properties["owner"] == "ana"
    # a schema change based on the old schema: the server checks assert-current-schema-id
    with pytest.raises(CommitFailedException, match="current schema changed"):
        with stale.update_schema() as update:
            update.add_column("other", LongType())
    assert [f.name for f in cat.load_table("db.t").schema().fields] == ["id", "cat", "extra"]


def test_staged_create_rename_register_and_drop(rest, catalog):
    cat = catalog(rest)
    cat.create_namespace("db")
    with cat.create_table_transaction("db.staged", SCHEMA) as tx:  # stage-create + assert-create
        tx.append(ROWS)
    assert cat.table_exists("db.staged")
    assert cat.load_table("db.staged").scan().to_arrow().num_rows == 4
    with pytest.raises(TableAlreadyExistsError):
        cat.create_table("db.staged", SCHEMA)

    cat.rename_table("db.staged", "db.renamed")
    assert cat.list_tables("db") == [("db", "renamed")]
    location = cat.load_table("db.renamed").metadata_location
    cat.drop_table("db.renamed")
    assert not cat.table_exists("db.renamed")
    registered = cat.register_table("db.again", location)
    assert registered.metadata_location == location
    cat.purge_table("db.again")
    with pytest.raises(NoSuchTableError):
        cat.load_table("db.again")


def test_bearer_token_and_client_credentials(rest_with_token, catalog):
    rest = rest_with_token
    cat = catalog(rest, token=rest.token)
    cat.create_namespace("db")
    assert cat.list_namespaces() == [("db",)]
    by_credentials = catalog(rest, credential="client:client-secret")
    assert by_credentials.list_namespaces() == [("db",)]
    with pytest.raises(Exception, match="(?i)unauthorized|credentials|invalid_client"):
        catalog(rest, credential="client:wrong").list_namespaces()
