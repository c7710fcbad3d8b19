"""Iceberg views in a SQL (JDBC) catalog: CREATE / ALTER / DROP VIEW, SHOW and DESCRIBE,
reading them in queries. The expected rows and errors are Spark 3.5.8 + Iceberg 1.10's on
the same statements (checked live in ``tests/interop/test_iceberg_views_spark.py``)."""

from __future__ import annotations

import gzip
import json

import pytest

import icesql
from icesql.errors import (
    AlreadyExistsError,
    NoSuchTableError,
    NotSupportedError,
    ProgrammingError,
)


@pytest.fixture
def con(tmp_path):
    catalogs = {
        "j": {
            "type": "jdbc",
            "uri": f"sqlite:///{tmp_path}/c.db",
            "warehouse": str(tmp_path / "wh"),
        },
        "local": {"type": "hadoop", "warehouse": str(tmp_path / "fs")},
    }
    with icesql.connect(catalogs=catalogs, default="j", create=True) as connection:
        connection.execute("CREATE NAMESPACE db")
        connection.execute("USE db")
        connection.execute("CREATE TABLE t (id BIGINT, data STRING, s STRUCT<a: INT, b: STRING>)")
        connection.execute(
            "INSERT INTO t VALUES (1, 'a', named_struct('a', 1, 'b', 'x')), (2, 'b', null)"
        )
        connection.execute(
            "CREATE VIEW v1 (k COMMENT 'the key', d) COMMENT 'a view'"
            " TBLPROPERTIES ('p1'='x') AS SELECT id, upper(data) FROM t WHERE id > 0"
        )
        yield connection


def rows(con, sql):
    return con.execute(sql).fetchall()


def metadata(con, identifier):
    view = con.engine.catalogs["j"].load_view(identifier)
    with open(view.metadata_location, "rb") as f:
        return view.metadata_location, json.loads(gzip.decompress(f.read()))


def test_a_view_is_stored_as_spark_stores_it(con):
    location, doc = metadata(con, ("db", "v1"))
    assert location.rsplit("/", 1)[-1].startswith("00000-")
    assert location.endswith(".gz.metadata.json")
    assert list(doc) == [
        "view-uuid",
        "format-version",
        "location",
        "properties",
        "schemas",
        "current-version-id",
        "versions",
        "version-log",
    ]
    assert doc["properties"] == {
        "p1": "x",
        "comment": "a view",
        "engine_version": f"icesql {icesql.__version__}",
        "create_engine_version": f"icesql {icesql.__version__}",
        "spark.query-column-names": "id,upper(data)",
    }
    (schema,) = doc["schemas"]
    assert [(f["id"], f["name"], f["type"], f.get("doc")) for f in schema["fields"]] == [
        (0, "k", "long", "the key"),
        (1, "d", "string", None),
    ]
    (version,) = doc["versions"]
    assert version["representations"] == [
        {"type": "sql", "sql": "SELECT id, upper(data) FROM t WHERE id > 0", "dialect": "spark"}
    ]
    assert version["default-namespace"] == ["db"] and "default-catalog" not in version
    assert version["summary"] == {"engine-name": "icesql", "engine-version": icesql.__version__}
    assert doc["version-log"] == [{"timestamp-ms": version["timestamp-ms"], "version-id": 1}]


def test_reading_a_view(con):
    assert rows(con, "SELECT * FROM j.db.v1 ORDER BY k") == [(1, "A"), (2, "B")]
    assert rows(con, "SELECT d FROM v1 WHERE k = 2") == [("B",)]
    con.execute("INSERT INTO t VALUES (3, 'c', null)")  # the table's current snapshot
    assert rows(con, "SELECT count(*) FROM db.v1") == [(3,)]
    con.execute("CREATE VIEW agg AS SELECT count(*) AS c FROM v1")  # a view over a view
    assert rows(con, "SELECT * FROM agg") == [(3,)]
    con.execute("USE local")  # the view's names keep meaning the tables they meant
    assert rows(con, "SELECT c FROM j.db.agg") == [(3,)]


def test_a_view_takes_its_columns_by_position(con):
    con.execute("CREATE VIEW star AS SELECT * FROM t")
    con.execute("ALTER TABLE t ADD COLUMN extra INT")
    assert [d[0] for d in con.execute("SELECT * FROM star").description] == ["id", "data", "s"]
    assert rows(con, "SELECT id FROM star ORDER BY id") == [(1,), (2,)]


