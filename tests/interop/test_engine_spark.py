"""The same SQL handed to Spark (``engine="spark"``, ``auto``, ``SET icesql.engine``) gives the
same rows and leaves the same table states as the local engine; ``auto`` picks Spark above
its threshold and local below it, and EXPLAIN says so."""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows, has_top_level_order_by, normalize_row

import icesql

from .query_corpus import CORPUS, placeholders
from .test_catalog_matrix import SCRIPT

# the whole read corpus (tests/interop/query_corpus.py), which test_read_spark_tables checks
# against Spark's own answers for the local engine
QUERIES = CORPUS


@pytest.fixture
def on_spark(spark, spark_tables, spark_warehouse):
    con = icesql.connect(spark_warehouse, engine="spark", spark=spark)
    yield con
    con.close()


@pytest.mark.parametrize("sql", [pytest.param(sql, id=name) for name, sql in QUERIES])
def test_corpus_query_same_on_both_engines(sql, spark_tables, on_spark, icesql_connection):
    query = sql.format(**placeholders(spark_tables))
    local = icesql_connection.execute(query)
    remote = on_spark.execute(query)
    assert remote.engine == "spark" and local.engine == "local"
    assert [d[0] for d in remote.description] == [d[0] for d in local.description]
    expected, actual = local.fetchall(), remote.fetchall()
    assert_same_rows(expected, actual, ordered=has_top_level_order_by(query), context=query)


def test_cursor_api_over_spark_results(on_spark):
    cur = on_spark.execute("SELECT id, c_string FROM db.all_types WHERE id <= ? ORDER BY id", (3,))
    assert [d[0] for d in cur.description] == ["id", "c_string"]
    assert cur.description[0][1] == icesql.NUMBER and cur.description[1][1] == icesql.STRING
    first = cur.fetchone()
    assert first[0] == 1
    assert [r[0] for r in cur.fetchmany(1)] == [2]
    assert cur.arrow().column("id").to_pylist() == [3]
    table = on_spark.execute("SELECT id FROM db.all_types WHERE id < 0").arrow()
    assert table.num_rows == 0 and table.column_names == ["id"]


def _script(table: str) -> list[str]:
    return [(step[0] if isinstance(step, tuple) else step).format(t=table) for step in SCRIPT]


def _state(con, table: str) -> tuple[list[tuple], list[str]]:
    rows = con.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
    ops = con.execute(
        f"SELECT operation FROM {table}.snapshots ORDER BY committed_at, snapshot_id"
    ).fetchall()
    return [normalize_row(r) for r in rows], [o[0] for o in ops]


def test_dml_script_leaves_the_same_table_state(spark, spark_warehouse):
    """The catalog-matrix DML script (CREATE, INSERT, DELETE, UPDATE, MERGE, ALTER, INSERT
    OVERWRITE) run by each engine on its own table; both tables end alike, read by either."""
    con = icesql.connect(spark_warehouse, engine="spark", spark=spark)
    con.execute("CREATE NAMESPACE IF NOT EXISTS handoff_dml")
    states = {}
    for engine in ("local", "spark"):
        table = f"handoff_dml.t_{engine}"
        con.execute(f"SET icesql.engine = {engine}")
        con.execute(f"DROP TABLE IF EXISTS {table}")
        for step in _script(table):
            cur = con.execute(step)
            assert cur.engine == engine, step
        con.execute("SET icesql.engine = local")
        local_view = _state(con, table)
        con.execute("SET icesql.engine = spark")
        spark_view = _state(con, table)
        assert local_view == spark_view, f"{engine}'s table reads differently on the two engines"
        states[engine] = local_view
    assert states["local"][0] == states["spark"][0]
    assert len(states["local"][0]) >= 5
    assert len(states["local"][1]) == len(states["spark"][1])
    con.close()


def test_auto_picks_spark_above_the_threshold_and_says_so(spark, spark_tables, spark_warehouse):
    con = icesql.connect(spark_warehouse, engine="auto", spark=spark)
    query = "SELECT count(*) FROM db.all_types WHERE id > 2"
    plan = con.execute(f"EXPLAIN {query}").fetchone()[0]
    assert plan.startswith("== Engine ==\nlocal: its scans plan ")
    assert "not above icesql.engine.autoThresholdBytes = 8,589,934,592" in plan
    assert "== DuckDB plan ==" in plan
    local = con.execute(query)
    assert local.engine == "local"
    expected = local.fetchall()

    con.execute("SET icesql.engine.autoThresholdBytes = 0")
    plan = con.execute(f"EXPLAIN {query}").fetchone()[0]
    assert plan.startswith("== Engine ==\nspark: its scans plan ")
    assert "above icesql.engine.autoThresholdBytes = 0" in plan
    assert "Physical Plan" in plan  # Spark's own EXPLAIN
    remote = con.execute(query)
    assert remote.engine == "spark"
    assert remote.fetchall() == expected
    # pruning counts: a filter no file can match plans 0 bytes, which is not above 0
    plan = con.execute("EXPLAIN SELECT * FROM db.all_types WHERE id > 1000000").fetchone()[0]
    assert plan.startswith("== Engine ==\nlocal: its scans plan 0 bytes after pruning")
    # a DML statement is measured by the tables it names
    con.execute("SET icesql.engine.autoThresholdBytes = 1000000000")
    con.execute("CREATE NAMESPACE IF NOT EXISTS handoff_auto")
    con.execute("DROP TABLE IF EXISTS handoff_auto.t")
    assert con.execute("CREATE TABLE handoff_auto.t (id BIGINT) USING iceberg").engine == "local"
    assert con.execute("INSERT INTO handoff_auto.t VALUES (1), (2)").engine == "local"
    con.execute("SET icesql.engine.autoThresholdBytes = 1")
    assert con.execute("DELETE FROM handoff_auto.t WHERE id = 1").engine == "spark"
    assert con.execute("SELECT id FROM handoff_auto.t").fetchall() == [(2,)]
    con.close()


