"""The Spark engine's parts that need no Spark: the catalog declarations Spark gets from
icesql's configuration, the engine settings, and pyspark staying out until Spark is chosen."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import icesql
from icesql.engine.spark import SparkBackend, jdbc_url, spark_catalog_conf
from icesql.session.settings import Settings

P = "spark.sql.catalog.prod"


def test_hadoop_catalog_conf_has_an_absolute_warehouse(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf = spark_catalog_conf("prod", {"warehouse": "wh/", "s3.endpoint": "http://127.0.0.1:9"})
    assert conf == {
        P: "org.apache.iceberg.spark.SparkCatalog",
        f"{P}.type": "hadoop",
        f"{P}.warehouse": str(tmp_path / "wh"),
        f"{P}.s3.endpoint": "http://127.0.0.1:9",
        f"{P}.cache-enabled": "false",
    }
    assert spark_catalog_conf("prod", {"warehouse": "s3://b/wh"})[f"{P}.warehouse"] == "s3://b/wh"


def test_sql_catalog_conf_speaks_jdbc(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf = spark_catalog_conf(
        "prod", {"type": "sql", "uri": "sqlite:///cat.db", "warehouse": "/w", "py-io-impl": "x"}
    )
    assert conf[f"{P}.type"] == "jdbc"
    assert conf[f"{P}.uri"] == f"jdbc:sqlite:{tmp_path / 'cat.db'}"
    assert not any("py-io-impl" in key for key in conf)
    url, extra = jdbc_url(
        "prod", "postgresql+psycopg://ann:p%40ss@db.example:5433/ice?sslmode=require"
    )
    assert url == "jdbc:postgresql://db.example:5433/ice?sslmode=require"
    assert extra == {"jdbc.user": "ann", "jdbc.password": "p@ss"}
    assert jdbc_url("prod", "jdbc:mysql://h/db") == ("jdbc:mysql://h/db", {})
    with pytest.raises(icesql.NotSupportedError, match="in-memory SQLite"):
        jdbc_url("prod", "sqlite://")
    with pytest.raises(icesql.NotSupportedError, match="'oracle'"):
        jdbc_url("prod", "oracle://h/db")


def test_rest_glue_and_catalog_impl_keep_their_properties():
    rest = spark_catalog_conf(
        "prod",
        {"uri": "http://127.0.0.1:8181", "token": "t", "header.X-Y": "z", "cache-enabled": "true"},
    )
    assert rest[f"{P}.type"] == "rest" and rest[f"{P}.uri"] == "http://127.0.0.1:8181"
    assert rest[f"{P}.token"] == "t" and rest[f"{P}.header.X-Y"] == "z"
    assert rest[f"{P}.cache-enabled"] == "true"  # the user's choice wins
    glue = spark_catalog_conf("prod", {"type": "glue", "warehouse": "s3://b/w"})
    assert glue[f"{P}.type"] == "glue"
    impl = spark_catalog_conf(
        "prod", {"catalog-impl": "org.apache.iceberg.jdbc.JdbcCatalog", "uri": "jdbc:sqlite:/c.db"}
    )
    assert f"{P}.type" not in impl
    assert impl[f"{P}.catalog-impl"] == "org.apache.iceberg.jdbc.JdbcCatalog"


def test_engine_settings_are_checked_and_reset_to_the_connections_default():
    settings = Settings()
    assert settings.engine == "local"
    assert settings.auto_threshold_bytes == 8 * 1024**3
    settings.set_default("icesql.engine", "auto")
    settings.set("icesql.engine", "SPARK")
    assert settings.engine == "spark"
    settings.reset()
    assert settings.engine == "auto"
    with pytest.raises(icesql.ProgrammingError, match="should be one of LOCAL, SPARK, AUTO"):
        settings.set("icesql.engine", "cluster")
    with pytest.raises(icesql.ProgrammingError, match="number of bytes"):
        settings.set("icesql.engine.autoThresholdBytes", "10GB")
    settings.set("icesql.engine.autoThresholdBytes", "1024")
    assert settings.auto_threshold_bytes == 1024


def test_connect_checks_its_engine_arguments(tmp_path):
    with pytest.raises(icesql.ProgrammingError, match="engine must be one of local, spark, auto"):
        icesql.connect(str(tmp_path), engine="duckdb")
    with pytest.raises(icesql.ProgrammingError, match="spark= takes a SparkSession"):
        icesql.connect(str(tmp_path), engine="auto", spark=42)


_HIDE = """
import sys
class Hidden:
    tried = []
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            Hidden.tried.append(name)
            raise ImportError(f"No module named {name!r} (hidden by the test)")