def test_a_column_the_table_no_longer_gives_is_refused(con):
    con.execute("CREATE TABLE w (a INT, b STRING, c BIGINT)")
    con.execute("INSERT INTO w VALUES (1, 'x', 10)")
    con.execute("CREATE VIEW over_w AS SELECT * FROM w")
    con.execute("ALTER TABLE w DROP COLUMN c")
    with pytest.raises(ProgrammingError, match=r"INCOMPATIBLE_VIEW_SCHEMA_CHANGE.*column `c`"):
        con.execute("SELECT * FROM over_w")
    con.execute("ALTER TABLE w ADD COLUMN c BIGINT")  # a new column c: by position, read again
    assert rows(con, "SELECT * FROM over_w") == [(1, "x", None)]
    con.execute("ALTER TABLE w ALTER COLUMN a TYPE BIGINT")  # wider than the view's INT
    with pytest.raises(ProgrammingError, match=r'CANNOT_UP_CAST_DATATYPE.*"BIGINT" to "INT"'):
        con.execute("SELECT a FROM over_w")


def test_a_condition_on_a_view_prunes_the_files_of_its_table(con):
    con.execute("CREATE TABLE parts (id BIGINT, p INT) PARTITIONED BY (p)")
    for p in range(4):
        con.execute(f"INSERT INTO parts VALUES ({p * 10}, {p})")
    con.execute("CREATE VIEW over_parts (key, part) AS SELECT id, p FROM parts")
    plan = "\n".join(r[0] for r in rows(con, "EXPLAIN SELECT key FROM over_parts WHERE part = 2"))
    assert "data files: total 4, read 1, skipped by partition 3" in plan
    assert rows(con, "SELECT key FROM over_parts WHERE part = 2") == [(20,)]
    # a cast to another type than the column's is no longer the column: nothing pruned
    con.execute("CREATE VIEW narrowed AS SELECT CAST(p AS STRING) AS part FROM parts")
    plan = "\n".join(r[0] for r in rows(con, "EXPLAIN SELECT * FROM narrowed WHERE part = '2'"))
    assert "data files: total 4, read 4" in plan
    assert rows(con, "SELECT * FROM narrowed WHERE part = '2'") == [("2",)]


def test_show_create_describe_and_properties(con):
    [(text,)] = rows(con, "SHOW CREATE TABLE j.db.v1")
    assert text == (
        "CREATE VIEW j.db.v1 (\n  k COMMENT 'the key',\n  d)\nCOMMENT 'a view'\n"
        f"TBLPROPERTIES (\n  'format-version' = '1',\n  'location' = '{con.engine.catalogs['j'].warehouse}/db/v1',\n"
        "  'p1' = 'x',\n  'provider' = 'iceberg')\nAS\nSELECT id, upper(data) FROM t WHERE id > 0\n"
    )
    described = rows(con, "DESCRIBE EXTENDED v1")
    assert described[:3] == [("k", "bigint", "the key"), ("d", "string", ""), ("", "", "")]
    assert described[3:7] == [
        ("# Detailed View Information", "", ""),
        ("Comment", "a view", ""),
        ("View Catalog and Namespace", "j.db", ""),
        ("View Query Output Columns", "[id, upper(data)]", ""),
    ]
    assert described[-1] == ("Created By", f"icesql {icesql.__version__}", "")
    con.execute("CREATE OR REPLACE VIEW w AS SELECT id, s FROM t")
    assert rows(con, "DESCRIBE w") == [("id", "bigint", ""), ("s", "struct<a:int,b:string>", "")]
    props = dict(rows(con, "SHOW TBLPROPERTIES v1"))
    assert props["p1"] == "x" and props["provider"] == "iceberg" and "comment" not in props


def test_show_views_lists_both_kinds(con):
    con.execute("CREATE TEMPORARY VIEW tv AS SELECT 1 AS x")
    assert rows(con, "SHOW VIEWS IN j.db") == [("db", "v1", False), ("", "tv", True)]
    assert rows(con, "SHOW TABLES IN j.db") == [("db", "t", False)]


