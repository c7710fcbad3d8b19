"""The Glue catalog against moto's local AWS server (Glue and S3), with PyIceberg's
GlueCatalog as the other client."""

from __future__ import annotations

import uuid

import pyarrow as pa
import pytest

import icesql
from icesql.catalog.base import CommitFailedError
from icesql.catalog.glue import GlueCatalog, glue_client_arguments
from icesql.errors import (
    AlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.metadata.builder import new_table_metadata
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField

pytest.importorskip("boto3")


@pytest.fixture
def properties(s3_server, s3_bucket) -> dict[str, str]:
    return {
        **s3_server.properties,
        "glue.endpoint": s3_server.endpoint,
        "glue.region": "us-east-1",
        "glue.access-key-id": "testing",
        "glue.secret-access-key": "testing",
        "warehouse": f"s3://{s3_bucket}/wh",
    }


@pytest.fixture
def database() -> str:
    return f"db_{uuid.uuid4().hex[:10]}"  # moto's Glue is shared by the whole test session


@pytest.fixture
def catalog(properties) -> GlueCatalog:
    return icesql.connect(catalog="glue", properties=properties).catalog


def _boto(properties):
    import boto3

    return boto3.client("glue", **glue_client_arguments(properties))


def test_client_arguments_follow_pyicebergs_property_names():
    assert glue_client_arguments(
        {
            "glue.endpoint": "http://h",
            "client.region": "eu-west-1",
            "glue.access-key-id": "a",
            "client.secret-access-key": "s",
            "glue.session-token": "t",
        }
    ) == {
        "endpoint_url": "http://h",
        "region_name": "eu-west-1",
        "aws_access_key_id": "a",
        "aws_secret_access_key": "s",
        "aws_session_token": "t",
    }


def test_tables_are_glue_tables_as_java_writes_them(catalog, properties, database):
    catalog.create_namespace((database,), {"owner": "me"})
    identifier = (database, "t")
    location = catalog.default_table_location(identifier)
    assert location == f"{properties['warehouse']}/{database}.db/t"
    schema = Schema((NestedField(1, "id", LongType(), False),))
    table = catalog.create_table(identifier, new_table_metadata(location, schema))
    glue_table = _boto(properties).get_table(DatabaseName=database, Name="t")["Table"]
    assert glue_table["TableType"] == "EXTERNAL_TABLE"
    assert glue_table["Parameters"] == {
        "table_type": "ICEBERG",
        "metadata_location": table.metadata_location,
    }
    committed = catalog.commit_table(table, table.metadata)
    params = _boto(properties).get_table(DatabaseName=database, Name="t")["Table"]["Parameters"]
    assert params["metadata_location"] == committed.metadata_location
    assert params["previous_metadata_location"] == table.metadata_location
    with pytest.raises(CommitFailedError, match="another commit won"):
        catalog.commit_table(table, table.metadata)
    assert catalog.namespace_properties((database,)) == {"owner": "me"}
    assert catalog.list_tables((database,)) == [identifier]


def test_non_iceberg_glue_tables_are_not_tables(catalog, properties, database):
    catalog.create_namespace((database,))
    _boto(properties).create_table(
        DatabaseName=database,
        TableInput={"Name": "hive_t", "Parameters": {"classification": "csv"}},
    )
    assert catalog.list_tables((database,)) == []
    assert not catalog.table_exists((database, "hive_t"))
    with pytest.raises(NoSuchTableError, match=f"{database}.hive_t"):
        catalog.load_table((database, "hive_t"))


def test_namespaces_have_one_level(catalog, database):
    with pytest.raises(NotSupportedError, match="Glue databases have one"):
        catalog.create_namespace((database, "inner"))
    with pytest.raises(ProgrammingError, match="invalid name part"):
        catalog.create_namespace(("a/b",))
    catalog.create_namespace((database,), {"location": "s3://x/y", "comment": "c"})
    with pytest.raises(AlreadyExistsError, match=database):
        catalog.create_namespace((database,))
    assert catalog.namespace_properties((database,)) == {"comment": "c", "location": "s3://x/y"}
    catalog.drop_namespace((database,))
    with pytest.raises(NoSuchNamespaceError, match=database):
        catalog.drop_namespace((database,))


def test_sql_through_glue_and_pyiceberg_reads_it(properties, database):
    glue = pytest.importorskip("pyiceberg.catalog.glue")
    con = icesql.connect(catalog="glue", properties=properties)
    con.execute(f"CREATE NAMESPACE {database}")
    con.execute(f"CREATE TABLE {database}.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)")
    con.execute(f"INSERT INTO {database}.t VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    con.execute(f"DELETE FROM {database}.t WHERE id = 2")
    con.execute(f"ALTER TABLE {database}.t RENAME TO {database}.u")
    pyiceberg = glue.GlueCatalog("glue", **properties)
    table = pyiceberg.load_table(f"{database}.u")
    assert table.scan().to_arrow().sort_by("id").to_pylist() == [
        {"id": 1, "s": "a"},
        {"id": 3, "s": "a"},
    ]
    table.append(pa.table({"id": pa.array([4], pa.int64()), "s": pa.array(["c"])}))
    assert con.execute(f"SELECT id, s FROM {database}.u ORDER BY id").fetchall() == [
        (1, "a"),
        (3, "a"),
        (4, "c"),
    ]
    assert [t for (_, t, _) in con.execute(f"SHOW TABLES IN {database}").fetchall()] == ["u"]


def test_pyiceberg_tables_read_by_icesql(properties, database):
    glue = pytest.importorskip("pyiceberg.catalog.glue")
    pyiceberg = glue.GlueCatalog("glue", **properties)
    pyiceberg.create_namespace(database)
    data = pa.table({"id": pa.array([1, 2], pa.int64()), "v": pa.array([0.5, None])})
    pyiceberg.create_table(f"{database}.t", schema=data.schema).append(data)
    con = icesql.connect(catalog="glue", properties=properties)
    assert con.execute(f"SELECT id, v FROM {database}.t ORDER BY id").fetchall() == [
        (1, 0.5),
        (2, None),
    ]
