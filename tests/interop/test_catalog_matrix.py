"""Every kind of statement works the same on every catalog and store: the same script runs on
the file-system catalog (a folder, and a bucket), the SQL catalog (a folder, and a bucket),
Glue, and a REST catalog (``icesql serve``), and after each step the table holds what a plain DuckDB table given the same statements
holds."""

from __future__ import annotations

import uuid

import duckdb
import pytest

import icesql

# (statement run by both, or (icesql's, DuckDB's) where the dialects differ)
SCRIPT = [
    (
        "CREATE TABLE {t} (id BIGINT, cat STRING, amount DOUBLE) USING iceberg PARTITIONED BY (cat)"
        " TBLPROPERTIES ('write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'copy-on-write')",
        "CREATE TABLE {t} (id BIGINT, cat VARCHAR, amount DOUBLE)",
    ),
    "INSERT INTO {t} VALUES (1, 'a', 10.0), (2, 'b', 20.0), (3, 'a', 30.0), (4, 'c', NULL)",
    "INSERT INTO {t} VALUES (5, 'b', 50.0), (6, 'c', 60.0)",
    "DELETE FROM {t} WHERE id = 2",
    "UPDATE {t} SET amount = amount * 2 WHERE cat = 'a'",
    (
        "MERGE INTO {t} AS x USING (SELECT 5 AS id, 'b' AS cat, 55.0 AS amount UNION ALL"
        " SELECT 7, 'd', 70.0) AS s ON x.id = s.id WHEN MATCHED THEN UPDATE SET x.amount = s.amount"
        " WHEN NOT MATCHED THEN INSERT (id, cat, amount) VALUES (s.id, s.cat, s.amount)",
        "MERGE INTO {t} AS x USING (SELECT 5 AS id, 'b' AS cat, 55.0 AS amount UNION ALL"
        " SELECT 7, 'd', 70.0) AS s ON x.id = s.id WHEN MATCHED THEN UPDATE SET amount = s.amount"
        " WHEN NOT MATCHED THEN INSERT (id, cat, amount) VALUES (s.id, s.cat, s.amount)",
    ),
    ("ALTER TABLE {t} ADD COLUMN note STRING", "ALTER TABLE {t} ADD COLUMN note VARCHAR"),
    "INSERT INTO {t} VALUES (8, 'a', 80.0, 'n')",
    (
        "INSERT OVERWRITE {t} PARTITION (cat = 'c') VALUES (9, 1.0, 'o')",
        "DELETE FROM {t} WHERE cat = 'c'; INSERT INTO {t} VALUES (9, 'c', 1.0, 'o')",
    ),
]
CHECK = "SELECT * FROM {t} ORDER BY id"


def _catalog(kind: str, request: pytest.FixtureRequest, tmp_path) -> dict:
    if kind == "rest-local":
        rest = request.getfixturevalue("rest")
        return {"catalog": "rest", "uri": rest.uri, "name": "rest"}
    if kind in ("hadoop-local", "sql-local"):
        warehouse = str(tmp_path / "wh")
        storage: dict[str, str] = {}
    else:
        server = request.getfixturevalue("s3_server")
        warehouse = f"s3://{server.create_bucket()}/wh"
        storage = server.properties
    if kind.startswith("hadoop"):
        return {"warehouse": warehouse, "properties": storage}
    if kind.startswith("sql"):
        return {
            "catalog": "sql",
            "uri": f"sqlite:///{tmp_path / 'c.db'}",
            "warehouse": warehouse,
            "properties": storage,
        }
    pytest.importorskip("boto3")
    server = request.getfixturevalue("s3_server")
    glue = {
        "glue.endpoint": server.endpoint,
        "glue.region": "us-east-1",
        "glue.access-key-id": "testing",
        "glue.secret-access-key": "testing",
    }
    return {"catalog": "glue", "warehouse": warehouse, "properties": {**storage, **glue}}


@pytest.mark.server  # moto's S3 and icesql serve, through request.getfixturevalue
@pytest.mark.parametrize(
    "kind", ["hadoop-local", "hadoop-s3", "sql-local", "sql-s3", "glue-s3", "rest-local"]
)
def test_the_same_script_on_every_catalog(kind, request, tmp_path):
    con = icesql.connect(**_catalog(kind, request, tmp_path), create=True)
    namespace = f"ns_{uuid.uuid4().hex[:8]}"
    con.execute(f"CREATE NAMESPACE {namespace}")
    table = f"{namespace}.t"
    reference = duckdb.connect()
    snapshots = []
    for step in SCRIPT:
        ours, theirs = step if isinstance(step, tuple) else (step, step)
        con.execute(ours.format(t=table))
        for statement in theirs.format(t="t").split("; "):
            reference.execute(statement)
        got = con.execute(CHECK.format(t=table)).fetchall()
        assert got == reference.execute(CHECK.format(t="t")).fetchall(), (kind, ours)
        snapshots.append(got)
    history = con.execute(
        f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at"
    ).fetchall()
    assert len(history) == len(SCRIPT) - 2  # every step but CREATE and ALTER made one
    first = con.execute(
        f"SELECT * FROM {table} VERSION AS OF {history[0][0]} ORDER BY id"
    ).fetchall()
    assert first == snapshots[1]  # time travel reads the snapshot's own schema, as Spark does
    files = con.execute(f"SELECT count(*) FROM {table}.files").fetchone()[0]
    assert files > 0
    con.execute(f"DROP TABLE {table} PURGE")
    assert con.execute(f"SHOW TABLES IN {namespace}").fetchall() == []
    con.execute(f"DROP NAMESPACE {namespace}")
    con.close()
