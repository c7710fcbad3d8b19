"""Tables on S3 (a local S3-compatible server): the file-system catalog committing with
conditional PUTs, and PyIceberg's SqlCatalog and icesql sharing a warehouse in a bucket."""

from __future__ import annotations

import threading
from collections import Counter

import pyarrow as pa
import pytest

import icesql
from icesql.errors import AlreadyExistsError
from icesql.io import FileIO


def test_conditional_put_creates_only_once(s3_server, s3_bucket):
    io = FileIO(properties=s3_server.properties)
    path = f"s3://{s3_bucket}/x/v1.metadata.json"
    io.create_exclusive(path, b"first")
    with pytest.raises(AlreadyExistsError, match="exists already"):
        io.create_exclusive(path, b"second")
    assert io.read_bytes(path) == b"first"
    assert io.read_bytes(f"s3a://{s3_bucket}/x/v1.metadata.json") == b"first"  # Spark's scheme


def test_hadoop_catalog_on_s3(s3_server, s3_bucket):
    warehouse = f"s3://{s3_bucket}/wh"
    con = icesql.connect(warehouse, properties=s3_server.properties, create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)"
        " TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    con.execute("DELETE FROM db.t WHERE id = 2")
    con.execute("UPDATE db.t SET s = 'c' WHERE id = 3")
    assert con.execute("SELECT id, s FROM db.t ORDER BY id").fetchall() == [(1, "a"), (3, "c")]
    assert con.execute("SHOW TABLES IN db").fetchall() == [("db", "t", False)]
    io = FileIO(properties=s3_server.properties)
    names = io.listdir(f"{warehouse}/db/t/metadata")
    assert [n for n in names if n.endswith(".metadata.json")] == [
        f"v{i}.metadata.json" for i in range(1, 5)
    ]
    assert io.read_bytes(f"{warehouse}/db/t/metadata/version-hint.text") == b"4"


def test_racing_writers_on_s3_lose_nothing(s3_server, s3_bucket):
    """Two connections insert at once: the conditional PUT lets one win each version, the
    other retries on top of it."""
    warehouse = f"s3://{s3_bucket}/wh"
    con = icesql.connect(warehouse, properties=s3_server.properties, create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (writer INT, i INT) USING iceberg")
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        other = icesql.connect(warehouse, properties=s3_server.properties)
        try:
            for i in range(6):
                other.execute("INSERT INTO db.t VALUES (?, ?)", [w, i])
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(w,)) for w in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert con.execute("SELECT writer, i FROM db.t ORDER BY writer, i").fetchall() == [
        (w, i) for w in (1, 2) for i in range(6)
    ]
    history = con.execute(
        "SELECT snapshot_id, parent_id FROM db.t.history ORDER BY made_current_at"
    ).fetchall()
    assert len(history) == 12
    assert [p for _, p in history] == [None] + [s for s, _ in history[:-1]]


def test_pyiceberg_and_icesql_share_a_warehouse_in_a_bucket(s3_server, s3_bucket, tmp_path):
    sql = pytest.importorskip("pyiceberg.catalog.sql")
    uri = f"sqlite:///{tmp_path / 'catalog.db'}"
    warehouse = f"s3://{s3_bucket}/wh"
    pyiceberg = sql.SqlCatalog("local", uri=uri, warehouse=warehouse, **s3_server.properties)
    pyiceberg.create_namespace("db")
    table = pyiceberg.create_table(
        "db.t", schema=pa.schema([("id", pa.int64()), ("v", pa.string())])
    )
    table.append(pa.table({"id": pa.array([1, 2, 3], pa.int64()), "v": ["x", "y", "z"]}))

    con = icesql.connect(
        catalog="sql", uri=uri, warehouse=warehouse, properties=s3_server.properties
    )
    assert con.execute("SELECT id, v FROM db.t ORDER BY id").fetchall() == [
        (1, "x"),
        (2, "y"),
        (3, "z"),
    ]
    con.execute("INSERT INTO db.t VALUES (4, 'w')")
    con.execute("DELETE FROM db.t WHERE id = 1")
    rows = pyiceberg.load_table("db.t").scan().to_arrow().sort_by("id").to_pylist()
    assert rows == [{"id": 2, "v": "y"}, {"id": 3, "v": "z"}, {"id": 4, "v": "w"}]
    location = pyiceberg.load_table("db.t").metadata_location
    assert location.startswith(f"{warehouse}/db/t/metadata/00003-")  # Java's names and layout


def test_a_query_reads_each_data_file_once(s3_server, s3_bucket):
    warehouse = f"s3://{s3_bucket}/wh"
    con = icesql.connect(warehouse, properties=s3_server.properties, create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)")
    for s in "abc":
        con.execute(f"INSERT INTO db.t SELECT id, '{s}' FROM range(1000) AS r(id)")
    con.close()
    con = icesql.connect(warehouse, properties=s3_server.properties)
    s3_server.requests.clear()
    assert con.execute("SELECT s, count(*) FROM db.t GROUP BY s ORDER BY s").fetchall() == [
        ("a", 1000),
        ("b", 1000),
        ("c", 1000),
    ]
    gets = Counter(path for method, path in s3_server.requests if method == "GET")
    data_gets = {p: n for p, n in gets.items() if p.endswith(".parquet")}
    assert len(data_gets) == 3
    assert set(data_gets.values()) == {1}, data_gets


def test_a_large_file_is_read_by_ranges_without_refetching(s3_server, s3_bucket, monkeypatch):
    """Above ``WHOLE_FILE_BYTES`` a file is read by ranges: its footer, then its column
    chunks coalesced; fsspec's read-ahead would fetch the same bytes again."""
    from icesql.scan import reader

    warehouse = f"s3://{s3_bucket}/wh"
    con = icesql.connect(warehouse, properties=s3_server.properties, create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT, s STRING, x DOUBLE) USING iceberg")
    con.execute("INSERT INTO db.t SELECT id, 'v' || id, id / 2 FROM range(50000) AS r(id)")
    monkeypatch.setattr(reader, "WHOLE_FILE_BYTES", 0)
    s3_server.requests.clear()
    assert con.execute("SELECT count(*), sum(x), max(s) FROM db.t").fetchall() == [
        (50000, sum(range(50000)) / 2, "v9999"),
    ]
    gets = Counter(path for method, path in s3_server.requests if method == "GET")
    data_gets = [n for p, n in gets.items() if p.endswith(".parquet")]
    assert data_gets == [2]  # the footer, then every needed column chunk in one range
