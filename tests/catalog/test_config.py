"""Catalog configurations from Spark properties and PyIceberg's ``.pyiceberg.yaml``
(``icesql.catalog.config``), checked against what PyIceberg itself reads from the same file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from icesql.catalog.config import (
    find_pyiceberg_yaml,
    parse_yaml,
    pyiceberg_catalogs,
    read_spark_defaults,
    spark_catalogs,
)
from icesql.errors import ProgrammingError

SPARK_DEFAULTS = r"""
# Spark's defaults file: Java properties syntax
spark.sql.extensions                 org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions
spark.sql.catalog.prod               org.apache.iceberg.spark.SparkCatalog
spark.sql.catalog.prod.type          hadoop
spark.sql.catalog.prod.warehouse=s3://bucket/wh
spark.sql.catalog.prod.s3.endpoint : http://127.0.0.1:9000
! another comment
spark.sql.catalog.spark_catalog      org.apache.iceberg.spark.SparkSessionCatalog
spark.sql.catalog.spark_catalog.type jdbc
spark.sql.catalog.spark_catalog.uri  jdbc:sqlite:/tmp/a\
    .db
spark.sql.catalog.delta              io.delta.sql.DeltaCatalog
spark.sql.catalog.delta.x            y
spark.sql.defaultCatalog             prod
"""


def test_spark_defaults_reads_java_properties_syntax(tmp_path):
    path = tmp_path / "spark-defaults.conf"
    path.write_text(SPARK_DEFAULTS)
    conf = read_spark_defaults(path)
    assert conf["spark.sql.catalog.prod.warehouse"] == "s3://bucket/wh"  # key=value
    assert conf["spark.sql.catalog.prod.s3.endpoint"] == "http://127.0.0.1:9000"  # key : value
    assert conf["spark.sql.catalog.spark_catalog.uri"] == "jdbc:sqlite:/tmp/a.db"  # continued
    assert not any(k.startswith(("#", "!")) for k in conf)


def test_spark_catalogs_are_the_iceberg_ones_with_their_properties(tmp_path):
    path = tmp_path / "spark-defaults.conf"
    path.write_text(SPARK_DEFAULTS)
    config = spark_catalogs(path)
    assert config.catalogs == {
        "prod": {
            "type": "hadoop",
            "warehouse": "s3://bucket/wh",
            "s3.endpoint": "http://127.0.0.1:9000",
        },
        "spark_catalog": {"type": "jdbc", "uri": "jdbc:sqlite:/tmp/a.db"},
    }  # Delta's catalog is no Iceberg catalog
    assert config.default == "prod"
    assert (
        spark_catalogs({"spark.sql.catalog.x": "org.apache.iceberg.spark.SparkCatalog"}).default
        is None
    )


def test_spark_escapes_and_missing_file(tmp_path):
    path = tmp_path / "c.conf"
    path.write_text("a\\ b = x\\ty\\u0041\n")
    assert read_spark_defaults(path) == {"a b": "x\tyA"}
    with pytest.raises(ProgrammingError, match="cannot read Spark configuration .*nope.conf"):
        read_spark_defaults(tmp_path / "nope.conf")


def test_yaml_subset_reads_scalars_as_strings():
    text = textwrap.dedent("""\
        ---
        # a comment
        catalog:
          Prod:
            uri: sqlite:////tmp/x.db   # trailing comment
            warehouse: "file:///tmp/w#1"
            s3.endpoint: 'http://a:9000'
            port: 8080
            flag: true
          local:
              type: sql
        default-catalog: prod
        empty:
        """)
    assert parse_yaml(text) == {
        "catalog": {
            "Prod": {
                "uri": "sqlite:////tmp/x.db",
                "warehouse": "file:///tmp/w#1",
                "s3.endpoint": "http://a:9000",
                "port": "8080",
                "flag": "true",
            },
            "local": {"type": "sql"},
        },
        "default-catalog": "prod",
        "empty": "",
    }


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("catalog: [a, b]\n", "flow style"),
        ("catalog:\n  - a\n", "only mappings of scalars"),
        ("a:\n    b: 1\n  c: 2\n", "bad indentation"),
        ("a: 1\na: 2\n", "duplicate key 'a'"),
        ("a: 'open\n", "unterminated"),
    ],
)
def test_yaml_outside_the_subset_is_refused_naming_the_line(text, why):
    with pytest.raises(ProgrammingError, match=why) as info:
        parse_yaml(text, "c.yaml")
    assert "c.yaml, line" in str(info.value)


def _write_yaml(directory, text):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ".pyiceberg.yaml").write_text(text)
    return directory / ".pyiceberg.yaml"


def test_the_yaml_is_found_as_pyiceberg_finds_it(tmp_path, monkeypatch):
    home, cwd, pyhome = tmp_path / "home", tmp_path / "cwd", tmp_path / "pyhome"
    for d in (home, cwd, pyhome):
        d.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    environ = {"PYICEBERG_HOME": str(pyhome)}
    assert find_pyiceberg_yaml(environ) is None
    _write_yaml(cwd, "catalog:\n  c:\n    uri: sqlite:///cwd.db\n")
    assert find_pyiceberg_yaml(environ) == cwd / ".pyiceberg.yaml"
    _write_yaml(home, "catalog:\n  h:\n    uri: sqlite:///home.db\n")
    assert find_pyiceberg_yaml(environ) == home / ".pyiceberg.yaml"
    _write_yaml(pyhome, "catalog:\n  p:\n    uri: sqlite:///p.db\n")
    assert find_pyiceberg_yaml(environ) == pyhome / ".pyiceberg.yaml"
    assert list(pyiceberg_catalogs(environ=environ).catalogs) == ["p"]


def test_environment_variables_join_the_file_as_in_pyiceberg(tmp_path):
    path = _write_yaml(tmp_path, "CATALOG:\n  Prod:\n    URI: sqlite:///a.db\n")
    environ = {
        "PYICEBERG_CATALOG__PROD__S3__ENDPOINT": "http://x",  # __ in the key part -> .
        "PYICEBERG_CATALOG__MY_CAT__URI": "sqlite:///b.db",  # _ -> -
        "PYICEBERG_DEFAULT_CATALOG": "prod",
    }
    config = pyiceberg_catalogs(path, environ)
    assert config.catalogs == {
        "prod": {"uri": "sqlite:///a.db", "s3.endpoint": "http://x"},  # keys lowercased
        "my-cat": {"uri": "sqlite:///b.db"},
    }
    assert config.default == "prod"
    assert pyiceberg_catalogs(path, {}).default is None
    only_default = _write_yaml(tmp_path / "d", "catalog:\n  default:\n    uri: sqlite:///d.db\n")
    assert pyiceberg_catalogs(only_default, {}).default == "default"  # PyIceberg's default name


def test_pyiceberg_reads_the_same_catalogs_from_the_same_file(tmp_path):
    """PyIceberg's own ``load_catalog`` on the file icesql reads: the same catalogs with the
    same properties, and the same tables after icesql wrote to each."""
    import icesql

    yaml = textwrap.dedent(f"""\
        # two SQL catalogs sharing one database, told apart by name
        catalog:
          prod:
            uri: "sqlite:///{tmp_path}/catalog.db"
            warehouse: 'file://{tmp_path}/prod'   # quoted
          Other:
            type: sql
            uri: sqlite:///{tmp_path}/catalog.db
            warehouse: file://{tmp_path}/other
            init_catalog_tables: true
        default-catalog: other
        """)
    path = _write_yaml(tmp_path, yaml)
    ours = pyiceberg_catalogs(path, {})
    with icesql.connect(pyiceberg_config=path) as con:
        assert con.catalog.name == "other"
        con.execute("CREATE NAMESPACE prod.db")
        con.execute("CREATE TABLE prod.db.t (id INT)")
        con.execute("INSERT INTO prod.db.t VALUES (1), (2)")
        con.execute("CREATE NAMESPACE ns")
        con.execute("CREATE TABLE ns.u (id INT)")
    script = textwrap.dedent("""\
        import json
        from pyiceberg.catalog import load_catalog
        from pyiceberg.utils.config import Config
        config = Config()
        out = {"default": config.get_default_catalog_name(), "catalogs": {}}
        for name in config.get_known_catalogs():
            catalog = load_catalog(name)
            tables = [list(t) for ns in catalog.list_namespaces() for t in catalog.list_tables(ns)]
            out["catalogs"][name] = {"properties": dict(config.get_catalog_config(name)), "tables": tables}
        out["rows"] = load_catalog("prod").load_table("db.t").scan().to_arrow().num_rows
        print(json.dumps(out))
        """)
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PYICEBERG")}
    env.update(PYICEBERG_HOME=str(tmp_path), HOME=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads(proc.stdout)
    assert theirs["default"] == ours.default == "other"
    assert {n: c["properties"] for n, c in theirs["catalogs"].items()} == ours.catalogs
    assert theirs["catalogs"]["prod"]["tables"] == [["db", "t"]]
    assert theirs["catalogs"]["other"]["tables"] == [["ns", "u"]]
    assert theirs["rows"] == 2
