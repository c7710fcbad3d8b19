"""Queries kept by their text (``icesql.engine.plan_cache``): a repeated query is not parsed or
planned again, yet every change that could alter its answer is seen -- another connection's
commit, a table dropped and created again at the same path, new parameter values, settings,
a name that now means something else -- and its statement is never changed by a run."""

from __future__ import annotations

import pytest

import icesql
from icesql.engine import dispatch as engine_module
from icesql.engine import plan_cache
from icesql.engine.plan_cache import KeptQueries


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)")
    connection.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    yield connection
    connection.close()


@pytest.fixture
def parses(monkeypatch):
    """How many statements the engine parsed."""
    count = [0]
    parse = engine_module.parse

    def counting(sql):
        count[0] += 1
        return parse(sql)

    monkeypatch.setattr(engine_module, "parse", counting)
    return count


def _rows(con, sql, params=None):
    return sorted(con.execute(sql, params).fetchall())


def test_a_repeated_query_is_neither_parsed_nor_planned_again(con, parses):
    sql = "SELECT p, count(*) FROM db.t WHERE p = 'a' GROUP BY p"
    assert _rows(con, sql) == [("a", 1)]
    plans = len(con.engine.manifest_cache.plans)
    parsed = parses[0]
    assert _rows(con, sql) == [("a", 1)]
    assert _rows(con, sql) == [("a", 1)]
    assert parses[0] == parsed  # served from the kept plan
    assert len(con.engine.manifest_cache.plans) == plans


def test_a_commit_by_another_connection_is_seen(con, tmp_path, parses):
    sql = "SELECT count(*), sum(id) FROM db.t"
    assert _rows(con, sql) == [(2, 3)]
    other = icesql.connect(str(tmp_path))
    other.execute("INSERT INTO db.t VALUES (10, 'a')")
    other.close()
    assert _rows(con, sql) == [(3, 13)]
    con.execute("DELETE FROM db.t WHERE id = 1")  # and this connection's own commit
    assert _rows(con, sql) == [(2, 12)]


def test_a_table_dropped_and_created_again_at_the_same_path_is_read_afresh(con):
    sql = "SELECT * FROM db.t"
    assert _rows(con, sql) == [(1, "a"), (2, "b")]
    con.execute("DROP TABLE db.t")
    con.execute("CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg")  # v1.metadata.json again
    assert _rows(con, sql) == []
    con.execute("INSERT INTO db.t VALUES (7, 'z')")
    assert _rows(con, sql) == [(7, "z")]


def test_parameters_and_their_types_choose_the_plan(con):
    sql = "SELECT id FROM db.t WHERE id = ?"
    assert _rows(con, sql, [1]) == [(1,)]
    assert _rows(con, sql, [2]) == [(2,)]
    assert _rows(con, sql, [1]) == [(1,)]
    assert plan_cache.query_key(sql, [1], "c", ("db",), ()) != plan_cache.query_key(
        sql, [1.0], "c", ("db",), ()
    )
    assert plan_cache.query_key(sql, [[1]], "c", ("db",), ()) is None  # not a plain value


def test_settings_and_the_current_namespace_are_part_of_the_key(con):
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.wap.enabled' = 'true')")
    con.execute("ALTER TABLE db.t CREATE BRANCH audit")
    con.execute("INSERT INTO db.t.branch_audit VALUES (3, 'c')")
    sql = "SELECT count(*) FROM db.t"
    assert _rows(con, sql) == [(2,)]
    con.execute("SET spark.wap.branch = audit")
    assert _rows(con, sql) == [(3,)]
    con.execute("RESET spark.wap.branch")
    assert _rows(con, sql) == [(2,)]
    con.execute("CREATE TABLE other.t (id BIGINT, p STRING) USING iceberg")
    con.execute("USE db")
    assert _rows(con, "SELECT count(*) FROM t") == [(2,)]
    con.execute("USE other")
    assert _rows(con, "SELECT count(*) FROM t") == [(0,)]


def test_time_travel_and_branches_resolve_on_each_run(con):
    first = con.engine.catalog.load_table(("db", "t")).metadata.current_snapshot_id
    con.execute("INSERT INTO db.t VALUES (3, 'c')")
    sql = f"SELECT count(*) FROM db.t VERSION AS OF {first}"
    assert _rows(con, sql) == [(2,)]
    assert _rows(con, sql) == [(2,)]
    con.execute("ALTER TABLE db.t CREATE TAG t1")
    tagged = "SELECT count(*) FROM db.t VERSION AS OF 't1'"
    assert _rows(con, tagged) == [(3,)]
    con.execute("ALTER TABLE db.t REPLACE TAG t1 AS OF VERSION " + str(first))
    assert _rows(con, tagged) == [(2,)]  # the tag moved: a new metadata file


def test_a_name_that_comes_to_mean_a_python_object_is_resolved_again(con):
    con.execute("USE db")
    import pyarrow as pa

    t = pa.table({"id": [42]})  # noqa: F841 - found by name from the caller's scope
    sql = "SELECT count(*) FROM t"
    assert _rows(con, sql) == [(2,)]  # the Iceberg table wins
    con.execute("DROP TABLE db.t")
    con.register("t", pa.table({"id": [42]}))
    assert _rows(con, sql) == [(1,)]
    assert _rows(con, sql) == [(1,)]  # a query of a Python object is never kept


def test_two_streams_of_one_kept_query_read_at_once(con):
    sql = "SELECT id FROM db.t ORDER BY id"
    con.execute(sql).fetchall()
    a, b = con.cursor(), con.cursor()
    a.execute(sql)
    b.execute(sql)
    assert a.fetchone() == (1,)
    assert b.fetchall() == [(1,), (2,)]
    assert a.fetchall() == [(2,)]


def test_the_overflow_rerun_leaves_the_kept_statement_as_it_was(con):
    sql = "SELECT id + 9223372036854775807 AS w FROM db.t ORDER BY id"
    wrapped = [(-9223372036854775808,), (-9223372036854775807,)]
    assert con.execute(sql).fetchall() == wrapped
    assert con.execute(sql).fetchall() == wrapped
    assert _rows(con, "SELECT id + 1 FROM db.t") == [(2,), (3,)]
    with_param = "SELECT id + ? AS w FROM db.t ORDER BY id"
    for _ in range(2):
        assert con.execute(with_param, [9223372036854775807]).fetchall() == wrapped


def test_queries_over_an_older_table_version_are_dropped(con):
    con.execute("SELECT count(*) FROM db.t").fetchall()
    con.execute("SELECT max(id) FROM db.t").fetchall()
    con.execute("SELECT 1").fetchall()
    assert len(con.engine._kept.queries) == 3
    con.execute("INSERT INTO db.t VALUES (3, 'c')")
    assert con.execute("SELECT min(id) FROM db.t").fetchall() == [(1,)]
    texts = sorted(key[0] for key in con.engine._kept.queries)
    assert texts == ["SELECT 1", "SELECT min(id) FROM db.t"]  # both others read the old version


def test_kept_queries_are_bounded():
    kept = KeptQueries()
    for i in range(plan_cache.KEPT_QUERIES + 5):
        query = plan_cache.KeptQuery(None, [], [], {}, {}, {}, {})  # type: ignore[arg-type]
        kept.keep((str(i),), query)
    assert len(kept.queries) == plan_cache.KEPT_QUERIES
    assert kept.get(("0",)) is None
    assert kept.get((str(plan_cache.KEPT_QUERIES + 4),)) is not None