sys.meta_path.insert(0, Hidden())
"""


def _run_without(modules: list[str], code: str, tmp_path) -> subprocess.CompletedProcess:
    """``code`` in a fresh Python where importing any of ``modules`` fails (and is recorded in
    ``Hidden.tried``)."""
    script = f"HIDDEN = {modules!r}\n{_HIDE}{textwrap.dedent(code)}"
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "ICESQL_TEST_WH": str(tmp_path)},
        timeout=120,
    )


def test_without_pyspark_local_and_auto_work_and_spark_names_what_to_install(tmp_path):
    result = _run_without(
        ["pyspark"],
        """
        import os, icesql
        wh = os.environ["ICESQL_TEST_WH"]
        con = icesql.connect(wh, engine="auto", spark="local[2]")
        con.execute("CREATE TABLE db.t (id BIGINT)")
        con.execute("INSERT INTO db.t VALUES (1), (2)")
        print(con.execute("SELECT count(*) FROM db.t").fetchall())
        print(con.execute("EXPLAIN SELECT * FROM db.t").fetchone()[0].splitlines()[1])
        print("tried:", Hidden.tried)
        try:
            icesql.connect(wh, engine="spark")
        except icesql.InterfaceError as err:
            print("refused:", err)
        con.execute("SET icesql.engine = spark")
        try:
            con.execute("SELECT 1")
        except icesql.InterfaceError as err:
            print("refused:", err)
    """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "[(2,)]"
    assert lines[1].startswith("local: its scans plan ") and "not above" in lines[1]
    assert lines[2] == "tried: []"  # local and auto-below-threshold never import pyspark
    assert len(lines) == 5 and all(line.startswith("refused: ") for line in lines[3:])
    assert all(
        "needs pyspark" in line and "pip install 'icesql[spark]'" in line for line in lines[3:]
    )


def test_spark_connect_without_its_client_names_what_to_install(tmp_path):
    result = _run_without(
        ["grpc"],
        """
        import os, icesql
        con = icesql.connect(os.environ["ICESQL_TEST_WH"], engine="spark", spark="sc://127.0.0.1:1")
        try:
            con.execute("SELECT 1")
        except icesql.InterfaceError as err:
            print("refused:", err)
    """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refused: Spark Connect (sc://127.0.0.1:1) needs")
    assert "pip install 'pyspark[connect]" in result.stdout


def test_backend_refuses_what_is_no_session():
    with pytest.raises(icesql.ProgrammingError, match="not dict"):
        SparkBackend({}, {"local": {"warehouse": "/w"}})


@pytest.mark.spark
def test_a_session_icesql_started_stops_with_its_last_connection(tmp_path):
    """A JVM icesql started for ``spark="local[1]"`` does not outlive the connections that use
    it; one the caller started is left running (a fresh process: the suite's own session must
    not be the one stopped)."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {tests!r})
        import icesql, spark_support
        from pyspark import SparkContext
        from pyspark.sql import SparkSession
        wh = os.environ["ICESQL_TEST_WH"]
        jars = ",".join(spark_support.spark_jars())
        os.environ["PYSPARK_SUBMIT_ARGS"] = f"--jars {{jars}} --conf spark.ui.enabled=false pyspark-shell"
        a = icesql.connect(wh, engine="spark", spark="local[1]")
        b = icesql.connect(wh, engine="spark", spark="local[1]")
        print(a.execute("SELECT 1 + 1").fetchall(), b.execute("SELECT 2").fetchall())
        a.close()
        print("after one:", SparkContext._active_spark_context is not None)
        b.close()
        print("after both:", SparkContext._active_spark_context is not None)
        mine = SparkSession.builder.master("local[1]").getOrCreate()
        c = icesql.connect(wh, engine="spark", spark="local[1]")
        print(c.execute("SELECT 3").fetchall())
        c.close()
        print("caller's:", SparkContext._active_spark_context is not None)
        mine.stop()
    """)
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "ICESQL_TEST_WH": str(tmp_path)},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == [
        "[(2,)] [(2,)]",
        "after one: True",
        "after both: False",
        "[(3,)]",
        "caller's: True",
    ]
