"""The ``icesql`` command: aligned tables, scripts from stdin, clean errors."""

import io
import subprocess
import sys

import pytest

from icesql.shell import format_table, main


def test_format_table_aligns_numbers_right_and_text_left():
    text = format_table(["id", "name"], [(1, "a"), (100, None)])
    assert text.splitlines() == [
        "+-----+------+",
        "|  id | name |",
        "+-----+------+",
        "|   1 | a    |",
        "| 100 | NULL |",
        "+-----+------+",
    ]


def test_command_option_prints_rows(tmp_path, capsys):
    assert main([str(tmp_path), "-c", "SELECT 1 AS a, 'x' AS b"]) == 0
    out = capsys.readouterr().out
    assert "| a | b |" in out and "| 1 | x |" in out and "1 row(s)" in out


def test_error_is_one_line_without_traceback(tmp_path, capsys):
    assert main([str(tmp_path), "-c", "SELECT * FROM db.missing"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: [TABLE_OR_VIEW_NOT_FOUND] The table or view `db`.`missing`")
    assert "Traceback" not in err


def test_statements_from_stdin(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("SELECT 1 AS x; SELECT 2 AS y;\n"))
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| x |" in out and "| y |" in out


def test_console_script_runs_as_a_process(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "icesql.shell", str(tmp_path), "-c", "SELECT 40 + 2 AS answer"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "| answer |" in proc.stdout and "|     42 |" in proc.stdout


def test_the_command_runs_on_the_database_opened_while_it_loaded_and_leaves_its_objects_to_the_exit(
    tmp_path,
):
    # what the console script runs; then whether the engine took the database the command
    # started, and whether the objects were frozen out of the exit's garbage collection
    code = (
        "import gc, sys; from icesql.engine import startup; from icesql.shell import command;"
        " opened = []; take = startup.take;"
        " startup.take = lambda: opened.append(take()) or opened[-1];"
        " rc = command(); print(opened[0] is not None, startup.take(),"
        " gc.get_freeze_count() > 0); sys.exit(rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), "-c", "SELECT 40 + 2 AS answer"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "|     42 |" in proc.stdout
    assert proc.stdout.rstrip().endswith("True None True")


def test_catalog_options_open_a_sql_catalog(tmp_path, capsys):
    args = [
        "--catalog",
        "jdbc",
        "--uri",
        f"sqlite:///{tmp_path}/c.db",
        "--warehouse",
        str(tmp_path / "w"),
        "--name",
        "prod",
        "-c",
        "CREATE NAMESPACE db; CREATE TABLE prod.db.t (id INT);"
        " INSERT INTO db.t VALUES (7); SELECT id FROM prod.db.t",
    ]
    assert main(args) == 0
    assert "|  7 |" in capsys.readouterr().out
    import sqlite3

    with sqlite3.connect(tmp_path / "c.db") as c:
        assert c.execute("SELECT catalog_name, table_name FROM iceberg_tables").fetchall() == [
            ("prod", "t")
        ]


def test_conf_spark_keys_join_the_spark_conf_file(tmp_path, capsys):
    conf = tmp_path / "spark-defaults.conf"
    conf.write_text(
        "spark.sql.catalog.a org.apache.iceberg.spark.SparkCatalog\n"
        "spark.sql.catalog.a.type hadoop\n"
        f"spark.sql.catalog.a.warehouse {tmp_path / 'a'}\n"
    )
    args = [
        "--spark-conf",
        str(conf),
        "--conf",
        "spark.sql.catalog.b=org.apache.iceberg.spark.SparkCatalog",
        "--conf",
        f"spark.sql.catalog.b.warehouse={tmp_path / 'b'}",
        "--conf",
        "spark.sql.defaultCatalog=b",
        "--create",
        "-c",
        "CREATE NAMESPACE db; CREATE NAMESPACE a.x; SHOW NAMESPACES IN a",
    ]
    assert main(args) == 0
    assert "| x         |" in capsys.readouterr().out
    assert (tmp_path / "b" / "db").is_dir() and (tmp_path / "a" / "x").is_dir()


def test_pyiceberg_config_and_plain_conf_properties(tmp_path, capsys):
    yaml = tmp_path / ".pyiceberg.yaml"
    yaml.write_text(
        f"catalog:\n  py:\n    uri: sqlite:///{tmp_path}/c.db\n    warehouse: {tmp_path}/w\n"
    )
    assert main(["--pyiceberg-config", str(yaml), "-c", "CREATE NAMESPACE n; SHOW NAMESPACES"]) == 0
    assert "| n         |" in capsys.readouterr().out
    # a plain --conf key is a property of the catalog of --catalog/--uri/--warehouse
    args = ["--conf", f"warehouse={tmp_path / 'p'}", "-c", "CREATE NAMESPACE q"]
    assert main([*args, "--create"]) == 0
    assert (tmp_path / "p" / "q").is_dir()


def test_bad_catalog_options_are_one_line_errors(tmp_path, capsys):
    assert main(["--catalog", "nessie", "--uri", "x", "-c", "SELECT 1"]) == 1
    assert capsys.readouterr().err.startswith(
        "error: catalog 'local': unknown catalog type 'nessie'"
    )
    assert main(["--conf", "novalue", "-c", "SELECT 1"]) == 1
    assert "--conf takes KEY=VALUE" in capsys.readouterr().err
    assert main([str(tmp_path / "a"), "--warehouse", str(tmp_path / "b"), "-c", "SELECT 1"]) == 1
    assert "two warehouses" in capsys.readouterr().err
    from icesql.engine import startup

    assert startup.take() is None  # the databases opened for them were closed


def test_engine_options_choose_where_statements_run(tmp_path, capsys):
    """``--engine auto`` below its threshold runs here and never needs Spark (EXPLAIN says
    so); Spark itself: tests/interop/test_engine_spark.py."""
    assert (
        main(
            [
                str(tmp_path),
                "--engine",
                "auto",
                "--spark",
                "local[2]",
                "-c",
                "SET icesql.engine",
                "-c",
                "EXPLAIN SELECT 1",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "| icesql.engine | auto  |" in out
    assert "local: its scans plan 0 bytes after pruning, not above" in out
    with pytest.raises(SystemExit) as exited:
        main([str(tmp_path), "--engine", "cluster", "-c", "SELECT 1"])
    assert exited.value.code == 2
    assert "invalid choice: 'cluster'" in capsys.readouterr().err


def test_help_is_plain_text_naming_every_command(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "``" not in text and ":func:" not in text  # no reStructuredText markup
    assert "icesql serve [options]" in text and "icesql serve --help" in text
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "``" not in capsys.readouterr().out


def test_a_missing_warehouse_folder_is_an_error_unless_created(tmp_path, capsys):
    typo = tmp_path / "wh-typo"
    assert main([str(typo), "-c", "SELECT * FROM db.events"]) == 1
    err = capsys.readouterr().err
    assert f"error: the warehouse folder {typo} does not exist" in err
    assert f"icesql --create {typo}" in err and not typo.exists()
    assert main([str(typo), "--create", "-c", "CREATE NAMESPACE db"]) == 0
    assert (typo / "db").is_dir()


def test_a_bare_shell_opens_a_transient_warehouse(tmp_path, monkeypatch, capsys):
    """Not the working folder (whose every subfolder would be a namespace): a warehouse of
    its own, as DuckDB's CLI opens an in-memory database, gone at exit."""
    for name in ("ICESQL_WAREHOUSE", *[k for k in __import__("os").environ if "PYICEBERG" in k]):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.pyiceberg.yaml
    monkeypatch.chdir(tmp_path)
    (tmp_path / "photos").mkdir()
    made = []
    real = __import__("tempfile").mkdtemp

    def mkdtemp(**kwargs):
        made.append(real(**kwargs))
        return made[-1]

    monkeypatch.setattr("tempfile.mkdtemp", mkdtemp)
    assert main(["-c", "CREATE NAMESPACE db; SHOW NAMESPACES"]) == 0
    out = capsys.readouterr().out
    assert "| db        |" in out and "photos" not in out
    assert len(made) == 1 and not __import__("os").path.exists(made[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photos"]


def test_health_json_equals_the_metadata_tables(tmp_path, capsys):
    import json

    import icesql

    with icesql.connect(str(tmp_path)) as con:
        con.execute(
            "CREATE TABLE db.t (id INT, p INT) USING iceberg PARTITIONED BY (p)"
            " TBLPROPERTIES ('write.delete.mode'='merge-on-read')"
        )
        for i in range(5):
            con.execute(f"INSERT INTO db.t VALUES ({i}, 0), ({i + 10}, 1)")
        con.execute("DELETE FROM db.t WHERE id = 0")
        files = con.execute(
            "SELECT count(*), sum(file_size_in_bytes) FROM db.t.files WHERE content = 0"
        ).fetchone()
        parts = dict(
            con.execute(
                "SELECT partition.p, struct(record_count, position_delete_record_count)"
                " FROM db.t.partitions"
            ).fetchall()
        )
        manifests = con.execute("SELECT count(*) FROM db.t.manifests").fetchone()
    capsys.readouterr()
    assert main(["health", "db.t", "--warehouse", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["files"]["files"], report["files"]["bytes"]) == files
    assert {
        int(p["partition"].split("=")[1]): {
            "record_count": p["records"],
            "position_delete_record_count": p["position_deleted_records"],
        }
        for p in report["partitions"]
    } == parts
    assert report["summary"]["manifests"] == manifests[0]
    # a CI check: no partition has more than 20% of its rows deleted, one problem found
    assert all(p["deleted_fraction"] <= 0.2 for p in report["partitions"])
    assert main(["health", "db.t", "--warehouse", str(tmp_path), "--check"]) == 1
    out = capsys.readouterr().out
    assert "Advice: 1 problem" in out and max(map(len, out.splitlines())) <= 80


def test_health_errors_are_one_line(tmp_path, capsys):
    assert main(["health", "db.nope", "--warehouse", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == "error: table not found: db.nope"
    assert main(["health", "db.t", "--warehouse", str(tmp_path / "missing")]) == 1
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.server  # serves the UI on a port of its own
def test_ui_serves_a_warehouse_folder(tmp_path, capsys):
    import urllib.request

    import icesql
    from icesql.shell import ui_main

    with icesql.connect(str(tmp_path)) as con:
        con.execute("CREATE TABLE db.t (id INT) USING iceberg")
        con.execute("INSERT INTO db.t VALUES (1)")
    pages = {}

    def visit(server):
        assert server.host == "127.0.0.1"
        for path in ("/", "/ui/catalogs/local/namespaces/db", "/ui/catalogs/local/tables/db/t"):
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}") as r:
                pages[path] = (r.status, r.read().decode())

    assert ui_main([str(tmp_path), "--port", "0", "--no-browser"], ready=visit) == 0
    assert pages["/"][0] == 200 and "Catalogs (1)" in pages["/"][1]  # / leads to /ui/
    namespace, table = (
        pages[f"/ui/catalogs/local/{p}"][1] for p in ("namespaces/db", "tables/db/t")
    )
    assert '<a href="/ui/catalogs/local/tables/db/t">t</a>' in namespace
    assert "Table db.t" in table and "<svg" in table
    assert "icesql ui: http://127.0.0.1:" in capsys.readouterr().err