def test_replace_alter_rename_and_drop(con):
    con.execute("CREATE OR REPLACE VIEW v1 AS SELECT id FROM t WHERE id = 1")
    assert rows(con, "SELECT * FROM v1") == [(1,)]
    _, doc = metadata(con, ("db", "v1"))
    assert [v["version-id"] for v in doc["versions"]] == [1, 2] and doc["current-version-id"] == 2
    assert [s["schema-id"] for s in doc["schemas"]] == [0, 1]
    assert doc["properties"]["p1"] == "x"  # a replacement keeps the properties (Java's builder)
    con.execute("ALTER VIEW v1 SET TBLPROPERTIES ('p2'='y')")
    con.execute("ALTER VIEW v1 UNSET TBLPROPERTIES ('p1')")
    props = dict(rows(con, "SHOW TBLPROPERTIES v1"))
    assert props["p2"] == "y" and "p1" not in props
    con.execute("ALTER VIEW v1 RENAME TO v9")
    assert rows(con, "SHOW VIEWS") == [("db", "v9", False)]
    con.execute("DROP VIEW v9")
    assert rows(con, "SHOW VIEWS") == []
    con.execute("DROP VIEW IF EXISTS v9")
    with pytest.raises(NoSuchTableError, match=r"\[VIEW_NOT_FOUND\]"):
        con.execute("DROP VIEW v9")


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        (
            "CREATE VIEW v1 AS SELECT 1",
            AlreadyExistsError,
            r"\[VIEW_ALREADY_EXISTS\] Cannot create view db.v1 because",
        ),
        (
            "CREATE VIEW t AS SELECT 1",
            AlreadyExistsError,
            r"\[VIEW_ALREADY_EXISTS\] Cannot create view db.t because",
        ),
        (
            "CREATE VIEW v3 AS SELECT * FROM nope",
            NoSuchTableError,
            r"\[TABLE_OR_VIEW_NOT_FOUND\] The table or view `nope`",
        ),
        (
            "CREATE VIEW v4 (a, b) AS SELECT 1",
            ProgrammingError,
            r"NOT_ENOUGH_DATA_COLUMNS\] Cannot create view j.db.v4",
        ),
        (
            "SELECT * FROM j.db.v1 VERSION AS OF 1",
            NoSuchTableError,
            r"`j`.`db`.`v1` cannot be found",
        ),
        (
            "CREATE OR REPLACE VIEW v1 AS SELECT * FROM j.db.v1",
            ProgrammingError,
            r"Recursive cycle in view detected: j.db.v1 \(cycle: j.db.v1 -> j.db.v1\)",
        ),
        (
            "ALTER VIEW v1 AS SELECT 1",
            ProgrammingError,
            "ALTER VIEW <viewName> AS is not supported. Use CREATE OR REPLACE VIEW instead",
        ),
        (
            "CREATE VIEW local.db.v AS SELECT 1",
            NotSupportedError,
            "file-system \\(hadoop\\) catalog",
        ),
        (
            "CREATE OR REPLACE VIEW IF NOT EXISTS v AS SELECT 1",
            ProgrammingError,
            "both IF NOT EXISTS and REPLACE",
        ),
    ],
)
def test_bad_views_are_refused_as_spark_refuses_them_and_change_nothing(con, sql, error, message):
    before = rows(con, "SHOW VIEWS IN j.db")
    with pytest.raises(error, match=message):
        con.execute(sql)
    assert rows(con, "SHOW VIEWS IN j.db") == before
    assert rows(con, "SELECT * FROM v1 ORDER BY k") == [(1, "A"), (2, "B")]


def test_a_view_may_not_name_a_temporary_view(con):
    con.execute("CREATE TEMPORARY VIEW tv AS SELECT 1 AS x")
    with pytest.raises(
        ProgrammingError, match=r"Cannot create view j.db.v5 that references temporary view: \[tv\]"
    ):
        con.execute("CREATE VIEW v5 AS SELECT * FROM tv")
    con.execute("CREATE VIEW IF NOT EXISTS v1 AS SELECT 1")  # exists: nothing happens
    assert rows(con, "SELECT count(*) FROM v1") == [(2,)]


def test_a_view_without_spark_sql_is_refused_naming_its_dialects(con):
    catalog = con.engine.catalogs["j"]
    view = catalog.load_view(("db", "v1"))
    version = dict(view.metadata.current_version.raw)
    version["representations"] = [
        {"type": "sql", "sql": "SELECT 1 AS k, 'a' AS d", "dialect": "trino"}
    ]
    catalog.commit_view(
        ("db", "v1"),
        [],
        [
            {"action": "set-properties", "updates": {"replace.drop-dialect.allowed": "true"}},
            {"action": "add-view-version", "view-version": {**version, "version-id": 2}},
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    )
    with pytest.raises(
        NotSupportedError, match=r"no Spark SQL representation \(its dialects: trino\)"
    ):
        con.execute("SELECT * FROM v1")