def test_set_engine_and_reset(spark, spark_tables, spark_warehouse):
    con = icesql.connect(spark_warehouse, spark=spark)
    assert con.execute("SELECT 1").engine == "local"
    con.execute("SET icesql.engine = spark")
    assert con.execute("SET icesql.engine").fetchall() == [("icesql.engine", "spark")]
    assert con.execute("SELECT count(*) FROM db.all_types").engine == "spark"
    # spark.* settings follow the statements to Spark, and RESET takes them back
    con.execute("SET spark.sql.shuffle.partitions = 3")
    assert con.execute("SET spark.sql.shuffle.partitions").fetchall()[0][1] == "3"
    con.execute("SELECT 1").fetchall()
    own = con.engine.spark.session()  # the connection's own session: the caller's keeps its
    assert own.conf.get("spark.sql.shuffle.partitions") == "3"
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
    con.execute("RESET")
    assert con.execute("SELECT 1").engine == "local"
    con.execute("SET icesql.engine = spark")
    con.execute("SELECT 1").fetchall()
    assert own.conf.get("spark.sql.shuffle.partitions") != "3"
    with pytest.raises(icesql.ProgrammingError, match="icesql.engine"):
        con.execute("SET icesql.engine = cluster")
    con.close()


def test_spark_errors_are_db_api_errors(on_spark):
    with pytest.raises(
        icesql.ProgrammingError, match="Spark: .*(TABLE_OR_VIEW_NOT_FOUND|not found)"
    ):
        on_spark.execute("SELECT * FROM db.no_such_table")
    # with engine=spark, text icesql cannot parse is Spark's to judge (and to run)
    with pytest.raises(icesql.ProgrammingError, match="Spark: .*PARSE_SYNTAX_ERROR"):
        on_spark.execute("SELECT 1 +")


def test_a_catalog_the_session_lacks_is_declared_from_icesqls(spark, tmp_path):
    """A catalog of another name and warehouse: Spark gets it from icesql's configuration,
    writes a table there, and icesql's local engine reads what Spark committed."""
    con = icesql.connect(
        str(tmp_path / "wh"), create=True, name="handoff_cat", engine="spark", spark=spark
    )
    con.execute("CREATE NAMESPACE handoff_cat.ns")
    con.execute("CREATE TABLE handoff_cat.ns.t (id BIGINT, s STRING) USING iceberg")
    con.execute("INSERT INTO handoff_cat.ns.t VALUES (1, 'a'), (2, 'b')")
    own = con.engine.spark.session()
    assert own is not spark and own.sparkContext is spark.sparkContext
    assert own.conf.get("spark.sql.catalog.handoff_cat.warehouse") == str(tmp_path / "wh")
    assert spark.conf.get("spark.sql.catalog.handoff_cat", None) is None  # the caller's: as it was
    con.execute("SET icesql.engine = local")
    assert con.execute("SELECT * FROM ns.t ORDER BY id").fetchall() == [(1, "a"), (2, "b")]
    con.execute("INSERT INTO ns.t VALUES (3, 'c')")  # unqualified: the current catalog on both
    con.execute("SET icesql.engine = spark")
    assert con.execute("SELECT count(*) FROM ns.t").fetchall() == [(3,)]
    con.close()


def test_connections_to_two_warehouses_share_one_session(spark, spark_tables, tmp_path):
    """Each connection runs on a newSession() of the session given: the same JVM, its own
    catalogs, so a catalog named "local" means each connection's own warehouse, while the
    caller's session keeps its "local" (the session's warehouse) and current catalog."""
    before = spark.conf.get("spark.sql.catalog.local.warehouse")
    cons = []
    for i in (1, 2):
        con = icesql.connect(str(tmp_path / f"w{i}"), create=True, engine="spark", spark=spark)
        con.execute("CREATE TABLE db.t (id INT) USING iceberg")
        con.execute(f"INSERT INTO db.t VALUES ({i})")
        cons.append(con)
    assert [c.execute("SELECT id FROM db.t").fetchall() for c in cons] == [[(1,)], [(2,)]]
    assert (tmp_path / "w1" / "db" / "t" / "metadata").is_dir()
    assert spark.conf.get("spark.sql.catalog.local.warehouse") == before
    assert spark.sql("SELECT count(*) FROM local.db.all_types").collect()[0][0] > 0
    for con in cons:
        con.execute("SET icesql.engine = local")
    assert [c.execute("SELECT id FROM db.t").fetchall() for c in cons] == [[(1,)], [(2,)]]
    for con in cons:
        con.close()
    assert spark.sql("SELECT 1").collect()[0][0] == 1  # closing them stopped nothing


def test_a_master_url_opens_or_reuses_a_session(spark, spark_tables, spark_warehouse):
    """One SparkContext per process: ``local[2]`` reuses the running one (getOrCreate)."""
    con = icesql.connect(spark_warehouse, engine="spark", spark="local[2]")
    assert con.execute("SELECT count(*) FROM db.all_types").fetchall()[0][0] > 0
    con.close()


def test_shell_engine_option_runs_on_spark(spark, spark_tables, spark_warehouse, capsys):
    """``icesql --engine spark``: the session is SparkSession.builder.getOrCreate(), here the
    test session (one SparkContext per process)."""
    from icesql.shell import main

    assert (
        main(
            [
                spark_warehouse,
                "--engine",
                "spark",
                "-c",
                "EXPLAIN SELECT count(*) FROM db.all_types",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "spark: SET icesql.engine = spark" in out and "Physical Plan" in out
