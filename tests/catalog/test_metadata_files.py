"""The metadata files every catalog writes: Java's version names, compression, and the
files cleaned up after a commit and by DROP TABLE ... PURGE."""

from __future__ import annotations

import gzip
import json
import re

import icesql
from icesql.catalog import metadata_files
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.table_metadata import TableMetadata
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField

SCHEMA = Schema((NestedField(1, "id", LongType(), False),))


def _metadata(location: str, **properties: str) -> TableMetadata:
    return new_table_metadata(location, SCHEMA, properties=properties)


def test_versions_are_parsed_from_java_names():
    assert metadata_files.parse_version("s3://b/t/metadata/00012-0f0e.metadata.json") == 12
    assert metadata_files.parse_version("/t/metadata/00003-x.gz.metadata.json") == 3
    assert metadata_files.parse_version("/t/metadata/v3.metadata.json") == -1
    assert metadata_files.parse_version(None) == -1


def test_new_locations_follow_the_version_and_the_table_properties():
    md = _metadata("/t")
    first = metadata_files.new_metadata_location(md, None)
    assert re.fullmatch(r"/t/metadata/00000-[0-9a-f-]{36}\.metadata\.json", first)
    assert metadata_files.new_metadata_location(md, first).startswith("/t/metadata/00001-")
    gz = _metadata(
        "/t", **{"write.metadata.compression-codec": "GZIP", "write.metadata.path": "/m/"}
    )
    # after a name of another scheme (the hadoop layout's) the count starts over, as in Java
    assert re.fullmatch(
        r"/m/00000-[0-9a-f-]{36}\.gz\.metadata\.json",
        metadata_files.new_metadata_location(gz, "/m/v7.metadata.json"),
    )
    assert metadata_files.compressed(gz) and not metadata_files.compressed(md)


def test_serialize_writes_the_document_compressed_when_asked():
    md = _metadata("/t")
    assert json.loads(metadata_files.serialize(md)) == dict(md.raw)
    assert json.loads(gzip.decompress(metadata_files.serialize(md, compress=True))) == dict(md.raw)


def test_purge_deletes_every_file_the_table_references(tmp_path):
    uri = f"sqlite:///{tmp_path / 'c.db'}"
    con = icesql.connect(catalog="sql", uri=uri, warehouse=str(tmp_path / "wh"))
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT) USING iceberg LOCATION '" + str(tmp_path / "elsewhere") + "'"
    )
    con.execute("INSERT INTO db.t VALUES (1), (2)")
    con.execute("INSERT INTO db.t VALUES (3)")
    table = con.catalog.load_table(("db", "t"))
    data = list((tmp_path / "elsewhere" / "data").rglob("*.parquet"))
    assert len(data) == 2
    metadata_files.delete_table_files(table)
    assert list((tmp_path / "elsewhere").rglob("*.parquet")) == []
    assert list((tmp_path / "elsewhere").rglob("*.avro")) == []
