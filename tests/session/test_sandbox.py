"""DuckDB locked to the catalogs' warehouses, whatever SQL reaches it (issue 23)."""

from __future__ import annotations

import os

import duckdb
import pytest

import icesql
from icesql.catalog.filesystem import FileSystemCatalog
from icesql.session import sandbox


def _engine(con: icesql.Connection):
    return con._engine  # the connection's engine, whose DuckDB is the one statements run on


def test_duckdb_itself_refuses_files_outside_the_warehouse(tmp_path):
    con = icesql.connect(str(tmp_path / "wh"), create=True)
    duck = _engine(con).duck.cursor()
    # as if a statement had slipped through the translator's refusal
    for sql in (
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM read_csv('/etc/passwd')",
        f"COPY (SELECT 1) TO '{tmp_path}/out.csv'",
        f"ATTACH '{tmp_path}/x.duckdb'",
        "INSTALL httpfs",
    ):
        with pytest.raises(duckdb.Error, match=r"(?i)disabled by configuration|external access"):
            duck.execute(sql)
    for sql in ("SET enable_external_access = true", f"SET allowed_directories = ['{tmp_path}/']"):
        with pytest.raises(duckdb.Error):
            duck.execute(sql)
    assert not (tmp_path / "out.csv").exists()
    assert not (tmp_path / "x.duckdb").exists()


def test_tables_in_the_warehouse_are_still_read_by_duckdb(tmp_path):
    con = icesql.connect(str(tmp_path / "wh"), create=True)
    con.execute("CREATE TABLE db.t (id bigint, s string)")
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    con.execute("DELETE FROM db.t WHERE id = 2")
    cur = con.execute("EXPLAIN SELECT * FROM db.t")
    assert "DuckDB read_parquet 1 file" in str(cur.fetchall())
    assert con.execute("SELECT * FROM db.t").fetchall() == [(1, "a")]


def test_only_files_under_the_roots_are_readable(tmp_path):
    roots = sandbox.local_roots([FileSystemCatalog(str(tmp_path / "wh"))])
    assert roots == (f"{tmp_path}/wh/",)
    assert sandbox.under_roots(f"{tmp_path}/wh/db/t/data/f.parquet", roots)
    assert not sandbox.under_roots(f"{tmp_path}/wh/../x.parquet", roots)
    assert not sandbox.under_roots(f"{tmp_path}/wh2/f.parquet", roots)  # a prefix, not a folder
    assert not sandbox.under_roots("/etc/passwd", roots)
    assert sandbox.local_roots([FileSystemCatalog("memory://wh")]) == ()


def test_a_table_outside_the_warehouse_is_streamed_not_refused(tmp_path):
    con = icesql.connect(
        catalog="sql", uri=f"sqlite:///{tmp_path}/c.db", warehouse=str(tmp_path / "wh")
    )
    con.execute("CREATE NAMESPACE db")
    con.execute(f"CREATE TABLE db.t (id bigint) LOCATION '{tmp_path}/elsewhere/t'")
    con.execute("INSERT INTO db.t VALUES (1), (2)")
    assert "DuckDB read_parquet 0 files" in str(
        con.execute("EXPLAIN SELECT * FROM db.t").fetchall()
    )
    assert con.execute("SELECT sum(id) FROM db.t").fetchall() == [(3,)]


def test_credentials_are_never_printed(s3_server, s3_bucket, caplog):
    secret = "Sup3rS3cretValue-42"
    props = {**s3_server.properties, "s3.secret-access-key": secret}
    with caplog.at_level("DEBUG"):
        con = icesql.connect(f"s3://{s3_bucket}/wh", properties=props, create=True)
        con.execute("CREATE TABLE db.t (id bigint)")
        con.execute("INSERT INTO db.t VALUES (1)")
        shown = [
            repr(con),
            repr(con.catalogs),
            str(con.execute("EXPLAIN SELECT * FROM db.t").fetchall()),
        ]
        for sql in (
            "SELECT * FROM db.missing",
            "SELECT nope FROM db.t",
            "INSERT INTO db.t VALUES ('x')",
        ):
            with pytest.raises(icesql.Error) as e:
                con.execute(sql)
            shown += [str(e.value), repr(e.value)]
        shown.append(str(con.execute("SHOW TBLPROPERTIES db.t").fetchall()))
        shown.append(str(con.execute("SELECT * FROM db.t.snapshots").fetchall()))
    assert all(secret not in text for text in shown)
    assert secret not in caplog.text


@pytest.mark.parametrize(
    "path",
    [
        "/wh/db/t/data/f.parquet",
        "/wh/../etc/passwd",
        "/wh/./f",
        "/wh//f",
        "/wh/",
        "/wh",
        "/wh/.hidden/f",
        "//wh/f",
        "/wh/a/..",
        "/wh/a/.",
        "/wh2/f",
        "relative/f",
    ],
)
def test_under_roots_judges_every_path_as_abspath_does(path):
    """The per-file check skips ``abspath`` for paths it would not change: same answers."""
    roots = ("/wh/",)
    assert sandbox.under_roots(path, roots) == os.path.abspath(path).startswith("/wh/")
