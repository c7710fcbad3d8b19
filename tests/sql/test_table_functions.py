"""DuckDB's table functions are not Spark SQL: no statement reaches them (issue 23)."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import NotSupportedError
from icesql.sql.dialect import parse


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_csv_auto('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM read_blob('/etc/hostname')",
        "SELECT * FROM read_parquet('/tmp/x.parquet')",
        "SELECT * FROM parquet_scan('/tmp/x.parquet')",
        "SELECT * FROM read_json('/tmp/x.json')",
        "SELECT * FROM read_json_auto('/tmp/x.json')",
        "SELECT * FROM read_ndjson_objects('/tmp/x.json')",
        "SELECT * FROM parquet_metadata('/tmp/x.parquet')",
        "SELECT * FROM iceberg_scan('/tmp/t')",
        "SELECT * FROM delta_scan('/tmp/t')",
        "SELECT * FROM sqlite_scan('/tmp/x.db', 't')",
        "SELECT * FROM duckdb_settings()",
        "SELECT * FROM duckdb_secrets()",
        "SELECT * FROM query('SELECT 1')",
        "SELECT * FROM query_table('t')",
        "SELECT * FROM pragma_database_list()",
        # wherever a relation can stand
        "SELECT 1 FROM range(3) r JOIN read_text('/etc/hostname') f ON true",
        "SELECT * FROM range(1), LATERAL read_text('/etc/hostname')",
        "SELECT * FROM range(1) LATERAL VIEW read_text('/etc/hostname') v AS c",
        "SELECT (SELECT max(content) FROM read_text('/etc/hostname'))",
        "SELECT 1 WHERE 'x' IN (SELECT content FROM read_text('/etc/hostname'))",
        "WITH f AS (SELECT * FROM read_text('/etc/hostname')) SELECT * FROM f",
        "INSERT INTO t SELECT * FROM read_csv('/etc/passwd')",
        "CREATE TABLE t AS SELECT * FROM read_csv('/etc/passwd')",
        "MERGE INTO t USING read_csv('/etc/passwd') s ON t.a = s.a WHEN MATCHED THEN DELETE",
        "CREATE VIEW v AS SELECT * FROM read_text('/etc/hostname')",
    ],
)
def test_duckdb_table_functions_are_refused_when_parsed(sql):
    with pytest.raises(NotSupportedError, match=r"table function \w+\(\) is not Spark SQL"):
        parse(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM range(3)",
        "SELECT * FROM range(0, 10, 2, 4)",
        "SELECT * FROM explode(array(1, 2))",
        "SELECT * FROM explode_outer(array(1, 2))",
        "SELECT * FROM posexplode(array(1, 2))",
        "SELECT * FROM posexplode_outer(array(1, 2))",
        "SELECT * FROM inline(array(struct(1, 2)))",
        "SELECT * FROM inline_outer(array(struct(1, 2)))",
        "SELECT * FROM stack(2, 1, 2)",
        "SELECT * FROM json_tuple('{\"a\": 1}', 'a')",
        "SELECT * FROM range(2) LATERAL VIEW explode(array(1)) v AS c",
        "SELECT * FROM range(2) r, LATERAL (SELECT r.id + 1 AS n)",
        "SELECT * FROM db.t, (SELECT 1) s",
    ],
)
def test_spark_table_functions_pass(sql):
    assert parse(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT current_setting('home_directory')",
        "SELECT getvariable('x')",
        "SELECT * FROM range(1) WHERE getenv('HOME') IS NOT NULL",
    ],
)
def test_duckdb_functions_that_tell_the_host_are_refused(sql):
    with pytest.raises(NotSupportedError, match=r"function \w+\(\) is not Spark SQL"):
        parse(sql)


def test_a_connection_reads_no_file_by_sql(tmp_path):
    cur = icesql.connect(str(tmp_path)).cursor()
    for sql in (
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "EXPLAIN SELECT * FROM read_text('/etc/hostname')",
        "EXPLAIN EXTENDED SELECT * FROM read_text('/etc/hostname')",
    ):
        with pytest.raises(NotSupportedError, match="not Spark SQL"):
            cur.execute(sql)
    cur.execute("SELECT id FROM range(2)")
    assert cur.fetchall() == [(0,), (1,)]
