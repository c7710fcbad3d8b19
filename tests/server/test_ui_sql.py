"""The SQL editor's guard: which statements read, and the read-only catalog under them that
refuses any write even when a statement got past the first check."""

from __future__ import annotations

import pytest

from icesql.engine import Engine
from icesql.errors import NotSupportedError
from icesql.server.ui_sql import ReadOnlyCatalog, reads_only, run_sql


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "WITH a AS (SELECT 1 AS x) SELECT * FROM a",
        "SELECT * FROM db.t.snapshots",
        "EXPLAIN SELECT 1",
        "SHOW TABLES",
        "SHOW TBLPROPERTIES db.t",
        "SHOW CREATE TABLE db.t",
        "DESCRIBE db.t",
    ],
)
def test_reads(sql):
    assert reads_only(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO db.t VALUES (1)",
        "DELETE FROM db.t",
        "UPDATE db.t SET id = 1",
        "MERGE INTO db.t USING db.t s ON true WHEN MATCHED THEN DELETE",
        "CREATE TABLE db.x (id INT) USING iceberg",
        "DROP TABLE db.t",
        "ALTER TABLE db.t SET TBLPROPERTIES ('a'='b')",
        "CALL system.expire_snapshots('db.t')",
        "SET spark.testing = true",
        "CACHE TABLE db.t",
        "SELECT 1; DROP TABLE db.t",
        "this is not sql",
        "",
    ],
)
def test_everything_else_is_no_read(sql):
    assert not reads_only(sql)


def test_the_read_only_catalog_refuses_a_write_that_got_through(con):
    con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    before = con.catalog.load_table(("db", "t")).metadata_location
    engine = Engine(ReadOnlyCatalog(con.catalog))
    try:
        assert engine.execute("SELECT count(*) FROM db.t").reader.read_all().num_rows == 1
        with pytest.raises(NotSupportedError, match="cannot commit"):
            engine.execute("INSERT INTO db.t VALUES (1)")
        with pytest.raises(NotSupportedError, match="cannot drop tables"):
            engine.execute("DROP TABLE db.t")
    finally:
        engine.close()
    assert con.catalog.load_table(("db", "t")).metadata_location == before


def _engine(catalog, others):
    return Engine(catalog, others=others)


def test_run_sql_refuses_writes_when_not_writable(con):
    con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    outcome = run_sql(con.catalog, (), "INSERT INTO db.t VALUES (1)", False, _engine)
    assert outcome.error.startswith("only queries")
    outcome = run_sql(con.catalog, (), "INSERT INTO db.t VALUES (1)", True, _engine)
    assert outcome.message == "OK, 1 rows" and not outcome.error
    outcome = run_sql(con.catalog, (), "SELECT id, id FROM db.t", False, _engine)
    assert (outcome.columns, outcome.rows) == (["id", "id"], [["1", "1"]])


def test_run_sql_reaches_the_other_catalogs_read_only(tmp_path):
    import icesql

    with icesql.connect(
        catalogs={"a": {"warehouse": str(tmp_path / "a")}, "b": {"warehouse": str(tmp_path / "b")}},
        default="a",
        create=True,
    ) as con:
        con.execute("CREATE TABLE b.db.t (id INT) USING iceberg")
        con.execute("INSERT INTO b.db.t VALUES (7)")
        a, b = con.catalogs["a"], con.catalogs["b"]
        outcome = run_sql(a, [b], "SELECT id FROM b.db.t", False, _engine)
        assert outcome.rows == [["7"]], outcome.error
