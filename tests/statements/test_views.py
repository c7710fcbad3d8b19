"""CREATE / DROP TEMPORARY VIEW, SHOW VIEWS and DESCRIBE of a view, with Spark 3.5's rows and
errors (checked against Spark in ``tests/interop/test_temp_views_spark.py``)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import icesql


@pytest.fixture
def con(tmp_path):
    with icesql.connect(str(tmp_path)) as connection:
        connection.execute("CREATE NAMESPACE db")
        connection.execute(
            "CREATE TABLE db.t (id INT, name STRING) USING iceberg PARTITIONED BY (id)"
        )
        for i in range(1, 5):
            connection.execute(f"INSERT INTO db.t VALUES ({i}, 'n{i}')")
        yield connection


def rows(con, sql):
    return con.execute(sql).fetchall()


def test_a_view_reads_its_query_and_the_tables_current_snapshot(con):
    con.execute("CREATE TEMPORARY VIEW v AS SELECT * FROM db.t WHERE id > 1")
    assert rows(con, "SELECT * FROM v ORDER BY id") == [(2, "n2"), (3, "n3"), (4, "n4")]
    con.execute("INSERT INTO db.t VALUES (5, 'n5')")
    assert rows(con, "SELECT count(*) FROM v") == [(4,)]
    con.execute("ALTER TABLE db.t ADD COLUMN extra INT")  # SELECT * keeps the columns it had
    assert [d[0] for d in con.execute("SELECT * FROM v").description] == ["id", "name"]


def test_views_work_wherever_a_table_does(con):
    con.execute("CREATE TEMP VIEW v AS SELECT id, name FROM db.t WHERE id <= 2")
    con.execute("CREATE TEMP VIEW w (k, label COMMENT 'the name') AS SELECT id, upper(name) FROM v")
    assert rows(con, "SELECT * FROM w ORDER BY k") == [(1, "N1"), (2, "N2")]
    assert rows(con, "SELECT a.k FROM w a JOIN db.t b ON a.k = b.id ORDER BY 1") == [(1,), (2,)]
    assert rows(con, "WITH c AS (SELECT * FROM w) SELECT max(k) FROM c") == [(2,)]
    assert rows(con, "SELECT count(*) FROM db.t WHERE id IN (SELECT k FROM w)") == [(2,)]
    con.execute("CREATE TABLE db.copy USING iceberg AS SELECT * FROM w")
    con.execute("INSERT INTO db.copy SELECT k + 10, label FROM w")
    assert rows(con, "SELECT count(*) FROM db.copy") == [(4,)]
    con.execute("CREATE TEMP VIEW src AS SELECT 2 AS id, 'B' AS name UNION ALL SELECT 9, 'Z'")
    con.execute(
        "MERGE INTO db.t USING src ON t.id = src.id WHEN MATCHED THEN UPDATE SET name = src.name"
        " WHEN NOT MATCHED THEN INSERT *"
    )
    assert rows(con, "SELECT id, name FROM db.t WHERE id IN (2, 9) ORDER BY id") == [
        (2, "B"),
        (9, "Z"),
    ]


def test_a_view_wins_over_a_table_of_its_name_but_never_a_qualified_name(con):
    con.execute("USE db")
    con.execute("CREATE TEMPORARY VIEW t AS SELECT 99 AS id")
    assert rows(con, "SELECT * FROM t") == [(99,)]
    assert rows(con, "SELECT count(*) FROM db.t") == [(4,)]
    with pytest.raises(icesql.ProgrammingError, match="temporary view"):
        con.execute("INSERT INTO t VALUES (1, 'x')")
    con.execute("DROP VIEW t")
    assert rows(con, "SELECT count(*) FROM t") == [(4,)]


def test_a_view_keeps_the_namespace_it_was_created_in(con):
    con.execute("USE db")
    con.execute("CREATE TEMPORARY VIEW v AS SELECT id FROM t")
    con.execute("CREATE NAMESPACE other")
    con.execute("USE other")
    assert rows(con, "SELECT count(*) FROM v") == [(4,)]


def test_time_travel_inside_a_view_applies_and_on_the_view_is_refused(con):
    first = rows(con, "SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at LIMIT 1")[0][0]
    con.execute(f"CREATE TEMPORARY VIEW old AS SELECT * FROM db.t VERSION AS OF {first}")
    assert rows(con, "SELECT * FROM old") == [(1, "n1")]
    with pytest.raises(icesql.ProgrammingError, match=r"UNSUPPORTED_FEATURE\.TIME_TRAVEL.*`old`"):
        con.execute(f"SELECT * FROM old VERSION AS OF {first}")


def test_a_predicate_on_a_view_prunes_the_files_of_its_table(con):
    con.execute("CREATE TEMPORARY VIEW v AS SELECT * FROM db.t WHERE id > 1")
    con.execute("CREATE TEMPORARY VIEW w (k, n) AS SELECT id, name FROM v")
    plan = rows(con, "EXPLAIN SELECT * FROM w WHERE k = 3")[0][0]
    assert "pushed filter: (id > 1 AND id = 3)" in plan
    assert "data files: total 4, read 1, skipped by partition 3" in plan
    # a ? marker keeps its value when the condition is carried into the view
    (plan,) = con.execute("EXPLAIN SELECT * FROM w WHERE k = ?", [3]).fetchone()
    assert "pushed filter: (id > 1 AND id = 3)" in plan
    assert "data files: total 4, read 1, skipped by partition 3" in plan
    assert con.execute("SELECT k FROM w WHERE k = ?", [3]).fetchall() == [(3,)]


def test_errors_are_sparks_and_change_nothing(con):
    con.execute("CREATE TEMPORARY VIEW v AS SELECT 1 AS a")
    with pytest.raises(icesql.ProgrammingError, match="TEMP_TABLE_OR_VIEW_ALREADY_EXISTS.*`v`"):
        con.execute("CREATE TEMPORARY VIEW v AS SELECT 2 AS a")
    with pytest.raises(icesql.ProgrammingError, match="NOT_ENOUGH_DATA_COLUMNS"):
        con.execute("CREATE OR REPLACE TEMPORARY VIEW v (a, b) AS SELECT 2")
    with pytest.raises(icesql.ProgrammingError, match="TOO_MANY_DATA_COLUMNS"):
        con.execute("CREATE OR REPLACE TEMPORARY VIEW v (a) AS SELECT 2, 3")
    with pytest.raises(icesql.ProgrammingError, match="COLUMN_ALREADY_EXISTS"):
        con.execute("CREATE OR REPLACE TEMPORARY VIEW v AS SELECT 1 AS x, 2 AS X")
    with pytest.raises(icesql.ProgrammingError, match=r"RECURSIVE_VIEW.*`v` -> `v`"):
        con.execute("CREATE OR REPLACE TEMPORARY VIEW v AS SELECT * FROM v")
    con.execute("CREATE TEMPORARY VIEW w AS SELECT * FROM v")
    with pytest.raises(icesql.ProgrammingError, match=r"`v` -> `w` -> `v`"):
        con.execute("CREATE OR REPLACE TEMPORARY VIEW v AS SELECT * FROM w")
    with pytest.raises(icesql.ProgrammingError, match="TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS"):
        con.execute("CREATE TEMPORARY VIEW db.x AS SELECT 1")
    with pytest.raises(icesql.ProgrammingError, match="_LEGACY_ERROR_TEMP_0053"):
        con.execute("CREATE TEMPORARY VIEW IF NOT EXISTS x AS SELECT 1")
    with pytest.raises(icesql.ProgrammingError, match="VIEW_NOT_FOUND"):
        con.execute("DROP VIEW nope")
    con.execute("DROP VIEW IF EXISTS nope")
    assert rows(con, "SELECT * FROM v") == [(1,)]


def test_iceberg_views_in_a_hadoop_catalog_and_file_views_are_refused_by_name(con):
    with pytest.raises(icesql.NotSupportedError, match=r"hadoop\) catalog.*keeps no views"):
        con.execute("CREATE VIEW p AS SELECT 1")
    with pytest.raises(icesql.NotSupportedError, match="USING <format>"):
        con.execute("CREATE TEMPORARY VIEW p USING parquet OPTIONS (path '/etc')")


def test_global_views_answer_to_global_temp_only(con):
    con.execute("CREATE GLOBAL TEMPORARY VIEW g AS SELECT 7 AS x")
    con.execute("CREATE TEMPORARY VIEW g AS SELECT 9 AS x")
    assert rows(con, "SELECT * FROM global_temp.g") == [(7,)]
    assert rows(con, "SELECT * FROM g") == [(9,)]
    assert rows(con, "SHOW VIEWS IN global_temp") == [("global_temp", "g", True), ("", "g", True)]
    con.execute("DROP VIEW global_temp.g")
    with pytest.raises(icesql.ProgrammingError, match="TABLE_OR_VIEW_NOT_FOUND"):
        con.execute("SELECT * FROM global_temp.g")


def test_show_views_and_describe(con):
    con.execute("CREATE TEMPORARY VIEW MiXed (c COMMENT 'cc', n) AS SELECT id, name FROM db.t")
    con.execute("CREATE TEMPORARY VIEW other AS SELECT id + 1 FROM db.t")
    assert rows(con, "SHOW VIEWS") == [("", "mixed", True), ("", "other", True)]
    assert rows(con, "SHOW VIEWS IN db LIKE 'mi*'") == [("", "mixed", True)]
    assert rows(con, "SHOW TABLES IN db") == [("db", "t", False)]  # Spark's Iceberg catalog
    expected = [("c", "int", "cc"), ("n", "string", None)]
    assert rows(con, "DESCRIBE mixed") == expected
    assert rows(con, "DESCRIBE EXTENDED mixed") == expected
    assert rows(con, "DESCRIBE other") == [("(id + 1)", "int", None)]


def test_registered_objects_share_the_views_namespace(con):
    con.register("r", pa.table({"x": [1, 2]}))
    with pytest.raises(icesql.ProgrammingError, match="TEMP_TABLE_OR_VIEW_ALREADY_EXISTS"):
        con.execute("CREATE TEMPORARY VIEW r AS SELECT 1 AS x")
    assert ("", "r", True) in rows(con, "SHOW VIEWS")
    con.execute("CREATE OR REPLACE TEMPORARY VIEW r AS SELECT 3 AS x")
    assert rows(con, "SELECT * FROM r") == [(3,)]
    con.register("r", pa.table({"x": [4]}))  # as createOrReplaceTempView
    assert rows(con, "SELECT * FROM r") == [(4,)]
    con.execute("DROP VIEW r")
    with pytest.raises(icesql.ProgrammingError, match="TABLE_OR_VIEW_NOT_FOUND"):
        con.execute("SELECT * FROM r")


def test_a_kept_plan_is_not_reused_once_its_view_changes(con):
    con.execute("CREATE TEMPORARY VIEW v AS SELECT 1 AS x")
    assert rows(con, "SELECT * FROM v") == [(1,)]
    con.execute("CREATE OR REPLACE TEMPORARY VIEW v AS SELECT 2 AS x")
    assert rows(con, "SELECT * FROM v") == [(2,)]


def test_views_belong_to_their_connection(con, tmp_path):
    con.execute("CREATE TEMPORARY VIEW v AS SELECT 1 AS x")
    with icesql.connect(str(tmp_path)) as other:
        with pytest.raises(icesql.ProgrammingError, match="TABLE_OR_VIEW_NOT_FOUND"):
            other.execute("SELECT * FROM v")


@pytest.mark.parametrize("sql", ["ALTER VIEW v AS SELECT 2 AS a", "ALTER VIEW v RENAME TO w"])
def test_alter_view_is_refused_by_name(con, sql):
    con.execute("CREATE TEMPORARY VIEW v AS SELECT 1 AS a")
    with pytest.raises(
        icesql.NotSupportedError, match="ALTER VIEW of a temporary view is not supported yet"
    ):
        con.execute(sql)
    assert con.execute("SELECT a FROM v").fetchall() == [(1,)]
